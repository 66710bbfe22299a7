/* Bug (unannotated, fails by assertion): a reordering across two flags, in
 * the style of the reorder_N benchmarks.  The setter stores a = 1 then
 * b = -1 (and puts both back to 0); the checker expects to see both
 * stores or neither.  A preemption of the setter between its two plain
 * stores, with the checker reading both then, breaks it.  Symptom: the
 * checker's assertion. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 300

static volatile int a, b;

static void *setter(void *arg)
{
   (void)arg;
   for (int i = 0; i < ROUNDS; i++) {
      a = 1;
      b = -1;
      a = 0;
      b = 0;
   }
   return NULL;
}

static void *checker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ROUNDS; i++) {
      int ra = a, rb = b;
      assert((ra == 0 && rb == 0) || (ra == 1 && rb == -1));
   }
   return NULL;
}

int main(void)
{
   pthread_t s, c;
   pthread_create(&s, NULL, setter, NULL);
   pthread_create(&c, NULL, checker, NULL);
   pthread_join(s, NULL);
   pthread_join(c, NULL);
   printf("consistent\n");
   return 0;
}
