/* Correct: a pthread spinlock held across each region.
 *
 * Workers move units between two counters of a struct under one spinlock
 * taken before the region's first access and released after its last;
 * regions never interleave.  Native check: the total is constant. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 300

static pthread_spinlock_t spin;
static struct { long a, b; } pool = { 500, 500 };
static int bad;

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_spin_lock(&spin);
      if (id % 2) { pool.a--; pool.b++; } else { pool.b--; pool.a++; }
      if (pool.a + pool.b != 1000) bad++;
      pthread_spin_unlock(&spin);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", bad == 0 && pool.a + pool.b == 1000 ? "consistent" : "INCONSISTENT");
   return 0;
}
