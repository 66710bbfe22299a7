/* Two calls of an inlined atomic function on one source line: a loop the
 * compiler unrolled (-O1, -O2, -O3) into two copies of one inlined call,
 * which the DWARF describes with one record.  Each call is a region of its
 * own (issue 33): the teller thread withdraws twice, at 100 ms and 400 ms
 * (each call first waits for its time: a call out of the copy, inside its
 * region), and the main thread deposits under the same lock.
 *
 *   between:  the deposit at 250 ms, between the two calls: each call
 *             locks once, so every run is serializable: clean (a region
 *             spanning both calls would report it);
 *   inside:   each call unlocks between its read and its write (waiting
 *             100 ms there), and the deposit comes at 450 ms, inside the
 *             second call: an atomicity violation;
 *   cold:     the same, with the unlocked wait on a path the compiler
 *             moves to the function's cold part (after a call of a cold
 *             function): each copy's code lies in two ranges and is one
 *             region, which the read before the jump to its cold part and
 *             the lock taken there are both in.
 * The loop bound is a constant: GCC unrolls it completely. */
#include "common.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 1000, split, cold_split, notes;
static struct timespec t0;

static __attribute__((noinline)) void wait_until(long ms) { sleep_until(t0, ms); }
static __attribute__((noinline, cold)) void note(void) { notes++; }

/* lets the lock go for 100 ms */
static __attribute__((noinline)) void pause_unlocked(long start)
{
   pthread_mutex_unlock(&lock);
   wait_until(start + 100);
   pthread_mutex_lock(&lock);
}

static void withdraw(int amt, long start)
{
   wait_until(start);
   pthread_mutex_lock(&lock);
   int b = balance;
   if (split) pause_unlocked(start);        /* check, then act: not atomic */
   if (cold_split) {                        /* the same, in the cold part */
      note();
      pause_unlocked(start);
   }
   balance = b - amt;
   pthread_mutex_unlock(&lock);
}

static void *teller(void *arg)
{
   (void)arg;
   for (int i = 0; i < 2; i++) withdraw(10, 100 + 300 * i);
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "between";
   int inside = strcmp(mode, "between") != 0;
   if (strcmp(mode, "cold") == 0) cold_split = 1;
   else split = inside;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   pthread_t t = spawn(teller, NULL);
   sleep_until(t0, inside ? 450 : 250);
   pthread_mutex_lock(&lock);
   balance += 5;
   pthread_mutex_unlock(&lock);
   pthread_join(t, NULL);
   printf("%d %d\n", balance, notes);
   return 0;
}
