/* A cycle AeroDrome finds only at the end of a region: thread U writes y,
 * T writes x, U reads x (U comes after T), T reads y -- an older value
 * of U's (T comes after U) -- so neither access sees the whole cycle, and
 * the report is made at T's end.  Events happen at fixed times (STEP ms
 * apart, from a start time set before the threads exist):
 *    1 U begin   2 U w(y)   3 T begin   4 T w(x)   5 U r(x)   6 T r(y)
 *    7 T end     8 U end */
#include <time.h>
#include "common.h"

#define STEP 250
static volatile int x, y;
static struct timespec t0;

static void at(int k) { sleep_until(t0, (long)k * STEP); }   /* event k's time */

static void *thread_t(void *arg)
{
   volatile int seen;                /* on the stack: not checked */
   (void)arg;
   at(3); ATOMGRIND_ATOMIC_BEGIN();
   at(4); x = 1;
   at(6); seen = y;
   at(7); ATOMGRIND_ATOMIC_END();
   (void)seen;
   return NULL;
}

static void *thread_u(void *arg)
{
   volatile int seen;
   (void)arg;
   at(1); ATOMGRIND_ATOMIC_BEGIN();
   at(2); y = 1;
   at(5); seen = x;
   at(8); ATOMGRIND_ATOMIC_END();
   (void)seen;
   return NULL;
}

int main(void)
{
   clock_gettime(CLOCK_MONOTONIC, &t0);
   t0.tv_sec += 1;                   /* time for the threads to start */
   pthread_t t = spawn(thread_t, NULL), u = spawn(thread_u, NULL);
   pthread_join(t, NULL);
   pthread_join(u, NULL);
   return 0;
}
