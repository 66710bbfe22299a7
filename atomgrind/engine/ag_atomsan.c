/* ag_atomsan.c -- AtomSanitizer (Tunc, Dong, Pavlogiannis: "Fast Atomicity
 * Monitoring"): conflict-serializability checking with two k x k arrays.
 *
 *   From_b(a): latest transaction of thread a known to precede some
 *              transaction of thread b ("latest remote transaction");
 *   To_b(a):   earliest transaction of b that knows From_b(a)
 *              ("earliest local transaction").
 *
 * Transactions are (thread, id) with per-thread consecutive ids, so same-
 * thread order is implicit.  A new ordering v -> e (e in t's open txn)
 * closes a cycle iff a = tid(v) already knows txn(e) with To_a(t) <= txn(v).
 * Edges are inserted with backward propagation (O(k)) while the target
 * transaction has no outgoing edge, with full closure (O(k^2)) otherwise.
 *
 * With cfg.cycles_increasing, ids are per-thread event ids, From holds begin
 * ids, and only increasing cycles (begin(T) <CHB e3 <CHB e, e in T) are
 * reported; every insertion is then backward-only.
 *
 * Per location: the last write and the last read of each thread that read
 * since that write (one or two inline records, overflow to an array).  Per
 * lock the same shape: last write-release and the read-releases since.
 *
 * After a violation the closing edge is not inserted, so the state stays
 * that of an acyclic prefix, and the run goes on. */
#include "ag_engine.h"
#include "ag_map.h"
#include "ag_shim.h"

typedef int64_t as_id;
#define AS_NONE ((as_id)-1)                  /* From = bottom: below every id */
#define AS_INF  ((as_id)0x7fffffffffffffffLL)  /* To = bottom: above every id */

/* A record (tid, id) packed in one word: (id + 1) << 16 | tid; 0 = none. */
#define AS_MAX_TID 0xfffeu
#define AS_OVF (~(uint64_t)0)                /* inc mode: readers overflowed */
static inline uint64_t as_pack(ag_tid t, as_id k) { return ((uint64_t)(k + 1) << 16) | t; }
static inline ag_tid as_rtid(uint64_t r) { return (ag_tid)(r & 0xffff); }
static inline as_id as_rid(uint64_t r) { return (as_id)(r >> 16) - 1; }

/* Readers beyond the inline ones: n entries of 1 word (rec) or, in inc
   mode, 2 words (rec, begin id). */
typedef struct {
   uint32_t n, cap;
   uint64_t e[];
} as_rset;

/* Per location and per lock.
   plain: s0 last write, s1 s2 readers, s3 as_rset* of further readers.
   inc:   s0 last write, s1 its begin id, s2 reader (or AS_OVF), s3 its
          begin id (or the as_rset* holding all readers when s2 == AS_OVF). */
typedef struct { uint64_t s[4]; } as_loc;

typedef struct {
   as_id cur;       /* open txn (inc: its begin id), AS_NONE outside */
   as_id cnt;       /* next fresh id */
   as_id last;      /* last id allocated, AS_NONE before the first event */
   as_id lastB;     /* inc: begin id of last's transaction */
   as_id j, B;      /* the event being processed: txn id (inc: event id), begin id */
   int unary;       /* that event is a unary transaction */
   int hasOut;      /* plain: txn `last` has an outgoing edge */
   int pf;          /* pending fork edge into the first event */
   ag_tid pf_tid;
   as_id pf_K, pf_B;
} as_thread;

typedef struct {
   ag_ctx *ctx;
   int inc;
   uint32_t k, cap;          /* threads known, capacity of th/rows */
   as_thread *th;
   as_id *from, *to;         /* row b at b*cap: From_b(.), To_b(.) */
   ag_map *locks;            /* lock addr -> as_loc */
   /* closure scratch */
   ag_tid *pt, *st;
   as_id *pv, *sv;
} as_t;

#define FROM(s, b, a) ((s)->from[(size_t)(b) * (s)->cap + (a)])
#define TO(s, b, a)   ((s)->to[(size_t)(b) * (s)->cap + (a)])

/* ---- the data structure DS ---------------------------------------- */

/* record <p,P> <THB <row's thread, S> in row (ft, tt) */
static inline void as_add_succ(as_id *ft, as_id *tt, ag_tid p, as_id P, as_id S)
{
   if (ft[p] < P) { ft[p] = P; tt[p] = S; }
   else if (ft[p] == P && S < tt[p]) tt[p] = S;   /* an earlier txn learns it */
}

/* Backward-only insertion of <a,Kv> -> <t,k>; a contributes Bv (= Kv in
   plain mode), its predecessors are looked up with Kv.  Valid when <t,k>
   has no successors. */
static void as_insert_backward(as_t *s, ag_tid a, as_id Bv, as_id Kv, ag_tid t, as_id k)
{
   size_t cap = s->cap;
   as_id *ft = s->from + t * cap, *tt = s->to + t * cap;
   if (ft[a] >= Kv && tt[a] <= k) return;          /* already known */
   const as_id *fa = s->from + a * cap, *ta = s->to + a * cap;
   uint32_t n = s->k;
   for (ag_tid p = 0; p < n; p++) {
      if (p == t) continue;
      as_id P;
      if (p == a) P = Bv;
      else if (ta[p] <= Kv) P = fa[p];           /* predecessor(<a,Kv>, p) */
      else continue;
      as_add_succ(ft, tt, p, P, k);
   }
}

/* Full transitive closure for <a,i> -> <b,j> (plain mode). */
static void as_insert_full(as_t *s, ag_tid a, as_id i, ag_tid b, as_id j)
{
   if (FROM(s, b, a) >= i && TO(s, b, a) <= j) return;
   uint32_t n = s->k, np = 0, ns = 0;
   s->pt[np] = a; s->pv[np++] = i;
   s->st[ns] = b; s->sv[ns++] = j;
   for (ag_tid p = 0; p < n; p++) {
      if (p != a && TO(s, a, p) <= i) { s->pt[np] = p; s->pv[np++] = FROM(s, a, p); }
      if (p != b && FROM(s, p, b) >= j) { s->st[ns] = p; s->sv[ns++] = TO(s, p, b); }
   }
   for (uint32_t y = 0; y < ns; y++) {
      ag_tid q = s->st[y];
      as_id *fq = s->from + (size_t)q * s->cap, *tq = s->to + (size_t)q * s->cap;
      for (uint32_t x = 0; x < np; x++)
         if (s->pt[x] != q) as_add_succ(fq, tq, s->pt[x], s->pv[x], s->sv[y]);
   }
}

/* ---- events ------------------------------------------------------- */

static void as_report(as_t *s, ag_tid t, ag_tid a, as_id Kv)
{
   ag_violation v;
   ag_memzero(&v, sizeof v);
   v.tid = t;
   v.other_tid = a;
   /* plain mode: name a's region when the source txn is the open one; inc
      mode blames the current region only */
   if (!s->inc && s->th[a].cur == Kv && s->th[a].cur != AS_NONE)
      ag_ctx_other_region(s->ctx, &v, a);
   ag_ctx_report(s->ctx, &v);
}

/* A new ordering v = (a, Bv, Kv) -> t's current event. */
static void as_link(as_t *s, ag_tid a, as_id Bv, as_id Kv, ag_tid t)
{
   if (a == t) return;
   as_thread *th = &s->th[t];
   if (!th->unary && FROM(s, a, t) >= th->B && TO(s, a, t) <= Kv) {
      as_report(s, t, a, Kv);        /* txn(e) already precedes txn(v) */
      return;                        /* the closing edge is not applied */
   }
   if (!s->inc && th->hasOut && !th->unary) as_insert_full(s, a, Kv, t, th->j);
   else as_insert_backward(s, a, Bv, Kv, t, th->j);
   if (Kv == s->th[a].last) s->th[a].hasOut = 1;
}

/* Allocate t's next id; own_begin: the id starts its own transaction. */
static as_id as_fresh(as_t *s, ag_tid t, int own_begin)
{
   as_thread *th = &s->th[t];
   as_id j = th->cnt++;
   th->last = j;
   th->lastB = own_begin ? j : th->cur;
   th->hasOut = 0;
   if (th->pf) {            /* fork(t) -> first event of t */
      th->pf = 0;
      th->j = j; th->B = th->lastB; th->unary = 1;   /* no check: fresh */
      as_link(s, th->pf_tid, th->pf_B, th->pf_K, t);
   }
   return j;
}

/* Set up t's current (non begin/end) event. */
static inline void as_event(as_t *s, ag_tid t)
{
   as_thread *th = &s->th[t];
   if (th->cur == AS_NONE) {
      th->j = th->B = as_fresh(s, t, 1);
      th->unary = 1;
   } else {
      if (s->inc) th->j = as_fresh(s, t, 0);
      else th->j = th->cur;
      th->B = th->cur;
      th->unary = 0;
   }
}

/* ---- reader sets -------------------------------------------------- */

static as_rset *as_rset_grow(as_rset *r, unsigned w)
{
   uint32_t cap = r ? r->cap * 2 : 4;
   as_rset *n = ag_realloc(r, sizeof(as_rset) + (size_t)cap * w * sizeof(uint64_t));
   if (!r) n->n = 0;
   n->cap = cap;
   return n;
}

/* put (rec[, B]) for rec's thread into the set */
static as_rset *as_rset_put(as_rset *r, unsigned w, uint64_t rec, as_id B)
{
   ag_tid t = as_rtid(rec);
   if (r) {
      for (uint32_t i = 0; i < r->n; i++)
         if (as_rtid(r->e[i * w]) == t) {
            r->e[i * w] = rec;
            if (w == 2) r->e[i * w + 1] = (uint64_t)B;
            return r;
         }
   }
   if (!r || r->n == r->cap) r = as_rset_grow(r, w);
   r->e[r->n * w] = rec;
   if (w == 2) r->e[r->n * w + 1] = (uint64_t)B;
   r->n++;
   return r;
}

static void as_add_reader(as_t *s, as_loc *l, ag_tid t, as_id K, as_id B)
{
   uint64_t rec = as_pack(t, K);
   if (!s->inc) {
      if (l->s[1] == 0 || as_rtid(l->s[1]) == t) l->s[1] = rec;
      else if (l->s[2] == 0 || as_rtid(l->s[2]) == t) l->s[2] = rec;
      else l->s[3] = (uint64_t)(uintptr_t)as_rset_put((as_rset *)(uintptr_t)l->s[3], 1, rec, 0);
      return;
   }
   if (l->s[2] == 0 || (l->s[2] != AS_OVF && as_rtid(l->s[2]) == t)) {
      l->s[2] = rec;
      l->s[3] = (uint64_t)B;
   } else if (l->s[2] != AS_OVF) {
      as_rset *r = as_rset_put(NULL, 2, l->s[2], (as_id)l->s[3]);
      l->s[2] = AS_OVF;
      l->s[3] = (uint64_t)(uintptr_t)as_rset_put(r, 2, rec, B);
   } else {
      l->s[3] = (uint64_t)(uintptr_t)as_rset_put((as_rset *)(uintptr_t)l->s[3], 2, rec, B);
   }
}

/* link every reader (but t) into t's event */
static void as_link_readers(as_t *s, as_loc *l, ag_tid t)
{
   uint64_t r;
   if (!s->inc) {
      if ((r = l->s[1]) == 0) return;
      if (as_rtid(r) != t) as_link(s, as_rtid(r), as_rid(r), as_rid(r), t);
      if ((r = l->s[2]) == 0) return;
      if (as_rtid(r) != t) as_link(s, as_rtid(r), as_rid(r), as_rid(r), t);
      as_rset *rs = (as_rset *)(uintptr_t)l->s[3];
      if (rs)
         for (uint32_t i = 0; i < rs->n; i++) {
            r = rs->e[i];
            if (as_rtid(r) != t) as_link(s, as_rtid(r), as_rid(r), as_rid(r), t);
         }
      return;
   }
   if ((r = l->s[2]) == 0) return;
   if (r != AS_OVF) {
      if (as_rtid(r) != t) as_link(s, as_rtid(r), (as_id)l->s[3], as_rid(r), t);
      return;
   }
   as_rset *rs = (as_rset *)(uintptr_t)l->s[3];
   for (uint32_t i = 0; i < rs->n; i++) {
      r = rs->e[2 * i];
      if (as_rtid(r) != t) as_link(s, as_rtid(r), (as_id)rs->e[2 * i + 1], as_rid(r), t);
   }
}

/* forget the readers (a write orders them all before what follows);
   an overflow array is kept for reuse */
static inline void as_clear_readers(as_t *s, as_loc *l)
{
   if (!s->inc) {
      l->s[1] = l->s[2] = 0;
      if (l->s[3]) ((as_rset *)(uintptr_t)l->s[3])->n = 0;
   } else if (l->s[2] == AS_OVF) {
      ((as_rset *)(uintptr_t)l->s[3])->n = 0;
   } else {
      l->s[2] = l->s[3] = 0;
   }
}

static inline void as_link_write(as_t *s, as_loc *l, ag_tid t)
{
   uint64_t w = l->s[0];
   if (w && as_rtid(w) != t)
      as_link(s, as_rtid(w), s->inc ? (as_id)l->s[1] : as_rid(w), as_rid(w), t);
}

static inline void as_set_write(as_t *s, as_loc *l, ag_tid t)
{
   as_thread *th = &s->th[t];
   l->s[0] = as_pack(t, th->j);
   if (s->inc) l->s[1] = (uint64_t)th->B;
}

/* ---- ops ---------------------------------------------------------- */

static void *as_create(ag_ctx *ctx)
{
   as_t *s = ag_calloc(1, sizeof *s);
   s->ctx = ctx;
   s->inc = ctx->cfg.cycles_increasing;
   s->locks = ag_map_new(sizeof(as_loc));
   return s;
}

static void as_rset_free_fn(void *arg, uint64_t key, void *rec);

static void as_destroy(void *self)
{
   as_t *s = self;
   ag_map_foreach(s->locks, as_rset_free_fn, s);
   ag_map_delete(s->locks);
   ag_free(s->th); ag_free(s->from); ag_free(s->to);
   ag_free(s->pt); ag_free(s->st); ag_free(s->pv); ag_free(s->sv);
   ag_free(s);
}

static void as_loc_init(void *self, void *loc)
{
   (void)self;
   as_loc *l = loc;
   l->s[0] = l->s[1] = l->s[2] = l->s[3] = 0;
}

static as_rset *as_loc_rset(as_t *s, const as_loc *l)
{
   if (!s->inc) return (as_rset *)(uintptr_t)l->s[3];
   return l->s[2] == AS_OVF ? (as_rset *)(uintptr_t)l->s[3] : NULL;
}

static void as_loc_copy(void *self, void *dst, const void *src)
{
   as_t *s = self;
   const as_loc *a = src;
   as_loc *b = dst;
   *b = *a;
   as_rset *r = as_loc_rset(s, a);
   if (r) {
      unsigned w = s->inc ? 2 : 1;
      size_t sz = sizeof(as_rset) + (size_t)r->cap * w * sizeof(uint64_t);
      as_rset *c = ag_malloc(sz);
      ag_memcopy(c, r, sizeof(as_rset) + (size_t)r->n * w * sizeof(uint64_t));
      b->s[3] = (uint64_t)(uintptr_t)c;
   }
}

static void as_loc_fini(void *self, void *loc)
{
   as_rset *r = as_loc_rset(self, loc);
   if (r) ag_free(r);
}

static void as_rset_free_fn(void *arg, uint64_t key, void *rec)
{
   (void)key;
   as_loc_fini(arg, rec);
}

static void as_thread_new(void *self, ag_tid t)
{
   as_t *s = self;
   if (t > AS_MAX_TID) ag_panic("atomsanitizer: too many threads");
   if (t >= s->cap) {
      uint32_t ncap = s->cap ? s->cap : 8;
      while (ncap <= t) ncap *= 2;
      as_id *nf = ag_malloc((size_t)ncap * ncap * sizeof(as_id));
      as_id *nt = ag_malloc((size_t)ncap * ncap * sizeof(as_id));
      for (size_t i = 0; i < (size_t)ncap * ncap; i++) { nf[i] = AS_NONE; nt[i] = AS_INF; }
      for (uint32_t b = 0; b < s->cap; b++)
         for (uint32_t a = 0; a < s->cap; a++) {
            nf[(size_t)b * ncap + a] = FROM(s, b, a);
            nt[(size_t)b * ncap + a] = TO(s, b, a);
         }
      ag_free(s->from); ag_free(s->to);
      s->from = nf; s->to = nt;
      s->th = ag_realloc(s->th, ncap * sizeof(as_thread));
      for (uint32_t u = s->cap; u < ncap; u++) {
         as_thread *th = &s->th[u];
         ag_memzero(th, sizeof *th);
         th->cur = th->last = th->lastB = AS_NONE;
      }
      s->pt = ag_realloc(s->pt, ncap * sizeof(ag_tid));
      s->st = ag_realloc(s->st, ncap * sizeof(ag_tid));
      s->pv = ag_realloc(s->pv, ncap * sizeof(as_id));
      s->sv = ag_realloc(s->sv, ncap * sizeof(as_id));
      s->cap = ncap;
   }
   if (t >= s->k) s->k = t + 1;
}

static void as_begin(void *self, ag_tid t)
{
   as_t *s = self;
   s->th[t].cur = as_fresh(s, t, 1);
}

static void as_end(void *self, ag_tid t)
{
   as_t *s = self;
   s->th[t].cur = AS_NONE;
}

static void as_access_start(void *self, ag_tid t, unsigned flags)
{
   (void)flags;
   as_event(self, t);      /* one (unary) transaction for all locations */
}

static void as_access(void *self, ag_tid t, void *loc, ag_addr addr, unsigned flags)
{
   as_t *s = self;
   as_loc *l = loc;
   (void)addr;
   if (flags & AG_WRITE) {
      if (l->s[s->inc ? 2 : 1]) {
         as_link_readers(s, l, t);
         as_clear_readers(s, l);
      }
      as_link_write(s, l, t);
      as_set_write(s, l, t);
   } else {
      as_link_write(s, l, t);
      as_add_reader(s, l, t, s->th[t].j, s->th[t].B);
   }
}

static void as_acquire(void *self, ag_tid t, ag_addr lock, int shared)
{
   as_t *s = self;
   as_event(s, t);
   as_loc *l = ag_map_get(s->locks, lock);
   if (!l) return;                           /* never released */
   /* a write-acquire follows every release since the last write-release
      (kept: a sync object may have several acquirers); a read-acquire only
      that write-release */
   if (!shared) as_link_readers(s, l, t);
   as_link_write(s, l, t);
}

static void as_release(void *self, ag_tid t, ag_addr lock, int shared)
{
   as_t *s = self;
   as_event(s, t);
   as_loc *l = ag_map_lookup(s->locks, lock, NULL);
   if (shared) {
      as_add_reader(s, l, t, s->th[t].j, s->th[t].B);
   } else {
      /* the read-releases so far precede this write-release (the writer
         acquired after them), so later acquirers need only it */
      as_clear_readers(s, l);
      as_set_write(s, l, t);
   }
}

static void as_fork(void *self, ag_tid parent, ag_tid child)
{
   as_t *s = self;
   as_event(s, parent);
   as_thread *c = &s->th[child];
   if (c->last != AS_NONE || c->pf) return;   /* child already ran */
   c->pf = 1;
   c->pf_tid = parent;
   c->pf_K = s->th[parent].j;
   c->pf_B = s->th[parent].B;
}

static void as_join(void *self, ag_tid joiner, ag_tid child)
{
   as_t *s = self;
   as_event(s, joiner);
   as_thread *c = &s->th[child];
   if (c->last != AS_NONE)                   /* a child with no event adds no edge */
      as_link(s, child, c->lastB, c->last, joiner);
}

const ag_engine_ops ag_atomsan_ops = {
   .name = "atomsanitizer",
   .help = "AtomSanitizer: conflict-serializability with From/To clocks, O(k^2) per edge"
           " (--cycles=increasing: O(k))",
   .kind = AG_KIND_ATOMICITY,
   .loc_size = sizeof(as_loc),
   .create = as_create,
   .destroy = as_destroy,
   .loc_init = as_loc_init,
   .loc_copy = as_loc_copy,
   .loc_fini = as_loc_fini,
   .thread_new = as_thread_new,
   .begin = as_begin,
   .end = as_end,
   .access_start = as_access_start,
   .access = as_access,
   .acquire = as_acquire,
   .release = as_release,
   .fork = as_fork,
   .join = as_join,
   .access_done = NULL,
};
