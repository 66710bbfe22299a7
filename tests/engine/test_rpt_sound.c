/* test_rpt_sound.c -- soundness of RPT sampling for the race engine.
 *
 * On thousands of random traces (2-5 threads, mutexes, an rwlock, a sync
 * object used as a semaphore, fork/join, plain and atomic accesses of sizes
 * 1-8 on a few words, plain ones unaligned too, frees of 1-8 bytes) this checks, against a brute-force
 * happens-before oracle that models atomics as ag_fasttrack.c describes
 * (atomic accesses acquire and release their address; a plain store of an
 * atomic object's exact address and size and a plain load starting in one
 * are atomic too; accesses before a
 * location's first atomic one count as atomic; a plain access made atomic
 * is so on the bytes that are part of an atomic object, fresh bytes stay
 * plain; a free is a write and makes its memory fresh (the block is
 * allocated again: a forget after it), and with it every
 * atomic object it touches, whole):
 *   1. every report of the full analysis ("fasttrack") is a racy event;
 *   2. the first racy event is reported;
 *   3. with the dispatcher switched on and off by ag_sampler (small k and r
 *      forced with ag_sampler_override, several seeds), every report is an
 *      event the full analysis reports too (and so a real race);
 *   4. the same for the analysis of a random suffix alone (the property
 *      windows rely on: state built from a suffix never reports more);
 *   5. joining equal locations (ag_shadow_compact, forced before every
 *      access) leaves every report of the full analysis as it was;
 *   6. so do site numbers kept beside the location (ag_fasttrack_site_inline
 *      lowered, so that most of a trace's are), with joining forced too:
 *      every field of every report is as it was;
 *   7. so does joining a byte loop's word at its last byte (the traces have
 *      byte loops of one instruction): every field of every report is as
 *      without it (ag_engine_join_bytes off);
 *   8. the approximate history (cfg.approx_history, the tool's default):
 *      reports at exactly the events the exact analysis reports, with every
 *      field the same but the earlier access named, which is one of the
 *      same thread and kind, at a common byte, that races with the reported
 *      one by the oracle (not ordered before it); built with AG_FT_MUTANT=1
 *      to 3 (ag_fasttrack.c), or AG_SHADOW_MUTANT (ag_shadow.c), this
 *      fails, on a lost or an extra report (or a wrong earlier access).
 * Exits non-zero on the first failing trace, printing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ag_engine.h"
#include "ag_engine_impl.h"      /* ag_fasttrack_site_inline */
#include "ag_sampler.h"
#include "ag_shadow.h"           /* ag_shadow_compact_min */

enum { ACC, ACQ, REL, RACQ, RREL, FORK, JOIN, FREE };
typedef struct { uint8_t tid, op, size, flags; uint64_t arg; } tev;

#define MAXEV 200
#define MAXT 5
typedef struct { int n, ninit; tev ev[MAXEV]; } trace;

static uint64_t rng_state;
static uint64_t rnd(void)
{
   uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}
static int below(int n) { return (int)(rnd() % (uint64_t)n); }

#define NMUT 2
#define MUT(i) (0x100 + (i))
#define RWL 0x200
#define SEM 0x300
#define WORDS 3
#define BASE 0x1000

static void add(trace *tr, int t, int op, uint64_t arg, int size, int flags)
{
   tev *e = &tr->ev[tr->n++];
   e->tid = t; e->op = op; e->arg = arg; e->size = size; e->flags = flags;
}

/* A well-formed random trace of about len events. */
static void gen(trace *tr, int len, int atomics)
{
   int T = 2 + below(MAXT - 1);
   int state[MAXT];             /* 0 unborn, 1 running, 2 finished, 3 joined */
   int mut[NMUT], rw_writer = -1, rw_readers[MAXT] = { 0 };
   int held[MAXT][NMUT + 1], nheld[MAXT];
   memset(tr, 0, sizeof *tr);
   tr->ninit = 1 + below(T);
   for (int t = 0; t < T; t++) { state[t] = t < tr->ninit; nheld[t] = 0; }
   for (int i = 0; i < NMUT; i++) mut[i] = -1;
   while (tr->n < len) {
      int run[MAXT], nr = 0;
      for (int t = 0; t < T; t++) if (state[t] == 1) run[nr++] = t;
      if (!nr) break;
      int t = run[below(nr)], a = below(100);
      if (a < 50 && below(8) == 0) {
         /* a byte loop over a word: one instruction (flag 4: one site) */
         uint64_t w = BASE + 8 * below(WORDS);
         int fl = 4 | (below(2) ? 1 : 0);
         for (int b = 0; b < 8; b++) add(tr, t, ACC, w + b, 1, fl);
      } else if (a < 50 && below(6) == 0) {
         /* unaligned: across two words, or parts of one (a plain access:
            only atomic objects' own accesses are aligned) */
         int sz = 2 << below(3);
         add(tr, t, ACC, BASE + below(8 * WORDS - sz + 1), sz, below(2));
      } else if (a < 50) {
         static const int sizes[] = { 1, 2, 4, 8 };
         int sz = sizes[below(4)];
         uint64_t addr = BASE + 8 * below(WORDS) + sz * below(8 / sz);
         int fl = below(2) ? 1 /* AG_WRITE */ : 0;
         if (atomics && below(5) == 0) fl |= 2;   /* AG_ATOMIC */
         add(tr, t, ACC, addr, sz, fl);
      } else if (a < 52) {
         static const int fsz[] = { 1, 2, 4, 8, 8 };
         int sz = fsz[below(5)];
         add(tr, t, FREE, BASE + 8 * below(WORDS) + sz * below(8 / sz), sz, 0);
      } else if (a < 60) {
         int m = below(NMUT);
         if (mut[m] == -1) { mut[m] = t; held[t][nheld[t]++] = MUT(m); add(tr, t, ACQ, MUT(m), 0, 0); }
      } else if (a < 70) {
         if (nheld[t]) {
            int i = below(nheld[t]);
            uint64_t l = held[t][i];
            held[t][i] = held[t][--nheld[t]];
            if (l == RWL) {
               if (rw_writer == t) { rw_writer = -1; add(tr, t, REL, l, 0, 0); }
               else { rw_readers[t] = 0; add(tr, t, RREL, l, 0, 0); }
            } else {
               mut[l - MUT(0)] = -1;
               add(tr, t, REL, l, 0, 0);
            }
         }
      } else if (a < 76) {
         int nread = 0;
         for (int u = 0; u < T; u++) nread += rw_readers[u];
         if (rw_writer == -1 && !rw_readers[t]) {
            if (below(3) == 0 && nread == 0) { rw_writer = t; add(tr, t, ACQ, RWL, 0, 0); }
            else { rw_readers[t] = 1; add(tr, t, RACQ, RWL, 0, 0); }
            held[t][nheld[t]++] = RWL;
         }
      } else if (a < 84) {
         add(tr, t, below(2) ? REL : ACQ, SEM, 0, 0);   /* post / wait */
      } else if (a < 90) {
         for (int u = 0; u < T; u++)
            if (state[u] == 0) { state[u] = 1; add(tr, t, FORK, u, 0, 0); break; }
      } else if (a < 94) {
         if (nr > 1 || below(4) == 0) {                  /* finish */
            while (nheld[t]) {
               uint64_t l = held[t][--nheld[t]];
               if (l == RWL && rw_writer != t) { rw_readers[t] = 0; add(tr, t, RREL, l, 0, 0); }
               else {
                  if (l == RWL) rw_writer = -1; else mut[l - MUT(0)] = -1;
                  add(tr, t, REL, l, 0, 0);
               }
            }
            state[t] = 2;
         }
      } else {
         for (int u = 0; u < T; u++)
            if (state[u] == 2 && u != t) { state[u] = 3; add(tr, t, JOIN, u, 0, 0); break; }
      }
      if (tr->n >= MAXEV - 8) break;
   }
}

static void print_trace(const trace *tr)
{
   static const char *nm[] = { "acc", "acq", "rel", "racq", "rrel", "fork", "join", "free" };
   printf("trace: %d events, threads 0..%d exist at start\n", tr->n, tr->ninit - 1);
   for (int i = 0; i < tr->n; i++) {
      const tev *e = &tr->ev[i];
      if (e->op == ACC)
         printf("  %3d: t%d %s%s 0x%llx/%d\n", i + 1, e->tid, e->flags & 2 ? "atomic " : "",
                e->flags & 1 ? "wr" : "rd", (unsigned long long)e->arg, e->size);
      else
         printf("  %3d: t%d %s 0x%llx\n", i + 1, e->tid, nm[e->op], (unsigned long long)e->arg);
   }
}

/* ---- brute-force oracle ------------------------------------------ */

typedef struct { uint64_t w[(MAXEV + 63) / 64]; } bits;
static int bit(const bits *b, int i) { return (b->w[i / 64] >> (i % 64)) & 1; }
static void setbit(bits *b, int i) { b->w[i / 64] |= 1ULL << (i % 64); }
static void orbits(bits *d, const bits *s) { for (unsigned i = 0; i < sizeof d->w / 8; i++) d->w[i] |= s->w[i]; }

/* Per byte of the words, the state the atomics rules depend on. */
#define NB (8 * WORDS)
typedef struct {
   int freed;            /* index of the last free of the byte, -1 */
   int first_atomic;     /* of the first atomic access since, -1 */
   uint64_t mstart;      /* atomic object it belongs to (msize 0: none) */
   int msize;
} byte_st;

static int is_write(const tev *e) { return e->op == FREE || (e->flags & 1); }

static bits hb[MAXEV];                    /* hb[i]: events that happen before i */

/* racy[i] = 1 if access i races with an earlier access (0-based) */
static void oracle(const trace *tr, int *racy)
{
   static int upg[MAXEV], rel_key[MAXEV]; /* plain access made atomic; released key */
   static unsigned char inobj[MAXEV][NB]; /* byte of access i was in an atomic object */
   static unsigned char obj[NB][9];       /* obj[b][s]: an object of size s starts at b */
   byte_st by[NB];
   int last[MAXT], forked_by[MAXT];
   for (int t = 0; t < MAXT; t++) { last[t] = -1; forked_by[t] = -1; }
   for (int b = 0; b < NB; b++) by[b] = (byte_st){ -1, -1, 0, 0 };
   memset(obj, 0, sizeof obj);
   for (int i = 0; i < tr->n; i++) {
      const tev *e = &tr->ev[i];
      int lo = (int)(e->arg - BASE), hi = lo + e->size;
      int acc = e->op == ACC || e->op == FREE;
      int genuine = e->op == ACC && (e->flags & 2);
      memset(&hb[i], 0, sizeof hb[i]);
      /* a plain store of exactly the object, a plain load starting in it */
      const byte_st *m = acc ? &by[lo] : NULL;
      upg[i] = e->op == ACC && !genuine && m->msize
               && (!(e->flags & 1) || (m->msize == e->size && m->mstart == e->arg));
      rel_key[i] = (genuine || upg[i]) && (e->flags & 1) ? lo : -1;
      int acq_key = genuine ? lo : upg[i] && !(e->flags & 1) ? (int)(m->mstart - BASE) : -1;
      int preds[MAXEV], np = 0;
      if (last[e->tid] >= 0) preds[np++] = last[e->tid];
      else if (forked_by[e->tid] >= 0) preds[np++] = forked_by[e->tid];
      if (e->op == JOIN && last[e->arg] >= 0) preds[np++] = last[e->arg];
      if (e->op == JOIN && last[e->arg] < 0 && forked_by[e->arg] >= 0) preds[np++] = forked_by[e->arg];
      if (e->op == ACQ || e->op == RACQ) {
         int wacq_between = 0;
         for (int j = i - 1; j >= 0; j--) {
            const tev *f = &tr->ev[j];
            if (f->arg != e->arg || f->op == ACC || f->op == FREE) continue;
            if (f->op == REL) preds[np++] = j;
            if (f->op == RREL && e->op == ACQ && !wacq_between) preds[np++] = j;
            if (f->op == ACQ) wacq_between = 1;
         }
      }
      if (acq_key >= 0)                    /* releases since the key was freed */
         for (int j = by[acq_key].freed + 1; j < i; j++)
            if (rel_key[j] == acq_key) preds[np++] = j;
      for (int p = 0; p < np; p++) { orbits(&hb[i], &hb[preds[p]]); setbit(&hb[i], preds[p]); }
      if (e->op == FORK) forked_by[e->arg] = i;
      last[e->tid] = i;
      racy[i] = 0;
      if (!acc) continue;
      for (int b = lo; b < hi; b++) inobj[i][b] = by[b].msize != 0;
      for (int b = lo; b < hi && !racy[i]; b++)
         for (int j = by[b].freed + 1; j < i; j++) {
            const tev *f = &tr->ev[j];
            if (f->op != ACC || bit(&hb[i], j)) continue;
            if (f->arg + f->size <= BASE + (uint64_t)b || BASE + (uint64_t)b < f->arg) continue;
            if (!is_write(e) && !is_write(f)) continue;
            /* before the first atomic access of b (which may be i) */
            int first = by[b].first_atomic >= 0 ? by[b].first_atomic : genuine ? i : -1;
            int ieff = genuine || (upg[i] && inobj[i][b]);
            int jeff = (f->flags & 2) || (upg[j] && inobj[j][b]) || j < first;
            if (ieff && jeff) continue;
            racy[i] = 1;
            break;
         }
      /* the access's effect on the bytes */
      if (e->op == FREE) {
         for (int grew = 1; grew; ) {           /* widen over the objects */
            grew = 0;
            for (int k = 0; k < NB; k++)
               for (int s = 1; s <= 8; s++)
                  if (obj[k][s] && k < hi && k + s > lo && (k < lo || k + s > hi)) {
                     if (k < lo) lo = k;
                     if (k + s > hi) hi = k + s;
                     grew = 1;
                  }
         }
         for (int b = lo; b < hi; b++) { by[b] = (byte_st){ i, -1, 0, 0 }; memset(obj[b], 0, 9); }
         continue;
      }
      if (genuine) obj[lo][e->size] = 1;
      for (int b = lo; b < hi; b++) {
         if (!genuine) continue;
         if (by[b].first_atomic < 0) by[b].first_atomic = i;
         by[b].mstart = e->arg;
         by[b].msize = e->size;
      }
   }
}

/* ---- running the engine ------------------------------------------ */

static int reported[MAXEV + 1];
static ag_violation report_of[MAXEV];     /* the last run's, by event */
static void on_report(void *c, const ag_violation *v)
{
   (void)c;
   if (v->event >= 1 && v->event <= MAXEV) {
      reported[v->event - 1]++;
      report_of[v->event - 1] = *v;
   }
}

/* The fields fasttrack fills (and the dispatcher from them). */
static int same_report(const ag_violation *a, const ag_violation *b)
{
   return a->tid == b->tid && a->site == b->site && a->addr == b->addr
          && a->size == b->size && a->flags == b->flags
          && a->other_tid == b->other_tid && a->other_event == b->other_event
          && a->other_site == b->other_site && a->other_flags == b->other_flags
          && a->other_addr == b->other_addr && a->other_size == b->other_size;
}

/* A byte loop's accesses share one site (their instruction's). */
#define LOOP_SITE 1000

static void feed1(ag_engine *e, const tev *x, uint64_t site)
{
   if (x->flags & 4) site = LOOP_SITE + (x->flags & 1);
   unsigned fl = (x->flags & 1 ? AG_WRITE : 0) | (x->flags & 2 ? AG_ATOMIC : 0);
   int rc = 0;
   switch (x->op) {
   case ACC:  rc = ag_ev_access(e, x->tid, x->arg, x->size, fl, site); break;
   case ACQ:  rc = ag_ev_acquire(e, x->tid, x->arg, 0, site); break;
   case REL:  rc = ag_ev_release(e, x->tid, x->arg, 0, site); break;
   case RACQ: rc = ag_ev_acquire(e, x->tid, x->arg, 1, site); break;
   case RREL: rc = ag_ev_release(e, x->tid, x->arg, 1, site); break;
   case FORK: rc = ag_ev_fork(e, x->tid, (ag_tid)x->arg, site); break;
   case JOIN: rc = ag_ev_join(e, x->tid, (ag_tid)x->arg, site); break;
   case FREE:           /* the block freed and given out again (no event) */
      rc = ag_ev_free(e, x->tid, x->arg, x->size, site);
      ag_ev_forget(e, x->arg, x->size);
      break;
   }
   if (rc) { printf("FAIL event rejected (%d)\n", rc); exit(1); }
}

static ag_config run_cfg;                 /* exact history, but for check 8 */

/* The site feed1 gives event j (0-based) */
static uint64_t site_of(const tev *x, int j)
{
   return x->flags & 4 ? LOOP_SITE + (x->flags & 1) : (uint64_t)j + 1;
}

/* May the approximate report b at event i (0-based) stand for the exact
   report a?  The same in all but the earlier access's site, which names
   an access of the same thread and kind (by its site: a byte loop's share
   one) overlapping event i's access and not ordered before it. */
static int approx_ok(const trace *tr, int i, const ag_violation *a, const ag_violation *b)
{
   ag_violation c = *b;
   c.other_site = a->other_site;
   if (!same_report(a, &c)) return 0;
   if (a->other_site == b->other_site) return 1;
   const tev *y = &tr->ev[i];
   for (int j = 0; j < i; j++) {
      const tev *x = &tr->ev[j];
      unsigned fl = (x->flags & 1 ? AG_WRITE : 0) | (x->flags & 2 ? AG_ATOMIC : 0);
      if (x->op == ACC && x->tid == b->other_tid && site_of(x, j) == b->other_site
          && (fl & AG_WRITE) == (b->other_flags & AG_WRITE)
          && x->arg < y->arg + y->size && y->arg < x->arg + x->size && !bit(&hb[i], j))
         return 1;
   }
   return 0;
}

/* mode 0: full; 1: sampler s toggles; 2: active from position `from` on.
   Fills out[i] = reported at event i+1; returns events analysed. */
static uint64_t run(const trace *tr, int mode, ag_sampler *s, int from, int *out)
{
   memset(reported, 0, sizeof reported);
   ag_engine *e = ag_engine_new(ag_engine_find("fasttrack"), &run_cfg, on_report, NULL);
   for (int t = 0; t < tr->ninit; t++) ag_ev_thread_new(e, t);
   if (mode == 2 && from > 0) ag_engine_set_active(e, 0);
   for (int i = 0; i < tr->n; i++) {
      if (mode == 1 && (uint64_t)i >= ag_sampler_next_change(s)) {
         ag_sampler_advance(s, i);
         ag_engine_set_active(e, ag_sampler_active(s));
      }
      if (mode == 2 && i == from) ag_engine_set_active(e, 1);
      feed1(e, &tr->ev[i], i + 1);
   }
   uint64_t an = ag_engine_analysed(e);
   for (int i = 0; i < tr->n; i++) {
      if (reported[i] > 1) { printf("FAIL two reports at event %d\n", i + 1); exit(1); }
      out[i] = reported[i];
   }
   ag_engine_delete(e);
   return an;
}

int main(int argc, char **argv)
{
   int ntraces = argc > 1 ? atoi(argv[1]) : 4000;
   const uint64_t compact_min = ag_shadow_compact_min;
   const uint32_t site_inline = ag_fasttrack_site_inline;
   static ag_violation full_report[MAXEV];
   rng_state = 20240601;
   uint64_t full_reports = 0, racy_events = 0, sampled_reports = 0, suffix_reports = 0;
   uint64_t events = 0, analysed = 0, windows = 0, plain_traces = 0, frees = 0;
   uint64_t approx_named = 0;       /* reports naming another access approximately */
   static int racy[MAXEV], full[MAXEV], samp[MAXEV];
   for (int n = 0; n < ntraces; n++) {
      trace tr;
      int atomics = n % 3 != 0;
      int len = 30 + below(130);
      do gen(&tr, len, atomics); while (tr.n < len / 2);
      oracle(&tr, racy);
      run(&tr, 0, NULL, 0, full);
      memcpy(full_report, report_of, sizeof full_report);
      /* site numbers from 8 on kept beside the location, joining forced */
      ag_fasttrack_site_inline = 8;
      ag_shadow_compact_min = 0;
      run(&tr, 0, NULL, 0, samp);
      ag_fasttrack_site_inline = site_inline;
      ag_shadow_compact_min = compact_min;
      for (int i = 0; i < tr.n; i++)
         if (samp[i] != full[i] || (full[i] && !same_report(&report_of[i], &full_report[i]))) {
            const ag_violation *a = &full_report[i], *b = &report_of[i];
            print_trace(&tr);
            printf("FAIL site numbers beside the location change the report at event %d: "
                   "%d (other tid %u site %llu event %llu) -> %d (other tid %u site %llu event %llu)\n",
                   i + 1, full[i], a->other_tid, (unsigned long long)a->other_site,
                   (unsigned long long)a->other_event, samp[i], b->other_tid,
                   (unsigned long long)b->other_site, (unsigned long long)b->other_event);
            return 1;
         }
      /* joining a byte loop's word at its last byte changes no report */
      ag_engine_join_bytes = 0;
      run(&tr, 0, NULL, 0, samp);
      ag_engine_join_bytes = 1;
      for (int i = 0; i < tr.n; i++)
         if (samp[i] != full[i] || (full[i] && !same_report(&report_of[i], &full_report[i]))) {
            print_trace(&tr);
            printf("FAIL joining at a byte loop's end changes the report at event %d\n", i + 1);
            return 1;
         }
      /* the approximate history: the same reports, the earlier access
         named possibly another of its thread's epoch */
      run_cfg.approx_history = 1;
      run(&tr, 0, NULL, 0, samp);
      run_cfg.approx_history = 0;
      for (int i = 0; i < tr.n; i++) {
         const char *why = samp[i] > full[i] ? "an extra report"
                           : samp[i] < full[i] ? "a lost report"
                           : full[i] && !approx_ok(&tr, i, &full_report[i], &report_of[i])
                             ? "another report" : NULL;
         if (!why) continue;
         print_trace(&tr);
         printf("FAIL approximate history: %s at event %d (exact: other tid %u site %llu; "
                "approximate: other tid %u site %llu)\n", why, i + 1, full_report[i].other_tid,
                (unsigned long long)full_report[i].other_site, report_of[i].other_tid,
                (unsigned long long)report_of[i].other_site);
         return 1;
      }
      for (int i = 0; i < tr.n; i++)
         approx_named += full[i] && report_of[i].other_site != full_report[i].other_site;
      /* joining equal locations (here before every access) changes nothing */
      ag_shadow_compact_min = 0;
      run(&tr, 0, NULL, 0, samp);
      ag_shadow_compact_min = compact_min;
      for (int i = 0; i < tr.n; i++)
         if (samp[i] != full[i]) {
            print_trace(&tr);
            printf("FAIL joining equal locations changes the report at event %d\n", i + 1);
            return 1;
         }
      int first = -1, any_atomic = 0;
      for (int i = 0; i < tr.n; i++) {
         any_atomic |= tr.ev[i].op == ACC && (tr.ev[i].flags & 2);
         frees += tr.ev[i].op == FREE;
         if (racy[i] && first < 0) first = i;
         racy_events += racy[i];
         full_reports += full[i];
         if (full[i] && !racy[i]) {
            print_trace(&tr);
            printf("FAIL full analysis reports event %d, which races with nothing\n", i + 1);
            return 1;
         }
      }
      plain_traces += !any_atomic;
      if (first >= 0 && !full[first]) {
         print_trace(&tr);
         printf("FAIL first racy event %d not reported\n", first + 1);
         return 1;
      }
      /* sampled runs: windows of 3..12 events, r of 1..3 */
      for (int rep = 0; rep < 3; rep++) {
         ag_sampler s;
         ag_sampler_init(&s, 0.1, 0.1, (uint64_t)n * 7 + rep);
         ag_sampler_override(&s, 1 + below(3), 3 + below(10));
         analysed += run(&tr, 1, &s, 0, samp);
         events += tr.n;
         windows += ag_sampler_windows(&s);
         for (int i = 0; i < tr.n; i++) {
            sampled_reports += samp[i];
            if (samp[i] && !full[i]) {
               print_trace(&tr);
               printf("FAIL sampled run (r=%llu k=%llu seed %d) reports event %d, full analysis does not (racy=%d)\n",
                      (unsigned long long)s.r, (unsigned long long)s.k, n * 7 + rep, i + 1, racy[i]);
               return 1;
            }
         }
      }
      int from = below(tr.n);
      run(&tr, 2, NULL, from, samp);
      for (int i = 0; i < tr.n; i++) {
         suffix_reports += samp[i];
         if (samp[i] && !full[i]) {
            print_trace(&tr);
            printf("FAIL suffix from event %d reports event %d, full analysis does not\n", from + 1, i + 1);
            return 1;
         }
      }
   }
   printf("rpt soundness (fasttrack): %d traces (%llu without atomics, %llu frees), %llu racy events, "
          "%llu full reports, %llu reports in %llu sampled runs analysing %.1f%% of events in %llu intervals, "
          "%llu suffix reports\n",
          ntraces, (unsigned long long)plain_traces, (unsigned long long)frees,
          (unsigned long long)racy_events,
          (unsigned long long)full_reports, (unsigned long long)sampled_reports,
          (unsigned long long)(3 * (uint64_t)ntraces), 100.0 * analysed / events,
          (unsigned long long)windows, (unsigned long long)suffix_reports);
   printf("approximate history: the same %llu reports, %llu naming another access of the "
          "same epoch\n", (unsigned long long)full_reports, (unsigned long long)approx_named);
   if (approx_named == 0) {
      printf("FAIL the approximate history never named another access: not exercised\n");
      return 1;
   }
   if (sampled_reports < (uint64_t)ntraces / 4 || analysed * 10 > events * 9) {
      printf("FAIL the sampled runs did not exercise sampling enough\n");
      return 1;
   }
   printf("test_rpt_sound: all passed\n");
   return 0;
}
