/* test_schedpol_choice.c -- the scheduler policy's choice of the next
 * holder (atomgrind/engine/ag_schedpol.c) on synthetic sequences of
 * points, blocking calls and wake-ups: every choice is the holder or an
 * enabled thread, threads held back after a preemption are avoided while
 * a free one exists, a thread about to exit() waits while any other can
 * run, PCT runs the highest priority and demotes at change
 * points, preemptions and yields, a starving run ends, a seed repeats its
 * choices, random_other is uniform, and the loops over the threads
 * stop after the highest id in use. */
#include <stdio.h>
#include <string.h>
#include "ag_schedpol.h"
#include "ag_sp_check.h"        /* CHECK, the verdict */
#include "ag_sp_table.h"        /* the policy, its thread table, setup() */

/* A synthetic run as ag_sched.c drives it: the holder reaches points of
   random kinds, others block in calls and are woken; every choice is
   checked and folded into a signature. */
static unsigned long long drive(unsigned long long seed, int pct)
{
   setup(seed, pct, 3);
   ag_sp_enable(&pol, 2, 1);              /* 2 and 3 are new: enabled */
   ag_sp_enable(&pol, 3, 1);
   unsigned holder = 1;
   int blocked[NTH] = { 0 };
   unsigned long long sig = 0, ev = seed * 7919 + 1;
   for (int i = 0; i < 20000; i++) {
      ev = ev * 6364136223846793005ULL + 1442695040888963407ULL;   /* the events' own LCG */
      unsigned e = (unsigned)(ev >> 33);
      unsigned other = 1 + e % 3;
      if (e % 11 == 0 && other != holder && !blocked[other] && th[other].enabled) {
         ag_sp_enable(&pol, other, 0);    /* back from a call, it blocks in another */
         blocked[other] = 1;
         continue;
      }
      if (e % 7 == 0 && blocked[other]) {
         blocked[other] = 0;              /* woken: back from its call, enabled */
         ag_sp_enable(&pol, other, 1);
         continue;
      }
      if (e % 13 == 0) {                  /* the holder blocks: the turn passes */
         unsigned next = ag_sp_pass(&pol, holder);
         CHECK(next == 0 || (next != holder && th[next].enabled), "pass to %u", next);
         sig = sig * 31 + next;
         if (next == 0) continue;          /* nobody: it keeps running */
         blocked[holder] = 1;
         ag_sp_took(&pol, next);
         ag_sp_enable(&pol, next, 0);
         holder = next;
         continue;
      }
      int kind = (int)(e >> 8) % 8;
      ag_sp_count(&pol, holder, kind);
      unsigned next = ag_sp_choose(&pol, holder, kind, (int)(e >> 12) & 1);
      CHECK(next == holder || (next >= 1 && next <= 3 && th[next].enabled),
            "point %d: chose %u (holder %u)", i, next, holder);
      if (pct && next != holder) {
         CHECK(th[next].prio > th[holder].prio, "pct: %u runs below the holder", next);
      }
      sig = sig * 31 + next;
      if (next == holder) {
         ag_sp_kept(&pol, holder);
         continue;
      }
      ag_sp_switched(&pol, holder);
      ag_sp_enable(&pol, holder, 1);      /* parks at its point */
      ag_sp_enable(&pol, next, 0);
      ag_sp_took(&pol, next);
      holder = next;
   }
   unsigned n = 0;
   for (unsigned t = 1; t < NTH; t++) n += th[t].enabled;
   CHECK(n == pol.enabled, "enabled count %u, table %u", pol.enabled, n);
   return sig;
}

static void sequences(void)
{
   for (int pct = 0; pct <= 1; pct++) {
      unsigned long long a = drive(5, pct), b = drive(5, pct), c = drive(6, pct);
      CHECK(a == b, "pct=%d: the same seed chose differently", pct);
      CHECK(a != c, "pct=%d: two seeds chose alike", pct);
   }
}

static void alone(void)
{
   for (int pct = 0; pct <= 1; pct++) {
      setup(1, pct, 2);
      for (int k = 0; k < 8; k++) {
         pol.points++;
         CHECK(ag_sp_choose(&pol, 1, k, 0) == 1, "pct=%d kind %d: nobody else", pct, k);
      }
      CHECK(ag_sp_pass(&pol, 1) == 0, "pct=%d: passed to nobody", pct);
   }
}

static void held_back(void)
{
   /* 1 is preempted in its region: held back, while 3 is free */
   setup(3, 0, 3);
   ag_sp_count(&pol, 1, AG_SP_PT_BEGIN);
   pol.points = 100;
   ag_sp_switched(&pol, 1);
   CHECK(th[1].held_until > 100 && th[1].held_until <= 101 + AG_SP_HOLD, "held until %llu",
         th[1].held_until);
   ag_sp_enable(&pol, 1, 1);
   ag_sp_enable(&pol, 3, 1);
   for (int i = 0; i < 1000; i++)
      CHECK(ag_sp_random_other(&pol, 2) == 3, "a held thread chosen over a free one");
   /* alone enabled: chosen anyway */
   ag_sp_enable(&pol, 3, 0);
   CHECK(ag_sp_random_other(&pol, 2) == 1, "the held thread alone");
   /* held no more once the points pass */
   ag_sp_enable(&pol, 3, 1);
   pol.points = th[1].held_until;
   int ones = 0;
   for (int i = 0; i < 1000; i++) ones += ag_sp_random_other(&pol, 2) == 1;
   CHECK(ones > 400 && ones < 600, "released: chosen %d of 1000", ones);
   /* outside a region it is not held; PCT holds nobody */
   setup(3, 0, 3);
   ag_sp_switched(&pol, 1);
   CHECK(th[1].held_until == 0, "held outside a region");
   setup(3, 1, 3);
   ag_sp_count(&pol, 1, AG_SP_PT_BEGIN);
   ag_sp_switched(&pol, 1);
   CHECK(th[1].held_until == 0, "pct held a thread");
}

static void uniform(void)
{
   setup(9, 0, 4);
   for (unsigned t = 2; t <= 4; t++) ag_sp_enable(&pol, t, 1);
   int n[NTH] = { 0 };
   for (int i = 0; i < 10000; i++) n[ag_sp_random_other(&pol, 1)]++;
   CHECK(n[0] == 0 && n[1] == 0, "chose %d none, %d self", n[0], n[1]);
   for (unsigned t = 2; t <= 4; t++)
      CHECK(n[t] > 3033 && n[t] < 3633, "thread %u: %d of 10000", t, n[t]);
}

/* The loops over the threads stop after the highest id in use, not at
   the table's length (Valgrind's 500: two loops of it at every shared
   access of a run with a postponed thread); a thread id first used late,
   high in the table, is reached. */
static void bound(void)
{
   static ag_sp_thread big[500];
   ag_schedpol p;
   ag_sp_init(&p, 12);
   ag_sp_threads(&p, big, 500, 0);
   CHECK(p.nth == 2, "the main thread alone: bound %u", p.nth);
   for (unsigned t = 1; t <= 3; t++) ag_sp_thread_new(&p, t, t);
   CHECK(p.nth == 4, "threads 1-3: bound %u", p.nth);
   ag_sp_enable(&p, 2, 1);
   ag_sp_enable(&p, 9, 1);                /* woken before it is announced */
   CHECK(p.nth == 10, "thread 9: bound %u", p.nth);
   int n9 = 0;
   for (int i = 0; i < 1000; i++) n9 += ag_sp_random_other(&p, 1) == 9;
   CHECK(n9 > 400 && n9 < 600, "thread 9 chosen %d of 1000", n9);
   ag_sp_enable(&p, 9, 0);
   ag_sp_thread_new(&p, 7, 4);           /* an id reused: the bound stays */
   CHECK(p.nth == 10, "after 7: bound %u", p.nth);
   ag_sp_enable(&p, 499, 1);
   CHECK(p.nth == 500, "thread 499: bound %u", p.nth);
}

static void starving(void)
{
   /* random, in a damped region: almost always keeps the turn, but not
      for more than AG_SP_MAX_RUN points while another waits */
   setup(4, 0, 2);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_region_site(&pol, 1, AG_SP_KNEE * AG_SP_DAMP_MAX);
   ag_sp_count(&pol, 1, AG_SP_PT_BEGIN);
   int kept = 0, forced = 0;
   for (int i = 0; i < 10 * AG_SP_MAX_RUN; i++) {
      pol.points++;
      if (ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0) != 1) {
         forced += kept == AG_SP_MAX_RUN;
         ag_sp_took(&pol, 1);              /* (as if handed back at once) */
         kept = 0;
         continue;
      }
      ag_sp_kept(&pol, 1);
      CHECK(++kept <= AG_SP_MAX_RUN, "kept the turn %d points", kept);
   }
   CHECK(forced >= 8, "starving runs ended %d times", forced);
   /* a yield always hands on; a stop drawn at a shared access too */
   pol.points++;
   CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_YIELD, 0) == 2, "yield kept the turn");
   CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_SHARED, 1) == 2, "drawn switch not taken");
   CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_SHARED, 0) == 1, "shared point switched undrawn");
}

static void pct(void)
{
   setup(21, 1, 3);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_enable(&pol, 3, 1);
   unsigned best = ag_sp_highest(&pol, 0, 0);
   for (unsigned t = 1; t <= 3; t++)
      CHECK(t == best || th[t].prio < th[best].prio, "%u above the highest", t);
   /* no change point: the highest of the holder and the enabled runs */
   unsigned first = 0;
   for (unsigned long long n = 1; n <= 200 && !first; n++)
      if (ag_sp_pct_change(&pol, n)) first = (unsigned)n;
   CHECK(first > 1, "first change point %u", first);
   pol.points = first - 1;
   unsigned next = ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0);
   CHECK(next == ag_sp_highest(&pol, 1, 1), "pct chose %u", next);
   /* at a change point the holder drops below everyone */
   unsigned h = best;
   ag_sp_enable(&pol, h, 0);
   ag_sp_enable(&pol, 1 + h % 3, 1);
   ag_sp_enable(&pol, 1 + (h + 1) % 3, 1);
   pol.points = first;
   next = ag_sp_choose(&pol, h, AG_SP_PT_SYNC_POST, 0);
   CHECK(next != h, "the holder kept the turn at a change point");
   for (unsigned t = 1; t <= 3; t++)
      CHECK(t == h || th[t].prio > th[h].prio, "demoted %u not below %u", h, t);
   unsigned long long low = th[h].prio;
   /* a preemption demotes too, each below the last */
   pol.points = 100000;
   ag_sp_choose(&pol, next, AG_SP_PT_PREEMPT, 0);
   CHECK(th[next].prio == low - 1, "second demotion %llu after %llu", th[next].prio, low);
   /* at a shared access: the change point's demotion, then another outranks */
   setup(22, 1, 2);
   ag_sp_enable(&pol, 2, 1);
   unsigned top = th[1].prio > th[2].prio ? 1 : 2, bottom = 3 - top;
   ag_sp_enable(&pol, top, 0);
   ag_sp_enable(&pol, bottom, 1);
   pol.points = 1000;                     /* beyond k: no change point */
   CHECK(!ag_sp_pct_shared(&pol, top), "the highest switched at a shared access");
   for (unsigned long long n = 1; n <= 200; n++)
      if (ag_sp_pct_change(&pol, n)) pol.points = n;
   CHECK(ag_sp_pct_shared(&pol, top), "no switch at a change point");
}

/* 1 calls exit() while 2 and 3 can run (ag_sp_exit_holds): random hands
   it the turn only when the holder must leave it and nobody else can take
   it, or spins (runs out AG_SP_EXIT_BUDGETS budgets of AG_SP_EXIT_SPENT
   units), or once AG_SP_EXIT_HOLD points passed; it holds in all runs but 1 in
   AG_SP_EXIT_NOW; PCT demotes it below the others.  Nobody else enabled:
   the exit goes on. */
static void exit_held(void)
{
   int holds = 0;
   for (unsigned long long seed = 1; seed <= 400; seed++) {
      setup(seed, 0, 3);
      holds += ag_sp_exit_holds(&pol, 1);
   }
   CHECK(holds == 0, "held with nobody else enabled (%d)", holds);
   for (unsigned long long seed = 1; seed <= 400; seed++) {
      setup(seed, 0, 3);
      ag_sp_enable(&pol, 2, 1);
      ag_sp_enable(&pol, 3, 1);
      holds += ag_sp_exit_holds(&pol, 1);
   }
   CHECK(holds > 260 && holds < 340, "exit held in %d of 400 runs", holds);

   /* a run that holds (the first seed that does, of the 400) */
   unsigned long long seed = 0;
   do setup(++seed, 0, 3), ag_sp_enable(&pol, 2, 1), ag_sp_enable(&pol, 3, 1);
   while (!ag_sp_exit_holds(&pol, 1) && seed < 400);
   CHECK(seed < 400, "no run held its exit");
   ag_sp_enable(&pol, 1, 1);                 /* parked at its yield */
   ag_sp_enable(&pol, 2, 0);                 /* 2 runs */
   for (int i = 0; i < 1000; i++) {
      CHECK(ag_sp_random_other(&pol, 2) == 3, "exiting thread chosen over a free one");
      unsigned c = ag_sp_choose(&pol, 2, AG_SP_PT_SYNC_PRE, 0);
      CHECK(c == 2 || c == 3, "a point of 2 chose %u", c);
   }
   ag_sp_enable(&pol, 3, 0);                 /* 3 blocks: 2 alone */
   for (int i = 0; i < 1000; i++) {         /* (0: nobody else, 2 keeps it) */
      CHECK(ag_sp_choose(&pol, 2, AG_SP_PT_SYNC_PRE, 0) != 1, "a random switch to the exit");
      CHECK(ag_sp_choose(&pol, 2, AG_SP_PT_SHARED, 1) != 1, "a drawn switch to the exit");
   }
   /* a budget run out: 2 runs on (a failed assertion formats its message
      for many short budgets) until it has spun long enough */
   int budgets = 0;
   unsigned long long spent = 0, last = 0;
   for (unsigned c = 2; c == 2 && budgets < 100000; budgets++) {
      spent += last = (unsigned long long)ag_sp_budget(&pol);
      ag_sp_budget_out(&pol);
      c = ag_sp_choose(&pol, 2, AG_SP_PT_BLOCKS, 0);
      CHECK(c == 1 || c == 2, "a budget run out chose %u", c);
   }
   /* (at the first budget that makes both enough) */
   CHECK(budgets >= AG_SP_EXIT_BUDGETS && spent >= AG_SP_EXIT_SPENT
         && (budgets == AG_SP_EXIT_BUDGETS || spent - last < AG_SP_EXIT_SPENT),
         "the exit went on after %d budgets, %llu units", budgets, spent);
   CHECK(th[1].exit_until == 0, "the exit still waits");
   th[1].exit_until = pol.points + AG_SP_EXIT_HOLD;
   CHECK(ag_sp_choose(&pol, 2, AG_SP_PT_YIELD, 0) == 1, "a yield kept the exit waiting");
   CHECK(ag_sp_choose(&pol, 2, AG_SP_PT_BLOCKS, 0) == 1, "a spinner kept the exit waiting");
   CHECK(ag_sp_pass(&pol, 2) == 1, "2 ends: not passed to the exit");
   pol.points += AG_SP_EXIT_HOLD;            /* the hold is over */
   int ones = 0;
   for (int i = 0; i < 1000; i++) ones += ag_sp_choose(&pol, 2, AG_SP_PT_SHARED, 1) == 1;
   CHECK(ones == 1000, "after the hold: chosen %d of 1000 switches", ones);

   setup(5, 1, 3);                           /* PCT: below everyone */
   ag_sp_enable(&pol, 2, 1);
   ag_sp_enable(&pol, 3, 1);
   seed = 5;
   while (!ag_sp_exit_holds(&pol, 1) && seed < 400) {
      setup(++seed, 1, 3);
      ag_sp_enable(&pol, 2, 1);
      ag_sp_enable(&pol, 3, 1);
   }
   CHECK(th[1].prio < th[2].prio && th[1].prio < th[3].prio, "pct: the exit not demoted");
   CHECK(ag_sp_highest(&pol, 1, 1) != 1, "pct: the exit runs first");
}

int main(void)
{
   sequences();
   alone();
   held_back();
   exit_held();
   uniform();
   bound();
   starving();
   pct();
   return sp_verdict();
}
