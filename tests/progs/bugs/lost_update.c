/* Bug (unannotated, fails by assertion): a lost update through plain loads
 * and stores.  Two threads add to a counter with `n = n + 1`, no lock and
 * no atomic instruction: A loads 7, B loads 7 and stores 8, A stores 8.
 * Only a preemption between one thread's load and its store (one
 * superblock at -O0) shows it.  Symptom: the assertion on the total. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 200

static long n;

static void *adder(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) n = n + 1;
   return NULL;
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
