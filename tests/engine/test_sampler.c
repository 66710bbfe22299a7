/* test_sampler.c -- the RPT window chooser (ag_sampler), simulated on event
 * counts only (no engine): parameters, whole-run analysis of short runs,
 * reproducibility, logarithmic growth of the analysed part with n, the
 * distribution of accepted slots and window offsets, growth of k with |T|
 * and h, and batched (late) advancing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ag_sampler.h"

static int failures;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __func__, __LINE__); \
   printf(__VA_ARGS__); printf("\n"); failures++; } } while (0)

/* Run the sampler exactly (advance at every change point) up to n events. */
static void run_to(ag_sampler *s, uint64_t n)
{
   for (;;) {
      uint64_t t = ag_sampler_next_change(s);
      if (t > n) break;
      ag_sampler_advance(s, t);
   }
   ag_sampler_advance(s, n);
}

static void test_helpers(void)
{
   double xs[] = { 1e-9, 0.001, 0.1, 0.5, 0.7071, 1, 1.5, 2, 2.718281828, 10, 12345.678, 1e12, 3e300 };
   for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
      double got = ag_sampler_ln(xs[i]), want = log(xs[i]);
      CHECK(fabs(got - want) <= 1e-12 * (1 + fabs(want)), "ln(%g) = %.17g, want %.17g", xs[i], got, want);
   }
   CHECK(ag_sampler_ceil(3.0) == 3, "ceil 3");
   CHECK(ag_sampler_ceil(3.0000001) == 4, "ceil 3.0000001");
   CHECK(ag_sampler_ceil(0.2) == 1, "ceil 0.2");
   CHECK(ag_sampler_ceil(0) == 0, "ceil 0");
   ag_sampler s;
   ag_sampler_init(&s, 0.5, 0.5, 1);
   uint64_t hist[7] = { 0 };
   for (int i = 0; i < 70000; i++) hist[ag_sampler_rand_below(&s, 7)]++;
   for (int i = 0; i < 7; i++) CHECK(hist[i] > 9500 && hist[i] < 10500, "rand_below bucket %d: %llu", i, (unsigned long long)hist[i]);
}

static void test_params(void)
{
   ag_sampler s;
   CHECK(ag_sampler_init(&s, 0.01, 0.1, 42) == 0, "init");
   /* r = ceil(15 ln 10 / 0.02) = ceil(1726.94) */
   CHECK(s.r == 1727, "r = %llu", (unsigned long long)s.r);
   CHECK(ag_sampler_m(&s) == 4 && s.k == 1600, "m %llu k %llu", (unsigned long long)ag_sampler_m(&s), (unsigned long long)s.k);
   ag_sampler_note_threads(&s, 3);
   ag_sampler_note_locks_held(&s, 2);
   ag_sampler_note_locks_held(&s, 1);       /* maxima are kept */
   CHECK(ag_sampler_m(&s) == 16, "m = %llu", (unsigned long long)ag_sampler_m(&s));
   ag_sampler_advance(&s, s.slot_end);
   CHECK(s.k == 6400, "k = %llu", (unsigned long long)s.k);
   CHECK(ag_sampler_init(&s, 0, 0.1, 1) == -1 && s.epsilon == 0.01, "bad epsilon");
   CHECK(ag_sampler_init(&s, 0.1, 1.0, 1) == -1, "bad delta");
   CHECK(ag_sampler_init(&s, 0.5, 0.99, 1) == 0 && s.r == 1, "r at least 1: %llu", (unsigned long long)s.r);
}

/* A run shorter than the prefix (>= 12m/eps events) is analysed whole. */
static void test_short_run(void)
{
   ag_sampler s;
   ag_sampler_init(&s, 0.01, 0.1, 7);
   ag_sampler_note_threads(&s, 4);           /* m = 16, 12m/eps = 19200 */
   uint64_t n = 19199;
   for (uint64_t now = 0; now <= n; now += 37) {
      CHECK(ag_sampler_advance(&s, now) == 1, "inactive at %llu", (unsigned long long)now);
   }
   run_to(&s, n);
   CHECK(ag_sampler_active(&s) && ag_sampler_windows(&s) == 1 && ag_sampler_analysed(&s) == n,
         "short run: active %d windows %llu analysed %llu", ag_sampler_active(&s),
         (unsigned long long)ag_sampler_windows(&s), (unsigned long long)ag_sampler_analysed(&s));
   /* the prefix also holds when slots r is small: eps large, delta ~ 1 */
   ag_sampler_init(&s, 0.5, 0.99, 7);       /* r = 1, k = 32, 12m/eps = 96 */
   run_to(&s, 95);
   CHECK(ag_sampler_active(&s) && ag_sampler_analysed(&s) == 95, "12m/eps prefix, analysed %llu",
         (unsigned long long)ag_sampler_analysed(&s));
}

/* Same seed, same schedule; another seed, another schedule. */
static void test_reproducible(void)
{
   ag_sampler a, b, c;
   ag_sampler_init(&a, 0.1, 0.1, 1234);
   ag_sampler_init(&b, 0.1, 0.1, 1234);
   ag_sampler_init(&c, 0.1, 0.1, 1235);
   int same_ab = 1, same_ac = 1;
   for (int i = 0; i < 20000; i++) {
      uint64_t ta = ag_sampler_next_change(&a), tb = ag_sampler_next_change(&b),
               tc = ag_sampler_next_change(&c);
      same_ab &= ta == tb;
      same_ac &= ta == tc;
      ag_sampler_advance(&a, ta);
      ag_sampler_advance(&b, tb);
      ag_sampler_advance(&c, tc);
      same_ab &= ag_sampler_active(&a) == ag_sampler_active(&b);
   }
   CHECK(same_ab && ag_sampler_analysed(&a) == ag_sampler_analysed(&b), "same seed differs");
   CHECK(!same_ac, "different seeds gave the same schedule");
}

/* Windows and analysed events grow like r (1 + ln(n/(r k))). */
static void test_log_growth(void)
{
   uint64_t ns[] = { 1000000, 10000000, 100000000 };
   double an[3];
   for (int i = 0; i < 3; i++) {
      ag_sampler s;
      ag_sampler_init(&s, 0.1, 0.1, 99);
      ag_sampler_note_threads(&s, 2);
      ag_sampler_note_locks_held(&s, 1);    /* m = 10: k = 400, r = 173 */
      run_to(&s, ns[i]);
      double r = (double)s.r, k = (double)s.k, n = (double)ns[i];
      double want = r * (1 + log(n / (r * k)));
      double acc = (double)ag_sampler_accepted(&s);
      an[i] = (double)ag_sampler_analysed(&s);
      printf("sampler n=%.0e: r=%.0f k=%.0f accepted slots %.0f (r(1+ln(n/rk)) = %.0f), "
             "intervals %llu, analysed %.0f events (%.2f%%)\n", n, r, k, acc, want,
             (unsigned long long)ag_sampler_windows(&s), an[i], 100 * an[i] / n);
      CHECK(s.k == 400 && s.r == 173, "k %llu r %llu", (unsigned long long)s.k, (unsigned long long)s.r);
      CHECK(acc > 0.85 * want && acc < 1.15 * want, "accepted %.0f vs %.0f", acc, want);
      CHECK(an[i] > 0.5 * acc * k && an[i] <= 1.05 * acc * k + 3 * k,
            "analysed %.0f vs accepted*k %.0f", an[i], acc * k);
      CHECK(ag_sampler_windows(&s) <= ag_sampler_accepted(&s), "more intervals than windows");
   }
   /* 100x longer run, only ~ln(100)/(1+ln(n/rk)) more analysis */
   CHECK(an[2] / an[0] < 2.6 && an[2] > an[0], "growth %.2f", an[2] / an[0]);
}

/* Across seeds, slot j (j > r) is accepted with frequency r/j: chi-square
   over buckets of equal expected count.  Offsets are uniform in [0, k). */
static void test_distribution(void)
{
   enum { R = 10, K = 10, J = 4000, RUNS = 400, B = 20 };
   static uint32_t hits[J + 2];
   uint64_t off[K] = { 0 }, noff = 0;
   for (int run = 0; run < RUNS; run++) {
      ag_sampler s;
      ag_sampler_init(&s, 0.1, 0.1, 5000 + run);
      ag_sampler_override(&s, R, K);
      while (s.slot < J) {
         uint64_t t = s.slot_end;          /* stop at each slot boundary */
         uint64_t nc = ag_sampler_next_change(&s);
         if (nc < t) { ag_sampler_advance(&s, nc); continue; }
         uint64_t acc = ag_sampler_accepted(&s);
         ag_sampler_advance(&s, t);
         if (ag_sampler_accepted(&s) != acc) {
            hits[s.slot]++;
            if (s.slot > R) { off[(s.pend != AG_SAMPLER_NEVER ? s.pend : s.win) - t]++; noff++; }
         }
      }
   }
   /* slots 1..R always */
   for (int j = 1; j <= R; j++) CHECK(hits[j] == RUNS, "slot %d accepted %u times", j, hits[j]);
   /* buckets of equal expected count over j in (R, J] */
   double total = 0;
   for (int j = R + 1; j <= J; j++) total += (double)RUNS * R / j;
   double chi = 0, exp_acc = 0, obs = 0;
   int b = 0, j0 = R + 1;
   for (int j = R + 1; j <= J; j++) {
      exp_acc += (double)RUNS * R / j;
      obs += hits[j];
      if (exp_acc >= total / B || j == J) {
         chi += (obs - exp_acc) * (obs - exp_acc) / exp_acc;
         b++;
         exp_acc = obs = 0;
         j0 = j + 1;
      }
   }
   (void)j0;
   printf("sampler acceptance: chi-square %.1f over %d buckets (%.0f accepted slots expected)\n", chi, b, total);
   CHECK(chi < 3.0 * b + 20, "acceptance chi-square %.1f over %d buckets", chi, b);
   double chio = 0;
   for (int i = 0; i < K; i++) {
      double e = (double)noff / K;
      chio += (off[i] - e) * (off[i] - e) / e;
   }
   printf("sampler offsets: chi-square %.1f over %d bins (%llu windows)\n", chio, K, (unsigned long long)noff);
   CHECK(chio < 40, "offset chi-square %.1f", chio);
}

/* k grows with |T| and h: at the next slot boundary, and an open window or
   the prefix is lengthened at once. */
static void test_growth(void)
{
   ag_sampler s;
   ag_sampler_init(&s, 0.5, 0.5, 3);       /* k = 32, r = ceil(15 ln2) = 11 */
   CHECK(s.k == 32 && s.r == 11, "k %llu r %llu", (unsigned long long)s.k, (unsigned long long)s.r);
   ag_sampler_advance(&s, 10);
   ag_sampler_note_threads(&s, 4);         /* m = 16: k = 128 */
   CHECK(s.k == 128 && s.slot_end == 32, "k %llu, current slot keeps its end %llu",
         (unsigned long long)s.k, (unsigned long long)s.slot_end);
   ag_sampler_advance(&s, 32);
   CHECK(s.slot == 1 && s.slot_end == 160, "slot %llu end %llu", (unsigned long long)s.slot,
         (unsigned long long)s.slot_end);
   run_to(&s, 3 * 128 - 1);
   CHECK(ag_sampler_active(&s), "prefix shorter than 3k");
   /* after the prefix, a window that is open when k grows is lengthened */
   for (int i = 0; i < 100000 && !(ag_sampler_active(&s) && !s.prefix); i++)
      ag_sampler_advance(&s, ag_sampler_next_change(&s));
   CHECK(ag_sampler_active(&s) && !s.prefix, "no window after the prefix");
   uint64_t end = s.act_to;
   ag_sampler_note_locks_held(&s, 10);     /* m = 36: k = 288 */
   CHECK(s.act_to >= s.win + 288 && s.act_to >= end, "window end %llu not lengthened (start %llu)",
         (unsigned long long)s.act_to, (unsigned long long)s.win);
}

/* Advancing late, in batches, analyses about what exact advancing does. */
static void test_batched(void)
{
   ag_sampler a, b;
   ag_sampler_init(&a, 0.1, 0.1, 77);
   ag_sampler_init(&b, 0.1, 0.1, 77);
   uint64_t n = 20000000;
   run_to(&a, n);
   for (uint64_t now = 0; now < n; now += 50) ag_sampler_advance(&b, now);
   ag_sampler_advance(&b, n);
   double x = (double)ag_sampler_analysed(&a), y = (double)ag_sampler_analysed(&b);
   printf("sampler batched: exact %.0f analysed, batches of 50: %.0f\n", x, y);
   CHECK(ag_sampler_accepted(&a) == ag_sampler_accepted(&b), "accepted differ");
   CHECK(fabs(x - y) <= 100.0 * ag_sampler_windows(&a), "analysed %.0f vs %.0f", x, y);
}

int main(void)
{
   test_helpers();
   test_params();
   test_short_run();
   test_reproducible();
   test_log_growth();
   test_distribution();
   test_growth();
   test_batched();
   if (failures) { printf("%d failure(s)\n", failures); return 1; }
   printf("test_sampler: all passed\n");
   return 0;
}
