/* planted.c -- a long run with planted races, for what RPT sampling
 * (--sample=rpt) costs in detection on long runs (perf/rpt_detect.py,
 * issue 32 item 5).  Two threads do private work (each its own buffer and
 * its own lock: no order between them at all), yielding every 4
 * iterations so that they advance in step, and:
 *   - once:  both write `once_var` at the middle iteration, one time;
 *   - recur: both write `recur_var` every n/100 iterations (100 times).
 * Each planted write sits in its own function (plant_once, plant_recur)
 * so that a report names which bug it saw.
 * Argument: iterations per thread [200000]. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long once_var, recur_var;
static long work[2][512];
static pthread_mutex_t own[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static long n = 200000;

__attribute__((noinline)) static void plant_once(long id) { once_var += id + 1; }
__attribute__((noinline)) static void plant_recur(long id) { recur_var += id + 1; }

static void *worker(void *arg)
{
   long id = (long)arg, every = n / 100 > 0 ? n / 100 : 1;
   for (long i = 0; i < n; i++) {
      pthread_mutex_lock(&own[id]);                 /* private: no order */
      for (int j = 0; j < 16; j++) work[id][(i + j) & 511] += i ^ j;
      pthread_mutex_unlock(&own[id]);
      if (i == n / 2) plant_once(id);
      if (i % every == every / 2) plant_recur(id);
      if (i % 4 == 0) sched_yield();
   }
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 1) n = atol(argv[1]);
   pthread_t a, b;
   pthread_create(&a, NULL, worker, (void *)0L);
   pthread_create(&b, NULL, worker, (void *)1L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("%ld %ld\n", once_var, recur_var);
   return 0;
}
