/* regions.c -- a region-heavy workload for perf/sched_cost.py: T threads
 * each run N short atomic regions (a locked update of one of B shared
 * counters, two-phase: correct) with a little thread-local work between
 * them.  The scheduler's cost per region shows here.
 *
 *   regions [-t THREADS] [-n REGIONS] [-b BUCKETS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "atomgrind.h"

static int T = 4, N = 20000, B = 8;
static pthread_mutex_t *locks;
static long *counts;

static void *worker(void *arg)
{
   unsigned x = (unsigned)(long)arg * 2654435761u + 1;
   long local = 0;
   for (int i = 0; i < N; i++) {
      x = x * 1103515245u + 12345u;
      int b = (int)(x >> 16) % B;
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&locks[b]);
      counts[b]++;
      pthread_mutex_unlock(&locks[b]);
      ATOMGRIND_ATOMIC_END();
      for (int k = 0; k < 20; k++) local += (x >> k) & 1;
   }
   return (void *)local;
}

int main(int argc, char **argv)
{
   int c;
   while ((c = getopt(argc, argv, "t:n:b:")) != -1) {
      if (c == 't') T = atoi(optarg);
      else if (c == 'n') N = atoi(optarg);
      else if (c == 'b') B = atoi(optarg);
      else return 2;
   }
   locks = calloc(B, sizeof *locks);
   counts = calloc(B, sizeof *counts);
   for (int i = 0; i < B; i++) pthread_mutex_init(&locks[i], NULL);
   pthread_t *t = calloc(T, sizeof *t);
   for (long i = 0; i < T; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < T; i++) pthread_join(t[i], NULL);
   long sum = 0;
   for (int i = 0; i < B; i++) sum += counts[i];
   printf("%ld regions\n", sum);
   return sum == (long)T * N ? 0 : 1;
}
