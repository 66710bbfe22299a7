/* Inlined atomic functions nested, recursive and left by a longjmp (issue
 * 33), single-threaded: what decides is how many regions open and that
 * every one closes (the depths at exit).  Built at -O2, where outer, inner,
 * step and jumpy are inlined (step and jumpy are always_inline).
 *
 *   nested:   outer (inlined into main) runs inner (inlined into outer), 3
 *             times: 6 inlined regions, inner nested in outer;
 *   recurse:  rec(3) runs step, inlined into rec, which calls rec again:
 *             the instances nest as calls do, 4 regions;
 *   longjmp:  jumpy, inlined into main, leaves by a longjmp: its region
 *             closes there; then main runs outer once (2 more). */
#include <setjmp.h>
#include "common.h"

static volatile int reps = 3;
static int count;
static jmp_buf env;

static int inner(int x) { return count += x; }

static int outer(int x)
{
   count++;
   return inner(x) + 1;
}

void rec(int n);

static inline __attribute__((always_inline)) void step(int n)
{
   count++;
   if (n > 0) rec(n - 1);
   count++;
}

__attribute__((noinline)) void rec(int n) { step(n); }

static inline __attribute__((always_inline)) void jumpy(void)
{
   count++;
   longjmp(env, 1);
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "nested";
   if (strcmp(mode, "nested") == 0) {
      for (int i = 0; i < reps; i++) count += outer(i);
   } else if (strcmp(mode, "recurse") == 0) {
      rec(reps);
   } else {
      if (setjmp(env) == 0) jumpy();
      count += outer(reps);
   }
   printf("%d\n", count);
   return 0;
}
