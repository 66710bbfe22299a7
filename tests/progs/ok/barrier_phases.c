/* Correct: phases separated by a barrier; each phase's regions write only
 * the thread's own slot or only read.
 *
 * In the write phase thread i's region updates slot[i] alone; after the
 * barrier, in the read phase, every thread's region reads all slots (no
 * one writes); another barrier; repeat.  Every conflict (a write of
 * slot[i], another thread's read of it) goes from an earlier phase to a
 * later one, so no cycle can form.  Native check: every read phase sees
 * the same sums. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define PHASES 40

static pthread_barrier_t bar;
static long slot[THREADS];
static int bad[THREADS];

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int p = 1; p <= PHASES; p++) {
      ATOMGRIND_ATOMIC_BEGIN();
      slot[id] += p;
      ATOMGRIND_ATOMIC_END();
      pthread_barrier_wait(&bar);
      long sum = 0;
      ATOMGRIND_ATOMIC_BEGIN();
      for (int i = 0; i < THREADS; i++) sum += slot[i];
      ATOMGRIND_ATOMIC_END();
      if (sum != (long)THREADS * p * (p + 1) / 2) bad[id]++;
      pthread_barrier_wait(&bar);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   pthread_barrier_init(&bar, NULL, THREADS);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   int n = 0;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      n += bad[i];
   }
   printf("%s\n", n == 0 ? "consistent" : "INCONSISTENT");
   return 0;
}
