/* test_schedrace.c -- race-directed postponement
 * (atomgrind/engine/ag_schedrace.c) on constructed accesses: which pairs
 * are learned (a write meets another thread's read before its own; none
 * from a creator's set-up, nor a pair the caller takes as ordered, nor
 * one across a new heap block), a
 * thread at a learned site
 * is postponed while another is free to run, two threads at one location
 * have their order drawn (both orders occur; the second waits for the
 * first's access only), two at one site wait together (but two waiting
 * for one lock race), a postponed thread is released when the holder
 * leaves, or yields or runs its budget out with nobody else to run, two
 * loads do not meet, and the caps (per site and thread); lock-order coverage: which pairs of
 * lock sites a run sees, and two threads meeting at a learned lock favour
 * the order fewer runs saw (drawn when as many did). */
#include <stdio.h>
#include <string.h>
#include "ag_schedpol.h"
#include "ag_schedrace.h"
#include "ag_sp_check.h"        /* CHECK, the verdict */
#include "ag_sp_table.h"        /* the policy, its thread table, setup() */

#define A 0x10c06cUL            /* a location */
#define X 0x109598UL            /* a store to it */
#define Y 0x1095bfUL            /* a load of it */
#define L 0x4a61030UL           /* a lock (its site is itself) */

static void learning(void)
{
   setup(1, 0, 3);
   ag_sr_access(&pol, A, X, 1, 1);
   ag_sr_access(&pol, A, X + 4, 1, 1);             /* the same thread again */
   CHECK(pol.race.nsites == 0, "one thread's accesses learned %u", pol.race.nsites);
   ag_sr_access(&pol, A + 64, Y, 1, 0);
   ag_sr_access(&pol, A + 64, Y + 4, 2, 0);        /* two reads */
   CHECK(pol.race.nsites == 0, "read-read learned");
   CHECK(ag_sr_access(&pol, A, Y, 2, 0), "Y not a site once its pair is seen");
   CHECK(ag_sr_has(&pol, X + 4) && ag_sr_has(&pol, Y) && !ag_sr_has(&pol, X),
         "the adjacent pair (X+4, Y) is learned, nothing else");
   CHECK(pol.race.learned == 2, "learned %u", pol.race.learned);
   CHECK(ag_sr_access(&pol, A, Y, 3, 0), "a learned site is reported so");
}

/* A read-modify-write (x += 1) by thread 2 after thread 1's read: 2's
   write meets 1's read though 2's own read came between (aget's
   save_log reading bwritten, then a download thread's bwritten += dw).
   An access meets the last access and the last one of another thread
   before it, no older one. */
static void read_before_the_last(void)
{
   setup(1, 0, 3);
   ag_sr_access(&pol, A, Y, 1, 0);                 /* 1 reads */
   ag_sr_access(&pol, A, Y + 4, 2, 0);             /* 2 reads, ... */
   ag_sr_access(&pol, A, Y + 4, 2, 0);             /* ... again, ... */
   CHECK(pol.race.nsites == 0, "reads learned");
   ag_sr_access(&pol, A, X, 2, 1);                 /* ... then writes */
   CHECK(ag_sr_has(&pol, Y) && ag_sr_has(&pol, X) && !ag_sr_has(&pol, Y + 4),
         "the write after its own read did not meet the other thread's read");
   ag_sr_access(&pol, A, X + 8, 3, 0);             /* 3 reads 2's write: (X, X+8) */
   ag_sr_access(&pol, A, X + 12, 3, 1);            /* 3's write meets 2's write */
   CHECK(pol.race.nsites == 4 && ag_sr_has(&pol, X + 8) && ag_sr_has(&pol, X + 12),
         "learned %u", pol.race.nsites);
   ag_sr_access(&pol, A, Y + 16, 1, 0);            /* 1 reads 3's write */
   ag_sr_access(&pol, A, Y + 16, 1, 0);
   ag_sr_access(&pol, A, Y + 20, 1, 1);            /* 1's write meets 3's write */
   CHECK(pol.race.nsites == 6 && ag_sr_has(&pol, Y + 16) && ag_sr_has(&pol, Y + 20),
         "learned %u", pol.race.nsites);
   /* two threads' reads, then a third's read and write: the write meets
      the read just before its own (2's), and 1's is not kept */
   ag_sr_access(&pol, A + 64, Y + 32, 1, 0);
   ag_sr_access(&pol, A + 64, Y + 36, 2, 0);
   ag_sr_access(&pol, A + 64, Y + 40, 3, 0);
   ag_sr_access(&pol, A + 64, X + 32, 3, 1);
   CHECK(ag_sr_has(&pol, Y + 36) && ag_sr_has(&pol, X + 32) && !ag_sr_has(&pol, Y + 32),
         "the write after several reads");
   /* an atomic instruction's read and write (a LOCK'd decrement) meet the
      last access only: not the poll of another thread before them */
   ag_sr_access(&pol, A + 128, Y + 48, 1, 0);
   ag_sr_access(&pol, A + 128, X + 48, 2 | AG_SR_ATOMIC, 0);
   ag_sr_access(&pol, A + 128, X + 48, 2 | AG_SR_ATOMIC, 1);
   CHECK(!ag_sr_has(&pol, Y + 48) && !ag_sr_has(&pol, X + 48), "an atomic write met the read before");
}

/* What a thread's creator did before it created it is ordered before
   all the thread does: no pair of the two is learned from it. */
static void set_up(void)
{
   setup(1, 0, 3);
   ag_sr_access(&pol, A, X, 1, 1);                 /* 1 sets A up ... */
   pol.points = 10;
   ag_sr_born(&pol, 2, 1);                         /* ... and creates 2 */
   pol.points = 20;
   ag_sr_access(&pol, A, Y, 2, 0);
   CHECK(pol.race.nsites == 0, "the creator's set-up learned");
   ag_sr_access(&pol, A, X, 1, 1);                 /* after the creation */
   CHECK(ag_sr_has(&pol, X) && ag_sr_has(&pol, Y), "a pair after the creation not learned");
   ag_sr_access(&pol, A + 64, X + 8, 3, 1);        /* 3 is not 2's creator */
   ag_sr_access(&pol, A + 64, Y + 8, 2, 0);
   CHECK(ag_sr_has(&pol, Y + 8), "another thread's write not learned");
}

/* A heap block made anew (freed by one thread, allocated by another: a
   compressor's arrays): accesses to the old one pair with none to the
   new; a location past the block still does.  A big block too. */
static void fresh_memory(void)
{
   const unsigned long b = 0x4a67000UL;            /* a block of 72 bytes */
   setup(1, 0, 3);
   ag_sr_access(&pol, b, X, 1, 1);
   ag_sr_access(&pol, b + 64, X + 4, 1, 1);
   ag_sr_access(&pol, b + 72, X + 8, 1, 1);        /* past it */
   ag_sr_fresh(&pol, b, 72);
   ag_sr_access(&pol, b, Y, 2, 0);
   ag_sr_access(&pol, b + 64, Y + 4, 2, 1);
   CHECK(!ag_sr_has(&pol, X) && !ag_sr_has(&pol, Y) && !ag_sr_has(&pol, X + 4),
         "a pair learned across a new block");
   ag_sr_access(&pol, b + 72, Y + 8, 2, 0);
   CHECK(ag_sr_has(&pol, X + 8) && ag_sr_has(&pol, Y + 8) && pol.race.nsites == 2,
         "the pair past the block not learned (%u sites)", pol.race.nsites);
   setup(1, 0, 3);
   ag_sr_access(&pol, b + 8 * 5000, X, 1, 1);
   ag_sr_fresh(&pol, b, 8 * 10000);
   ag_sr_access(&pol, b + 8 * 5000, Y, 2, 0);
   CHECK(pol.race.nsites == 0, "a pair learned across a new big block");
}

/* The caller's happens-before: a pair it takes as ordered (the first
   access stamped with clock 7 here) is not learned; a lock handed over
   is, its order being what is learned (AG_SR_UNORDERED). */
static int clock7_ordered(unsigned stamp) { return (stamp >> 8 & 0xff) == 7; }

static void ordered_pairs(void)
{
   setup(1, 0, 3);
   pol.race.ordered = clock7_ordered;
   ag_sr_access(&pol, A, X, 1 | 7 << 8, 1);        /* 1 writes, then hands A over */
   ag_sr_access(&pol, A, Y, 2 | 3 << 8, 0);
   CHECK(pol.race.nsites == 0, "a pair in happens-before order learned");
   ag_sr_access(&pol, A, X, 1 | 8 << 8, 1);        /* 1 again, not ordered before 2 */
   CHECK(ag_sr_has(&pol, X) && ag_sr_has(&pol, Y), "an unordered pair not learned");
   ag_sr_access(&pol, L, L, 1 | 7 << 8 | AG_SR_UNORDERED, 1);
   ag_sr_access(&pol, L, L, 2 | 3 << 8 | AG_SR_UNORDERED, 1);
   CHECK(ag_sr_has(&pol, L), "a lock handed over not learned");
   pol.race.ordered = 0;
}

/* Thread 1 holds the turn at site X, learned; 2 and 3 enabled. */
static void postponed_holder(unsigned long long seed)
{
   setup(seed, 0, 3);
   ag_sr_add(&pol, X);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_enable(&pol, 3, 1);
   CHECK(ag_sr_shared(&pol, 1, A, X, 1, 1), "not postponed at a learned site");
   CHECK(ag_sp_postponed(&pol, 1), "1 not marked");
   unsigned next = ag_sp_choose(&pol, 1, AG_SP_PT_SHARED, 1);
   CHECK(next == 2 || next == 3, "chose %u", next);
   ag_sp_enable(&pol, 1, 1);                       /* it parks */
   ag_sp_enable(&pol, next, 0);
   ag_sp_took(&pol, next);
}

static void postponing(void)
{
   postponed_holder(3);
   CHECK(!ag_sr_shared(&pol, 2, A + 64, Y, 1, 0), "postponed at an unlearned site");
   /* the holder preempted: the other free thread, never the postponed one */
   for (int i = 0; i < 50; i++) {
      unsigned h = th[2].enabled ? 3 : 2;
      unsigned n = ag_sp_random_other(&pol, h);
      CHECK(n != 1, "a postponed thread was chosen while %u could run", 5 - h);
   }
   /* only the postponed one left besides the holder: it keeps the turn,
      and gets it when it blocks */
   unsigned h = th[2].enabled ? 3 : 2;
   ag_sp_enable(&pol, 5 - h, 0);
   CHECK(ag_sp_random_other(&pol, h) == 0, "released while the holder runs on");
   CHECK(ag_sp_pass(&pol, h) == 1, "not released when the holder blocks");
   CHECK(!ag_sp_postponed(&pol, 1) && pol.race.npost == 0, "still postponed");
   /* a yield or a budget run out hands the turn to a free thread while
      one can run, else to the postponed one (a spin loop may wait for it) */
   postponed_holder(4);
   h = th[2].enabled ? 3 : 2;
   CHECK(ag_sp_choose(&pol, h, AG_SP_PT_YIELD, 0) == 5 - h && pol.race.npost == 1,
         "a yield released the postponed thread while another could run");
   ag_sp_enable(&pol, 5 - h, 0);
   CHECK(ag_sp_choose(&pol, h, AG_SP_PT_BLOCKS, 0) == 1 && pol.race.npost == 0,
         "a budget run out with nobody else kept the postponed thread waiting");
   /* nobody else free (1 postponed, the third not enabled): the holder
      runs on past a learned site, where it might be what 1 waits for */
   postponed_holder(5);
   h = th[2].enabled ? 3 : 2;
   ag_sp_enable(&pol, 5 - h, 0);
   CHECK(!ag_sr_shared(&pol, h, A + 128, X, 1, 1) && !ag_sp_postponed(&pol, h),
         "postponed with nobody else free to run");
   /* the only other one waits to exit: the holder runs on (postponed,
      it would hand the turn to the exit, which ends it) */
   unsigned long long seed = 6;
   do {
      setup(++seed, 0, 3);
      ag_sp_enable(&pol, 2, 1);
   } while (!ag_sp_exit_holds(&pol, 2) && seed < 100);
   CHECK(ag_sp_exiting(&pol, 2), "no run held its exit");
   ag_sr_add(&pol, X);
   CHECK(!ag_sr_shared(&pol, 1, A, X, 1, 1) && !ag_sp_postponed(&pol, 1),
         "postponed with only the exit to run");
}

/* Thread 1 postponed at a learned site before an access to a (write: a
   store), under seed's draws; 2 holds the turn, 3 is free to run. */
static void one_postponed(unsigned long long seed, unsigned long a, unsigned long site, int write)
{
   setup(seed, 0, 3);
   ag_sr_add(&pol, site);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_enable(&pol, 3, 1);
   CHECK(ag_sr_shared(&pol, 1, a, site, write, 1), "not postponed at a learned site");
   ag_sp_enable(&pol, 1, 1);
   ag_sp_enable(&pol, 2, 0);
}

/* 1 postponed at X (a store to A); 2 or 3 reaches A at Y: both orders occur. */
static void races(void)
{
   int first[2] = { 0, 0 };
   for (unsigned long long seed = 1; seed <= 40; seed++) {
      postponed_holder(seed);
      unsigned h = th[2].enabled ? 3 : 2;
      if (ag_sr_shared(&pol, h, A + 2, Y, 1, 1)) {
         CHECK(pol.race.release == 1 && ag_sp_postponed(&pol, h), "swap not made");
         CHECK(ag_sp_choose(&pol, h, AG_SP_PT_SHARED, 1) == 1, "the released one not chosen");
         /* h waits for 1's access only: free at 1's next point */
         ag_sp_count(&pol, 1, AG_SP_PT_SHARED);
         CHECK(!ag_sp_postponed(&pol, h), "the second still waits after the first's access");
         first[1]++;
      } else {
         CHECK(ag_sp_postponed(&pol, 1), "1 released though the other went first");
         first[0]++;
      }
   }
   CHECK(first[0] > 5 && first[1] > 5, "orders drawn %d / %d", first[0], first[1]);
   /* the same store in another thread does not race it: both wait */
   postponed_holder(7);
   unsigned h = th[2].enabled ? 3 : 2;
   CHECK(ag_sr_shared(&pol, h, A, X, 1, 1) && pol.race.release == 0 && pol.race.npost == 2,
         "two threads at one site raced each other");
   /* a lock's site is the lock (a == ip), whatever code takes it: two
      threads waiting for it race, both orders drawn */
   int lock_first[2] = { 0, 0 };
   for (unsigned long long seed = 1; seed <= 40; seed++) {
      one_postponed(seed, L, L, 1);
      int swapped = ag_sr_shared(&pol, 2, L, L, 1, 1);
      CHECK(!swapped || pol.race.release == 1, "the lock's waiters did not race");
      lock_first[swapped]++;
   }
   CHECK(lock_first[0] > 5 && lock_first[1] > 5, "lock orders drawn %d / %d",
         lock_first[0], lock_first[1]);
}

/* 1 postponed at a load of A: another thread's load of it at another
   site passes (two loads do not race), its store meets it, both orders
   drawn. */
static void reader_waits_for_store(void)
{
   int first[2] = { 0, 0 };
   for (unsigned long long seed = 1; seed <= 40; seed++) {
      one_postponed(seed, A, Y, 0);
      CHECK(!ag_sr_shared(&pol, 2, A, X + 8, 0, 0) && pol.race.release == 0
            && ag_sp_postponed(&pol, 1), "a load released the postponed load");
      int swapped = ag_sr_shared(&pol, 2, A, X, 1, 0);
      CHECK(!swapped || pol.race.release == 1, "the store did not meet the load");
      first[swapped]++;
   }
   CHECK(first[0] > 5 && first[1] > 5, "orders drawn %d / %d", first[0], first[1]);
}

/* Per site and thread: a loop stops a few times, each of several threads
   running the same code stops too. */
static void caps(void)
{
   postponed_holder(9);
   unsigned h = th[2].enabled ? 3 : 2;
   int n = 0;
   for (int i = 0; i < 10; i++) {
      n += ag_sr_shared(&pol, h, A + 128, X, 1, 1);
      ag_sp_unpost(&pol, h);
   }
   CHECK(n == AG_SR_PER_SITE, "postponed %d times at one site", n);
   ag_sp_unpost(&pol, 1);
   ag_sp_enable(&pol, 5 - h, 0);
   ag_sp_enable(&pol, 1, 1);
   CHECK(ag_sr_shared(&pol, 5 - h, A + 128, X, 1, 1), "another thread not postponed at the site");
}

#define S1 0x109193UL           /* three calls that take L */
#define S2 0x1091dbUL
#define S3 0x109223UL

/* A lock's takers: each other thread's site before this one is a pair
   seen in this run (its own thread's and its own site's are not). */
static void lock_pairs(void)
{
   setup(1, 0, 3);
   ag_so_taken(&pol, L, S1, 1);
   ag_so_taken(&pol, L, S2, 1);                    /* the same thread */
   CHECK(pol.race.norder == 0, "one thread's takes made %u pairs", pol.race.norder);
   ag_so_taken(&pol, L, S2, 2);
   CHECK(ag_so_runs(&pol, S1, S2) == 1 && ag_so_runs(&pol, S2, S1) == 0
         && pol.race.norder == 1, "S1 then S2 not seen (%u pairs)", pol.race.norder);
   ag_so_taken(&pol, L, S3, 3);
   CHECK(ag_so_runs(&pol, S1, S3) == 1 && ag_so_runs(&pol, S2, S3) == 1
         && pol.race.norder == 3, "the takers before S3 not all seen (%u pairs)",
         pol.race.norder);
   ag_so_taken(&pol, L, S1, 3);                    /* many times: still one run */
   ag_so_taken(&pol, L + 64, S3, 1);               /* another lock: no pair with L's */
   CHECK(ag_so_runs(&pol, S2, S1) == 1 && ag_so_runs(&pol, S3, S1) == 0
         && ag_so_runs(&pol, S1, S3) == 1 && pol.race.norder == 4,
         "pairs after a retake (%u)", pol.race.norder);
   CHECK(ag_so_load(&pol, S3, S1, 5) && ag_so_runs(&pol, S3, S1) == 5
         && ag_so_load(&pol, S1, S2, 2) && ag_so_runs(&pol, S1, S2) == 3,
         "the runs loaded are not counted with this one's");
   CHECK(!ag_so_load(&pol, S1, S1, 1) && !ag_so_load(&pol, 0, S1, 1), "a bad pair loaded");
}

/* 1 waits postponed at L from site s1; 2 arrives from s2: 1 if 2 goes
   first (1 stays postponed). */
static int lock_meeting(unsigned long long seed, unsigned long s1, unsigned long s2,
                        unsigned runs12, unsigned runs21)
{
   setup(seed, 0, 3);
   ag_sr_add(&pol, L);
   ag_so_load(&pol, s1, s2, runs12);
   ag_so_load(&pol, s2, s1, runs21);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_enable(&pol, 3, 1);
   ag_so_waits_at(&pol, 1, L, s1);
   CHECK(ag_sr_shared(&pol, 1, L, L, 1, 1), "not postponed at a learned lock");
   ag_sp_enable(&pol, 1, 1);
   ag_sp_enable(&pol, 2, 0);
   ag_so_waits_at(&pol, 2, L, s2);
   return !ag_sr_shared(&pol, 2, L, L, 1, 1);
}

/* The order never seen goes first, whatever the seed; one seen in fewer
   runs in proportion (1 against 3: 3 in 4); as many: drawn. */
static void lock_orders(void)
{
   int rarer_first = 0, never_first = 0, drawn[2] = { 0, 0 };
   for (unsigned long long seed = 1; seed <= 40; seed++) {
      never_first += !lock_meeting(seed, S1, S2, 0, 2);     /* S1 then S2 never seen */
      rarer_first += lock_meeting(seed, S1, S2, 3, 1);      /* S2 then S1 seen less */
      drawn[lock_meeting(seed, S1, S2, 2, 2)]++;
      drawn[lock_meeting(seed, S1, S1, 0, 0)]++;            /* one site: drawn too */
   }
   CHECK(never_first == 40, "the order never seen went first in %d of 40", never_first);
   CHECK(rarer_first >= 24 && rarer_first <= 37, "the order seen in 1 run, not 3, went first in %d of 40",
         rarer_first);
   CHECK(drawn[0] > 10 && drawn[1] > 10, "as often seen: orders drawn %d / %d",
         drawn[0], drawn[1]);
   CHECK(pol.race.steered == 0, "a draw counted as weighed");
   lock_meeting(3, S1, S2, 1, 0);
   CHECK(pol.race.steered == 1, "a weighed meeting not counted");
}

int main(void)
{
   learning();
   read_before_the_last();
   set_up();
   fresh_memory();
   ordered_pairs();
   postponing();
   races();
   caps();
   reader_waits_for_store();
   lock_pairs();
   lock_orders();
   return sp_verdict();
}
