/* A C++ member function the compiler inlines (issue 33): built at -O2,
 * with and without -flto, Account::withdraw is inlined into its only
 * caller and must still be a region when named by --atomic-fns.  It reads
 * the balance, waits (a call out of the inlined code), and writes it back.
 *
 *   bug: the main thread adds to the balance at 150 ms, inside the
 *        teller's withdraw (which waits until 400 ms): a violation;
 *   ok:  the main thread writes another member: clean. */
#include "common.h"

static struct timespec t0;

static __attribute__((noinline)) void wait_until(long ms) { sleep_until(t0, ms); }

namespace bank {
struct Account {
   int balance = 100;
   int other = 0;
   int withdraw(int amt)
   {
      int b = balance;
      wait_until(400);
      if (b < amt) return 0;
      balance = b - amt;
      return 1;
   }
};
}

static bank::Account account;

static void *teller(void *)
{
   account.withdraw(30);
   return nullptr;
}

int main(int argc, char **argv)
{
   bool bug = argc < 2 || strcmp(argv[1], "bug") == 0;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   pthread_t t = spawn(teller, nullptr);
   sleep_until(t0, 150);
   if (bug) account.balance += 10;    /* inside the teller's region */
   else account.other += 10;
   pthread_join(t, nullptr);
   printf("%d %d\n", account.balance, account.other);
   return 0;
}
