/* A marked region left by a longjmp, then ordinary work: the region must
 * end for the scheduler as it does for the engines (issue 29).  Main's
 * region is abandoned (a misuse, reported once); then a worker runs one
 * region at 100 ms while main sleeps, and main runs three regions of its
 * own at 300 ms, after the join.  No region overlaps another thread's
 * work, and every thread ends at depth 0: "Checked: 5 region(s), 0
 * overlapped".  Before the fix main stayed at depth 1 for the rest of its
 * life, so its three regions were nested in the abandoned one (2 regions
 * counted). */
#include <setjmp.h>
#include "common.h"

static jmp_buf env;
static int mine[3];
static int shared;
static struct timespec t0;

static __attribute__((noinline)) void abandon(void)
{
   ATOMGRIND_ATOMIC_BEGIN();
   mine[0]++;
   longjmp(env, 1);
}

static void *worker(void *arg)
{
   (void)arg;
   sleep_until(t0, 100);
   ATOMGRIND_ATOMIC_BEGIN();
   shared++;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(void)
{
   clock_gettime(CLOCK_MONOTONIC, &t0);
   if (setjmp(env) == 0) abandon();
   pthread_t w = spawn(worker, NULL);
   int seen = shared;            /* an unrelated read outside any region */
   sleep_until(t0, 300);
   pthread_join(w, NULL);
   for (int i = 0; i < 3; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      mine[i] += shared;
      ATOMGRIND_ATOMIC_END();
   }
   printf("%d %d\n", mine[0] + mine[1] + mine[2], seen);
   return 0;
}
