/* Correct: threads spin on atomic flags (outside any region) before and
 * between their locked regions.
 *
 * Each worker announces itself with an atomic increment and spins until
 * main raises `go`; main spins until every worker has announced itself.
 * The spins are plain loops with no system call: a scheduler that lets a
 * spinning thread keep the CPU forever would hang here.  The regions hold
 * the mutex throughout, so they never interleave; the flags are only
 * touched outside regions (single-event transactions).
 * Native check: the count. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 200

static int ready, go;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *worker(void *arg)
{
   (void)arg;
   __atomic_add_fetch(&ready, 1, __ATOMIC_RELEASE);
   while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
      ;                                                   /* spin */
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      count++;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < THREADS)
      ;                                                   /* spin */
   __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", count == (long)THREADS * ITERS ? "consistent" : "INCONSISTENT");
   return 0;
}
