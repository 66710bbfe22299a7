/* A bug of depth 2 for PCT's guarantee (tests/test_sched_points.py): the
 * writer holds `flag` at 1 for the middle third of its work; the reader
 * fails if it reads 1.  PCT finds it when the writer has the higher
 * priority and a change point falls in that window: about 1/2 * 1/3 of
 * runs with d = 2 if k is the run's real length, never if the change
 * points are drawn among fewer points than the window starts at.  argv[1]
 * sets the work per thread (the run's points grow with it). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static volatile int flag, work;
static int n;

static void *writer(void *arg)
{
   (void)arg;
   for (int i = 0; i < n; i++) work = work + 1;
   flag = 1;
   for (int i = 0; i < n; i++) work = work + 1;
   flag = 0;
   for (int i = 0; i < n; i++) work = work + 1;
   return NULL;
}

static void *reader(void *arg)
{
   (void)arg;
   for (int i = 0; i < n; i++) {
      assert(flag == 0);
      (void)work;
   }
   return NULL;
}

int main(int argc, char **argv)
{
   n = argc > 1 ? atoi(argv[1]) : 5;
   flag = 0;          /* touched by main first: both threads' accesses */
   work = 0;          /* to them are scheduling points from the start */
   pthread_t w, r;
   pthread_create(&w, NULL, writer, NULL);
   pthread_create(&r, NULL, reader, NULL);
   pthread_join(w, NULL);
   pthread_join(r, NULL);
   return 0;
}
