/* The AeroDrome paper's traces rho2, rho3 and rho4 as C, every read one
 * whose value nothing uses: a load into a register that is overwritten at
 * once, as a compiler emits for `(void)y` of a volatile global.  VEX
 * deletes such a load before any tool sees the block.  The reads are
 * written in asm so that this does not depend on the compiler's register
 * choices.  Events happen at fixed times (STEP ms apart, from a start time
 * set before the threads exist), in the trace's order; each trace has one
 * atomicity violation.  Usage: paper_dead_reads rho2|rho3|rho4. */
#include <string.h>
#include <time.h>
#include "common.h"

#define STEP 250                    /* ms between events: Valgrind starts threads slowly */

static volatile int x, y, z;

/* read v and drop the value: mov from a RIP-relative global, then xor */
#define READ(v) __asm__ volatile("movl %0, %%eax\n\txorl %%eax, %%eax" : : "m"(v) : "eax", "cc")
static struct timespec t0;
static const char *trace;

static void at(int k) { sleep_until(t0, (long)k * STEP); }   /* event k's time */

static void *t1(void *arg)
{
   (void)arg;
   if (!strcmp(trace, "rho2")) {
      at(1); ATOMGRIND_ATOMIC_BEGIN();
      at(3); x = 1;
      at(6); READ(y);
      at(7); ATOMGRIND_ATOMIC_END();
   } else if (!strcmp(trace, "rho3")) {
      at(1); ATOMGRIND_ATOMIC_BEGIN();
      at(3); x = 1;
      at(5); READ(y);
      at(7); ATOMGRIND_ATOMIC_END();
   } else {
      at(1); ATOMGRIND_ATOMIC_BEGIN();
      at(2); x = 1;
      at(11); READ(z);
      at(12); ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *t2(void *arg)
{
   (void)arg;
   if (!strcmp(trace, "rho2")) {
      at(2); ATOMGRIND_ATOMIC_BEGIN();
      at(4); READ(x);
      at(5); y = 1;
      at(8); ATOMGRIND_ATOMIC_END();
   } else if (!strcmp(trace, "rho3")) {
      at(2); ATOMGRIND_ATOMIC_BEGIN();
      at(4); y = 1;
      at(6); READ(x);
      at(8); ATOMGRIND_ATOMIC_END();
   } else {
      at(3); ATOMGRIND_ATOMIC_BEGIN();
      at(4); y = 1;
      at(5); READ(x);
      at(6); ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *t3(void *arg)           /* rho4 only */
{
   (void)arg;
   at(7); ATOMGRIND_ATOMIC_BEGIN();
   at(8); READ(y);
   at(9); z = 1;
   at(10); ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(int argc, char **argv)
{
   trace = argc > 1 ? argv[1] : "rho2";
   clock_gettime(CLOCK_MONOTONIC, &t0);
   t0.tv_sec += 1;                   /* time for the threads to start */
   pthread_t a = spawn(t1, NULL), b = spawn(t2, NULL), c = 0;
   if (!strcmp(trace, "rho4")) c = spawn(t3, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (c) pthread_join(c, NULL);
   return 0;
}
