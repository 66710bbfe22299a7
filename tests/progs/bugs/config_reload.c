/* Bug: readers of a "mostly constant" configuration read two fields
 * without the lock; a rare reload changes both.
 *
 * Workers read the limits `lo` and `hi` of the current configuration at
 * the start and at the end of each request (no lock: the configuration
 * "never changes").  The reloader changes it three times during the run,
 * under a lock the readers do not take.  A request that straddles a
 * reload sees `lo` from the old configuration and `hi` from the new one.
 * Only the few requests that straddle one of the three reloads break, so
 * a schedule must preempt a worker inside a request at the right moment.
 * Interleaving: W reads lo; R writes lo and hi; W reads hi.  Cycle: W's
 * read of lo precedes R's write (W -> R), R's write of hi precedes W's
 * read (R -> W).  Data: the global struct `cfg`.
 * Native symptom: "mixed configurations" > 0. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define WORKERS 2
#define REQUESTS 300
#define RELOADS 3

static pthread_mutex_t reload_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { long lo, hi; } cfg = { 0, 100 };     /* generation g: lo = 100 g, hi = 100 g + 100 */
static int mixed[WORKERS];
static int workers_left = WORKERS;

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < REQUESTS; i++) {
      long lo, hi, acc = 0;
      ATOMGRIND_ATOMIC_BEGIN();
      lo = cfg.lo;
      for (int k = 0; k < 10; k++) acc += (lo + k) % 7;   /* the request's work */
      hi = cfg.hi;
      ATOMGRIND_ATOMIC_END();
      if (hi - lo != 100 || acc < 0) mixed[id]++;
   }
   __atomic_sub_fetch(&workers_left, 1, __ATOMIC_RELEASE);
   return NULL;
}

static void *reloader(void *arg)
{
   (void)arg;
   for (long g = 1; g <= RELOADS; g++) {
      for (int k = 0; k < 20 && __atomic_load_n(&workers_left, __ATOMIC_ACQUIRE) > 0; k++)
         sched_yield();                                   /* some time passes */
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&reload_mu);
      cfg.lo = 100 * g;
      cfg.hi = 100 * g + 100;
      pthread_mutex_unlock(&reload_mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t w[WORKERS], r;
   for (long i = 0; i < WORKERS; i++)
      pthread_create(&w[i], NULL, worker, (void *)i);
   pthread_create(&r, NULL, reloader, NULL);
   int n = 0;
   for (int i = 0; i < WORKERS; i++) {
      pthread_join(w[i], NULL);
      n += mixed[i];
   }
   pthread_join(r, NULL);
   printf("mixed configurations %d\n", n);
   return 0;
}
