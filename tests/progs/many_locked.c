/* Locked regions in many threads: every region holds the same mutex across
 * its whole body, so the execution is serializable however it interleaves.
 * The lock word itself must never look like conflicting data. */
#include "common.h"

#define NT 8
#define ITERS 2000
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      long c = counter;
      if (i % 500 == 0) ms_sleep(5);  /* let the others queue on the lock */
      counter = c + 1;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[NT];
   for (int i = 0; i < NT; i++) t[i] = spawn(worker, NULL);
   for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
   printf("counter %ld\n", counter);
   return counter == NT * ITERS ? 0 : 1;
}
