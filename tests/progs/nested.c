/* Nested regions: only the outermost pair counts.  The inner region ends
 * before the second access, but the outer one is still open, so the
 * interleaved write breaks it: one violation, whose region began at the
 * outer BEGIN. */
#include "common.h"

int x;

static void inner(void)
{
   ATOMGRIND_ATOMIC_BEGIN();          /* inner */
   x = x + 1;
   ATOMGRIND_ATOMIC_END();
}

static void *outer(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();          /* outer */
   inner();
   ms_sleep(600);
   x = x * 2;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *other(void *arg)
{
   (void)arg;
   ms_sleep(200);
   x = 100;
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(outer, NULL), b = spawn(other, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("x %d\n", x);
   return 0;
}
