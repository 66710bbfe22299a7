/* The first region opens after the code it runs was translated: main
 * calls bump() before any region (no access is instrumented then), and
 * withdraw() later calls it inside a region that deposit()'s bump breaks.
 * The translations must be redone when the region opens.  One violation. */
#include "common.h"

int balance = 100;

/* *p += d, with a pause between the read and the write */
static void __attribute__((noinline)) bump(int *p, int d, int ms)
{
   int b = *p;
   if (ms) ms_sleep(ms);
   *p = b + d;
}

static void *withdraw(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   bump(&balance, -10, 600);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *deposit(void *arg)
{
   (void)arg;
   ms_sleep(200);
   bump(&balance, 10, 0);
   return NULL;
}

int main(void)
{
   for (int i = 0; i < 3; i++) bump(&balance, 0, 1);   /* translated here */
   pthread_t a = spawn(withdraw, NULL), b = spawn(deposit, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("balance %d\n", balance);
   return 0;
}
