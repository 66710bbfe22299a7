/* test_rpt_atomicity.c -- soundness of RPT sampling for the atomicity
 * engines (DESIGN.md §6: a window's transaction graph is a subgraph of the
 * execution's, its transactions pieces of the execution's, so a cycle in a
 * window is a cycle of the execution).
 *
 * Random traces from ag_ref_gen() are fed to every registered atomicity
 * engine with the dispatcher switched on and off by ag_sampler (small k and
 * r forced with ag_sampler_override, several seeds; threads inside a region
 * at a window start get the dispatcher's synthetic begin).  Every report at
 * event e must be one the brute-force reference (tests/engine/ag_ref.c)
 * supports: the transaction graph of the prefix up to e is cyclic.  For
 * "atomsanitizer", which reports exactly when an edge closes a cycle, the
 * stronger ag_ref_closes_cycle(e) must hold too.  Engines that are not
 * registered are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ag_engine_impl.h"
#include "ag_ref.h"
#include "ag_sampler.h"

static int nrep;
static uint64_t rep_event[AG_REF_MAXEV + 8];

static void on_report(void *c, const ag_violation *v)
{
   (void)c;
   if (nrep < AG_REF_MAXEV + 8) rep_event[nrep++] = v->event;
}

/* Feed tr with sampling; returns events analysed. */
static uint64_t feed_sampled(const ag_ref_trace *tr, const ag_engine_ops *ops, ag_sampler *s)
{
   nrep = 0;
   ag_engine *e = ag_engine_new(ops, NULL, on_report, NULL);
   for (int t = 0; t < tr->ninit; t++) ag_ev_thread_new(e, t);
   for (int i = 0; i < tr->n; i++) {
      if ((uint64_t)i >= ag_sampler_next_change(s)) {
         ag_sampler_advance(s, i);
         ag_engine_set_active(e, ag_sampler_active(s));
      }
      int rc = ag_ref_feed_event(e, &tr->ev[i], (uint64_t)i + 1);
      if (rc != AG_OK) { printf("FAIL event %d rejected (%d)\n", i + 1, rc); exit(1); }
   }
   uint64_t an = ag_engine_analysed(e);
   ag_engine_delete(e);
   return an;
}

int main(int argc, char **argv)
{
   int ntraces = argc > 1 ? atoi(argv[1]) : 1500;
   int engines = 0;
   for (const ag_engine_ops *const *p = ag_engine_all(); *p; p++) {
      const ag_engine_ops *ops = *p;
      if (ops->kind != AG_KIND_ATOMICITY) continue;
      engines++;
      int strong = !strcmp(ops->name, "atomsanitizer");
      uint64_t st = 777, reports = 0, full_reports = 0, events = 0, analysed = 0, windows = 0;
      for (int n = 0; n < ntraces; n++) {
         ag_ref_trace tr;
         ag_ref_gen(&tr, &st, 40 + (int)(ag_ref_rand(&st) % 120), 2 + n % 4);
         int first = ag_ref_first_cycle(&tr);
         ag_ref_reports full;
         full_reports += ag_ref_feed(&tr, ops->name, NULL, &full);
         for (int rep = 0; rep < 3; rep++) {
            ag_sampler s;
            ag_sampler_init(&s, 0.1, 0.1, (uint64_t)n * 3 + rep);
            ag_sampler_override(&s, 1 + rep, 4 + (int)(ag_ref_rand(&st) % 12));
            analysed += feed_sampled(&tr, ops, &s);
            events += tr.n;
            windows += ag_sampler_windows(&s);
            for (int i = 0; i < nrep; i++) {
               int e = (int)rep_event[i];
               int ok = first && first <= e;
               if (ok && strong) ok = ag_ref_closes_cycle(&tr, e);
               if (!ok) {
                  ag_ref_print(&tr, stdout);
                  printf("FAIL %s under sampling (r=%llu k=%llu seed %d) reports at event %d; "
                         "reference: first cycle at %d%s\n", ops->name,
                         (unsigned long long)s.r, (unsigned long long)s.k, n * 3 + rep, e, first,
                         strong ? ", and no cycle closed at that event" : "");
                  return 1;
               }
            }
            reports += nrep;
         }
      }
      printf("rpt soundness (%s): %d traces, %llu full reports, %llu reports in %d sampled runs "
             "analysing %.1f%% of events in %llu intervals\n", ops->name, ntraces,
             (unsigned long long)full_reports, (unsigned long long)reports, 3 * ntraces,
             100.0 * analysed / events, (unsigned long long)windows);
      if (reports < (uint64_t)ntraces / 10 || analysed * 10 > events * 9) {
         printf("FAIL %s: the sampled runs did not exercise sampling enough\n", ops->name);
         return 1;
      }
   }
   if (!engines) printf("no atomicity engine registered: nothing to check\n");
   printf("test_rpt_atomicity: all passed\n");
   return 0;
}
