/* Correct: many short-lived threads, created in waves, each running a
 * few locked regions; main reads the totals after each wave's joins.
 *
 * Every region holds the mutex throughout.  Thread stacks (and their
 * thread-local storage) are reused by later waves: a new thread's
 * accesses to a recycled stack come after the old thread's end, ordered
 * by the join.  Native check: the total. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define WAVES 8
#define PER_WAVE 6
#define ITERS 10

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;
static __thread long mine;

static void *worker(void *arg)
{
   long w = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      total += w;
      mine += w;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return (void *)mine;
}

int main(void)
{
   long want = 0, back = 0;
   for (long w = 1; w <= WAVES; w++) {
      pthread_t t[PER_WAVE];
      for (int i = 0; i < PER_WAVE; i++)
         pthread_create(&t[i], NULL, worker, (void *)w);
      for (int i = 0; i < PER_WAVE; i++) {
         void *r;
         pthread_join(t[i], &r);
         back += (long)r;
      }
      want += w * PER_WAVE * ITERS;
   }
   printf("%s\n", total == want && back == want ? "consistent" : "INCONSISTENT");
   return 0;
}
