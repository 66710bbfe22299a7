/* test_schedpol_regions.c -- the scheduler policy's regions
 * (atomgrind/engine/ag_schedpol.c) on synthetic sequences: counting and
 * nesting, the damping curve over a site's runs and within one long run,
 * the preemption rates at accesses and region starts it divides, the
 * damping of points outside regions, and the rule for rare regions (the
 * holder of a damped region keeps the turn at boundaries and hands it to
 * the rare one after an access). */
#include <stdio.h>
#include <string.h>
#include "ag_schedpol.h"
#include "ag_sp_check.h"        /* CHECK, the verdict */
#include "ag_sp_table.h"        /* the policy, its thread table, setup() */

/* t opens a region at a site that ran `runs` times (as ag_sched.c). */
static void open_region(unsigned t, unsigned runs)
{
   if (th[t].depth == 0) ag_sp_region_site(&pol, t, runs);
   ag_sp_count(&pol, t, AG_SP_PT_BEGIN);
}

static void counting(void)
{
   setup(1, 0, 3);
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_BEGIN) == 1, "outermost BEGIN");
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_BEGIN) == 0, "nested BEGIN");
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_SYNC_PRE) == 0, "a point inside");
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_END) == 0, "nested END");
   CHECK(ag_sp_count(&pol, 2, AG_SP_PT_BEGIN) == 1 && pol.in_regions == 2, "two in regions");
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_END) == -1 && pol.in_regions == 1, "outermost END");
   CHECK(ag_sp_count(&pol, 1, AG_SP_PT_END) == 0 && th[1].depth == 0, "unmatched END");
   CHECK(pol.points == 7 && th[1].points == 6 && th[2].points == 1, "points %llu", pol.points);
   /* an exit inside a region, a fork child */
   ag_sp_region_exit(&pol, 2);
   CHECK(pol.in_regions == 0 && th[2].depth == 0, "exit in a region");
   ag_sp_count(&pol, 1, AG_SP_PT_BEGIN);
   ag_sp_count(&pol, 3, AG_SP_PT_BEGIN);
   ag_sp_fork_child(&pol, 3);
   CHECK(pol.in_regions == 1 && th[1].depth == 0 && th[3].depth == 1, "fork child");
}

static void curve(void)
{
   /* over a site's runs: full rates for the first AG_SP_KNEE, then n/KNEE */
   static const unsigned runs[] = { 1, AG_SP_KNEE, AG_SP_KNEE + 1, 2 * AG_SP_KNEE,
                                    10 * AG_SP_KNEE, AG_SP_KNEE * AG_SP_DAMP_MAX * 4 };
   static const unsigned damp[] = { 1, 1, 1, 2, 10, AG_SP_DAMP_MAX };
   for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
      setup(2, 0, 1);
      open_region(1, runs[i]);
      CHECK(ag_sp_damp(&pol, 1) == damp[i], "site run %u: damp %u", runs[i], ag_sp_damp(&pol, 1));
   }
   /* within one run: its points and accesses over AG_SP_KNEE */
   setup(3, 0, 1);
   open_region(1, 1);
   for (int i = 0; i < 3 * AG_SP_KNEE; i++) ag_sp_count(&pol, 1, AG_SP_PT_SYNC_PRE);
   CHECK(ag_sp_damp(&pol, 1) == 3, "after 3 KNEE points: %u", ag_sp_damp(&pol, 1));
   for (int i = 0; i < 2 * AG_SP_KNEE; i++) ag_sp_access(&pol, 1);
   CHECK(ag_sp_damp(&pol, 1) == 5, "and 2 KNEE accesses: %u", ag_sp_damp(&pol, 1));
   /* the larger of the site's and the run's */
   setup(3, 0, 1);
   open_region(1, 8 * AG_SP_KNEE);
   for (int i = 0; i < 3 * AG_SP_KNEE; i++) ag_sp_access(&pol, 1);
   CHECK(ag_sp_damp(&pol, 1) == 8, "site over run: %u", ag_sp_damp(&pol, 1));
   /* a new region starts over */
   ag_sp_count(&pol, 1, AG_SP_PT_END);
   open_region(1, 1);
   CHECK(ag_sp_damp(&pol, 1) == 1, "next region: %u", ag_sp_damp(&pol, 1));
}

static void rates(void)
{
   /* a fresh region: about 1 in AG_SP_RANDOM_ACCESS of its first accesses
      preempts; a damped one's far fewer; outside regions, none */
   setup(4, 0, 2);
   ag_sp_enable(&pol, 2, 1);
   open_region(1, 1);
   int early = 0;
   for (int i = 0; i < AG_SP_KNEE; i++) early += ag_sp_access(&pol, 1);
   CHECK(early > AG_SP_KNEE / 8 && early < AG_SP_KNEE / 2, "early %d", early);
   int late = 0;
   for (int i = 0; i < 100000; i++) late += ag_sp_access(&pol, 1);
   CHECK(late > 200 && late < 600, "late %d (damped: ~64 ln(n / KNEE))", late);
   ag_sp_count(&pol, 1, AG_SP_PT_END);
   int out = 0;
   for (int i = 0; i < 1000; i++) out += ag_sp_access(&pol, 1);
   CHECK(out == 0 && th[1].accesses == AG_SP_KNEE + 100000, "outside a region");
   /* a region of a site run 64 KNEE times: ~1/256 */
   open_region(1, 64 * AG_SP_KNEE);
   int damped = 0;
   for (int i = 0; i < 4096; i++) damped += ag_sp_access(&pol, 1);
   CHECK(damped > 2 && damped < 40, "site damped 64: %d", damped);
   /* nobody else enabled: never, but counted */
   ag_sp_enable(&pol, 2, 0);
   unsigned long long before = th[1].accesses;
   for (int i = 0; i < 1000; i++) CHECK(!ag_sp_access(&pol, 1), "preempted alone");
   CHECK(th[1].accesses == before + 1000, "accesses alone not counted");
   /* region starts: ~1/4 fresh */
   ag_sp_enable(&pol, 2, 1);
   int stops = 0;
   for (int i = 0; i < 4000; i++) {
      ag_sp_count(&pol, 1, AG_SP_PT_END);
      open_region(1, 1);
      stops += ag_sp_region_stop(&pol, 1);
   }
   CHECK(stops > 800 && stops < 1200, "region starts: %d of 4000 stop", stops);
   /* PCT: accesses in regions are points, and stop at change points only */
   setup(5, 1, 2);
   ag_sp_enable(&pol, 2, 1);
   open_region(1, 1);
   for (int i = 0; i < 300; i++) {
      int stop = ag_sp_access(&pol, 1);
      CHECK(stop == ag_sp_pct_change(&pol, pol.points), "pct access %d", i);
   }
   CHECK(pol.points == 301, "pct access points %llu", pol.points);
}

static void outside(void)
{
   /* points outside regions: 1 in AG_SP_RANDOM_OUTSIDE switch at first,
      then damped over all of them -- but not while another thread is in
      a region (this one may break it) */
   setup(6, 0, 3);
   ag_sp_enable(&pol, 2, 1);
   int first = 0, later = 0;
   for (int i = 0; i < 16 * AG_SP_KNEE; i++)
      first += ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0) != 1;
   for (int i = 0; i < 100000; i++) later += ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0) != 1;
   CHECK(first > 800 && first < 1250, "first outside: %d of 4096", first);
   CHECK(later < 6000, "later outside: %d of 100000", later);
   ag_sp_count(&pol, 3, AG_SP_PT_BEGIN);
   int busy = 0;
   for (int i = 0; i < 4000; i++) busy += ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0) != 1;
   CHECK(busy > 800 && busy < 1200, "another in a region: %d of 4000", busy);
}

static void rare(void)
{
   /* 1 holds the turn in a damped region; 2 parks at the BEGIN of a rare
      one, 3 at a point outside regions */
   setup(7, 0, 3);
   open_region(1, 100 * AG_SP_KNEE);
   CHECK(!ag_sp_rare_first(&pol, 1), "rare first with nobody rare");
   open_region(2, 1);
   ag_sp_parks(&pol, 2, AG_SP_PT_BEGIN);
   ag_sp_enable(&pol, 2, 1);
   ag_sp_parks(&pol, 3, AG_SP_PT_SYNC_PRE);
   ag_sp_enable(&pol, 3, 1);
   CHECK(pol.rare_parked == 1 && th[2].rare && !th[3].rare, "marked %u", pol.rare_parked);
   CHECK(ag_sp_rare_first(&pol, 1), "the rare region not first");
   /* boundaries: the holder keeps the turn; a preemption goes to the rare */
   for (int i = 0; i < 1000; i++) {
      CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_SYNC_PRE, 0) == 1, "switched at a boundary");
      CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_PREEMPT, 0) == 2, "preempted to a frequent one");
   }
   CHECK(ag_sp_choose(&pol, 1, AG_SP_PT_END, 0) == 1, "switched at END");
   /* accesses preempt 1 in AG_SP_RARE_ACCESS, undamped */
   int n = 0;
   for (int i = 0; i < 4000; i++) n += ag_sp_access(&pol, 1);
   CHECK(n > 1800 && n < 2200, "rare accesses: %d of 4000", n);
   /* once 2 runs, the rule is off */
   ag_sp_runs(&pol, 2);
   CHECK(pol.rare_parked == 0 && !ag_sp_rare_first(&pol, 1), "still rare first");
   /* not marked: a damped region's BEGIN, a nested BEGIN, a holder not damped */
   setup(8, 0, 3);
   open_region(2, 10 * AG_SP_KNEE);
   ag_sp_parks(&pol, 2, AG_SP_PT_BEGIN);
   open_region(3, 1);
   open_region(3, 1);
   ag_sp_parks(&pol, 3, AG_SP_PT_BEGIN);
   CHECK(pol.rare_parked == 0, "marked %u", pol.rare_parked);
   ag_sp_count(&pol, 3, AG_SP_PT_END);
   ag_sp_parks(&pol, 3, AG_SP_PT_BEGIN);
   ag_sp_parks(&pol, 3, AG_SP_PT_BEGIN);
   CHECK(pol.rare_parked == 1, "marked twice: %u", pol.rare_parked);
   open_region(1, 1);
   CHECK(!ag_sp_rare_first(&pol, 1), "an undamped holder yields to the rare");
}

/* A fork child: the thread parked at a rare BEGIN in the parent is gone,
   and the child's damped region is not preempted for it. */
static void rare_fork(void)
{
   setup(9, 0, 2);
   open_region(1, 100 * AG_SP_KNEE);
   open_region(2, 1);
   ag_sp_parks(&pol, 2, AG_SP_PT_BEGIN);
   ag_sp_enable(&pol, 2, 1);
   CHECK(ag_sp_rare_first(&pol, 1), "the rare region not first");
   ag_sp_enable(&pol, 2, 0);
   ag_sp_fork_child(&pol, 1);
   CHECK(pol.rare_parked == 0 && !th[2].rare, "still marked in the child: %u", pol.rare_parked);
   CHECK(!ag_sp_rare_first(&pol, 1), "rare first in the child");
   /* the slot's next thread starts unmarked, and counts right */
   ag_sp_thread_new(&pol, 2, 3);
   open_region(2, 1);
   ag_sp_parks(&pol, 2, AG_SP_PT_BEGIN);
   ag_sp_runs(&pol, 2);
   CHECK(pol.rare_parked == 0, "marked after it ran: %u", pol.rare_parked);
}

int main(void)
{
   counting();
   curve();
   rates();
   outside();
   rare();
   rare_fork();
   return sp_verdict();
}
