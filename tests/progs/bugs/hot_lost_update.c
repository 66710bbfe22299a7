/* Bug (unannotated, fails by assertion): the lost update of lost_update.c
 * inside hot code.  Each thread does private work on its own buffer (code
 * the scheduler stops testing once it has run thousands of times with no
 * shared access: ag_shared.c's quiet code) and, in the same outer loop,
 * `n = n + 1` on a shared counter, whose code meets shared data at every
 * run and must keep its scheduling points.  Symptom: the assertion on the
 * total.  The process keeps to one CPU, so that natively (threads running
 * at once on two cores lose updates all the time) only a rare preemption
 * between the load and the store shows the bug, as in lost_update.c. */
#define _GNU_SOURCE
#include <assert.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 5000
#define WORK 4

static long n;

static void *adder(void *arg)
{
   (void)arg;
   int *mine = calloc(WORK, sizeof *mine);
   long sum = 0;
   for (int i = 0; i < ITERS; i++) {
      for (int j = 0; j < WORK; j++) sum += mine[j] += j;    /* private */
      n = n + 1;                                            /* shared */
   }
   free(mine);
   return (void *)sum;
}

int main(void)
{
   pthread_t a, b;
   cpu_set_t one;
   CPU_ZERO(&one);
   CPU_SET(0, &one);
   sched_setaffinity(0, sizeof one, &one);
   pthread_create(&a, NULL, adder, NULL);
   pthread_create(&b, NULL, adder, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("n = %ld of %d\n", n, 2 * ITERS);
   assert(n == 2 * ITERS);
   return 0;
}
