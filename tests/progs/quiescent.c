/* Accesses made while no thread is inside a region cannot be part of a
 * violation, so they are not analysed (--skip-quiescent=yes, the default).
 * Phase 1: two threads update a shared table with no region open anywhere
 * (a race, but no atomicity violation).  Phase 2: as plain_write.c, a
 * region reading table[0] is broken by the other thread's plain write.
 * One violation either way. */
#include "common.h"

#define N 1024
int table[N];

static void *bump(void *arg)
{
   (void)arg;
   for (int r = 0; r < 40; r++)
      for (int i = 0; i < N; i++) table[i] += 1;
   return NULL;
}

static void *withdraw(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   int b = table[0];
   ms_sleep(600);
   table[0] = b - 10;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *deposit(void *arg)
{
   (void)arg;
   ms_sleep(200);
   table[0] += 10;
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(bump, NULL), b = spawn(bump, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   a = spawn(withdraw, NULL);
   b = spawn(deposit, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("table[0] %d\n", table[0]);
   return 0;
}
