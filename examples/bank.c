/* examples/bank.c -- a check-then-act bug that no race detector reports.
 *
 * Every access to the balance holds the lock, so the program is free of data
 * races; Helgrind and DRD are silent.  But withdraw() is meant to be atomic
 * ("if there is enough money, take it") and the lock is dropped between the
 * check and the update: another withdrawal can slip in and the account goes
 * negative.  atomgrind reports it.
 *
 *   gcc -g -pthread bank.c -o bank && valgrind --tool=atomgrind ./bank
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <valgrind/atomgrind.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static int get_balance(void)
{
   pthread_mutex_lock(&lock);
   int b = balance;
   pthread_mutex_unlock(&lock);
   return b;
}

static void set_balance(int b)
{
   pthread_mutex_lock(&lock);
   balance = b;
   pthread_mutex_unlock(&lock);
}

static void withdraw(int amount)
{
   ATOMGRIND_ATOMIC_BEGIN();
   int b = get_balance();
   if (b >= amount) {
      usleep(100000);           /* e.g. talk to the card network */
      set_balance(b - amount);
   }
   ATOMGRIND_ATOMIC_END();
}

static void *customer(void *arg)
{
   withdraw((int)(long)arg);
   return NULL;
}

int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, customer, (void *)80L);
   pthread_create(&b, NULL, customer, (void *)70L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("final balance: %d\n", balance);
   return 0;
}
