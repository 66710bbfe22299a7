/* Correct: each thread's regions work on its own heap block.
 *
 * Every thread allocates a block at start, runs its regions on it (a
 * small histogram and a running checksum), and frees it at the end.
 * Blocks are disjoint, so regions of different threads never conflict.
 * The allocator's own bookkeeping is shared between threads in reality;
 * it is not program data and must not count.  Native check: the sums. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 300
#define WORDS 64

struct block { long sum; long hist[WORDS]; };
static long result[THREADS];

static void *worker(void *arg)
{
   long id = (long)arg;
   struct block *b = calloc(1, sizeof *b);
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      b->hist[(i * 7 + id) % WORDS] += i;
      b->sum += i;
      ATOMGRIND_ATOMIC_END();
   }
   long check = 0;
   for (int i = 0; i < WORDS; i++) check += b->hist[i];
   result[id] = check == b->sum ? b->sum : -1;
   free(b);
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   int ok = 1;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      ok &= result[i] == (long)ITERS * (ITERS - 1) / 2;
   }
   printf("%s\n", ok ? "consistent" : "INCONSISTENT");
   return 0;
}
