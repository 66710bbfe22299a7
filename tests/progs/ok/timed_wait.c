/* Correct: consumers that wait with pthread_cond_timedwait (short
 * timeouts, looping), the region after the wait.
 *
 * Consumers lock the mutex and loop on a timed wait until an item is
 * there (a timeout just loops), then open the region, take the item and
 * close it before unlocking.  The producer adds items under the mutex in
 * regions of its own.  Every region runs inside one hold of the mutex.
 * Native check: the sums. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <valgrind/atomgrind.h>

#define CONSUMERS 2
#define ITEMS 60

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long stack[ITEMS];
static int depth;
static long got[CONSUMERS];

static void *consumer(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITEMS / CONSUMERS; i++) {
      pthread_mutex_lock(&mu);
      while (depth == 0) {
         struct timespec ts;
         clock_gettime(CLOCK_REALTIME, &ts);
         ts.tv_nsec += 1000000;                        /* 1 ms */
         if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
         int rc = pthread_cond_timedwait(&cv, &mu, &ts);
         if (rc != 0 && rc != ETIMEDOUT) break;
      }
      ATOMGRIND_ATOMIC_BEGIN();
      if (depth > 0) got[id] += stack[--depth];
      ATOMGRIND_ATOMIC_END();
      pthread_mutex_unlock(&mu);
   }
   return NULL;
}

int main(void)
{
   pthread_t c[CONSUMERS];
   for (long i = 0; i < CONSUMERS; i++)
      pthread_create(&c[i], NULL, consumer, (void *)i);
   for (int i = 1; i <= ITEMS; i++) {
      pthread_mutex_lock(&mu);
      ATOMGRIND_ATOMIC_BEGIN();
      stack[depth++] = i;
      ATOMGRIND_ATOMIC_END();
      pthread_cond_signal(&cv);
      pthread_mutex_unlock(&mu);
      if (i % 10 == 0) {
         struct timespec ts = { 0, 1000000 };
         nanosleep(&ts, NULL);
      }
   }
   long sum = 0;
   for (int i = 0; i < CONSUMERS; i++) {
      pthread_join(c[i], NULL);
      sum += got[i];
   }
   printf("%s\n", sum == (long)ITEMS * (ITEMS + 1) / 2 ? "consistent" : "INCONSISTENT");
   return 0;
}
