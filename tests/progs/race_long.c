/* A long run with frequent races: two threads bump a shared counter with
 * no lock, many times, yielding often so that their accesses interleave
 * closely (under Valgrind threads otherwise switch only every ~100,000
 * superblocks; run with --fair-sched=yes so that each yield hands over).
 * Argument: iterations per thread [20000]. */
#include "common.h"
#include <sched.h>

static volatile long shared_counter;
static long local_work[2][64];

static void *worker(void *arg)
{
   long id = (long)arg, n = (long)(size_t)local_work[id][63];
   for (long i = 0; i < n; i++) {
      for (int j = 0; j < 8; j++) local_work[id][j] += i ^ j;   /* private */
      shared_counter++;                                        /* racy */
      if (i % 4 == 0) sched_yield();
   }
   return NULL;
}

int main(int argc, char **argv)
{
   long n = argc > 1 ? atol(argv[1]) : 20000;
   local_work[0][63] = local_work[1][63] = n;
   pthread_t a = spawn(worker, (void *)0L), b = spawn(worker, (void *)1L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("%ld\n", shared_counter);
   return 0;
}
