/* test_shadow.c -- the dispatcher's shadow memory on its own: byte
 * granularity (words divided at access bounds), forgetting, the inline
 * fast path, and ranges at the edges of the address space. */
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
static ag_addr vaddr[16];
static long vcount[16];
static void visit(void *arg, void *loc, ag_addr a)
{
   (void)arg;
   last_count = ++*(long *)loc;
   if (nvisits < 16) { vaddr[nvisits] = a; vcount[nvisits] = last_count; }
   nvisits++;
}

/* Random accesses and forgets over a few words against a byte-level model:
   every byte's location must have seen exactly the accesses that covered
   that byte since it was last forgotten. */
static void random_model(ag_shadow *s)
{
   enum { BASE = 0x10000, LEN = 48 };
   long ref[LEN] = { 0 };
   unsigned long long x = 88172645463325252ull;
   for (int it = 0; it < 200000; it++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      unsigned off = (unsigned)(x % (LEN - 16)), size = 1u << ((x >> 8) % 4);
      if ((x >> 12) % 4) off &= ~(size - 1);          /* mostly aligned */
      if ((x >> 16) % 13 == 0) size = 1 + (unsigned)((x >> 20) % 15);
      if ((x >> 24) % 29 == 0) {
         ag_shadow_forget(s, BASE + off, size);
         for (unsigned b = off; b < off + size; b++) ref[b] = 0;
         continue;
      }
      nvisits = 0;
      ag_shadow_visit(s, BASE + off, size, visit, NULL);
      CHECK(nvisits <= 16);
      for (unsigned b = off; b < off + size; b++) {
         ref[b]++;
         int j = -1;     /* the visited location holding byte b */
         for (int k = 0; k < nvisits && k < 16; k++)
            if (vaddr[k] <= BASE + b) j = k;
         CHECK(j >= 0 && vcount[j] == ref[b]);
         if (j < 0 || vcount[j] != ref[b]) return;
      }
      if (nvisits == 1 && size <= 8 && (off & 7) + size <= 8)
         CHECK(ag_shadow_loc1(s, BASE + off, size) != NULL);
   }
}

int main(void)
{
   ag_shadow *s = ag_shadow_new(&ops, NULL);

   /* an aligned word is one location; a partial access divides it at the
      access's bounds, the parts inheriting the word's state */
   nvisits = 0; ag_shadow_visit(s, 0x1000, 8, visit, NULL);
   CHECK(nvisits == 1 && live == 1);
   nvisits = 0; ag_shadow_visit(s, 0x1002, 2, visit, NULL);
   CHECK(nvisits == 1 && live == 3 && last_count == 2);   /* [0,2) [2,4) [4,8) */
   nvisits = 0; ag_shadow_visit(s, 0x1000, 8, visit, NULL);
   CHECK(nvisits == 3);
   /* an unaligned access straddles two words: one location in each */
   nvisits = 0; ag_shadow_visit(s, 0x2006, 4, visit, NULL);
   CHECK(nvisits == 2);
   nvisits = 0; ag_shadow_visit(s, 0x2007, 1, visit, NULL);
   CHECK(nvisits == 1 && last_count == 2);

   /* bytes stay apart: adjacent chars, ints of an int array */
   nvisits = 0; ag_shadow_visit(s, 0x3000, 1, visit, NULL);
   ag_shadow_visit(s, 0x3001, 1, visit, NULL);
   CHECK(nvisits == 2 && last_count == 1);
   ag_shadow_visit(s, 0x3008, 4, visit, NULL);
   ag_shadow_visit(s, 0x300c, 4, visit, NULL);
   ag_shadow_visit(s, 0x300c, 4, visit, NULL);
   CHECK(last_count == 2);
   nvisits = 0; ag_shadow_visit(s, 0x3008, 4, visit, NULL);
   CHECK(nvisits == 1 && last_count == 2);

   /* the inline fast path finds exactly the existing locations */
   CHECK(ag_shadow_loc1(s, 0x1002, 2) != NULL);
   CHECK(ag_shadow_loc1(s, 0x1002, 1) == NULL);    /* would divide [2,4) */
   CHECK(ag_shadow_loc1(s, 0x1000, 8) == NULL);    /* several locations */
   CHECK(ag_shadow_loc1(s, 0x300c, 4) != NULL);
   CHECK(ag_shadow_loc1(s, 0x4000, 8) == NULL);    /* fresh */
   CHECK(ag_shadow_loc1(s, 0x3006, 4) == NULL);    /* straddles */
   ag_shadow_visit(s, 0x4000, 8, visit, NULL);
   CHECK(ag_shadow_loc1(s, 0x4000, 8) != NULL);
   CHECK(ag_shadow_loc1(s, ~(ag_addr)0 - 7, 8) == NULL);

   /* forgetting part of a word resets only those bytes */
   ag_shadow_forget(s, 0x1002, 1);
   nvisits = 0; ag_shadow_visit(s, 0x1002, 1, visit, NULL);
   CHECK(last_count == 1);
   nvisits = 0; ag_shadow_visit(s, 0x1003, 1, visit, NULL);
   CHECK(last_count == 4);
   /* ... and they become one fresh location */
   ag_shadow_forget(s, 0x1000, 4);
   nvisits = 0; ag_shadow_visit(s, 0x1000, 4, visit, NULL);
   CHECK(nvisits == 1 && last_count == 1);

   random_model(s);

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
