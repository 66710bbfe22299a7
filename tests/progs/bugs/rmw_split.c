/* Bug: a read-modify-write split across two lock holds.
 *
 * Each worker adds to a shared hit counter with a getter and a setter that
 * each lock the mutex: counter_set(counter_get() + 1).  The region (the
 * whole increment) is not atomic: thread A gets 7, thread B gets 7 and
 * sets 8, A sets 8, one increment is lost.  Cycle: A's read of `hits`
 * precedes B's write (A -> B), B's write precedes A's write (B -> A).
 * Data: the global `hits`.  Native symptom: "lost" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 2
#define ITERS 400

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long hits;

static long counter_get(void)
{
   pthread_mutex_lock(&mu);
   long v = hits;
   pthread_mutex_unlock(&mu);
   return v;
}

static void counter_set(long v)
{
   pthread_mutex_lock(&mu);
   hits = v;
   pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      counter_set(counter_get() + 1);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (int i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("lost %ld\n", (long)THREADS * ITERS - hits);
   return 0;
}
