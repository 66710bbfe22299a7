/* test_shadow.c -- the dispatcher's shadow memory on its own: byte
 * splitting, forgetting, and ranges at the edges of the address space. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "ag_shadow.h"
#include "ag_shim.h"

static int failed;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); failed++; } } while (0)

/* a counting engine: a location's state is its number of visits */
static int live;
static void init(void *self, void *loc) { (void)self; *(long *)loc = 0; live++; }
static void copy(void *self, void *d, const void *s) { (void)self; *(long *)d = *(const long *)s; live++; }
static void fini(void *self, void *loc) { (void)self; (void)loc; live--; }
static const ag_engine_ops ops = { .name = "count", .loc_size = sizeof(long),
                                   .loc_init = init, .loc_copy = copy, .loc_fini = fini };

static int nvisits;
static long last_count;
static void visit(void *arg, void *loc, ag_addr a)
{
   (void)arg; (void)a;
   last_count = ++*(long *)loc;
   nvisits++;
}

int main(void)
{
   ag_shadow *s = ag_shadow_new(&ops, NULL);

   /* an aligned word is one location; a partial access splits it into bytes
      that inherit the word's state */
   nvisits = 0; ag_shadow_visit(s, 0x1000, 8, visit, NULL);
   CHECK(nvisits == 1 && live == 1);
   nvisits = 0; ag_shadow_visit(s, 0x1002, 2, visit, NULL);
   CHECK(nvisits == 2 && live == 8 && last_count == 2);
   nvisits = 0; ag_shadow_visit(s, 0x1000, 8, visit, NULL);
   CHECK(nvisits == 8);
   /* an unaligned access straddles two words */
   nvisits = 0; ag_shadow_visit(s, 0x2006, 4, visit, NULL);
   CHECK(nvisits == 4);

   /* forgetting part of a word resets only those bytes */
   ag_shadow_forget(s, 0x1002, 1);
   nvisits = 0; ag_shadow_visit(s, 0x1002, 1, visit, NULL);
   CHECK(last_count == 1);
   nvisits = 0; ag_shadow_visit(s, 0x1003, 1, visit, NULL);
   CHECK(last_count == 4);

   /* the top of the address space: clamped, no wrap-around, no hang */
   nvisits = 0; ag_shadow_visit(s, ~(ag_addr)0 - 3, 8, visit, NULL);
   CHECK(nvisits == 0);
   nvisits = 0; ag_shadow_visit(s, ~(ag_addr)0 - 0x10007, 16, visit, NULL);
   CHECK(nvisits == 1);   /* the word below the clamp, then nothing */

   /* a huge forget (an munmap of the whole user space) is quick and drops all */
   clock_t t0 = clock();
   ag_shadow_forget(s, 0, (ag_addr)1 << 47);
   ag_shadow_forget(s, 0, ~(ag_addr)0);
   CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
   CHECK(live == 0);

   ag_shadow_delete(s);
   printf("test_shadow: %s\n", failed ? "FAILED" : "all passed");
   return failed != 0;
}
