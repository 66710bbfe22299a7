/* test_hbtags.c -- happens-before between thread tags
 * (atomgrind/engine/ag_hbtags.c): hand-overs through a lock and a join
 * are ordered, accesses after the release or with no edge are not,
 * an old stamp whose low byte came round again errs towards "not
 * ordered", and random traces agree with a reference that follows the
 * edges of the event graph (reachability), never claiming an order it
 * does not have.  Built with either mutation below, it must fail
 * (tests/test_hbtags.py). */
#include <stdio.h>
#include <string.h>
#include "ag_hbtags.h"

/* Two mutations the checks must catch (tests/test_hbtags.py): acquires
   that are lost (orders missed), and every release handed to everyone at
   once (orders claimed that the program does not have). */
static void acquire(ag_hbt *h, unsigned t, uint64_t o)
{
#ifndef HBT_LOST_ACQUIRE
   ag_hbt_acquire(h, t, o);
#else
   (void)h; (void)t; (void)o;
#endif
}

static void release(ag_hbt *h, unsigned t, uint64_t o)
{
   ag_hbt_release(h, t, o);
#ifdef HBT_EXTRA_ORDER
   for (unsigned u = 1; u <= 4; u++) ag_hbt_acquire(h, u, o);
#endif
}

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
   fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
   fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define L 0x1000

static uint8_t stamp(ag_hbt *h, unsigned t) { return (uint8_t)ag_hbt_clock(h, t); }

static void handover(void)
{
   ag_hbt *h = ag_hbt_new();
   uint8_t before = stamp(h, 1);          /* 1 writes, then releases L */
   release(h, 1, L);
   uint8_t after = stamp(h, 1);           /* 1 writes again, after its release */
   CHECK(!ag_hbt_ordered(h, 2, 1, before), "ordered before 2 acquired");
   acquire(h, 2, L);
   CHECK(ag_hbt_ordered(h, 2, 1, before), "the write before the release: not handed over");
   CHECK(!ag_hbt_ordered(h, 2, 1, after), "the write after the release: ordered");
   CHECK(!ag_hbt_ordered(h, 3, 1, before), "3 never acquired, but ordered");
   CHECK(!ag_hbt_ordered(h, 1, 1, before), "a thread with itself");
   ag_hbt_delete(h);
}

static void join(void)
{
   ag_hbt *h = ag_hbt_new();
   uint8_t child = stamp(h, 2);
   CHECK(!ag_hbt_ordered(h, 1, 2, child), "the child's work before the join: ordered");
   ag_hbt_join(h, 1, 2);
   CHECK(ag_hbt_ordered(h, 1, 2, child), "the child's work after the join: not ordered");
   /* transitivity: 3 takes a lock 1 released after the join */
   release(h, 1, L);
   acquire(h, 3, L);
   CHECK(ag_hbt_ordered(h, 3, 2, child), "not transitive through the join and a lock");
   ag_hbt_start(h, 2);                     /* a later thread takes tag 2 */
   CHECK(!ag_hbt_ordered(h, 1, 2, stamp(h, 2)), "a new thread of a joined tag taken as known");
   ag_hbt_delete(h);
}

static void wrap(void)
{
   ag_hbt *h = ag_hbt_new();
   release(h, 1, L);
   uint8_t old = stamp(h, 1);
   release(h, 1, L + 8);                  /* 2 acquires L: knows 1 up to old */
   acquire(h, 2, L);
   CHECK(!ag_hbt_ordered(h, 2, 1, old), "L's clock should not cover this stamp yet");
   acquire(h, 2, L + 8);
   CHECK(ag_hbt_ordered(h, 2, 1, old), "a stamp of 1 before its release of L+8");
   for (int i = 0; i < 256; i++) release(h, 1, L + 16);
   /* 1's clock came round to old's low byte again: the stamp may be the
      new one, after everything 2 knows -- not ordered */
   CHECK(!ag_hbt_ordered(h, 2, 1, old), "a stamp 256 clocks old taken as ordered");
   ag_hbt_delete(h);
}

/* ---- random traces against the event graph ---- */

#define NT 4
#define NO 3
#define NE 160

typedef struct { int thread, prev, from, obj; } node;   /* from: a second predecessor */
static node ev[NE];
static int nev, last[NT + 1];
static int rel_of[NO][NE], nrel[NO];

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static unsigned rnd(unsigned n) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)(rng % n); }

static int add(int t, int from)
{
   ev[nev] = (node){ t, last[t], from, 0 };
   last[t] = nev;
   return nev++;
}

/* does event a reach event b (a before b in happens-before)? */
static int reaches(int a, int b)
{
   static char seen[NE];
   int stack[NE], sp = 0;
   memset(seen, 0, sizeof seen);
   stack[sp++] = b;
   while (sp) {
      int x = stack[--sp];
      if (x == a) return 1;
      if (x < 0 || seen[x]) continue;
      seen[x] = 1;
      if (ev[x].prev >= 0) stack[sp++] = ev[x].prev;
      if (ev[x].from >= 0) stack[sp++] = ev[x].from;
      if (ev[x].from == -2) {            /* an acquire: every earlier release of its object */
         int o = ev[x].obj;
         for (int i = 0; i < nrel[o]; i++) if (rel_of[o][i] < x) stack[sp++] = rel_of[o][i];
      }
   }
   return 0;
}

static void random_traces(void)
{
   int exact = 0, old = 0;
   for (int round = 0; round < 100; round++) {
      ag_hbt *h = ag_hbt_new();
      nev = 0;
      memset(nrel, 0, sizeof nrel);
      int acc[NE], acc_t[NE], nacc = 0;
      uint32_t acc_clock[NE];
      int alive[NT + 1] = { 0, 1 };
      for (int t = 0; t <= NT; t++) last[t] = -1;
      add(1, -1);
      while (nev < NE - 2) {
         unsigned t = 1 + rnd(NT), o = rnd(NO);
         if (!alive[t]) {                  /* created: no edge (ag_hbtags.h) */
            if (rnd(3)) continue;
            alive[t] = 1;
            add((int)t, -1);
            ag_hbt_start(h, t);
            continue;
         }
         switch (rnd(8)) {
         case 0: case 1: {                /* release o */
            int e = add((int)t, -1);
            rel_of[o][nrel[o]++] = e;
            release(h, t, L + o);
            break;
         }
         case 2: {                        /* acquire o */
            int e = add((int)t, -2);
            ev[e].obj = (int)o;
            acquire(h, t, L + o);
            break;
         }
         case 3: {                        /* join another thread: it has ended (its tag
                                             may be created again, as a later thread's) */
            unsigned c = 1 + rnd(NT);
            if (c == t || !alive[c]) break;
            add((int)t, last[c]);
            ag_hbt_join(h, t, c);
            alive[c] = 0;
            break;
         }
         default: {                       /* an access, stamped */
            int e = add((int)t, -1);
            acc[nacc] = e;
            acc_t[nacc] = (int)t;
            acc_clock[nacc++] = ag_hbt_clock(h, t);
            break;
         }
         }
         /* every stamp so far, asked by every live thread now */
         for (int i = 0; i < nacc; i++)
            for (unsigned me = 1; me <= NT; me++) {
               if (!alive[me] || (int)me == acc_t[i]) continue;
               int got = ag_hbt_ordered(h, me, (unsigned)acc_t[i], (uint8_t)acc_clock[i]);
               int want = last[me] >= 0 && reaches(acc[i], last[me]);
               CHECK(!got || want, "round %d: access %d of %d taken as ordered before %u",
                     round, i, acc_t[i], me);
               if (ag_hbt_clock(h, (unsigned)acc_t[i]) - acc_clock[i] < 256) {
                  CHECK(got == want, "round %d: access %d of %d, asked by %u: %d, want %d",
                        round, i, acc_t[i], me, got, want);
                  exact++;
               } else {
                  old++;
               }
            }
      }
      ag_hbt_delete(h);
   }
   CHECK(exact > 100000, "only %d exact questions", exact);
   printf("random traces: %d questions within 256 clocks, %d older\n", exact, old);
}

int main(void)
{
   handover();
   join();
   wrap();
   random_traces();
   if (failures) {
      fprintf(stderr, "%d of %d checks failed\n", failures, checks);
      return 1;
   }
   printf("ok: %d checks\n", checks);
   return 0;
}
