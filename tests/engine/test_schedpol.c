/* test_schedpol.c -- the scheduler's policy (atomgrind/engine/ag_schedpol.c)
 * on synthetic sequences of accesses, points and budgets: slot ownership
 * (private, claimed, read-shared, shared), the exactness of one_in's
 * division-free test, the damping of shared-access preemptions, budgets
 * that double, PCT's change points within [1, k], and that a seed repeats
 * every choice. */
#include <stdio.h>
#include <string.h>
#include "ag_schedpol.h"
#include "ag_sp_check.h"        /* CHECK, the verdict */

static ag_schedpol pol;

static void slots(void)
{
   int pt;
   ag_sp_init(&pol, 1);
   /* alone: the first touch makes the slot private, no point */
   unsigned char s = ag_sp_slot_after(&pol, 0, 3, 1, 0, &pt);
   CHECK(s == 3 && !pt, "alone: %u %d", s, pt);
   CHECK(ag_sp_slot_after(&pol, s, 3, 0, 1, &pt) == 3 && !pt, "own access");
   /* another thread reads it: read-shared, a point; its next loads no point */
   s = ag_sp_slot_after(&pol, s, 5, 0, 1, &pt);
   CHECK(s == AG_SP_READ && pt, "read by another: %u %d", s, pt);
   s = ag_sp_slot_after(&pol, s, 3, 0, 1, &pt);
   CHECK(s == AG_SP_READ && !pt, "load of read-shared: %u %d", s, pt);
   /* a write makes it shared; every access then is a point */
   s = ag_sp_slot_after(&pol, s, 3, 1, 1, &pt);
   CHECK(s == AG_SP_BOTH && pt, "write to read-shared: %u %d", s, pt);
   s = ag_sp_slot_after(&pol, s, 5, 0, 0, &pt);
   CHECK(s == AG_SP_BOTH && pt, "shared stays shared: %u %d", s, pt);
   /* another's private slot, written: shared at once */
   CHECK(ag_sp_slot_after(&pol, 7, 5, 1, 1, &pt) == AG_SP_BOTH && pt, "write to another's");
   /* touched while others wait: tried, a point, until a draw claims it */
   ag_sp_init(&pol, 2);
   s = 0;
   int points = 0, n = 0;
   do {
      s = ag_sp_slot_after(&pol, s, 9, 1, 1, &pt);
      points += pt;
      n++;
   } while (s != 9 && n < 10000);
   CHECK(s == 9, "never claimed");
   CHECK(points == n - 1, "tries are points: %d of %d", points, n);
   /* another thread's tried slot is not its own */
   CHECK(ag_sp_slot_after(&pol, 9 | AG_SP_TRY, 4, 0, 1, &pt) == AG_SP_READ && pt, "other's try");
   /* after the run's first AG_SP_TRIES draws, claimed at once */
   ag_sp_init(&pol, 3);
   for (int i = 0; i < AG_SP_TRIES; i++) ag_sp_claim(&pol, 1);
   CHECK(ag_sp_slot_after(&pol, 0, 9, 1, 1, &pt) == 9 && !pt, "claims after the tries");
}

static void one_in(void)
{
   /* one_in(n) is rand() % n == 0, draw for draw */
   static const unsigned ns[] = { 1, 2, 3, 4, 7, 12, 256, 1000, 4096, 16384, 12345 };
   ag_schedpol a, b;
   for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      ag_sp_init(&a, 42 + i);
      ag_sp_init(&b, 42 + i);
      for (int j = 0; j < 20000; j++) {
         int x = ag_sp_one_in(&a, ns[i]);
         int y = ag_sp_rand(&b) % ns[i] == 0;
         if (x != y) {
            CHECK(0, "one_in(%u) differs at draw %d", ns[i], j);
            break;
         }
      }
   }
}

static void shared_damping(void)
{
   /* one instruction: ~1/4 of its first AG_SP_KNEE points preempt, far
      fewer of the next 100,000 */
   ag_sp_init(&pol, 7);
   int early = 0, late = 0;
   for (int i = 0; i < AG_SP_KNEE; i++) {
      ag_sp_shared_point(&pol);
      early += ag_sp_shared_preempts(&pol, 0x401000, 1);
   }
   for (int i = 0; i < 100000; i++) {
      ag_sp_shared_point(&pol);
      late += ag_sp_shared_preempts(&pol, 0x401000, 1);
   }
   CHECK(early > AG_SP_KNEE / 8 && early < AG_SP_KNEE / 2, "early %d", early);
   CHECK(late < 600, "late %d (damped)", late);
   /* many instructions: the run's damping bounds them too */
   ag_sp_init(&pol, 8);
   int many = 0;
   for (int i = 0; i < 200000; i++) {
      ag_sp_shared_point(&pol);
      many += ag_sp_shared_preempts(&pol, 0x500000 + 16 * (i % 4096), 1);
   }
   CHECK(many < 6000, "many instructions: %d switches", many);
   /* nobody waiting: never */
   ag_sp_init(&pol, 9);
   int none = 0;
   for (int i = 0; i < 1000; i++) none += ag_sp_shared_preempts(&pol, 0x401000, 0);
   CHECK(none == 0, "preempted with nobody waiting");
}

static void budgets(void)
{
   ag_sp_init(&pol, 11);
   long long max_first = 0;
   for (int i = 0; i < AG_SP_KNEE_BUDGETS; i++) {
      long long b = ag_sp_budget(&pol);
      CHECK(b >= 1 && b <= 2 * AG_SP_QUANTUM, "budget %lld", b);
      if (b > max_first) max_first = b;
      ag_sp_budget_out(&pol);
   }
   long long max_next = 0;
   for (int i = 0; i < AG_SP_KNEE_BUDGETS; i++) {
      long long b = ag_sp_budget(&pol);
      CHECK(b >= 1 && b <= 4 * AG_SP_QUANTUM, "doubled budget %lld", b);
      if (b > max_next) max_next = b;
      ag_sp_budget_out(&pol);
   }
   CHECK(max_next > 2 * AG_SP_QUANTUM, "budgets doubled: max %lld", max_next);
   for (int i = 0; i < 100 * AG_SP_KNEE_BUDGETS; i++) ag_sp_budget_out(&pol);
   for (int i = 0; i < 100; i++) {
      long long b = ag_sp_budget(&pol);
      CHECK(b <= 2LL * AG_SP_QUANTUM << AG_SP_DOUBLINGS, "capped budget %lld", b);
   }
}

/* PCT's draw alone, for seed (ag_sp_init zeroes the whole policy: slow
   at a million draws). */
static unsigned long long pct_draw(unsigned long long seed, unsigned depth)
{
   pol.rng = seed;
   return ag_sp_pct_init(&pol, depth, 0);
}

/* k not known (a first run): k is a doubling of AG_SP_PCT_K0, each of the
   AG_SP_PCT_SCALES about as often; the change points within [1, k]. */
static void pct_scales(void)
{
   enum { SEEDS = 28000 };
   static int scale[AG_SP_PCT_SCALES];
   for (int s = 0; s < SEEDS; s++) {
      unsigned long long k = pct_draw(5000 + s, 3);
      unsigned j = 0;
      while (j < AG_SP_PCT_SCALES && (unsigned long long)AG_SP_PCT_K0 << j != k) j++;
      CHECK(j < AG_SP_PCT_SCALES, "k=%llu is no doubling of %d", k, AG_SP_PCT_K0);
      if (j < AG_SP_PCT_SCALES) scale[j]++;
      for (unsigned i = 0; i < pol.nchange; i++)
         CHECK(pol.change[i] >= 1 && pol.change[i] <= k, "change %llu outside [1, %llu]",
               pol.change[i], k);
   }
   for (int j = 0; j < AG_SP_PCT_SCALES; j++)
      CHECK(scale[j] > SEEDS / AG_SP_PCT_SCALES * 8 / 10 && scale[j] < SEEDS / AG_SP_PCT_SCALES * 12 / 10,
            "scale %d drawn %d times of %d", j, scale[j], SEEDS);
}

/* The bound of a first run (ag_schedpol.c): for a run of K points, any
   step s <= K holds a change point (d = 2) with probability at least
   1/(L 2K), and any d-1 = 2 steps hold the two (in either order) with
   probability at least 2/(L (2K)^2).  Measured over seeds on runs of 20,
   180 and 20,000 points (for the long run, on windows of K/10 steps). */
static void pct_unknown_k(void)
{
   enum { SEEDS = 200000 };
   static const unsigned long long lens[] = { 20, 180, 20000 };
   pct_scales();
   for (unsigned li = 0; li < 3; li++) {
      unsigned long long K = lens[li], w = K >= 1000 ? K / 10 : 1;
      unsigned long long at[3] = { 1, K / 2, K - w + 1 };   /* windows [at, at + w) */
      int one[3] = { 0, 0, 0 }, two = 0;
      for (int s = 0; s < SEEDS; s++) {
         pct_draw(900000 + s, 2);
         for (int a = 0; a < 3; a++) one[a] += pol.change[0] >= at[a] && pol.change[0] < at[a] + w;
         pct_draw(900000 + s, 3);
         unsigned long long lo = pol.change[0] < pol.change[1] ? pol.change[0] : pol.change[1];
         unsigned long long hi = pol.change[0] ^ pol.change[1] ^ lo;
         two += lo >= at[0] && lo < at[0] + w && hi >= at[2] && hi < at[2] + w;
      }
      double bound1 = (double)w / (AG_SP_PCT_SCALES * 2.0 * K);
      double bound2 = 2.0 * w * w / (AG_SP_PCT_SCALES * 4.0 * K * K);
      for (int a = 0; a < 3; a++)
         CHECK(one[a] >= bound1 * SEEDS, "K=%llu d=2 window %llu: %d of %d, bound %.0f", K, at[a],
               one[a], SEEDS, bound1 * SEEDS);
      CHECK(two >= bound2 * SEEDS, "K=%llu d=3: %d of %d, bound %.0f", K, two, SEEDS, bound2 * SEEDS);
   }
}

static void pct(void)
{
   for (unsigned d = 1; d <= 4; d++) {
      ag_sp_init(&pol, 100 + d);
      ag_sp_pct_init(&pol, d, 20);
      CHECK(pol.nchange == d - 1, "d=%u: %u change points", d, pol.nchange);
      int seen = 0;
      for (unsigned long long n = 1; n <= 20; n++) seen += ag_sp_pct_change(&pol, n);
      CHECK(seen >= 1 || d == 1, "d=%u: no change point in [1, 20]", d);
      CHECK(!ag_sp_pct_change(&pol, 0) && !ag_sp_pct_change(&pol, 21), "out of range");
   }
   /* each change point is uniform over [1, k]: every point gets some */
   static int hits[21];
   for (int s = 0; s < 4000; s++) {
      ag_sp_init(&pol, s);
      ag_sp_pct_init(&pol, 2, 20);
      hits[pol.change[0]]++;
   }
   for (int n = 1; n <= 20; n++) CHECK(hits[n] > 100 && hits[n] < 300, "point %d: %d", n, hits[n]);
   pct_unknown_k();
}

static void repeats(void)
{
   /* the same seed and the same sequence of events: the same choices */
   unsigned long long sig[2] = { 0, 0 };
   for (int run = 0; run < 2; run++) {
      ag_sp_init(&pol, 77);
      int pt;
      unsigned char s = 0;
      for (int i = 0; i < 5000; i++) {
         s = ag_sp_slot_after(&pol, s, (unsigned char)(1 + i % 3), i % 5 == 0, 1, &pt);
         ag_sp_shared_point(&pol);
         sig[run] = sig[run] * 31 + s + 7 * pt + 13 * ag_sp_shared_preempts(&pol, 0x400000 + i % 64, 1)
                    + (unsigned long long)ag_sp_budget(&pol);
      }
   }
   CHECK(sig[0] == sig[1], "a seed does not repeat");
}

int main(void)
{
   slots();
   one_in();
   shared_damping();
   budgets();
   pct();
   repeats();
   return sp_verdict();
}
