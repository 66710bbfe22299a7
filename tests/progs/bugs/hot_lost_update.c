/* Bug (unannotated, fails by assertion): the lost update of lost_update.c
 * inside hot code.  Each thread does private work on its own buffer (code
 * the scheduler stops testing once it has run thousands of times with no
 * shared access: ag_shared.c's quiet code) and, in the same outer loop,
 * `n = n + 1` on a shared counter, whose code meets shared data at every
 * run and must keep its scheduling points.  Symptom: the assertion on the
 * total. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 20000
#define WORK 16

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
   pthread_create(&a, NULL, adder, NULL);
   pthread_create(&b, NULL, adder, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("n = %ld of %d\n", n, 2 * ITERS);
   assert(n == 2 * ITERS);
   return 0;
}
