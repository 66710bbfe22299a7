/* main starts a checker and returns at once, as SCTBench's token_ring_bad
 * and account_bad do: natively the checker runs while exit() does its
 * work.  The checker formats a long report (thousands of short budgets
 * of the scheduler's early run) and then aborts, as a failed assertion
 * does: exit status 134 whenever the exit waited for it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile size_t sink;

static void *checker(void *arg)
{
   char line[128];
   (void)arg;
   for (int i = 0; i < 400; i++)
      sink += (size_t)snprintf(line, sizeof line, "check %d: %s %x %f", i, "state", i * 7, i / 3.0);
   abort();
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, checker, NULL);
   return 0;
}
