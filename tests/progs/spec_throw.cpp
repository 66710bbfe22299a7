// C++: a region left by an exception.  argv[1]: spec (withdraw_throw is
// named by --atomic-fns), marker (BEGIN, then a throw before the END: a
// misuse), scope (ATOMGRIND_ATOMIC_SCOPE: the region ends with the scope).
// In each, main then reads, waits while another thread deposits, and
// writes -- outside any region, so nothing is a violation.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdexcept>
#include "atomgrind.h"

int balance = 100;

static void ms_sleep(int ms)
{
   struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
   while (nanosleep(&ts, &ts) != 0) {}
}

__attribute__((noinline)) void withdraw_throw(int amount)
{
   int seen = balance;
   if (seen >= amount) throw std::runtime_error("refused");
   balance = seen - amount;
}

__attribute__((noinline)) void withdraw_marked(int amount)
{
   ATOMGRIND_ATOMIC_BEGIN();
   int seen = balance;
   if (seen >= amount) throw std::runtime_error("refused");
   balance = seen - amount;
   ATOMGRIND_ATOMIC_END();
}

__attribute__((noinline)) void withdraw_scoped(int amount)
{
   ATOMGRIND_ATOMIC_SCOPE();
   int seen = balance;
   if (seen >= amount) throw std::runtime_error("refused");
   balance = seen - amount;
}

static void *depositor(void *)
{
   ms_sleep(150);
   balance += 10;
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "spec";
   pthread_t t;
   pthread_create(&t, NULL, depositor, NULL);
   try {
      if (!strcmp(mode, "spec")) withdraw_throw(5);
      else if (!strcmp(mode, "marker")) withdraw_marked(5);
      else withdraw_scoped(5);
   } catch (const std::exception &) {
   }
   int seen = balance;
   ms_sleep(400);
   balance = seen - 1;
   pthread_join(t, NULL);
   printf("balance %d\n", balance);
   return 0;
}
