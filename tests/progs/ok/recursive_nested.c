/* Correct: nested regions under a recursive mutex held by the outer one.
 *
 * update() opens a region and locks a recursive mutex; it calls helpers
 * that open inner regions and lock the same mutex again.  Only the
 * outermost region counts, and the mutex is held from before its first
 * shared access to after its last, so regions never interleave.
 * Native check: total == 2 * moved. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 250

static pthread_mutex_t mu;
static long moved, total;

static void add_total(long v)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   total += v;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
}

static void update(void)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   moved++;
   add_total(1);
   add_total(1);
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) update();
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
   pthread_mutex_init(&mu, &a);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", total == 2 * moved && moved == THREADS * ITERS ? "consistent" : "INCONSISTENT");
   return 0;
}
