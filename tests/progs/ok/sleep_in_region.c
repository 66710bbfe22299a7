/* Correct: regions that block in system calls (nanosleep) while holding
 * the lock that protects their data.
 *
 * Each region locks the mutex, updates a pair of counters with a short
 * sleep between the two updates, and unlocks.  The other threads block on
 * the mutex meanwhile: nothing can interleave the region.  A scheduler
 * must let a thread that sleeps (or waits for the lock) lose its turn
 * without hanging.  Native check: the pair stays equal. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 12

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long a, b;
static int bad;

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      struct timespec ts = { 0, 2000000 };          /* 2 ms */
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      a++;
      nanosleep(&ts, NULL);
      b++;
      if (a != b) bad++;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
      nanosleep(&ts, NULL);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", bad == 0 && a == THREADS * ITERS && a == b ? "consistent" : "INCONSISTENT");
   return 0;
}
