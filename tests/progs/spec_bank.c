/* No annotations: an account whose withdraw reads the balance, waits, then
 * writes it back, while another thread deposits.  Which function is
 * atomic comes from --atomic-fns / --atomic-spec.  argv[1] picks the way
 * the region is entered and left: plain, locked (correct), tail (the
 * write is in a tail-called function), longjmp (the call is left by a
 * longjmp before the deposit: clean), recurse, signal (a handler runs
 * inside the region), plt (the function is in libspecbank.so), loop (many
 * short calls, for inference), tight (many short calls without a syscall:
 * only the tool's yield at the entry interleaves them), split (the read
 * and the write each under the lock: the violation closes at a lock),
 * nested (loop's calls inside one call of teller). */
#include <setjmp.h>
#include <signal.h>
#include "common.h"

int balance = 100;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int locked;
static jmp_buf env;
static volatile int signals;

#define PAUSE 400            /* ms the region waits; the deposit comes at 150 */

extern void lib_withdraw(int *account, int amount, int pause_ms);   /* plt mode */

__attribute__((noinline)) void finish_withdraw(int seen, int amount)
{
   ms_sleep(PAUSE);
   balance = seen - amount;
}

/* the read, then a tail call: the region must last until finish returns */
__attribute__((noinline)) void withdraw_tail(int amount)
{
   int seen = balance;
   finish_withdraw(seen, amount);
}

__attribute__((noinline)) void withdraw(int amount)
{
   if (locked) pthread_mutex_lock(&mu);
   int seen = balance;
   ms_sleep(PAUSE);
   balance = seen - amount;
   if (locked) pthread_mutex_unlock(&mu);
}

/* each access under the lock, but the lock is let go in between */
__attribute__((noinline)) void withdraw_split(int amount)
{
   pthread_mutex_lock(&mu);
   int seen = balance;
   pthread_mutex_unlock(&mu);
   ms_sleep(PAUSE);
   pthread_mutex_lock(&mu);
   balance = seen - amount;
   pthread_mutex_unlock(&mu);
}

__attribute__((noinline)) void withdraw_jump(int amount)
{
   volatile int seen = balance;
   (void)seen; (void)amount;
   longjmp(env, 1);
}

/* Only the outermost call reads and writes: its region must outlive the
   inner calls' returns (which pause before they return). */
volatile int sink;
__attribute__((noinline, noipa)) void withdraw_rec(int depth, int amount, int top)
{
   int seen = top ? balance : 0;
   if (depth == 0) ms_sleep(PAUSE);
   else withdraw_rec(depth - 1, amount, 0);
   sink = depth;                 /* not a tail call */
   if (top) balance = seen - amount;
}

__attribute__((noinline)) void on_signal(int sig)
{
   (void)sig;
   signals++;
}

__attribute__((noinline)) void withdraw_sig(int amount)
{
   int seen = balance;
   raise(SIGUSR1);               /* the handler, an atomic function too, returns */
   ms_sleep(PAUSE);
   balance = seen - amount;
}

/* many short calls: withdraw_fast races, audit only reads under the lock */
__attribute__((noinline)) void withdraw_fast(int amount)
{
   int seen = balance;
   sched_yield();
   balance = seen - amount;
}

__attribute__((noinline)) int audit(void)
{
   pthread_mutex_lock(&mu);
   int b = balance;
   pthread_mutex_unlock(&mu);
   return b;
}

/* no syscall, no sleep, no lock: interleaved only if the tool makes the
   thread give way at the entry of the call */
__attribute__((noinline)) void withdraw_tight(int amount)
{
   int seen = balance;
   for (volatile int k = 0; k < 20; k++) {}
   balance = seen - amount;
}

static void *tight_looper(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3000; i++) withdraw_tight(1);
   return NULL;
}

static void *depositor(void *arg)
{
   (void)arg;
   ms_sleep(150);
   if (locked) pthread_mutex_lock(&mu);
   balance += 10;
   if (locked) pthread_mutex_unlock(&mu);
   return NULL;
}

/* nested: one call of teller, as long as its thread, holds all the
   calls of withdraw_fast and audit */
__attribute__((noinline)) void teller(int n)
{
   for (int i = 0; i < n; i++) {
      withdraw_fast(1);
      audit();
   }
}

static void *nested_looper(void *arg)
{
   (void)arg;
   teller(2000);
   return NULL;
}

static void *looper(void *arg)
{
   (void)arg;
   for (int i = 0; i < 2000; i++) {
      withdraw_fast(1);
      audit();
   }
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "plain";
   if (!strcmp(mode, "loop") || !strcmp(mode, "tight") || !strcmp(mode, "nested")) {
      void *(*fn)(void *) = !strcmp(mode, "loop") ? looper
                            : !strcmp(mode, "nested") ? nested_looper : tight_looper;
      pthread_t a = spawn(fn, NULL), b = spawn(fn, NULL);
      pthread_join(a, NULL);
      pthread_join(b, NULL);
      printf("balance %d\n", balance);
      return 0;
   }
   locked = !strcmp(mode, "locked") || !strcmp(mode, "split");
   pthread_t t = spawn(depositor, NULL);
   if (!strcmp(mode, "plain") || !strcmp(mode, "locked")) {
      withdraw(5);
   } else if (!strcmp(mode, "split")) {
      withdraw_split(5);
   } else if (!strcmp(mode, "tail")) {
      withdraw_tail(5);
   } else if (!strcmp(mode, "longjmp")) {
      if (setjmp(env) == 0) withdraw_jump(5);
      int seen = balance;          /* outside any region now */
      ms_sleep(PAUSE);
      balance = seen - 5;
   } else if (!strcmp(mode, "recurse")) {
      withdraw_rec(5, 5, 1);
   } else if (!strcmp(mode, "signal")) {
      signal(SIGUSR1, on_signal);
      withdraw_sig(5);
   } else if (!strcmp(mode, "plt")) {
      lib_withdraw(&balance, 5, PAUSE);
   } else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
   }
   pthread_join(t, NULL);
   printf("balance %d\n", balance);
   return 0;
}
