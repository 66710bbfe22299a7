/* main's region reads and writes a variable on its own stack; a helper
 * thread, given a pointer, writes it in between.  By default accesses to a
 * thread's own stack are not checked (no report); with
 * --check-stack-var=yes the violation is reported. */
#include "common.h"

static void *poke(void *arg)
{
   ms_sleep(200);
   *(volatile int *)arg = 42;
   return NULL;
}

int main(void)
{
   volatile int local = 1;
   pthread_t t = spawn(poke, (void *)&local);
   ATOMGRIND_ATOMIC_BEGIN();
   int v = local;
   ms_sleep(600);
   local = v + 1;
   ATOMGRIND_ATOMIC_END();
   pthread_join(t, NULL);
   printf("%d\n", local);
   return 0;
}
