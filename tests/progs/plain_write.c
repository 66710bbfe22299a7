/* A region broken only by a plain, unannotated write of another thread:
 * withdraw() reads the balance, sleeps, writes it back; meanwhile
 * deposit() (no region, no lock) updates it.  One violation. */
#include "common.h"

int balance = 100;

static void *withdraw(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   int b = balance;
   ms_sleep(600);
   balance = b - 10;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *deposit(void *arg)
{
   (void)arg;
   ms_sleep(200);
   balance += 10;
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(withdraw, NULL), b = spawn(deposit, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("balance %d\n", balance);
   return 0;
}
