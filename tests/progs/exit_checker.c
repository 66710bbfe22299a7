/* main starts a checker and returns at once, as SCTBench's token_ring_bad
 * and account_bad do: natively the checker runs while exit() does its
 * work.  The checker formats a long report (thousands of short budgets
 * of the scheduler's early run; argument: its lines, 400) and then
 * aborts, as a failed assertion does: exit status 134 whenever the exit
 * waited for it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile size_t sink;

static int lines = 400;

static void *checker(void *arg)
{
   char line[128];
   (void)arg;
   for (int i = 0; i < lines; i++)
      sink += (size_t)snprintf(line, sizeof line, "check %d: %s %x %f", i, "state", i * 7, i / 3.0);
   abort();
}

int main(int argc, char **argv)
{
   pthread_t t;
   if (argc > 1) lines = atoi(argv[1]);
   pthread_create(&t, NULL, checker, NULL);
   return 0;
}
