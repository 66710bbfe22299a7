/* The seed repeats although a thread loops without a scheduling point
 * (tests/test_sched_points.py): the writer computes on its own data for
 * long stretches (no point there) between stores to x; the reader's
 * regions read x twice and are broken when a store lands between.  The
 * writer loses the turn after a count of its instructions, not after a
 * time, so the same seed gives the same interleaving and reports. */
#include <pthread.h>
#include <stdio.h>
#include "atomgrind.h"

static volatile long x;
static long sink[2];

static void *writer(void *arg)
{
   (void)arg;
   for (int i = 0; i < 20; i++) {
      long s = 0;
      for (long j = 0; j < 20000; j++) s += j * j;   /* no point in here */
      sink[0] = s;
      x = i;
   }
   return NULL;
}

static void *reader(void *arg)
{
   (void)arg;
   long seen = 0;
   for (int i = 0; i < 200; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      long a = x;
      for (long j = 0; j < 200; j++) seen += j;
      long b = x;
      ATOMGRIND_ATOMIC_END();
      seen += a != b;
   }
   sink[1] = seen;
   return NULL;
}

int main(void)
{
   pthread_t w, r;
   x = 0;
   pthread_create(&w, NULL, writer, NULL);
   pthread_create(&r, NULL, reader, NULL);
   pthread_join(w, NULL);
   pthread_join(r, NULL);
   printf("done\n");
   return 0;
}
