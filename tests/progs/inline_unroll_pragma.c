/* A loop of calls of an inlined atomic function that the compiler unrolls
 * four times (#pragma GCC unroll, a trip count known only at run time:
 * the copies are entered in the middle too), and a second thread that
 * deposits under the same lock.  Each withdraw locks once: every run is
 * serializable, at every seed.  The unrolled copies of the one call
 * share one DWARF record; each call must still be a region of its own
 * (issue 33): 7 calls, 7 regions. */
#include "common.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 1000, rounds;

static void withdraw(int amt)
{
   pthread_mutex_lock(&lock);
   int b = balance;
   balance = b - amt;
   pthread_mutex_unlock(&lock);
}

static void *teller(void *arg)
{
   (void)arg;
#pragma GCC unroll 4
   for (int i = 0; i < rounds; i++) withdraw(1);
   return NULL;
}

int main(int argc, char **argv)
{
   rounds = argc > 1 ? atoi(argv[1]) : 7;
   pthread_t t = spawn(teller, NULL);
   for (int i = 0; i < 50; i++) {
      pthread_mutex_lock(&lock);
      balance += 1;
      pthread_mutex_unlock(&lock);
   }
   pthread_join(t, NULL);
   printf("%d\n", balance);
   return 0;
}
