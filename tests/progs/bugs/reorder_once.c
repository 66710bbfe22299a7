/* Bug (unannotated, fails by assertion): SCTBench's reorder_N shape.  Each
 * setter stores a = 1 then b = -1 once; the checker, created after them,
 * expects both stores or neither.  It fails only if it reads between one
 * setter's two stores, but a new thread usually runs to its end before
 * its creator makes the next one: the checker finds every setter done.
 * Race-directed postponement (a setter stopped at a store learned to
 * race, until the checker comes) makes it fail.  Symptom: the assertion. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define SETTERS 2

static int a, b;

static void *setter(void *arg)
{
   (void)arg;
   a = 1;
   b = -1;
   return NULL;
}

static void *checker(void *arg)
{
   (void)arg;
   int ra = a, rb = b;
   assert((ra == 0 && rb == 0) || (ra == 1 && rb == -1));
   return NULL;
}

int main(void)
{
   pthread_t s[SETTERS], c;
   for (int i = 0; i < SETTERS; i++) pthread_create(&s[i], NULL, setter, NULL);
   pthread_create(&c, NULL, checker, NULL);
   for (int i = 0; i < SETTERS; i++) pthread_join(s[i], NULL);
   pthread_join(c, NULL);
   printf("consistent\n");
   return 0;
}
