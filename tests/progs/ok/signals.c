/* Correct: threads interrupted by signals, inside and outside their
 * regions; the handler touches only the interrupted thread's own
 * thread-local counter.
 *
 * main sends SIGUSR1 to the workers with pthread_kill while they run
 * locked regions.  A handler that runs inside a region adds its accesses
 * to that region, but it writes only a __thread variable, which no other
 * thread touches; the regions hold the mutex throughout.  A scheduler
 * must deliver the signals and not hang on a thread that is handling one.
 * Native check: the count. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <valgrind/atomgrind.h>

#define THREADS 2
#define ITERS 300
#define KICKS 20

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count;
static __thread volatile sig_atomic_t kicked;
static int running;

static void on_usr1(int sig)
{
   (void)sig;
   kicked++;
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      count++;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   __atomic_sub_fetch(&running, 1, __ATOMIC_RELEASE);
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   struct sigaction sa = { 0 };
   sa.sa_handler = on_usr1;
   sigemptyset(&sa.sa_mask);
   sigaction(SIGUSR1, &sa, NULL);
   running = THREADS;
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int k = 0; k < KICKS && __atomic_load_n(&running, __ATOMIC_ACQUIRE) == THREADS; k++) {
      for (int i = 0; i < THREADS; i++)
         pthread_kill(t[i], SIGUSR1);
      struct timespec ts = { 0, 500000 };
      nanosleep(&ts, NULL);
   }
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", count == (long)THREADS * ITERS ? "consistent" : "INCONSISTENT");
   return 0;
}
