/* Atomic functions the compiler inlines (issue 33): built at -O2 and -O3,
 * withdraw and audit are inlined into their callers (static, called once),
 * deposit is always_inline; each is named atomic by --atomic-fns or
 * --atomic-spec and must still be a region.  withdraw and deposit read
 * the balance, wait (a call out of the inlined code: the region stays
 * open), and write it back.
 *
 *   bug:     a second thread adds to the balance at 150 ms, inside the
 *            first thread's withdraw (which waits until 400 ms):
 *            an atomicity violation, reported every run;
 *   bug_ai:  the same inside deposit (always_inline);
 *   ok:      the second thread writes another variable: clean;
 *   ok_ai:   the same with deposit.
 * never_called is defined and never called (the exit names it). */
#include "common.h"

static int balance = 100;
static int other;
static int bug, ai;
static struct timespec t0;

static __attribute__((noinline)) void wait_until(long ms) { sleep_until(t0, ms); }

/* not inlined anywhere: nothing calls it */
__attribute__((noinline, used)) int never_called(int x) { return x + balance; }

static int audit(int b) { return b >= 0; }   /* nested in withdraw */

static int withdraw(int amt)
{
   int b = balance;
   wait_until(400);
   if (!audit(b - amt)) return 0;
   balance = b - amt;
   return 1;
}

static inline __attribute__((always_inline)) void deposit(int amt)
{
   int b = balance;
   wait_until(400);
   balance = b + amt;
}

/* one thread function each: the compiler would share their loads */
static void *teller(void *arg)
{
   (void)arg;
   withdraw(30);
   return NULL;
}

static void *teller_ai(void *arg)
{
   (void)arg;
   deposit(5);
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "bug";
   bug = strncmp(mode, "bug", 3) == 0;
   ai = strstr(mode, "_ai") != NULL;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   pthread_t t = spawn(ai ? teller_ai : teller, NULL);
   sleep_until(t0, 150);
   if (bug) balance += 10;       /* inside the teller's region */
   else other += 10;
   pthread_join(t, NULL);
   printf("%d %d\n", balance, other);
   return 0;
}
