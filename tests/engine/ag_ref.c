/* ag_ref.c -- see ag_ref.h.  Everything here favours plainness over
 * speed: bitsets of event predecessors, adjacency matrices of
 * transactions, breadth-first searches. */
#include "ag_ref.h"
#include <stdlib.h>
#include <string.h>

#define W ((AG_REF_MAXEV + 1 + 63) / 64)

typedef struct { uint64_t b[W]; } bits;

static inline void bset(bits *s, int i) { s->b[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline int bget(const bits *s, int i) { return (s->b[i >> 6] >> (i & 63)) & 1; }
static inline void bor(bits *d, const bits *s) { for (int i = 0; i < W; i++) d->b[i] |= s->b[i]; }

/* ---- building --------------------------------------------------- */

void ag_ref_init(ag_ref_trace *tr, int ninit)
{
   memset(tr, 0, sizeof *tr);
   tr->ninit = ninit;
   tr->nthreads = ninit;
}

void ag_ref_add(ag_ref_trace *tr, int tid, int op, uint64_t arg, int size)
{
   if (tr->n >= AG_REF_MAXEV) { fprintf(stderr, "ag_ref: trace too long\n"); abort(); }
   ag_ref_ev *e = &tr->ev[tr->n++];
   e->tid = (uint8_t)tid;
   e->op = (uint8_t)op;
   e->arg = arg;
   e->size = (uint8_t)size;
   if (tid + 1 > tr->nthreads) tr->nthreads = tid + 1;
   if (op == AG_REF_FORK && (int)arg + 1 > tr->nthreads) tr->nthreads = (int)arg + 1;
}

static const char *const opname[] = {
   "begin", "end", "rd", "wr", "acq", "rel", "racq", "rrel", "fork", "join"
};

void ag_ref_print(const ag_ref_trace *tr, FILE *f)
{
   fprintf(f, "trace: %d events, %d initial threads, %d threads\n",
           tr->n, tr->ninit, tr->nthreads);
   for (int i = 0; i < tr->n; i++) {
      const ag_ref_ev *e = &tr->ev[i];
      fprintf(f, "  %3d  T%d %s", i + 1, e->tid, opname[e->op]);
      if (e->op == AG_REF_RD || e->op == AG_REF_WR)
         fprintf(f, "(0x%llx,%d)", (unsigned long long)e->arg, e->size);
      else if (e->op >= AG_REF_ACQ)
         fprintf(f, "(%llx)", (unsigned long long)e->arg);
      fputc('\n', f);
   }
}

/* ---- analysis: transactions, direct conflicts, CHB ---------------- */

typedef struct {
   int n, ntxn;
   int txn[AG_REF_MAXEV + 1];          /* event (1-based) -> transaction */
   int tx_tid[AG_REF_MAXEV + 1];
   int tx_begin[AG_REF_MAXEV + 1];     /* first event */
   int tx_end[AG_REF_MAXEV + 1];       /* end event (== begin for unary), 0 if open */
   int tx_unary[AG_REF_MAXEV + 1];
   bits dpred[AG_REF_MAXEV + 1];       /* direct conflict predecessors */
   bits chb[AG_REF_MAXEV + 1];         /* strict CHB predecessors */
   int *edge;                          /* ntxn x ntxn: event at which txn edge appears, 0 never */
} an_t;

static int overlap(const ag_ref_ev *a, const ag_ref_ev *b)
{
   return a->arg < b->arg + b->size && b->arg < a->arg + a->size;
}

static int is_access(int op) { return op == AG_REF_RD || op == AG_REF_WR; }

static an_t *analyse(const ag_ref_trace *tr)
{
   an_t *a = calloc(1, sizeof *a);
   int n = tr->n;
   a->n = n;
   int depth[AG_REF_MAXT] = {0}, cur[AG_REF_MAXT], last[AG_REF_MAXT] = {0};
   int forked_at[AG_REF_MAXT] = {0};
   for (int t = 0; t < AG_REF_MAXT; t++) cur[t] = -1;

   for (int e = 1; e <= n; e++) {
      const ag_ref_ev *ev = &tr->ev[e - 1];
      int t = ev->tid, op = ev->op;
      /* transaction of e */
      if (op == AG_REF_BEGIN && depth[t]++ == 0) {
         int x = a->ntxn++;
         a->tx_tid[x] = t; a->tx_begin[x] = e; a->tx_end[x] = 0; a->tx_unary[x] = 0;
         cur[t] = x;
         a->txn[e] = x;
      } else if (op == AG_REF_END) {
         if (depth[t] == 0) { fprintf(stderr, "ag_ref: end without begin\n"); abort(); }
         a->txn[e] = cur[t];
         if (--depth[t] == 0) { a->tx_end[cur[t]] = e; cur[t] = -1; }
      } else if (depth[t] > 0) {
         a->txn[e] = cur[t];
      } else {
         int x = a->ntxn++;
         a->tx_tid[x] = t; a->tx_begin[x] = e; a->tx_end[x] = e; a->tx_unary[x] = 1;
         a->txn[e] = x;
      }
      /* direct conflicts d -> e */
      bits *dp = &a->dpred[e];
      if (last[t]) bset(dp, last[t]);                 /* thread order */
      if (forked_at[t]) bset(dp, forked_at[t]);       /* fork(t) -> t's events */
      for (int d = 1; d < e; d++) {
         const ag_ref_ev *dv = &tr->ev[d - 1];
         int c = 0;
         if (is_access(op) && is_access(dv->op))
            c = (op == AG_REF_WR || dv->op == AG_REF_WR) && overlap(ev, dv);
         else if (op == AG_REF_ACQ)
            c = (dv->op == AG_REF_REL || dv->op == AG_REF_RREL) && dv->arg == ev->arg;
         else if (op == AG_REF_RACQ)
            c = dv->op == AG_REF_REL && dv->arg == ev->arg;
         else if (op == AG_REF_JOIN)
            c = dv->tid == ev->arg;                   /* child's events -> join */
         if (c) bset(dp, d);
      }
      if (op == AG_REF_FORK) forked_at[ev->arg] = e;
      last[t] = e;
      /* CHB predecessors */
      for (int d = 1; d < e; d++)
         if (bget(dp, d)) { bor(&a->chb[e], &a->chb[d]); bset(&a->chb[e], d); }
   }
   /* transaction graph: txn(d) -> txn(e) for every direct conflict */
   int m = a->ntxn ? a->ntxn : 1;
   a->edge = calloc((size_t)m * m, sizeof(int));
   for (int e = 1; e <= n; e++)
      for (int d = 1; d < e; d++)
         if (bget(&a->dpred[e], d) && a->txn[d] != a->txn[e]) {
            int *p = &a->edge[a->txn[d] * m + a->txn[e]];
            if (!*p) *p = e;
         }
   return a;
}

static void an_free(an_t *a) { free(a->edge); free(a); }

/* Does x reach y (one or more steps) using txn edges that exist at event m? */
static int reaches(const an_t *a, int x, int y, int m)
{
   int nt = a->ntxn, *seen = calloc(nt, sizeof(int)), *q = malloc(nt * sizeof(int));
   int h = 0, tl = 0, found = 0;
   q[tl++] = x;
   while (h < tl && !found) {
      int u = q[h++];
      for (int v = 0; v < nt; v++) {
         int t = a->edge[u * nt + v];
         if (!t || t > m || seen[v]) continue;
         if (v == y) { found = 1; break; }
         seen[v] = 1;
         q[tl++] = v;
      }
   }
   free(seen); free(q);
   return found;
}

int ag_ref_closes_cycle(const ag_ref_trace *tr, int e)
{
   if (e < 1 || e > tr->n) return 0;
   an_t *a = analyse(tr);
   int x = a->txn[e], r = 0;
   for (int d = 1; d < e && !r; d++)
      if (bget(&a->dpred[e], d) && a->txn[d] != x && reaches(a, x, a->txn[d], e)) r = 1;
   an_free(a);
   return r;
}

int ag_ref_first_cycle(const ag_ref_trace *tr)
{
   /* Edges only accumulate, so the first cyclic prefix is the first event
      one of whose new edges y -> x has x reaching y. */
   an_t *a = analyse(tr);
   int nt = a->ntxn, r = 0;
   for (int e = 1; e <= tr->n && !r; e++) {
      int x = a->txn[e];
      for (int y = 0; y < nt && !r; y++)
         if (a->edge[y * nt + x] == e && reaches(a, x, y, e)) r = e;
   }
   an_free(a);
   return r;
}

static int inc_at(const an_t *a, const ag_ref_trace *tr, int e)
{
   int op = tr->ev[e - 1].op, x = a->txn[e];
   if (op == AG_REF_BEGIN || op == AG_REF_END || a->tx_unary[x]) return 0;
   int b = a->tx_begin[x];
   for (int e3 = 1; e3 < e; e3++)
      if (bget(&a->chb[e], e3) && a->txn[e3] != x && bget(&a->chb[e3], b)) return 1;
   return 0;
}

int ag_ref_increasing_at(const ag_ref_trace *tr, int e)
{
   if (e < 1 || e > tr->n) return 0;
   an_t *a = analyse(tr);
   int r = inc_at(a, tr, e);
   an_free(a);
   return r;
}

int ag_ref_first_increasing(const ag_ref_trace *tr)
{
   an_t *a = analyse(tr);
   int r = 0;
   for (int e = 1; e <= tr->n && !r; e++)
      if (inc_at(a, tr, e)) r = e;
   an_free(a);
   return r;
}

int ag_ref_all_complete(const ag_ref_trace *tr)
{
   an_t *a = analyse(tr);
   int r = 1;
   for (int x = 0; x < a->ntxn; x++) if (!a->tx_end[x]) r = 0;
   an_free(a);
   return r;
}

/* Kahn: does the subgraph on nodes in[] (edges E with time <= m) have a cycle? */
static int cyclic(int nt, const int *E, const char *in, int m)
{
   int *indeg = calloc(nt, sizeof(int)), *q = malloc(nt * sizeof(int));
   int h = 0, tl = 0, cnt = 0, tot = 0;
   for (int x = 0; x < nt; x++) if (in[x]) {
      tot++;
      for (int y = 0; y < nt; y++)
         if (in[y] && E[y * nt + x] && E[y * nt + x] <= m) indeg[x]++;
   }
   for (int x = 0; x < nt; x++) if (in[x] && !indeg[x]) q[tl++] = x;
   while (h < tl) {
      int u = q[h++];
      cnt++;
      for (int v = 0; v < nt; v++)
         if (in[v] && E[u * nt + v] && E[u * nt + v] <= m && --indeg[v] == 0) q[tl++] = v;
   }
   free(indeg); free(q);
   return cnt < tot;
}

/* Theorem 1 condition at prefix m, with E = CHB transaction order. */
static int thm1_at(const an_t *a, const int *E, int m)
{
   int nt = a->ntxn;
   char *in = calloc(nt ? nt : 1, 1);
   int r = 0;
   for (int x = 0; x < nt; x++)
      in[x] = a->tx_begin[x] <= m && a->tx_end[x] && a->tx_end[x] <= m;
   if (cyclic(nt, E, in, m)) r = 1;
   for (int o = 0; o < nt && !r; o++) {
      if (a->tx_begin[o] > m || in[o]) continue;      /* o: open at m */
      in[o] = 1;
      if (cyclic(nt, E, in, m)) r = 1;
      in[o] = 0;
   }
   free(in);
   return r;
}

int ag_ref_first_thm1(const ag_ref_trace *tr)
{
   int lo = ag_ref_first_cycle(tr);
   if (!lo) return 0;
   an_t *a = analyse(tr);
   int nt = a->ntxn;
   int *E = calloc((size_t)(nt ? nt : 1) * (nt ? nt : 1), sizeof(int));
   for (int e2 = 1; e2 <= tr->n; e2++)
      for (int e1 = 1; e1 < e2; e1++)
         if (bget(&a->chb[e2], e1) && a->txn[e1] != a->txn[e2]) {
            int *p = &E[a->txn[e1] * nt + a->txn[e2]];
            if (!*p) *p = e2;
         }
   /* the condition only grows with the prefix: binary search */
   int hi = tr->n, r = 0;
   if (thm1_at(a, E, hi)) {
      while (lo < hi) {
         int mid = lo + (hi - lo) / 2;
         if (thm1_at(a, E, mid)) hi = mid; else lo = mid + 1;
      }
      r = hi;
   }
   free(E);
   an_free(a);
   return r;
}

/* ---- random traces ------------------------------------------------ */

uint64_t ag_ref_rand(uint64_t *st)
{
   /* splitmix64 */
   uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}

static int rnd(uint64_t *st, int n) { return (int)(ag_ref_rand(st) % (uint64_t)n); }

#define AG_REF_LOC_BASE 0x1000
#define AG_REF_LOCK_BASE 0x9000
#define MAXLOCK 4

typedef struct {
   int started, finished, joined, depth;
   int held[MAXLOCK * 2], shared[MAXLOCK * 2], nheld;
} gth;

void ag_ref_gen(ag_ref_trace *tr, uint64_t *st, int len, int maxthreads)
{
   if (maxthreads > AG_REF_MAXT) maxthreads = AG_REF_MAXT;
   if (len > AG_REF_MAXEV - 64) len = AG_REF_MAXEV - 64;
   int nth = 2 + rnd(st, maxthreads - 1);
   int ninit = 1 + rnd(st, nth);              /* the rest are forked */
   if (ninit == 1 && nth > 1 && rnd(st, 3) == 0) ninit = 2;
   int nloc = 1 + rnd(st, 4), nlock = rnd(st, MAXLOCK + 1);
   int rw[MAXLOCK], wholder[MAXLOCK], readers[MAXLOCK];
   int maxdepth = 1 + rnd(st, 3);
   int p_access = 6 + rnd(st, 14);            /* vary the mix per trace */
   /* a third of the traces are "disciplined": shared words only under a
      lock, else the thread's own word -- long serializable stretches */
   int disciplined = rnd(st, 3) == 0;
   /* a quarter have sparse regions: long stretches with no region open
      anywhere, which the dispatcher does not forward (ag_quiescent) */
   int sparse = rnd(st, 4) == 0;
   gth th[AG_REF_MAXT];
   memset(th, 0, sizeof th);
   for (int l = 0; l < MAXLOCK; l++) { rw[l] = rnd(st, 2); wholder[l] = -1; readers[l] = 0; }
   ag_ref_init(tr, ninit);
   tr->nthreads = nth;
   for (int t = 0; t < ninit; t++) th[t].started = 1;
   int nextchild = ninit;

   while (tr->n < len) {
      int act[AG_REF_MAXT], na = 0;
      for (int t = 0; t < nth; t++) if (th[t].started && !th[t].finished) act[na++] = t;
      if (!na) break;
      int t = act[rnd(st, na)];
      gth *g = &th[t];
      int r = rnd(st, 15 + p_access);
      if (r < 3) {                                    /* begin (maybe nested) */
         if (sparse && rnd(st, 5)) continue;
         if (g->depth < maxdepth) { ag_ref_add(tr, t, AG_REF_BEGIN, 0, 0); g->depth++; }
      } else if (r < 6) {
         if (g->depth > 0) { ag_ref_add(tr, t, AG_REF_END, 0, 0); g->depth--; }
      } else if (r < 9) {                              /* acquire */
         if (!nlock) continue;
         int l = rnd(st, nlock), sh = rw[l] && rnd(st, 2), mine = 0;
         for (int i = 0; i < g->nheld; i++) if (g->held[i] == l) mine = 1;
         if (mine || wholder[l] >= 0 || (!sh && readers[l])) continue;
         if (sh) readers[l]++; else wholder[l] = t;
         g->held[g->nheld] = l; g->shared[g->nheld++] = sh;
         ag_ref_add(tr, t, sh ? AG_REF_RACQ : AG_REF_ACQ, AG_REF_LOCK_BASE + 0x40 * l, 0);
      } else if (r < 12) {                             /* release, well nested */
         if (!g->nheld) continue;
         int i = --g->nheld, l = g->held[i], sh = g->shared[i];
         if (sh) readers[l]--; else wholder[l] = -1;
         ag_ref_add(tr, t, sh ? AG_REF_RREL : AG_REF_REL, AG_REF_LOCK_BASE + 0x40 * l, 0);
      } else if (r < 13) {                             /* fork */
         if (nextchild >= nth) continue;
         int c = nextchild++;
         th[c].started = 1;
         ag_ref_add(tr, t, AG_REF_FORK, c, 0);
      } else if (r < 14) {                             /* join a finished child */
         int c = -1;
         for (int u = ninit; u < nth; u++)
            if (u != t && th[u].finished && !th[u].joined) { c = u; break; }
         if (c < 0) continue;
         th[c].joined = 1;
         ag_ref_add(tr, t, AG_REF_JOIN, c, 0);
      } else if (r < 15) {                             /* a child finishes */
         if (t < ninit || g->depth || g->nheld) continue;
         g->finished = 1;
         tr->exits[t] = 1;
      } else {                                         /* access */
         int op = rnd(st, 2) ? AG_REF_WR : AG_REF_RD;
         int w = rnd(st, nloc), k = rnd(st, 100), size, off;
         if (disciplined && (!g->nheld || rnd(st, 3) == 0)) w = 8 + t;  /* private */
         if (k < 55) { size = 8; off = 0; }
         else if (k < 80) { size = 1; off = rnd(st, 8); }
         else if (k < 90) { size = 4; off = 4 * rnd(st, 2); }
         else if (k < 96) { size = 2; off = 2 * rnd(st, 4); }
         else if (w + 1 < nloc && w < 8) { size = 8; off = 4; }  /* straddles two words */
         else { size = 8; off = 0; }
         ag_ref_add(tr, t, op, AG_REF_LOC_BASE + 8 * w + off, size);
      }
   }
   if (rnd(st, 3) == 0) return;                        /* truncated */
   /* close everything, interleaving threads */
   for (;;) {
      int act[AG_REF_MAXT], na = 0;
      for (int t = 0; t < nth; t++)
         if (th[t].started && !th[t].finished && (th[t].depth || th[t].nheld)) act[na++] = t;
      if (!na) break;
      int t = act[rnd(st, na)];
      gth *g = &th[t];
      if (g->nheld && (!g->depth || rnd(st, 2))) {
         int i = --g->nheld, l = g->held[i], sh = g->shared[i];
         if (sh) readers[l]--; else wholder[l] = -1;
         ag_ref_add(tr, t, sh ? AG_REF_RREL : AG_REF_REL, AG_REF_LOCK_BASE + 0x40 * l, 0);
      } else {
         ag_ref_add(tr, t, AG_REF_END, 0, 0);
         g->depth--;
      }
   }
}

/* ---- driving an engine -------------------------------------------- */

typedef struct {
   ag_ref_reports *out;
   ag_engine *e;
} feed_t;

static void feed_report(void *cookie, const ag_violation *v)
{
   feed_t *f = cookie;
   if (f->out && f->out->n < AG_REF_MAXEV) f->out->v[f->out->n++] = *v;
}

int ag_ref_feed_event(ag_engine *e, const ag_ref_ev *ev, uint64_t site)
{
   switch (ev->op) {
   case AG_REF_BEGIN: return ag_ev_begin(e, ev->tid, site);
   case AG_REF_END:   return ag_ev_end(e, ev->tid, site);
   case AG_REF_RD:    return ag_ev_access(e, ev->tid, ev->arg, ev->size, 0, site);
   case AG_REF_WR:    return ag_ev_access(e, ev->tid, ev->arg, ev->size, AG_WRITE, site);
   case AG_REF_ACQ:   return ag_ev_acquire(e, ev->tid, ev->arg, 0, site);
   case AG_REF_REL:   return ag_ev_release(e, ev->tid, ev->arg, 0, site);
   case AG_REF_RACQ:  return ag_ev_acquire(e, ev->tid, ev->arg, 1, site);
   case AG_REF_RREL:  return ag_ev_release(e, ev->tid, ev->arg, 1, site);
   case AG_REF_FORK:  return ag_ev_fork(e, ev->tid, (ag_tid)ev->arg, site);
   case AG_REF_JOIN:  return ag_ev_join(e, ev->tid, (ag_tid)ev->arg, site);
   }
   return AG_OK;
}

int ag_ref_feed(const ag_ref_trace *tr, const char *name, const ag_config *cfg,
                ag_ref_reports *out)
{
   const ag_engine_ops *ops = ag_engine_find(name);
   if (!ops) return -1;
   feed_t f = { out, NULL };
   if (out) out->n = 0;
   ag_engine *e = ag_engine_new(ops, cfg, feed_report, &f);
   f.e = e;
   for (int t = 0; t < tr->ninit; t++) ag_ev_thread_new(e, t);
   int last[AG_REF_MAXT];
   for (int t = 0; t < AG_REF_MAXT; t++) last[t] = -1;
   for (int i = 0; i < tr->n; i++) last[tr->ev[i].tid] = i;
   for (int i = 0; i < tr->n; i++) {
      int rc = ag_ref_feed_event(e, &tr->ev[i], (uint64_t)i + 1);
      if (rc != AG_OK) {
         fprintf(stderr, "ag_ref_feed: event %d rejected (%d)\n", i + 1, rc);
         abort();
      }
      ag_tid t = tr->ev[i].tid;
      if (i == last[t] && tr->exits[t]) ag_ev_thread_exit(e, t);
   }
   int n = (int)ag_engine_reports(e);
   ag_engine_delete(e);
   return n;
}
