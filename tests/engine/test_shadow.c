/* test_shadow.c -- the dispatcher's shadow memory on its own: byte
 * granularity (words divided at access bounds), forgetting, visiting the
 * existing locations of a range, joining equal locations, the inline fast
 * path, and ranges at the edges of the address space. */
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
static void count(void *self, ag_tid t, void *loc, ag_addr a, unsigned flags)
{
   (void)self; (void)t; (void)a; (void)flags;
   ++*(long *)loc;
}
static const ag_engine_ops ops = { .name = "count", .loc_size = sizeof(long),
                                   .loc_init = init, .loc_copy = copy, .loc_fini = fini,
                                   .access = count };
/* the same, with equal counts interchangeable: the shadow joins them */
static int equal(void *self, const void *a, const void *b)
{
   (void)self;
   return *(const long *)a == *(const long *)b;
}
static const ag_engine_ops join_ops = { .name = "count-join", .loc_size = sizeof(long),
                                        .loc_init = init, .loc_copy = copy, .loc_fini = fini,
                                        .access = count, .loc_equal = equal };

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
   that byte since it was last forgotten.  With join, each access that ends
   a word asks for it to be joined (ag_shadow_join_bytes), as the engine
   dispatcher does after a byte loop's last byte: a word of eight equal
   counts becomes one location, which nothing may tell apart. */
static void random_model(ag_shadow *s, int join)
{
   enum { BASE = 0x10000, LEN = 48 };
   long ref[LEN] = { 0 };
   int live_word[LEN / 8] = { 0 };    /* has a slot: a location with state */
   unsigned long long x = 88172645463325252ull;
   for (int it = 0; it < 200000; it++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      unsigned off = (unsigned)(x % (LEN - 16)), size = 1u << ((x >> 8) % 4);
      if ((x >> 12) % 4) off &= ~(size - 1);          /* mostly aligned */
      if ((x >> 16) % 13 == 0) size = 1 + (unsigned)((x >> 20) % 15);
      if ((x >> 24) % 29 == 0) {
         ag_shadow_forget(s, BASE + off, size);
         for (unsigned b = off; b < off + size; b++) ref[b] = 0;
         for (unsigned w = (off + 7) / 8; 8 * w + 8 <= off + size; w++) live_word[w] = 0;
         continue;
      }
      if ((x >> 32) % 31 == 0) {
         /* exactly the bytes of the range with state, none outside it */
         ag_shadow_access_existing(s, BASE + off, size, 0, 0);
         for (unsigned b = off; b < off + size; b++) ref[b] += live_word[b / 8];
         continue;
      }
      for (unsigned w = off / 8; w <= (off + size - 1) / 8; w++) live_word[w] = 1;
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
      if (join && ((off + size) & 7) == 0) ag_shadow_join_bytes(s, BASE + off + size - 1);
   }
}

static long nvisited(ag_shadow *s, ag_addr a, uint64_t size)
{
   nvisits = 0;
   ag_shadow_visit(s, a, size, visit, NULL);
   return nvisits;
}

/* Joining: a byte loop leaves equal locations, which a sweep joins back
   into one once the word is cold (joinable at two sweeps in a row). */
static void joining(void)
{
   ag_shadow *s = ag_shadow_new(&join_ops, NULL);
   int live0 = live;
   for (ag_addr a = 0x5000; a < 0x5008; a++) nvisited(s, a, 1);
   CHECK(live == live0 + 8);
   uint64_t split = ag_shadow_bytes(s);
   ag_shadow_compact(s);                  /* marks the word cold */
   CHECK(live == live0 + 8 && ag_shadow_loc1(s, 0x5000, 8) == NULL);
   ag_shadow_compact(s);                  /* joins it */
   CHECK(live == live0 + 1 && ag_shadow_bytes(s) < split);
   CHECK(ag_shadow_loc1(s, 0x5000, 8) != NULL);
   CHECK(nvisited(s, 0x5000, 8) == 1 && last_count == 2);
   /* a byte access divides it again, as it was (the cuts are kept as a
      hint), each byte with the joined state */
   CHECK(nvisited(s, 0x5003, 1) == 1 && last_count == 3);
   CHECK(live == live0 + 8);
   CHECK(nvisited(s, 0x5000, 8) == 8 && vcount[0] == 3 && vcount[3] == 4);

   /* a byte loop's last byte joins the word at once, with no sweep, if its
      eight locations are equal; the cuts are kept as a hint, as above */
   for (ag_addr a = 0x5800; a < 0x5808; a++) nvisited(s, a, 1);
   uint64_t before = ag_shadow_bytes(s);
   ag_shadow_join_bytes(s, 0x5807);
   CHECK(ag_shadow_bytes(s) == before - 7 * sizeof(long));
   CHECK(ag_shadow_loc1(s, 0x5800, 8) != NULL && live == live0 + 8 + 1);
   CHECK(nvisited(s, 0x5805, 1) == 1 && last_count == 2);
   CHECK(ag_shadow_loc1(s, 0x5801, 1) != NULL && live == live0 + 8 + 8);
   /* ... not if they differ (byte 5 now has 2), nor a word in other parts */
   ag_shadow_join_bytes(s, 0x5807);
   CHECK(ag_shadow_loc1(s, 0x5800, 8) == NULL && live == live0 + 16);
   nvisited(s, 0x5900, 4); nvisited(s, 0x5904, 4);
   ag_shadow_join_bytes(s, 0x5907);
   CHECK(nvisited(s, 0x5900, 8) == 2);
   ag_shadow_join_bytes(s, 0x5a07);               /* a fresh word: nothing */
   CHECK(ag_shadow_loc1(s, 0x5a00, 8) == NULL);
   ag_shadow_forget(s, 0x5800, 0x300);
   CHECK(live == live0 + 8);

   /* unequal locations stay apart, equal neighbours are joined */
   nvisited(s, 0x6000, 4); nvisited(s, 0x6000, 4);
   nvisited(s, 0x6004, 2); nvisited(s, 0x6006, 2);
   ag_shadow_compact(s); ag_shadow_compact(s);
   CHECK(nvisited(s, 0x6000, 8) == 2 && vcount[0] == 3 && vcount[1] == 2 && vaddr[1] == 0x6004);

   /* a word divided between two sweeps is not joined at the second */
   nvisited(s, 0x7000, 4); nvisited(s, 0x7004, 4);
   ag_shadow_compact(s);
   nvisited(s, 0x7000, 2);                        /* [0,2)=2 [2,4)=1 [4,8)=1 */
   ag_shadow_compact(s);
   CHECK(nvisited(s, 0x7000, 8) == 3);
   ag_shadow_compact(s); ag_shadow_compact(s);
   CHECK(nvisited(s, 0x7000, 8) == 2);            /* [0,2)=3 [2,8)=2 */

   /* without loc_equal nothing is ever joined */
   ag_shadow *n = ag_shadow_new(&ops, NULL);
   for (ag_addr a = 0x5000; a < 0x5008; a++) nvisited(n, a, 1);
   ag_shadow_compact(n); ag_shadow_compact(n);
   CHECK(nvisited(n, 0x5000, 8) == 8);
   ag_shadow_delete(n);
   ag_shadow_delete(s);
   CHECK(live == live0);
}

/* A loop over a word's bytes (or 2-byte items) is cut into all of them
   at its second item, each taking the state of the rest of the word; a
   different second access cuts at its bounds only. */
static void loop_cut_at_once(void)
{
   ag_shadow *s = ag_shadow_new(&ops, NULL);
   int live0 = live;
   nvisited(s, 0x8000, 8); nvisited(s, 0x8000, 8);            /* count 2 */
   nvisited(s, 0x8000, 1);
   CHECK(live == live0 + 2 && ag_shadow_loc1(s, 0x8005, 1) == NULL);
   nvisited(s, 0x8001, 1);
   CHECK(live == live0 + 8 && ag_shadow_loc1(s, 0x8005, 1) != NULL);
   CHECK(nvisited(s, 0x8000, 8) == 8 && vcount[0] == 4 && vcount[1] == 4
         && vcount[2] == 3 && vcount[7] == 3);
   nvisited(s, 0x8100, 2); nvisited(s, 0x8102, 2);
   CHECK(ag_shadow_loc1(s, 0x8106, 2) != NULL && ag_shadow_loc1(s, 0x8104, 4) == NULL);
   CHECK(nvisited(s, 0x8100, 8) == 4 && vcount[0] == 2 && vcount[2] == 1);
   /* not a loop: the second byte is not the next one, a 2-byte item after
      a byte */
   nvisited(s, 0x8200, 1); nvisited(s, 0x8202, 1);
   CHECK(nvisited(s, 0x8200, 8) == 4);
   nvisited(s, 0x8300, 1); nvisited(s, 0x8301, 2);
   CHECK(nvisited(s, 0x8300, 8) == 3);
   ag_shadow_delete(s);
   CHECK(live == live0);
}

/* A deleted shadow's pages are recycled, each cleared where it was used:
   a page made afterwards, at another address, is wholly fresh. */
static void pages_recycled(void)
{
   enum { P = 1u << AG_PAGE_BITS };
   ag_shadow *a = ag_shadow_new(&ops, NULL);
   for (unsigned w = 0; w < P / 8; w += 3) {
      nvisited(a, 0x200000 + 8 * w + (w & 7), 1);       /* divided words */
      nvisited(a, 0x200000 + 8 * w, 8);
   }
   nvisited(a, 0x200000 + 8, 8);                         /* whole words */
   nvisited(a, 0x200000 + P - 8, 8);
   ag_shadow_delete(a);
   ag_shadow *b = ag_shadow_new(&ops, NULL);
   int stale = 0;
   for (ag_addr w = 0x300000; w < 0x300000 + P; w += 8)
      if (nvisited(b, w, 8) != 1 || last_count != 1) stale++;
   CHECK(stale == 0);
   ag_shadow_delete(b);
}

/* A page that a forget covers entirely is freed, and made again, fresh,
   by a later access; partly covered pages stay. */
static void pages_freed(void)
{
   enum { P = 1u << AG_PAGE_BITS };
   const ag_addr base = 0x100000;
   ag_shadow *s = ag_shadow_new(&join_ops, NULL);
   int live0 = live;
   nvisited(s, base + P - 8, P + 16);             /* the end of page 0, 1, the start of 2 */
   uint64_t three = ag_shadow_bytes(s);
   CHECK(three == 3 * sizeof(ag_page) + (P / 8 + 2) * sizeof(long));
   ag_shadow_forget(s, base + P - 4, P + 8);      /* all of page 1 only */
   CHECK(ag_shadow_bytes(s) == 2 * sizeof(ag_page) + 2 * sizeof(long) + 2 * sizeof(long));
   CHECK(ag_shadow_loc1(s, base + P + 16, 8) == NULL);
   CHECK(nvisited(s, base + P + 16, 8) == 1 && last_count == 1);    /* fresh again */
   CHECK(nvisited(s, base + P + 16, 8) == 1 && last_count == 2);
   CHECK(ag_shadow_loc1(s, base + P + 16, 8) != NULL);
   /* a range wider than the shadow (an munmap): every page found, freed */
   ag_shadow_forget(s, 0, (ag_addr)1 << 40);
   CHECK(ag_shadow_bytes(s) == 0 && live == live0);
   /* nothing visits, joins or finalises a freed page */
   ag_shadow_access_existing(s, base, 4 * P, 0, 0);
   ag_shadow_compact(s);
   ag_shadow_compact(s);
   CHECK(nvisited(s, base + P - 8, 16) == 2 && last_count == 1);
   ag_shadow_delete(s);
   CHECK(live == live0);
}

int main(void)
{
   loop_cut_at_once();
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

   random_model(s, 0);
   int live_s = live;
   ag_shadow *j = ag_shadow_new(&join_ops, NULL);
   random_model(j, 1);
   ag_shadow_delete(j);
   CHECK(live == live_s);

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

   joining();
   pages_freed();
   pages_recycled();
   /* the same model with equal locations joined before every visit, and
      at words' ends */
   ag_shadow_compact_min = 0;
   s = ag_shadow_new(&join_ops, NULL);
   random_model(s, 1);
   ag_shadow_delete(s);
   CHECK(live == 0);

   printf("test_shadow: %s\n", failed ? "FAILED" : "all passed");
   return failed != 0;
}
