/* test_predict.c -- the prediction engine ("predict", ag_predict.c) on
 * hand-made traces with their exact reports, and on random traces against
 * a plain reference of its model.
 *
 *   test_predict [hand|random|all] [ntraces]
 *
 * Bounded prediction (cfg.predict_in_regions) is checked against the
 * unbounded engine on the same random traces (bounded_traces) and on
 * hand-made ones (blind_gap).
 *
 * The reference works per byte and from the whole trace: happens-before
 * as bitsets of predecessors (program order, fork, join, and sync-object
 * operations -- an acquire immediately followed by a release of the same
 * object by the same thread -- ordered after the previous one on that
 * object), and the locks each event's thread holds.  It answers twice:
 *   - model(): every triple (e1, e2, a) the model of ag_predict.c allows,
 *     with any e1 < e2 of one region (to check every engine report against,
 *     and to measure how many (region, thread) pairs the engine's bounded
 *     choice of e1/e2/a finds);
 *   - replay(): the engine's bounded choice (e1 the region's first access of
 *     its kind; a the other thread's last access of its kind, or e2 the
 *     thread's last one) in the engine's order, with its reads-from rule (a
 *     thread that read, at another address, a write of the other thread
 *     made past the pivot), which must give exactly the engine's reports.
 *     model() leaves the reads-from rule out: it only removes reports. */
#include "ag_ref.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define FAIL(tr, ...) do {                                   \
      failures++;                                            \
      if (failures <= 5) {                                   \
         fprintf(stderr, "FAIL: " __VA_ARGS__);              \
         fputc('\n', stderr);                                \
         if (tr) ag_ref_print(tr, stderr);                   \
      }                                                      \
   } while (0)

#define N (AG_REF_MAXEV + 1)
#define WB ((N + 63) / 64)
#define MAXHELD 16

typedef struct {
   int n;
   uint64_t hb[N][WB];        /* strict hb predecessors of event i (1-based) */
   int region[N];             /* begin event of its thread's outermost open region */
   int region_end[N];         /* by begin event: the end event closing it, 0 if none */
   int nheld[N];              /* locks its thread holds at the event */
   uint64_t hkey[N][MAXHELD]; /* (lock << 1) | shared */
   int hacq[N][MAXHELD];      /* acquire event of each */
} ref_t;

static int is_acc(const ag_ref_ev *x) { return x->op == AG_REF_RD || x->op == AG_REF_WR; }
static int kind(const ag_ref_ev *x) { return x->op == AG_REF_WR; }
static int hbp(const ref_t *r, int a, int b) { return (r->hb[b][a >> 6] >> (a & 63)) & 1; }

static int is_sync_op(const ag_ref_trace *tr, int i)   /* event i (1-based) is the acquire */
{
   if (i >= tr->n) return 0;
   const ag_ref_ev *a = &tr->ev[i - 1], *b = &tr->ev[i];
   return (a->op == AG_REF_ACQ || a->op == AG_REF_RACQ) && b->op == a->op + 1
          && a->tid == b->tid && a->arg == b->arg;
}

static void add_pred(ref_t *r, int e, int p)
{
   if (p <= 0) return;
   for (int w = 0; w < WB; w++) r->hb[e][w] |= r->hb[p][w];
   r->hb[e][p >> 6] |= (uint64_t)1 << (p & 63);
}

static ref_t *analyse(const ag_ref_trace *tr)
{
   ref_t *r = calloc(1, sizeof *r);
   int last[AG_REF_MAXT] = { 0 }, forked[AG_REF_MAXT] = { 0 }, depth[AG_REF_MAXT] = { 0 };
   int rb[AG_REF_MAXT] = { 0 }, nh[AG_REF_MAXT] = { 0 };
   uint64_t hk[AG_REF_MAXT][MAXHELD];
   int ha[AG_REF_MAXT][MAXHELD];
   int lastsync[16] = { 0 };
   uint64_t syncobj[16];
   int nsync = 0;
   r->n = tr->n;
   for (int e = 1; e <= tr->n; e++) {
      const ag_ref_ev *x = &tr->ev[e - 1];
      int t = x->tid;
      add_pred(r, e, last[t] ? last[t] : forked[t]);
      if (x->op == AG_REF_JOIN) add_pred(r, e, last[x->arg] ? last[x->arg] : forked[x->arg]);
      if (x->op == AG_REF_FORK) forked[x->arg] = e;
      if (is_sync_op(tr, e)) {
         int s = 0;
         while (s < nsync && syncobj[s] != x->arg) s++;
         if (s == nsync) { syncobj[nsync++] = x->arg; lastsync[s] = 0; }
         add_pred(r, e, lastsync[s]);
         lastsync[s] = e + 1;
      }
      if (x->op == AG_REF_BEGIN && depth[t]++ == 0) rb[t] = e;
      if (x->op == AG_REF_END && --depth[t] == 0) {
         r->region_end[rb[t]] = e;
         rb[t] = 0;
      }
      if (x->op == AG_REF_ACQ || x->op == AG_REF_RACQ) {
         hk[t][nh[t]] = (x->arg << 1) | (x->op == AG_REF_RACQ);
         ha[t][nh[t]++] = e;
      }
      if (x->op == AG_REF_REL || x->op == AG_REF_RREL) {
         uint64_t k = (x->arg << 1) | (x->op == AG_REF_RREL);
         for (int i = nh[t] - 1; i >= 0; i--)
            if (hk[t][i] == k) {
               for (int j = i + 1; j < nh[t]; j++) { hk[t][j - 1] = hk[t][j]; ha[t][j - 1] = ha[t][j]; }
               nh[t]--;
               break;
            }
      }
      r->region[e] = rb[t];
      r->nheld[e] = nh[t];
      memcpy(r->hkey[e], hk[t], sizeof hk[t]);
      memcpy(r->hacq[e], ha[t], sizeof ha[t]);
      last[t] = e;
   }
   return r;
}

/* Could a (of u) run while t holds, from e1 through e2, the locks it held
   continuously then?  (Those it holds at e2 and acquired before e1.) */
static int locks_allow(const ref_t *r, int e1, int e2, int a)
{
   for (int i = 0; i < r->nheld[e2]; i++) {
      if (r->hacq[e2][i] >= e1) continue;
      for (int j = 0; j < r->nheld[a]; j++)
         if ((r->hkey[e2][i] >> 1) == (r->hkey[a][j] >> 1) && !(r->hkey[e2][i] & r->hkey[a][j] & 1))
            return 0;
   }
   return 1;
}

static int touches(const ag_ref_ev *x, uint64_t b) { return x->arg <= b && b < x->arg + x->size; }

static int pattern(int k1, int ka, int k2) { return ka ? !(k1 && k2) : (k1 && k2); }

/* Is (e1, e2, a) allowed by the model (any e1 < e2 of one region)? */
static int model_ok(const ag_ref_trace *tr, const ref_t *r, int e1, int e2, int a)
{
   if (e1 < 1 || e2 <= e1 || e2 > tr->n || a < 1 || a > tr->n) return 0;
   const ag_ref_ev *x1 = &tr->ev[e1 - 1], *x2 = &tr->ev[e2 - 1], *xa = &tr->ev[a - 1];
   if (!is_acc(x1) || !is_acc(x2) || !is_acc(xa)) return 0;
   if (x1->tid != x2->tid || xa->tid == x1->tid) return 0;
   if (!r->region[e1] || r->region[e1] != r->region[e2]) return 0;
   int common = 0;
   for (uint64_t b = xa->arg; b < xa->arg + xa->size; b++)
      if (touches(x1, b) && touches(x2, b)) common = 1;
   if (!common || !pattern(kind(x1), kind(xa), kind(x2))) return 0;
   if (a > e1 && a < e2) return 0;                     /* observed */
   if (a < e1 && hbp(r, a, e2)) return 0;              /* the engine checks a hb e2 */
   if (a > e2 && hbp(r, e2, a)) return 0;
   return locks_allow(r, e1, e2, a);
}

/* ---- the engine's bounded choice, replayed ------------------------ */

typedef struct { int event, region, other, e1, e2, a; } rep;
typedef struct { int n; rep r[4 * AG_REF_MAXEV]; } reps;

static int done_has(const int *done, int nd, int rb, int u)
{
   for (int i = 0; i < nd; i++) if (done[2 * i] == rb && done[2 * i + 1] == u) return 1;
   return 0;
}

/* t's first access of kind k to byte b in region rb, before event e */
static int first_in(const ag_ref_trace *tr, const ref_t *r, int t, int k, uint64_t b, int rb, int e)
{
   for (int i = rb; i < e; i++) {
      const ag_ref_ev *x = &tr->ev[i - 1];
      if (x->tid == t && is_acc(x) && kind(x) == k && touches(x, b) && r->region[i] == rb) return i;
   }
   return 0;
}

static int last_of(const ag_ref_trace *tr, int t, int k, uint64_t b, int e)
{
   for (int i = e - 1; i >= 1; i--) {
      const ag_ref_ev *x = &tr->ev[i - 1];
      if (x->tid == t && is_acc(x) && kind(x) == k && touches(x, b)) return i;
   }
   return 0;
}

/* region of t's latest access to b inside a region, before e */
static int latest_region(const ag_ref_trace *tr, const ref_t *r, int t, uint64_t b, int e)
{
   for (int i = e - 1; i >= 1; i--) {
      const ag_ref_ev *x = &tr->ev[i - 1];
      if (x->tid == t && is_acc(x) && touches(x, b) && r->region[i]) return r->region[i];
   }
   return 0;
}

enum { NEW, PREDICTED, OBSERVED };

/* (region, other thread) -> state, and predictions waiting for their
   region's end */
typedef struct {
   int n, rb[4 * AG_REF_MAXEV], u[4 * AG_REF_MAXEV], st[4 * AG_REF_MAXEV];
   int npend;
   rep pend[4 * AG_REF_MAXEV];
} rstate;

static int *st_of(rstate *s, int rb, int u)
{
   for (int i = 0; i < s->n; i++) if (s->rb[i] == rb && s->u[i] == u) return &s->st[i];
   s->rb[s->n] = rb; s->u[s->n] = u; s->st[s->n] = NEW;
   return &s->st[s->n++];
}

static void report(const ref_t *r, rstate *s, reps *out, int ev, int rb, int u, int e1, int e2, int a)
{
   int *st = st_of(s, rb, u);
   if (*st != NEW) return;
   *st = PREDICTED;
   rep x = { ev, rb, u, e1, e2, a };
   if (!r->region_end[rb] || r->region_end[rb] > ev) s->pend[s->npend++] = x;   /* open */
   else out->r[out->n++] = x;
}

/* Reads-from, as the engine keeps it: for reader t and writer w, the
   latest write of w that t read, and the latest at another address. */
typedef struct { int ev[2]; uint64_t addr[2]; } rf_t;
static rf_t rf[AG_REF_MAXT][AG_REF_MAXT];

static int rf_other(int t, int w, uint64_t x)
{
   return rf[t][w].addr[0] == x ? rf[t][w].ev[1] : rf[t][w].ev[0];
}

/* When the write w read at e is seen to happen: at w, or at the latest
   release (before e) of a lock both held, not both for reading. */
static int rf_when(const ag_ref_trace *tr, const ref_t *r, int e, int w)
{
   int ev = w;
   for (int i = 0; i < r->nheld[e]; i++)
      for (int j = 0; j < r->nheld[w]; j++) {
         uint64_t kr = r->hkey[e][i], kw = r->hkey[w][j];
         if ((kr >> 1) != (kw >> 1) || (kr & kw & 1)) continue;
         for (int q = e - 1; q >= 1; q--) {
            const ag_ref_ev *y = &tr->ev[q - 1];
            if ((y->op == AG_REF_REL || y->op == AG_REF_RREL) && y->arg == (kr >> 1)) {
               if (q > ev) ev = q;
               break;
            }
         }
      }
   return ev;
}

/* Read event e (of thread t at address A) read, at each byte, the latest
   earlier write covering it. */
static void rf_note(const ag_ref_trace *tr, const ref_t *r, int e)
{
   const ag_ref_ev *x = &tr->ev[e - 1];
   for (uint64_t b = x->arg; b < x->arg + x->size; b++)
      for (int w0 = e - 1; w0 >= 1; w0--) {
         const ag_ref_ev *y = &tr->ev[w0 - 1];
         if (y->op != AG_REF_WR || !touches(y, b)) continue;
         if (y->tid != x->tid) {
            int w = rf_when(tr, r, e, w0);
            rf_t *f = &rf[x->tid][y->tid];
            if (f->ev[0] && f->addr[0] == x->arg) {
               if (w > f->ev[0]) f->ev[0] = w;
            } else if (w > f->ev[0]) {
               f->ev[1] = f->ev[0];
               f->addr[1] = f->addr[0];
               f->ev[0] = w;
               f->addr[0] = x->arg;
            } else if (w > f->ev[1]) {
               f->ev[1] = w;
               f->addr[1] = x->arg;
            }
         }
         break;
      }
}

static void replay(const ag_ref_trace *tr, const ref_t *r, reps *out)
{
   static rstate s;
   s.n = s.npend = 0;
   out->n = 0;
   memset(rf, 0, sizeof rf);
   for (int e = 1; e <= tr->n; e++) {
      const ag_ref_ev *x = &tr->ev[e - 1];
      if (x->op == AG_REF_END)
         for (int i = 0; i < s.npend; i++)
            if (r->region_end[s.pend[i].region] == e) {
               if (*st_of(&s, s.pend[i].region, s.pend[i].other) == PREDICTED) {
                  out->r[out->n] = s.pend[i];
                  out->r[out->n++].event = e;
               }
               s.pend[i--] = s.pend[--s.npend];
            }
      if (!is_acc(x)) continue;
      int t = x->tid, k = kind(x), rb = r->region[e];
      for (uint64_t b = x->arg; b < x->arg + x->size; b++) {
         /* before: x is e2, a precedes e1 */
         if (rb && latest_region(tr, r, t, b, e) == rb)
            for (int i = 0; i < 2; i++) {
               int e1 = first_in(tr, r, t, i, b, rb, e);
               if (!e1) continue;
               for (int u = 0; u < tr->nthreads; u++) {
                  if (u == t) continue;
                  for (int ka = 0; ka < 2; ka++) {
                     int a = last_of(tr, u, ka, b, e);
                     if (!a || !pattern(i, ka, k)) continue;
                     if (a > e1) { *st_of(&s, rb, u) = OBSERVED; continue; }
                     if (hbp(r, a, e) || !locks_allow(r, e1, e, a)) continue;
                     if (rf_other(t, u, x->arg) > a) continue;
                     report(r, &s, out, e, rb, u, e1, e, a);
                  }
               }
            }
         /* after: x is a, e2 precedes it */
         for (int v = 0; v < tr->nthreads; v++) {
            if (v == t) continue;
            int vr = latest_region(tr, r, v, b, e);
            if (!vr) continue;
            for (int i = 0; i < 2; i++) {
               int e1 = first_in(tr, r, v, i, b, vr, e);
               if (!e1) continue;
               for (int j = 0; j < 2; j++) {
                  int e2 = last_of(tr, v, j, b, e);
                  if (!e2 || r->region[e2] != vr || e2 <= e1 || !pattern(i, k, j)) continue;
                  if (hbp(r, e2, e) || !locks_allow(r, e1, e2, e)) continue;
                  if (rf_other(t, v, x->arg) > e2) continue;
                  report(r, &s, out, e, vr, t, e1, e2, e);
               }
            }
         }
      }
      if (!k) rf_note(tr, r, e);
   }
}

/* ---- driving the engine ------------------------------------------- */

static ag_ref_reports engine_out;

static int run_engine(const ag_ref_trace *tr)
{
   static const ag_config cfg = { 0 };
   return ag_ref_feed(tr, "predict", &cfg, &engine_out);
}

/* The region instance a report is about: e1's outermost region. */
static int rep_region(const ref_t *r, const ag_violation *v) { return r->region[v->e1_event]; }

static int cmp_rep(const void *x, const void *y)
{
   const rep *a = x, *b = y;
   if (a->event != b->event) return a->event - b->event;
   if (a->region != b->region) return a->region - b->region;
   return a->other - b->other;
}

/* Check the engine's reports on tr: each allowed by the model, and the
   same as the replay.  Returns the number of reports. */
static int check_trace(const ag_ref_trace *tr, int *model_pairs, int *found_pairs)
{
   ref_t *r = analyse(tr);
   static reps want;
   replay(tr, r, &want);
   run_engine(tr);
   const ag_ref_reports *got = &engine_out;
   for (int i = 0; i < got->n; i++) {
      const ag_violation *v = &got->v[i];
      int e1 = (int)v->e1_event, e2 = (int)v->e2_event, a = (int)v->other_event;
      int rb = e1 >= 1 && e1 <= tr->n ? r->region[e1] : 0;
      int when = v->at_end ? r->region_end[rb] : (e2 > a ? e2 : a);
      ag_tid who = v->at_end ? v->local_tid : v->other_tid;
      if (v->kind != AG_KIND_PREDICT || v->e1_site != (uint64_t)e1 || v->e2_site != (uint64_t)e2
          || v->other_site != (uint64_t)a || (int)v->event != when || v->tid != who
          || (!v->at_end && a < e2) || v->size == 0)
         FAIL(tr, "predict: report %d has inconsistent fields", i + 1);
      if (!model_ok(tr, r, e1, e2, a))
         FAIL(tr, "predict: report (e1 %d, e2 %d, a %d) not allowed by the model", e1, e2, a);
      if (v->local_tid != tr->ev[e1 - 1].tid || v->other_tid != tr->ev[a - 1].tid
          || (int)v->begin_event != r->region[e1] || v->begin_site != v->begin_event)
         FAIL(tr, "predict: report (e1 %d, e2 %d, a %d): threads or region wrong", e1, e2, a);
   }
   static reps have;
   have.n = got->n;
   for (int i = 0; i < got->n; i++) {
      const ag_violation *v = &got->v[i];
      have.r[i] = (rep){ (int)v->event, rep_region(r, v), (int)v->other_tid, (int)v->e1_event,
                         (int)v->e2_event, (int)v->other_event };
   }
   qsort(have.r, have.n, sizeof have.r[0], cmp_rep);
   qsort(want.r, want.n, sizeof want.r[0], cmp_rep);
   if (got->n != want.n) {
      FAIL(tr, "predict: %d reports, the replay wants %d", got->n, want.n);
      for (int i = 0; i < want.n && failures <= 5; i++)
         fprintf(stderr, "   wanted (ev %d, e1 %d, e2 %d, a %d)\n", want.r[i].event, want.r[i].e1,
                 want.r[i].e2, want.r[i].a);
      for (int i = 0; i < have.n && failures <= 5; i++)
         fprintf(stderr, "   got (ev %d, e1 %d, e2 %d, a %d)\n", have.r[i].event, have.r[i].e1,
                 have.r[i].e2, have.r[i].a);
   }
   else
      for (int i = 0; i < got->n; i++) {
         const rep *h = &have.r[i], *w = &want.r[i];
         if (memcmp(h, w, sizeof *h)) {
            FAIL(tr, "predict: report %d is (ev %d, e1 %d, e2 %d, a %d), the replay's "
                 "(ev %d, e1 %d, e2 %d, a %d)", i + 1, h->event, h->e1, h->e2, h->a,
                 w->event, w->e1, w->e2, w->a);
            break;
         }
      }
   /* completeness against the unbounded model: (region, other thread) pairs */
   if (model_pairs) {
      static int seen[2 * 4 * AG_REF_MAXEV];
      int ns = 0;
      for (int e2 = 1; e2 <= tr->n; e2++)
         for (int e1 = 1; e1 < e2; e1++) {
            if (!r->region[e1] || r->region[e1] != r->region[e2]) continue;
            for (int a = 1; a <= tr->n; a++) {
               if (!model_ok(tr, r, e1, e2, a)) continue;
               int u = tr->ev[a - 1].tid;
               if (!done_has(seen, ns, r->region[e1], u)) {
                  seen[2 * ns] = r->region[e1]; seen[2 * ns + 1] = u; ns++;
               }
            }
         }
      *model_pairs += ns;
      *found_pairs += got->n;
   }
   free(r);
   return got->n;
}

/* ---- hand-made traces --------------------------------------------- */

enum { B = AG_REF_BEGIN, E = AG_REF_END, R = AG_REF_RD, Wr = AG_REF_WR,
       A = AG_REF_ACQ, L = AG_REF_REL, RA = AG_REF_RACQ, RL = AG_REF_RREL,
       F = AG_REF_FORK, J = AG_REF_JOIN, S = 100 /* sync op: acq+rel */ };

#define X 0x1000
#define Y 0x1008
#define LK 0x9000
#define SEM 0xa000

typedef struct { int t, op; uint64_t arg; int size; } hev;

/* Build a trace; S expands to two events (acq, rel of a sync object). */
static void build(ag_ref_trace *tr, int ninit, const hev *h, int n)
{
   ag_ref_init(tr, ninit);
   for (int i = 0; i < n; i++) {
      int size = h[i].size ? h[i].size : ((h[i].op == R || h[i].op == Wr) ? 8 : 0);
      if (h[i].op == S) {
         ag_ref_add(tr, h[i].t, A, h[i].arg, 0);
         ag_ref_add(tr, h[i].t, L, h[i].arg, 0);
      } else {
         ag_ref_add(tr, h[i].t, h[i].op, h[i].arg, size);
      }
   }
}

/* expected: up to 4 triples (e1, e2, a), in report order */
static void hand(const char *name, int ninit, const hev *h, int n, int nexp, const int (*exp)[3])
{
   ag_ref_trace tr;
   build(&tr, ninit, h, n);
   int got = check_trace(&tr, NULL, NULL);
   int ok = got == nexp;
   for (int i = 0; ok && i < nexp; i++)
      ok = (int)engine_out.v[i].e1_event == exp[i][0] && (int)engine_out.v[i].e2_event == exp[i][1]
           && (int)engine_out.v[i].other_event == exp[i][2];
   const ag_ref_trace *trp = &tr;
   if (!ok) {
      FAIL(trp, "hand trace '%s': %d reports, want %d", name, got, nexp);
      for (int i = 0; i < got; i++)
         fprintf(stderr, "   got (e1 %d, e2 %d, a %d)\n", (int)engine_out.v[i].e1_event,
                 (int)engine_out.v[i].e2_event, (int)engine_out.v[i].other_event);
   }
}

#define HAND(name, ninit, nexp, ...) do {                                       \
      static const hev h_[] = { __VA_ARGS__ };                                  \
      hand(name, ninit, h_, (int)(sizeof h_ / sizeof h_[0]), nexp, expect);     \
   } while (0)

static void hand_traces(void)
{
   const int (*expect)[3];
   /* a serial run of an unserializable region: the write after the region
      could have run between its two reads */
   expect = (const int[][3]){ { 2, 3, 5 } };
   HAND("R-W-R, remote after", 2, 1, {0,B}, {0,R,X}, {0,R,X}, {0,E}, {1,Wr,X});
   expect = (const int[][3]){ { 3, 4, 1 } };
   HAND("R-W-R, remote before", 2, 1, {1,Wr,X}, {0,B}, {0,R,X}, {0,R,X}, {0,E});
   expect = (const int[][3]){ { 2, 3, 5 } };
   HAND("W-W-R", 2, 1, {0,B}, {0,Wr,X}, {0,R,X}, {0,E}, {1,Wr,X});
   HAND("W-R-W", 2, 1, {0,B}, {0,Wr,X}, {0,Wr,X}, {0,E}, {1,R,X});
   HAND("R-W-W", 2, 1, {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {1,Wr,X});
   expect = NULL;
   HAND("W-W-W is serializable", 2, 0, {0,B}, {0,Wr,X}, {0,Wr,X}, {0,E}, {1,Wr,X});
   HAND("R-R-R", 2, 0, {0,B}, {0,R,X}, {0,R,X}, {0,E}, {1,R,X});
   HAND("one access in the region", 2, 0, {0,B}, {0,R,X}, {0,E}, {1,Wr,X});
   HAND("another location", 2, 0, {0,B}, {0,R,X}, {0,R,X}, {0,E}, {1,Wr,Y});
   HAND("another byte", 2, 0, {0,B}, {0,R,X,1}, {0,R,X,1}, {0,E}, {1,Wr,X + 1,1});
   expect = (const int[][3]){ { 2, 3, 5 } };
   HAND("an overlapping byte", 2, 1, {0,B}, {0,R,X,1}, {0,R,X,1}, {0,E}, {1,Wr,X,4});
   /* happens-before */
   expect = NULL;
   HAND("fork orders the remote after", 1, 0,
        {0,B}, {0,R,X}, {0,R,X}, {0,E}, {0,F,1}, {1,Wr,X});
   HAND("join orders the remote before", 1, 0,
        {0,F,1}, {1,Wr,X}, {0,J,1}, {0,B}, {0,R,X}, {0,R,X}, {0,E});
   HAND("a semaphore orders the remote after", 2, 0,
        {0,B}, {0,R,X}, {0,R,X}, {0,E}, {0,S,SEM}, {1,S,SEM}, {1,Wr,X});
   HAND("a semaphore orders the remote before", 2, 0,
        {1,Wr,X}, {1,S,SEM}, {0,S,SEM}, {0,B}, {0,R,X}, {0,R,X}, {0,E});
   /* the semaphore between e1 and e2 leaves room after it */
   expect = (const int[][3]){ { 2, 5, 9 } };
   HAND("a semaphore inside the region", 2, 1,
        {0,B}, {0,R,X}, {0,S,SEM}, {0,R,X}, {0,E}, {1,S,SEM}, {1,Wr,X});
   /* lock mutual exclusion */
   expect = NULL;
   HAND("lock held across e1..e2", 2, 0,
        {0,B}, {0,A,LK}, {0,R,X}, {0,R,X}, {0,L,LK}, {0,E}, {1,A,LK}, {1,Wr,X}, {1,L,LK});
   HAND("lock held across, remote before", 2, 0,
        {1,A,LK}, {1,Wr,X}, {1,L,LK}, {0,B}, {0,A,LK}, {0,R,X}, {0,R,X}, {0,L,LK}, {0,E});
   /* check-then-act: the lock is released between the check and the act */
   expect = (const int[][3]){ { 4, 8, 12 } };
   HAND("lock released between (check-then-act)", 2, 1,
        {0,B}, {0,A,LK}, {0,A,LK + 8}, {0,R,X}, {0,L,LK + 8}, {0,L,LK}, {0,A,LK}, {0,Wr,X},
        {0,L,LK}, {0,E}, {1,A,LK}, {1,Wr,X}, {1,L,LK});
   /* a hand-off through a lock-protected queue: t works on X in its region,
      then publishes it (writes Y under the lock); u reads Y under the lock,
      then writes X.  u reaches X through what it read: no reordering puts
      its write inside the region.  Without the read of Y it could. */
   expect = NULL;
   HAND("hand-off: remote read the queue written after e2", 2, 0,
        {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {0,A,LK}, {0,Wr,Y}, {0,L,LK},
        {1,A,LK}, {1,R,Y}, {1,L,LK}, {1,Wr,X});
   HAND("hand-off: region read the flag written after a", 2, 0,
        {1,Wr,X}, {1,A,LK}, {1,Wr,Y}, {1,L,LK},
        {0,A,LK}, {0,R,Y}, {0,L,LK}, {0,B}, {0,R,X}, {0,R,X}, {0,E});
   /* the flag is written first, the data after it, in one critical
      section (xz's get_thread): the read of the flag under the same lock
      sees the whole critical section */
   HAND("hand-off: flag written before the data, one critical section", 2, 0,
        {1,A,LK}, {1,Wr,Y}, {1,Wr,X}, {1,L,LK},
        {0,A,LK}, {0,R,Y}, {0,L,LK}, {0,B}, {0,R,X}, {0,R,X}, {0,E});
   expect = (const int[][3]){ { 2, 3, 8 } };
   HAND("no hand-off: remote read nothing of t's", 2, 1,
        {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {0,A,LK}, {0,Wr,Y}, {0,L,LK},
        {1,Wr,X});
   /* the remote's read of the pattern's own location may change: that
      change is the violation (check-then-act across regions) */
   expect = (const int[][3]){ { 2, 3, 6 } };
   HAND("remote read X itself first", 2, 1,
        {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {1,R,X}, {1,Wr,X});
   /* ... but a second lock held throughout still excludes a writer holding it */
   expect = NULL;
   HAND("outer lock held throughout", 2, 0,
        {0,B}, {0,A,LK + 8}, {0,A,LK}, {0,R,X}, {0,L,LK}, {0,A,LK}, {0,Wr,X}, {0,L,LK},
        {0,L,LK + 8}, {0,E}, {1,A,LK + 8}, {1,Wr,X}, {1,L,LK + 8});
   /* rwlocks: readers do not exclude readers */
   HAND("read lock across, writer", 2, 0,
        {0,B}, {0,RA,LK}, {0,R,X}, {0,R,X}, {0,RL,LK}, {0,E}, {1,A,LK}, {1,Wr,X}, {1,L,LK});
   expect = (const int[][3]){ { 3, 4, 8 } };
   HAND("read lock across, reader", 2, 1,
        {0,B}, {0,RA,LK}, {0,Wr,X}, {0,Wr,X}, {0,RL,LK}, {0,E}, {1,RA,LK}, {1,R,X}, {1,RL,LK});
   /* observed violations are not predicted */
   expect = NULL;
   HAND("observed R-W-R", 2, 0, {0,B}, {0,R,X}, {1,Wr,X}, {0,R,X}, {0,E});
   /* a prediction against an open region waits for its end: here the
      region goes on to show the interleaving for real */
   HAND("predicted while open, then observed", 2, 0,
        {0,B}, {0,R,X}, {0,R,X}, {1,Wr,X}, {0,R,X}, {0,E});
   HAND("observed, then a later remote", 2, 0,
        {0,B}, {0,R,X}, {1,Wr,X}, {0,R,X}, {0,E}, {1,Wr,X});
   /* one report per region instance and other thread; a new instance reports again */
   expect = (const int[][3]){ { 2, 3, 7 }, { 9, 10, 7 } };
   HAND("one per region instance", 2, 2,
        {0,B}, {0,R,X}, {0,R,X}, {0,R,Y}, {0,R,Y}, {0,E}, {1,Wr,X}, {0,B}, {0,R,X}, {0,R,X},
        {0,E}, {1,Wr,Y}, {1,Wr,X});
   /* regions of the remote thread do not matter; nested regions count once */
   expect = (const int[][3]){ { 3, 4, 8 } };
   HAND("nested, remote in a region", 2, 1,
        {0,B}, {0,B}, {0,R,X}, {0,R,X}, {0,E}, {0,E}, {1,B}, {1,Wr,X}, {1,E});
}

/* ---- random traces ------------------------------------------------ */

/* ag_ref_gen's traces, plus sync-object operations of two objects after
   random events (the thread exists there: it just made an event). */
static void gen(ag_ref_trace *tr, uint64_t *st)
{
   ag_ref_gen(tr, st, 40 + (int)(ag_ref_rand(st) % 160), 4);
   int nins = (int)(ag_ref_rand(st) % 8);
   for (int k = 0; k < nins && tr->n + 2 <= AG_REF_MAXEV && tr->n > 0; k++) {
      int i = (int)(ag_ref_rand(st) % (uint64_t)tr->n);      /* insert after event i */
      ag_ref_ev a = { tr->ev[i].tid, AG_REF_ACQ, 0, SEM + 0x40 * (ag_ref_rand(st) % 2) };
      ag_ref_ev b = a;
      b.op = AG_REF_REL;
      memmove(&tr->ev[i + 3], &tr->ev[i + 1], (tr->n - i - 1) * sizeof tr->ev[0]);
      tr->ev[i + 1] = a;
      tr->ev[i + 2] = b;
      tr->n += 2;
   }
}

static void random_traces(int ntraces)
{
   uint64_t st = 0x5eed0011;
   int model_pairs = 0, found_pairs = 0, with_reports = 0;
   ag_ref_trace *tr = malloc(sizeof *tr);
   for (int i = 0; i < ntraces && failures < 5; i++) {
      gen(tr, &st);
      if (check_trace(tr, &model_pairs, &found_pairs)) with_reports++;
   }
   printf("random: %d traces, %d with predictions; the engine found %d of the model's "
          "%d (region, thread) pairs\n", ntraces, with_reports, found_pairs, model_pairs);
   if (!with_reports) FAIL(NULL, "random traces never predicted anything");
   free(tr);
}

/* Bounded prediction (cfg.predict_in_regions) against the unbounded
   engine on the same random traces (at most 4 threads: no entry is
   dropped): every report is allowed by the model, its three accesses and
   every event between its pivot and its other side were made while a
   region was open (no stretch the engine did not see), and the unbounded
   engine reports the same (region, other thread) pair.  Then the traces
   of blind_gap: a hand-off made while no region is open is not seen, and
   nothing is predicted across it. */
static int open_at[AG_REF_MAXEV + 1];   /* regions open after event i */

static void bounded_traces(int ntraces)
{
   static const ag_config full = { 0 }, bounded = { .predict_in_regions = 1 };
   static ag_ref_reports fo;
   uint64_t st = 0x5eed0022;
   int nrep = 0, nfull = 0;
   ag_ref_trace *tr = malloc(sizeof *tr);
   for (int i = 0; i < ntraces && failures < 5; i++) {
      gen(tr, &st);
      int depth[AG_REF_MAXT] = { 0 }, open = 0;
      for (int e = 1; e <= tr->n; e++) {
         const ag_ref_ev *x = &tr->ev[e - 1];
         if (x->op == AG_REF_BEGIN && depth[x->tid]++ == 0) open++;
         if (x->op == AG_REF_END && --depth[x->tid] == 0) open--;
         open_at[e] = open;
      }
      ref_t *r = analyse(tr);
      ag_ref_feed(tr, "predict", &full, &fo);
      ag_ref_feed(tr, "predict", &bounded, &engine_out);
      nfull += fo.n;
      for (int k = 0; k < engine_out.n; k++) {
         const ag_violation *v = &engine_out.v[k];
         int e1 = (int)v->e1_event, e2 = (int)v->e2_event, a = (int)v->other_event;
         int lo = a < e1 ? a : e2, hi = a < e1 ? e2 : a, seen = 1, paired = 0;
         nrep++;
         for (int e = lo; e < hi; e++) seen &= open_at[e] > 0;
         for (int j = 0; j < fo.n; j++)
            paired |= fo.v[j].begin_event == v->begin_event && fo.v[j].other_tid == v->other_tid;
         if (!model_ok(tr, r, e1, e2, a) || !seen || !paired || open_at[e1] == 0
             || open_at[hi] == 0)
            FAIL(tr, "bounded predict: (e1 %d, e2 %d, a %d): model %d, seen %d, paired %d",
                 e1, e2, a, model_ok(tr, r, e1, e2, a), seen, paired);
      }
      free(r);
   }
   printf("bounded: %d traces, %d predictions (unbounded: %d)\n", ntraces, nrep, nfull);
   if (!nrep) FAIL(NULL, "bounded prediction never predicted anything");
   free(tr);
}

/* T0's region, then T0 hands Y to T1 while no region is open; T1's write
   of X while T2's region is open is not predicted into T0's region, by the
   unbounded engine (T1 read past e2) nor by the bounded one (it did not
   see that read, nor anything between).  Without the hand-off the
   unbounded engine predicts it, the bounded one does not (a stretch it did
   not see); with T2's region open throughout both do. */
static void blind_gap(void)
{
   static const ag_config full = { 0 }, bounded = { .predict_in_regions = 1 };
   static const hev hand_off[] = { {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {0,Wr,Y}, {1,R,Y},
                                   {2,B}, {1,Wr,X}, {2,E} };
   static const hev no_hand_off[] = { {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {0,Wr,Y},
                                      {2,B}, {1,Wr,X}, {2,E} };
   static const hev overlapping[] = { {2,B}, {0,B}, {0,R,X}, {0,Wr,X}, {0,E}, {0,Wr,Y},
                                      {1,Wr,X}, {2,E} };
   const struct { const char *name; const hev *h; int n, want_full, want_bounded; } c[] = {
      { "hand-off unseen", hand_off, 9, 0, 0 },
      { "no hand-off, a stretch unseen", no_hand_off, 8, 1, 0 },
      { "a region open throughout", overlapping, 8, 1, 1 } };
   for (int k = 0; k < 3; k++) {
      ag_ref_trace tr;
      build(&tr, 3, c[k].h, c[k].n);
      int nf = ag_ref_feed(&tr, "predict", &full, NULL);
      int nb = ag_ref_feed(&tr, "predict", &bounded, NULL);
      if (nf != c[k].want_full || nb != c[k].want_bounded) {
         printf("FAIL blind_gap '%s': %d unbounded, %d bounded reports; want %d, %d\n",
                c[k].name, nf, nb, c[k].want_full, c[k].want_bounded);
         failures++;
      }
   }
}

/* A location a second thread touches keeps that thread's entry in a
   further array, whose slabs the engine reports as its own memory. */
static void entries_memory(void)
{
   static const ag_config cfg = { 0 };
   ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, NULL, NULL);
   ag_ev_thread_new(e, 0);
   ag_ev_thread_new(e, 1);
   ag_ev_access(e, 0, 0x1000, 4, AG_WRITE, 0x10);
   if (ag_engine_heap_peak(e) != 0) {
      printf("FAIL entries_memory: %llu bytes with one thread\n",
             (unsigned long long)ag_engine_heap_peak(e));
      failures++;
   }
   ag_ev_access(e, 1, 0x1000, 4, 0, 0x20);
   if (ag_engine_heap_peak(e) == 0) {
      printf("FAIL entries_memory: a second thread's entry is not counted\n");
      failures++;
   }
   ag_engine_delete(e);
}

/* A location keeps 4 threads' entries: the least recently active one's
   is dropped for a fifth, after that access is checked (the replay
   model keeps them all, so these traces are checked here, not by hand()).
   Each pair: the reports, as (e1, e2, a) in report order. */
static void dropped_entries(void)
{
   /* the region's thread is dropped for T4, so T5 predicts nothing */
   static const hev t1[] = { {0,B}, {0,R,X}, {0,R,X}, {0,E}, {1,Wr,X}, {2,Wr,X}, {3,Wr,X},
                             {4,Wr,X}, {5,Wr,X} };
   static const int w1[][3] = { { 2, 3, 5 }, { 2, 3, 6 }, { 2, 3, 7 }, { 2, 3, 8 } };
   /* the first entry (in the location's record, which also says where
      the others are) is dropped for T4: T3's takes its place, T1's region
      stays known for T5, and T1 is dropped then (T0 predicts nothing) */
   static const hev t2[] = { {0,Wr,X}, {1,B}, {1,R,X}, {1,R,X}, {1,E}, {2,Wr,X}, {3,Wr,X},
                             {4,Wr,X}, {5,Wr,X}, {0,Wr,X} };
   static const int w2[][3] = { { 3, 4, 1 }, { 3, 4, 6 }, { 3, 4, 7 }, { 3, 4, 8 }, { 3, 4, 9 } };
   const struct { const hev *h; int n; const int (*w)[3]; int nw; } c[] = {
      { t1, 9, w1, 4 }, { t2, 10, w2, 5 } };
   for (int k = 0; k < 2; k++) {
      ag_ref_trace tr;
      build(&tr, 6, c[k].h, c[k].n);
      run_engine(&tr);
      int ok = engine_out.n == c[k].nw;
      for (int i = 0; ok && i < c[k].nw; i++)
         ok = (int)engine_out.v[i].e1_event == c[k].w[i][0]
              && (int)engine_out.v[i].e2_event == c[k].w[i][1]
              && (int)engine_out.v[i].other_event == c[k].w[i][2];
      if (!ok) {
         printf("FAIL dropped_entries %d: %d reports, want %d\n", k + 1, engine_out.n, c[k].nw);
         failures++;
      }
   }
}

/* A location's record is one cache line: 64 bytes of shadow per location
   (it was 72, the further entries' address in a field of its own). */
static void record_line(void)
{
   static const ag_config cfg = { 0 };
   ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, NULL, NULL);
   ag_ev_thread_new(e, 0);
   ag_ev_access(e, 0, 0x10000, 8, AG_WRITE, 0x10);
   uint64_t one = ag_engine_shadow_bytes(e);
   for (int i = 1; i <= 256; i++) ag_ev_access(e, 0, 0x10000 + 8 * i, 8, AG_WRITE, 0x10);
   uint64_t per = (ag_engine_shadow_bytes(e) - one) / 256;
   if (per != 64) {
      printf("FAIL record_line: %llu bytes of shadow per location\n", (unsigned long long)per);
      failures++;
   }
   ag_engine_delete(e);
}

/* The descriptor cache keeps a site made both inside and outside a
   region apart (the in-region flag is part of its key): 1000 rounds of
   a region around one access and one more access after it miss a few
   times, not at every access. */
static void desc_cache(void)
{
   static const ag_config cfg = { 0 };
   ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, NULL, NULL);
   ag_ev_thread_new(e, 0);
   for (int i = 0; i < 1000; i++) {
      ag_ev_begin(e, 0, 0x50);
      ag_ev_access(e, 0, 0x1000, 4, AG_WRITE, 0x10);
      ag_ev_end(e, 0, 0x60);
      ag_ev_access(e, 0, 0x1000, 4, AG_WRITE, 0x10);
   }
   if (ag_engine_cache_misses(e) > 10) {
      printf("FAIL desc_cache: %llu misses\n", (unsigned long long)ag_engine_cache_misses(e));
      failures++;
   }
   ag_engine_delete(e);
}

/* ---- a bound on location state (cfg.loc_budget) -------------------- */

static ag_ref_reports reset_out;

static void reset_report(void *cookie, const ag_violation *v)
{
   (void)cookie;
   if (reset_out.n < AG_REF_MAXEV) reset_out.v[reset_out.n++] = *v;
}

/* A prediction engine reporting into reset_out, the trace's first threads
   made, and each thread's last event in last[] (feed_one exits it there). */
static ag_engine *trace_engine(const ag_ref_trace *tr, const ag_config *cfg, int *last)
{
   ag_engine *e = ag_engine_new(ag_engine_find("predict"), cfg, reset_report, NULL);
   reset_out.n = 0;
   for (int t = 0; t < tr->ninit; t++) ag_ev_thread_new(e, t);
   for (int t = 0; t < AG_REF_MAXT; t++) last[t] = -1;
   for (int k = 0; k < tr->n; k++) last[tr->ev[k].tid] = k;
   return e;
}

static void feed_one(ag_engine *e, const ag_ref_trace *tr, int k, const int *last)
{
   ag_ref_feed_event(e, &tr->ev[k], (uint64_t)k + 1);
   if (k == last[tr->ev[k].tid] && tr->exits[tr->ev[k].tid]) ag_ev_thread_exit(e, tr->ev[k].tid);
}

/* The reports in reset_out, each allowed by the model, and with no mark
   at the events from its first side up to its last (marks[x]: a drop
   after event x) or up to and including it (to_last; marks[x]: event x
   was held back): nothing is concluded across one.  How many. */
static int check_marked(ag_ref_trace *tr, const int *marks, int to_last, const char *what)
{
   ref_t *r = analyse(tr);
   for (int k = 0; k < reset_out.n; k++) {
      const ag_violation *v = &reset_out.v[k];
      int e1 = (int)v->e1_event, e2 = (int)v->e2_event, a = (int)v->other_event;
      int lo = a < e1 ? a : e1, hi = a > e2 ? a : e2, across = 0;
      for (int x = lo; x < hi + to_last; x++) across |= marks[x];
      if (!model_ok(tr, r, e1, e2, a) || across)
         FAIL(tr, "predict %s: (e1 %d, e2 %d, a %d): model %d, across a mark %d",
              what, e1, e2, a, model_ok(tr, r, e1, e2, a), across);
   }
   free(r);
   return reset_out.n;
}

/* Random traces with every location's state dropped after random events
   (ag_engine_reset_locs, what cfg.loc_budget does; while a lock is held,
   at the release that frees the last one): every report is
   allowed by the model, and each of its accesses, and everything between
   them, lies after the last drop before its later side (nothing is
   concluded from state a drop removed, nor across a drop).  Unbounded
   and bounded prediction both. */
static void reset_traces(int ntraces)
{
   uint64_t st = 0x5eed0033;
   int nrep = 0, nresets = 0;
   ag_ref_trace *tr = malloc(sizeof *tr);
   static int reset_at[AG_REF_MAXEV + 1];
   for (int i = 0; i < ntraces && failures < 5; i++) {
      gen(tr, &st);
      ag_config cfg = { .predict_in_regions = (int)(i & 1) };
      int last[AG_REF_MAXT];
      ag_engine *e = trace_engine(tr, &cfg, last);
      for (int k = 0; k < tr->n; k++) {
         uint64_t drops = ag_engine_loc_resets(e);
         feed_one(e, tr, k, last);
         if (ag_ref_rand(&st) % 24 == 0) ag_engine_reset_locs(e);
         /* where it was dropped: asked for here, or earlier inside a
            critical section and done at this release */
         reset_at[k + 1] = ag_engine_loc_resets(e) > drops;
      }
      nresets += (int)ag_engine_loc_resets(e);
      ag_engine_delete(e);
      nrep += check_marked(tr, reset_at, 0, "with resets");
   }
   printf("resets: %d traces, %d resets, %d predictions\n", ntraces, nresets, nrep);
   if (!nrep || !nresets) FAIL(NULL, "no prediction, or no reset, with resets");
   free(tr);
}

/* A drop asked for inside a critical section waits for its release.  T1
   writes Y and then X under LK (the hand-off: Y read under LK counts as
   written at T1's release, after X); T0 then reads Y under LK and X twice
   in its region: nothing to predict.  Dropped between T1's two writes,
   Y's writer was forgotten and X's write (after the drop) was predicted
   between T0's reads; deferred to the release, the drop comes after both
   writes and nothing is predicted across it.  Dropped before or after the
   critical section: nothing predicted either way. */
static void drop_in_critical_section(void)
{
   static const hev h[] = { {1,A,LK}, {1,Wr,Y}, {1,Wr,X}, {1,L,LK}, {0,A,LK}, {0,R,Y},
                            {0,L,LK}, {0,B}, {0,R,X}, {0,R,X}, {0,E} };
   static const ag_config cfg = { 0 };
   ag_ref_trace tr;
   build(&tr, 2, h, 11);
   for (int at = -1; at < 4; at++) {                /* drop after event `at` */
      ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, reset_report, NULL);
      reset_out.n = 0;
      ag_ev_thread_new(e, 0);
      ag_ev_thread_new(e, 1);
      for (int k = 0; k < tr.n; k++) {
         ag_ref_feed_event(e, &tr.ev[k], (uint64_t)k + 1);
         if (k == at) ag_engine_reset_locs(e);
      }
      uint64_t resets = ag_engine_loc_resets(e);
      ag_engine_delete(e);
      if (reset_out.n != 0 || resets != (at >= 0)) {
         printf("FAIL drop_in_critical_section (after event %d): %d predictions, %llu drops\n",
                at, reset_out.n, (unsigned long long)resets);
         failures++;
      }
   }
}

/* Random traces with cfg.access_windows, the sampler's r and k made
   small so that windows end and gaps come within a trace: every report
   is allowed by the model, and no access between its sides (both
   included) was held back (nothing is concluded across a gap, whose
   start drops every location's state).  Unbounded and bounded
   prediction both. */
static void window_traces(int ntraces)
{
   uint64_t st = 0x5eed0044;
   int nrep = 0, ngaps = 0;
   ag_ref_trace *tr = malloc(sizeof *tr);
   static int gap_at[AG_REF_MAXEV + 1];
   for (int i = 0; i < ntraces && failures < 5; i++) {
      gen(tr, &st);
      ag_config cfg = { .predict_in_regions = (int)(i & 1), .access_windows = 1,
                        .win_seed = (uint64_t)i, .win_r = 1 + ag_ref_rand(&st) % 3,
                        .win_k = 2 + ag_ref_rand(&st) % 8 };
      int last[AG_REF_MAXT];
      ag_engine *e = trace_engine(tr, &cfg, last);
      for (int k = 0; k < tr->n; k++) {
         uint64_t offered = ag_engine_win_offered(e), sent = ag_engine_analysed(e);
         feed_one(e, tr, k, last);
         gap_at[k + 1] = ag_engine_win_offered(e) > offered && ag_engine_analysed(e) == sent;
         ngaps += gap_at[k + 1];
      }
      ag_engine_delete(e);
      nrep += check_marked(tr, gap_at, 1, "in windows");
   }
   printf("windows: %d traces, %d accesses held back, %d predictions\n", ntraces, ngaps, nrep);
   if (!nrep || !ngaps) FAIL(NULL, "no prediction, or no access held back, in windows");
   free(tr);
}

/* cfg.access_windows on a long run: one thread's region reads a word
   twice, and another thread writes it before the region ends (R-W-R,
   predicted: the write may come between the reads), over and over.
   Windows send a fraction of the accesses, and still predict (the first
   patterns lie in the whole-run prefix), but not a pattern whose access
   lies in a gap.  Without windows every access is sent. */
static void windows_long(void)
{
   uint64_t sent[2], offered[2], reports[2];   /* without windows, with */
   for (int w = 0; w < 2; w++) {
      ag_config cfg = { .predict_in_regions = 1, .access_windows = w, .win_r = 4, .win_k = 64 };
      ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, NULL, NULL);
      ag_ev_thread_new(e, 0);
      ag_ev_thread_new(e, 1);
      for (uint64_t i = 0; i < 20000; i++) {
         ag_addr x = 0x1000 + 8 * (i % 64);
         ag_ev_begin(e, 0, 0x50);
         ag_ev_access(e, 0, x, 8, 0, 0x11);
         ag_ev_access(e, 0, x, 8, 0, 0x12);
         ag_ev_access(e, 1, x, 8, AG_WRITE, 0x20);
         ag_ev_end(e, 0, 0x60);
      }
      sent[w] = ag_engine_win_sent(e);
      offered[w] = ag_engine_win_offered(e);
      reports[w] = ag_engine_reports(e);
      ag_engine_delete(e);
   }
   if (offered[0] != 0 || offered[1] != 60000 || sent[1] * 4 > offered[1] || reports[1] == 0
       || reports[1] >= reports[0]) {
      printf("FAIL windows_long: %llu of %llu accesses sent, reports %llu and %llu\n",
             (unsigned long long)sent[1], (unsigned long long)offered[1],
             (unsigned long long)reports[0],
             (unsigned long long)reports[1]);
      failures++;
   }
}

/* cfg.loc_budget: one thread's region writes 100000 words, another
   reads them back.  The state stays within the budget (and is dropped
   at least once: 100000 locations are 6 MiB), prediction goes on after a
   drop (the last pattern, wholly after the last drop, is predicted), and
   the engine says how many times it dropped. */
static void budget_memory(void)
{
   for (int bounded = 0; bounded < 2; bounded++) {
      ag_config cfg = { .loc_budget = bounded ? 256u << 10 : 0 };
      ag_engine *e = ag_engine_new(ag_engine_find("predict"), &cfg, NULL, NULL);
      ag_ev_thread_new(e, 0);
      ag_ev_thread_new(e, 1);
      ag_ev_begin(e, 0, 0x50);
      for (uint64_t i = 0; i < 100000; i++) ag_ev_access(e, 0, 0x100000 + 8 * i, 8, AG_WRITE, 0x10);
      ag_ev_access(e, 0, 0x10000, 8, 0, 0x11);      /* e1, e2: read, read */
      ag_ev_access(e, 0, 0x10000, 8, 0, 0x12);
      ag_ev_end(e, 0, 0x60);
      ag_ev_access(e, 1, 0x10000, 8, AG_WRITE, 0x20);   /* a: R-W-R */
      uint64_t peak = ag_engine_shadow_peak(e), resets = ag_engine_loc_resets(e);
      uint64_t reports = ag_engine_reports(e);
      ag_engine_delete(e);
      if (reports != 1 || (bounded && (peak > (256u << 10) || resets == 0))
          || (!bounded && (resets != 0 || peak < (6u << 20)))) {
         printf("FAIL budget_memory (bound %d): %llu reports, shadow peak %llu, %llu resets\n",
                bounded, (unsigned long long)reports, (unsigned long long)peak,
                (unsigned long long)resets);
         failures++;
      }
   }
}

int main(int argc, char **argv)
{
   const char *what = argc > 1 ? argv[1] : "all";
   int n = argc > 2 ? atoi(argv[2]) : 3000;
   if (!ag_engine_find("predict")) {
      printf("engine 'predict' is not registered\n");
      return 77;
   }
   if (!strcmp(what, "hand") || !strcmp(what, "all")) {
      hand_traces();
      entries_memory();
      record_line();
      dropped_entries();
      desc_cache();
      blind_gap();
      budget_memory();
      windows_long();
      drop_in_critical_section();
   }
   if (!strcmp(what, "random") || !strcmp(what, "all")) {
      random_traces(n);
      bounded_traces(n);
      reset_traces(n);
      window_traces(n);
   }
   if (failures) {
      fprintf(stderr, "%d failure(s)\n", failures);
      return 1;
   }
   printf("ok\n");
   return 0;
}
