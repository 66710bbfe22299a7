/* Correct: each thread updates only its own slot of shared arrays and of
 * a packed struct (adjacent bytes of one word).
 *
 * Locations are bytes: thread i's regions touch only hits[i], bytes[i]
 * and its own field of `packed`, so regions of different threads never
 * touch a common byte, never conflict, and every interleaving is
 * serializable.  main reads all slots after the joins.
 * Native check: the sums are exact. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 4
#define ITERS 250

static long hits[THREADS];
static unsigned char bytes[THREADS];            /* four threads share one word */
static struct { unsigned char a, b; unsigned short c; } packed;

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      hits[id] += 1;
      bytes[id] = (unsigned char)(bytes[id] + 1);
      switch (id) {
      case 0: packed.a++; break;
      case 1: packed.b++; break;
      case 2: packed.c++; break;
      default: break;
      }
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   long sum = 0;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      sum += hits[i] + bytes[i];
   }
   int ok = sum == (long)THREADS * (ITERS + ITERS % 256) &&
            packed.a == ITERS % 256 && packed.b == ITERS % 256 && packed.c == ITERS;
   printf("%s\n", ok ? "consistent" : "INCONSISTENT");
   return 0;
}
