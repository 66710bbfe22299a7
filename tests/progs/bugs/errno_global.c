/* Bug: an errno-style global error code.
 *
 * parse_num() returns -1 on failure and leaves the reason in the global
 * `last_error`; the caller reads `last_error` right after the call.  The
 * pair "call, then read the reason" is meant to be atomic, but another
 * thread's failing call can overwrite the code in between, so a thread
 * reports another thread's error.  Interleaving: A fails and writes
 * last_error = EA; B fails and writes EB; A reads EB.  Cycle: A's write
 * precedes B's write (A -> B), B's write precedes A's read (B -> A).
 * Data: the global `last_error`.  Native symptom: "wrong reasons" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 300

static int last_error;                    /* like errno, but one for everybody */

static int parse_num(const char *s, int reason_if_bad)
{
   int v = 0;
   for (; *s; s++) {
      if (*s < '0' || *s > '9') {
         last_error = reason_if_bad;
         return -1;
      }
      v = v * 10 + (*s - '0');
   }
   last_error = 0;
   return v;
}

static void *worker(void *arg)
{
   long id = (long)arg;
   int wrong = 0;
   const char *inputs[2] = { "12345", "12x45" };
   for (int i = 0; i < ITERS; i++) {
      const char *in = inputs[(i + id) % 2];
      int reason;
      ATOMGRIND_ATOMIC_BEGIN();
      int v = parse_num(in, 100 + (int)id);
      reason = v < 0 ? last_error : 0;
      ATOMGRIND_ATOMIC_END();
      if (v < 0 && reason != 100 + id) wrong++;
   }
   return (void *)(long)wrong;
}

int main(void)
{
   pthread_t t[THREADS];
   long wrong = 0;
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++) {
      void *r;
      pthread_join(t[i], &r);
      wrong += (long)r;
   }
   printf("wrong reasons %ld\n", wrong);
   return 0;
}
