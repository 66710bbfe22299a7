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
 * Unary transactions of a thread that follow one another share an id
 * (plain mode) as long as no edge enters any but the first of them: one
 * node for the group loses no cycle (one that enters the group enters at
 * its first member, which comes before every member it may leave from)
 * and makes none, and a byte loop outside any region leaves equal
 * records, so its word is joined (ag_shadow.c) instead of eight
 * locations.  An edge into a later member starts a new group there: the
 * event takes a fresh id, and the records it already wrote are rewritten
 * (as_split).  tests/test_differential.py builds two mutants, without
 * the split (AG_AS_MUTANT=1) and without rewriting (=2): the random
 * traces catch both.
 *
 * Per location (16 bytes): the last write and the last read of each thread
 * that read since that write (one inline, then an allocated set).  Per lock
 * the same shape: last write-release and the read-releases since.
 *
 * After a violation the closing edge is not inserted, so the state stays
 * that of an acyclic prefix, and the run goes on. */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_shim.h"

typedef int64_t as_id;
#define AS_NONE ((as_id)-1)                  /* From = bottom: below every id */
#define AS_INF  ((as_id)0x7fffffffffffffffLL)  /* To = bottom: above every id */

/* A record (tid, id) packed in one word: (id + 1) << 20 | tid; 0 = none
   (about 10^6 threads a run, 10^13 ids a thread).  tid 0xfffff marks a
   reader set instead: its index in as_t.rsets << 20 | 0xfffff. */
#define AS_TID_BITS 20
#define AS_TAG ((1u << AS_TID_BITS) - 1)
#define AS_MAX_TID (AS_TAG - 1)
static inline uint64_t as_pack(ag_tid t, as_id k) { return ((uint64_t)(k + 1) << AS_TID_BITS) | t; }
static inline ag_tid as_rtid(uint64_t r) { return (ag_tid)(r & AS_TAG); }
static inline as_id as_rid(uint64_t r) { return (as_id)(r >> AS_TID_BITS) - 1; }
static inline int as_tagged(uint64_t r) { return (r & AS_TAG) == AS_TAG; }

/* All readers of a location once a second thread reads it. */
typedef struct {
   uint32_t n, cap;
   uint64_t e[];
} as_rset;

/* Per location, and per lock (w = last write-release, r = the read-
   releases since).  16 bytes: w is the last write; r the reader since that
   write, or a tagged as_rset* once there are several.
   The increasing mode needs a begin id with each record, but only when the
   record's event is in its thread's open transaction (From/To column u is
   only ever compared with u's current begin, and for any older event the
   event id itself is a safe stand-in), so it is recomputed, not stored. */
typedef struct { uint64_t w, r; } as_loc;

/* A thread's recent accesses, so that a report can name the other
   thread's access whose record closed the cycle (records hold only a
   transaction id).  A ring: older accesses are forgotten. */
#define AS_RECENT 64
typedef struct {
   as_id id;                 /* the transaction (inc: the event id) */
   uint64_t event, site;
   ag_addr addr;
   uint32_t size, flags;
} as_recent;

typedef struct {
   as_id cur;       /* open txn (inc: its begin id), AS_NONE outside */
   as_id cnt;       /* next fresh id */
   as_id last;      /* last id allocated, AS_NONE before the first event */
   as_id lastB;     /* inc: begin id of last's transaction */
   as_id j, B;      /* the event being processed: txn id (inc: event id), begin id */
   int unary;       /* that event is a unary transaction */
   int merged;      /* ... sharing the id of the group before it */
   as_id group;     /* plain: the id of t's group of unary events, which
                       its next unary event may join; AS_NONE: it may not */
   int hasOut;      /* plain: txn `last` has an outgoing edge */
   int pf;          /* pending fork edge into the first event */
   ag_tid pf_tid;
   as_id pf_K, pf_B;
   uint32_t nrecent;             /* accesses made; the last AS_RECENT in: */
   as_recent *recent;
} as_thread;

/* From/To columns exist for live threads only.  A column a is read by a
   check only while a is the current thread, and its entries only ever
   flow into entries of the same column, so an exited thread's column is
   dropped and given to a later thread (reset to bottom).  Rows stay for
   every thread: a dead thread's records still link into live ones.
   Memory is threads-ever x threads-at-once, not threads-ever squared. */
#define AS_NOCOL 0xffffffffu

typedef struct {
   ag_ctx *ctx;
   int inc;
   uint32_t k, cap;          /* threads known (rows), capacity of th/rows */
   as_thread *th;
   as_id *from, *to;         /* row b at b*ccap: From_b(.), To_b(.) by column */
   uint32_t ccap, ncols;     /* columns allocated, used (high-water mark) */
   uint32_t *col;            /* per thread: its column, AS_NOCOL once exited */
   uint32_t *freecol, nfree; /* columns given back by exited threads */
   as_rset **rsets;          /* reader sets, by index (NULL: free) */
   uint64_t nrsets, caprsets;
   uint64_t *freersets, nfreersets;
   ag_map *locks;            /* lock addr -> as_loc */
   /* while linking a location's record into an access: the location and
      whether the record is its write (1) or a read (0); -1 otherwise */
   ag_addr link_addr;
   int link_write;
   /* closure scratch: predecessors by column, successors by thread */
   uint32_t *pt;
   ag_tid *st;
   as_id *pv, *sv;
   /* the current access's locations written with a merged id, and
      whether as a write, for as_split; more than AS_FIX locations: the
      access takes a fresh id (no_merge) */
   as_loc *fix[32];
   uint8_t fixw[32];
   uint32_t nfix;
   int no_merge;
   int in_access;            /* between access_start and access_done */
} as_t;
#define AS_FIX 32

/* row b, column c */
#define FROMC(s, b, c) ((s)->from[(size_t)(b) * (s)->ccap + (c)])
#define TOC(s, b, c)   ((s)->to[(size_t)(b) * (s)->ccap + (c)])

/* ---- the data structure DS ---------------------------------------- */

/* record <c's thread, P> <THB <row's thread, S> in row (ft, tt), column c */
static inline void as_add_succ(as_id *ft, as_id *tt, uint32_t c, as_id P, as_id S)
{
   if (ft[c] < P) { ft[c] = P; tt[c] = S; }
   else if (ft[c] == P && S < tt[c]) tt[c] = S;   /* an earlier txn learns it */
}

/* Backward-only insertion of <a,Kv> -> <t,k>; a contributes Bv (= Kv in
   plain mode), its predecessors are looked up with Kv.  Valid when <t,k>
   has no successors.  t is live; a may have exited (no column). */
static void as_insert_backward(as_t *s, ag_tid a, as_id Bv, as_id Kv, ag_tid t, as_id k)
{
   size_t ccap = s->ccap;
   uint32_t ca = s->col[a], ct = s->col[t];
   as_id *ft = s->from + t * ccap, *tt = s->to + t * ccap;
   if (ca != AS_NOCOL && ft[ca] >= Kv && tt[ca] <= k) return;   /* already known */
   const as_id *fa = s->from + a * ccap, *ta = s->to + a * ccap;
   uint32_t n = s->ncols;
   for (uint32_t c = 0; c < n; c++) {
      if (c == ct) continue;
      as_id P;
      if (c == ca) P = Bv;
      else if (ta[c] <= Kv) P = fa[c];           /* predecessor(<a,Kv>, c's thread) */
      else continue;
      as_add_succ(ft, tt, c, P, k);
   }
}

/* Full transitive closure for <a,i> -> <b,j> (plain mode): predecessors
   by column, successors by row (every thread, live or not). */
static void as_insert_full(as_t *s, ag_tid a, as_id i, ag_tid b, as_id j)
{
   uint32_t ca = s->col[a], cb = s->col[b];
   if (ca != AS_NOCOL && FROMC(s, b, ca) >= i && TOC(s, b, ca) <= j) return;
   uint32_t np = 0, ns = 0;
   if (ca != AS_NOCOL) { s->pt[np] = ca; s->pv[np++] = i; }
   s->st[ns] = b; s->sv[ns++] = j;
   for (uint32_t c = 0; c < s->ncols; c++)
      if (c != ca && TOC(s, a, c) <= i) { s->pt[np] = c; s->pv[np++] = FROMC(s, a, c); }
   for (ag_tid p = 0; p < s->k; p++)
      if (p != b && FROMC(s, p, cb) >= j) { s->st[ns] = p; s->sv[ns++] = TOC(s, p, cb); }
   for (uint32_t y = 0; y < ns; y++) {
      ag_tid q = s->st[y];
      uint32_t cq = s->col[q];
      as_id *fq = s->from + (size_t)q * s->ccap, *tq = s->to + (size_t)q * s->ccap;
      for (uint32_t x = 0; x < np; x++)
         if (s->pt[x] != cq) as_add_succ(fq, tq, s->pt[x], s->pv[x], s->sv[y]);
   }
}

/* ---- events ------------------------------------------------------- */

/* Name a's access behind the record (a, Kv) of location link_addr: its
   latest access of that kind in transaction Kv covering the location, if
   it is still among a's recent accesses. */
static void as_other_access(as_t *s, ag_violation *v, ag_tid a, as_id Kv)
{
   const as_thread *th = &s->th[a];
   if (s->link_write < 0 || !th->recent) return;
   uint32_t n = th->nrecent < AS_RECENT ? th->nrecent : AS_RECENT;
   for (uint32_t i = 1; i <= n; i++) {
      const as_recent *r = &th->recent[(th->nrecent - i) % AS_RECENT];
      if (r->id < Kv) return;              /* older transactions only from here */
      if (r->id == Kv && !!(r->flags & AG_WRITE) == s->link_write
          && r->addr <= s->link_addr && s->link_addr < r->addr + r->size) {
         v->other_event = r->event;
         v->other_site = r->site;
         v->other_flags = r->flags;
         v->other_addr = r->addr;
         v->other_size = r->size;
         return;
      }
   }
}

static inline int as_overlap(const as_recent *x, const as_recent *y)
{
   return x->addr < y->addr + y->size && y->addr < x->addr + x->size;
}

/* i-th most recent access of th (1-based), NULL past the ring */
static inline const as_recent *as_recent_at(const as_thread *th, uint32_t i)
{
   if (!th->recent || i > th->nrecent || i > AS_RECENT) return NULL;
   return &th->recent[(th->nrecent - i) % AS_RECENT];
}

/* An access of t's open transaction that ra (of another thread) follows
   and overlaps, and conflicts with if `conflict`; NULL if none is among
   t's recent accesses. */
static const as_recent *as_own_access(const as_t *s, ag_tid t, const as_recent *ra, int conflict)
{
   const as_thread *th = &s->th[t];
   const as_recent *r;
   for (uint32_t i = 1; (r = as_recent_at(th, i)) != NULL; i++) {
      if (r->id < th->cur) return NULL;        /* before t's transaction */
      if (r->event < ra->event && as_overlap(r, ra)
          && (!conflict || ((r->flags | ra->flags) & AG_WRITE)))
         return r;
   }
   return NULL;
}

/* The i-th most preferred kind of access of a to name for a cycle closed
   by a synchronisation edge: a write conflicting with t's transaction,
   then a read, each first among a's accesses under the lock (if the edge
   is a lock's); then, for a cycle through the lock alone, an access under
   the lock to data that t's transaction accessed too. */
typedef struct { int write, conflict, under_lock; } as_pref;
static const as_pref as_prefs[] = {
   { 1, 1, 1 }, { 0, 1, 1 }, { 1, 1, 0 }, { 0, 1, 0 }, { 1, 0, 1 }, { 0, 0, 1 },
};

/* A cycle closed by a synchronisation edge (a, Kv) -> t: name the data
   behind it, an access of a at or before Kv in a's order that follows an
   access of t's open transaction it conflicts with (t's transaction ->
   that access -> (a, Kv) -> t is then a cycle); see as_prefs. */
static void as_conflict_data(as_t *s, ag_violation *v, ag_tid t, ag_tid a, as_id Kv)
{
   if (s->th[t].cur == AS_NONE) return;
   uint64_t lo, hi;
   int held = ag_ctx_lock_held(s->ctx, a, &lo, &hi);
   for (size_t p = 0; p < sizeof as_prefs / sizeof as_prefs[0]; p++) {
      const as_pref *pf = &as_prefs[p];
      if (pf->under_lock && !held) continue;
      const as_thread *ta = &s->th[a];
      uint32_t n = ta->nrecent < AS_RECENT ? ta->nrecent : AS_RECENT;
      for (uint32_t k = 1; k <= n; k++) {
         /* under the lock, the first accesses are likelier to be what it
            protects than the library calls around the unlock: oldest first */
         const as_recent *ra = as_recent_at(ta, pf->under_lock ? n + 1 - k : k);
         if (ra->id > Kv || !!(ra->flags & AG_WRITE) != pf->write) continue;
         if (pf->under_lock && !(lo < ra->event && ra->event < hi)) continue;
         const as_recent *rt = as_own_access(s, t, ra, pf->conflict);
         if (!rt) continue;
         v->other_event = ra->event;
         v->other_site = ra->site;
         v->other_flags = ra->flags;
         v->other_addr = ra->addr;
         v->other_size = ra->size;
         v->own_event = rt->event;
         v->own_site = rt->site;
         v->own_flags = rt->flags;
         v->own_addr = rt->addr;
         v->own_size = rt->size;
         return;
      }
   }
}

static void as_report(as_t *s, ag_tid t, ag_tid a, as_id Kv)
{
   ag_violation v;
   ag_memzero(&v, sizeof v);
   v.tid = t;
   v.other_tid = a;
   if (s->link_write >= 0) as_other_access(s, &v, a, Kv);
   else as_conflict_data(s, &v, t, a, Kv);
   /* plain mode: name a's region when the source txn is the open one; inc
      mode blames the current region only */
   if (!s->inc && s->th[a].cur == Kv && s->th[a].cur != AS_NONE)
      ag_ctx_other_region(s->ctx, &v, a);
   ag_ctx_report(s->ctx, &v);
}

/* A new ordering v = (a, Bv, Kv) -> t's current event. */
static void as_split(as_t *s, ag_tid t);

static void as_link(as_t *s, ag_tid a, as_id Bv, as_id Kv, ag_tid t)
{
   if (a == t) return;
   as_thread *th = &s->th[t];
#if AG_AS_MUTANT != 1         /* test_differential's mutant: no split */
   if (th->merged) as_split(s, t);
#endif
   uint32_t ct = s->col[t];
   if (!th->unary && FROMC(s, a, ct) >= th->B && TOC(s, a, ct) <= Kv) {
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
   th->merged = 0;
   s->nfix = 0;               /* as_split's list: this event's own */
   s->in_access = 0;
   if (th->cur == AS_NONE) {
      if (th->group != AS_NONE && !s->no_merge) {
         th->j = th->B = th->group;      /* as_split if an edge comes in */
         th->merged = 1;
      } else {
         th->j = th->B = as_fresh(s, t, 1);
         th->group = s->inc ? AS_NONE : th->j;
      }
      th->unary = 1;
   } else {
      if (s->inc) th->j = as_fresh(s, t, 0);
      else th->j = th->cur;
      th->B = th->cur;
      th->unary = 0;
   }
}

/* ---- reader sets -------------------------------------------------- */

/* begin id to use for (a, K): see as_loc */
static inline as_id as_begin_of(const as_t *s, ag_tid a, as_id K)
{
   as_id c = s->th[a].cur;
   return (s->inc && c != AS_NONE && K >= c) ? c : K;
}

/* the record r (not t's own) -> t's current event */
static inline void as_link_rec(as_t *s, uint64_t r, ag_tid t)
{
   ag_tid a = as_rtid(r);
   if (a != t) as_link(s, a, as_begin_of(s, a, as_rid(r)), as_rid(r), t);
}

/* ---- reader sets, by index ---------------------------------------- */

static inline as_rset *as_untag(const as_t *s, uint64_t r) { return s->rsets[r >> AS_TID_BITS]; }

/* a new index for p */
static uint64_t as_tag(as_t *s, as_rset *p)
{
   uint64_t i;
   if (s->nfreersets) {
      i = s->freersets[--s->nfreersets];
   } else {
      if (s->nrsets == s->caprsets) {
         s->caprsets = s->caprsets ? 2 * s->caprsets : 64;
         s->rsets = ag_realloc(s->rsets, s->caprsets * sizeof(as_rset *));
         s->freersets = ag_realloc(s->freersets, s->caprsets * sizeof(uint64_t));
      }
      i = s->nrsets++;
   }
   s->rsets[i] = p;
   return (i << AS_TID_BITS) | AS_TAG;
}

static void as_untag_free(as_t *s, uint64_t r)
{
   uint64_t i = r >> AS_TID_BITS;
   ag_free(s->rsets[i]);
   s->rsets[i] = NULL;
   s->freersets[s->nfreersets++] = i;
}

/* put rec (replacing its thread's entry) into the set */
static as_rset *as_rset_put(as_rset *r, uint64_t rec)
{
   ag_tid t = as_rtid(rec);
   if (r) {
      for (uint32_t i = 0; i < r->n; i++)
         if (as_rtid(r->e[i]) == t) { r->e[i] = rec; return r; }
   }
   if (!r || r->n == r->cap) {
      uint32_t cap = r ? r->cap * 2 : 4;
      as_rset *n = ag_realloc(r, sizeof(as_rset) + (size_t)cap * sizeof(uint64_t));
      if (!r) n->n = 0;
      n->cap = cap;
      r = n;
   }
   r->e[r->n++] = rec;
   return r;
}

static inline void as_add_reader(as_t *s, as_loc *l, ag_tid t, as_id K)
{
   uint64_t rec = as_pack(t, K), r = l->r;
   if (r == 0 || as_rtid(r) == t) { l->r = rec; return; }
   if (!as_tagged(r)) { l->r = as_tag(s, as_rset_put(as_rset_put(NULL, r), rec)); return; }
   s->rsets[r >> AS_TID_BITS] = as_rset_put(as_untag(s, r), rec);   /* may move */
}

/* An edge enters t's current event, which shares its group's id: it
   starts a new group.  The records it wrote so far, and its entry in the
   recent ring, take the fresh id, as if it had had it from the start
   (each was written after its location's links, which were none). */
static void as_split(as_t *s, ag_tid t)
{
   as_thread *th = &s->th[t];
   th->merged = 0;
   th->j = th->B = as_fresh(s, t, 1);
   th->group = th->j;
   if (s->in_access) th->recent[(th->nrecent - 1) % AS_RECENT].id = th->j;
#if AG_AS_MUTANT == 2         /* test_differential's mutant: records kept */
   s->nfix = 0;
#endif
   for (uint32_t i = 0; i < s->nfix; i++) {
      if (s->fixw[i]) s->fix[i]->w = as_pack(t, th->j);
      else as_add_reader(s, s->fix[i], t, th->j);
   }
   s->nfix = 0;
}

/* link every reader (but t) into t's event */
static void as_link_readers(as_t *s, const as_loc *l, ag_tid t)
{
   uint64_t r = l->r;
   if (!as_tagged(r)) { if (r) as_link_rec(s, r, t); return; }
   as_rset *rs = as_untag(s, r);
   for (uint32_t i = 0; i < rs->n; i++) as_link_rec(s, rs->e[i], t);
}

/* forget the readers (a write orders them before what follows); a set is
   kept for reuse */
static inline void as_clear_readers(as_t *s, as_loc *l)
{
   if (as_tagged(l->r)) as_untag(s, l->r)->n = 0;
   else l->r = 0;
}

static inline void as_link_write(as_t *s, const as_loc *l, ag_tid t)
{
   if (l->w) as_link_rec(s, l->w, t);
}

static inline void as_set_write(as_t *s, as_loc *l, ag_tid t)
{
   l->w = as_pack(t, s->th[t].j);
}

/* ---- ops ---------------------------------------------------------- */

static void as_grow_cols(as_t *s, uint32_t nccap);

static void *as_create(ag_ctx *ctx)
{
   as_t *s = ag_calloc(1, sizeof *s);
   s->ctx = ctx;
   s->inc = ctx->cfg.cycles_increasing;
   s->locks = ag_map_new(sizeof(as_loc));
   s->link_write = -1;
   as_grow_cols(s, 8);
   return s;
}

static void as_rset_free_fn(void *arg, uint64_t key, void *rec);

static void as_destroy(void *self)
{
   as_t *s = self;
   ag_map_foreach(s->locks, as_rset_free_fn, s);
   ag_map_delete(s->locks);
   for (uint32_t u = 0; u < s->cap; u++) ag_free(s->th[u].recent);
   ag_free(s->th); ag_free(s->from); ag_free(s->to);
   ag_free(s->col); ag_free(s->freecol);
   ag_free(s->pt); ag_free(s->st); ag_free(s->pv); ag_free(s->sv);
   for (uint64_t i = 0; i < s->nrsets; i++) ag_free(s->rsets[i]);   /* any not finalised */
   ag_free(s->rsets); ag_free(s->freersets);
   ag_free(s);
}

static void as_loc_init(void *self, void *loc)
{
   (void)self;
   as_loc *l = loc;
   l->w = l->r = 0;
}

static void as_loc_copy(void *self, void *dst, const void *src)
{
   as_t *s = self;
   const as_loc *a = src;
   as_loc *b = dst;
   *b = *a;
   if (as_tagged(a->r)) {
      const as_rset *r = as_untag(s, a->r);
      size_t sz = sizeof(as_rset) + (size_t)r->cap * sizeof(uint64_t);
      as_rset *c = ag_malloc(sz);
      ag_memcopy(c, r, sizeof(as_rset) + (size_t)r->n * sizeof(uint64_t));
      b->r = as_tag(s, c);
   }
}

static void as_loc_fini(void *self, void *loc)
{
   as_loc *l = loc;
   if (as_tagged(l->r)) as_untag_free(self, l->r);
}

/* as_destroy frees every reader set still indexed */
static int as_locs_die(void *self) { (void)self; return 1; }

/* The readers of a location, in order: a set's entries, or the one
   record (0: none). */
static const uint64_t *as_readers(const as_t *s, const uint64_t *r, uint32_t *n)
{
   if (as_tagged(*r)) {
      const as_rset *rs = as_untag(s, *r);
      *n = rs->n;
      return rs->e;
   }
   *n = *r != 0;
   return r;
}

/* Interchangeable locations: the same last write and the same readers in
   the same order (a set of one reader and the record alone behave alike:
   a reader of that thread replaces it, another one comes after it).  An
   access then makes the same links, in the same order, in either, and
   leaves them equal; linking one a second time in the same event makes no
   new edge (the first one is in From/To already) and no new report (one
   per event).  So a byte loop of one thread inside one transaction leaves
   a word whose locations the shadow can join (ag_shadow.c). */
static int as_loc_equal(void *self, const void *pa, const void *pb)
{
   const as_t *s = self;
   const as_loc *a = pa, *b = pb;
   if (a->w != b->w) return 0;
   if (a->r == b->r) return 1;
   uint32_t na, nb;
   const uint64_t *ra = as_readers(s, &a->r, &na), *rb = as_readers(s, &b->r, &nb);
   if (na != nb) return 0;
   for (uint32_t i = 0; i < na; i++)
      if (ra[i] != rb[i]) return 0;
   return 1;
}

static void as_rset_free_fn(void *arg, uint64_t key, void *rec)
{
   (void)key;
   as_loc_fini(arg, rec);
}

/* Rows (and per-thread state) for threads up to ncap. */
static void as_grow_rows(as_t *s, uint32_t ncap)
{
   size_t n = (size_t)ncap * s->ccap;
   s->from = ag_realloc(s->from, n * sizeof(as_id));
   s->to = ag_realloc(s->to, n * sizeof(as_id));
   for (size_t i = (size_t)s->cap * s->ccap; i < n; i++) { s->from[i] = AS_NONE; s->to[i] = AS_INF; }
   s->th = ag_realloc(s->th, ncap * sizeof(as_thread));
   s->col = ag_realloc(s->col, ncap * sizeof(uint32_t));
   for (uint32_t u = s->cap; u < ncap; u++) {
      as_thread *th = &s->th[u];
      ag_memzero(th, sizeof *th);
      th->cur = th->last = th->lastB = th->group = AS_NONE;
      s->col[u] = AS_NOCOL;
   }
   s->st = ag_realloc(s->st, ncap * sizeof(ag_tid));
   s->sv = ag_realloc(s->sv, ncap * sizeof(as_id));
   s->cap = ncap;
}

/* Room for nccap columns in every row. */
static void as_grow_cols(as_t *s, uint32_t nccap)
{
   size_t n = (size_t)s->cap * nccap;
   as_id *nf = ag_malloc((n ? n : 1) * sizeof(as_id));
   as_id *nt = ag_malloc((n ? n : 1) * sizeof(as_id));
   for (size_t i = 0; i < n; i++) { nf[i] = AS_NONE; nt[i] = AS_INF; }
   for (uint32_t b = 0; b < s->cap; b++)
      for (uint32_t c = 0; c < s->ccap; c++) {
         nf[(size_t)b * nccap + c] = FROMC(s, b, c);
         nt[(size_t)b * nccap + c] = TOC(s, b, c);
      }
   ag_free(s->from); ag_free(s->to);
   s->from = nf; s->to = nt;
   s->pt = ag_realloc(s->pt, nccap * sizeof(uint32_t));
   s->pv = ag_realloc(s->pv, nccap * sizeof(as_id));
   s->freecol = ag_realloc(s->freecol, nccap * sizeof(uint32_t));
   s->ccap = nccap;
}

static void as_thread_new(void *self, ag_tid t)
{
   as_t *s = self;
   if (t > AS_MAX_TID)
      ag_fatal("atomsanitizer: more than 2^20 - 2 threads in one run; try --engine=velodrome");
   if (t >= s->cap) {
      uint32_t ncap = s->cap ? s->cap : 8;
      while (ncap <= t) ncap *= 2;
      as_grow_rows(s, ncap);
   }
   if (s->col[t] == AS_NOCOL) {          /* a column: a free one, or a new one */
      if (s->nfree) {
         s->col[t] = s->freecol[--s->nfree];
      } else {
         if (s->ncols == s->ccap) as_grow_cols(s, 2 * s->ccap);
         s->col[t] = s->ncols++;
      }
   }
   if (!s->th[t].recent) s->th[t].recent = ag_malloc(AS_RECENT * sizeof(as_recent));
   if (t >= s->k) s->k = t + 1;
}

/* t will have no more events: its column goes back, reset to bottom in
   every row (its row stays: t's records still link into others). */
static void as_thread_exit(void *self, ag_tid t)
{
   as_t *s = self;
   uint32_t c = s->col[t];
   if (c == AS_NOCOL) return;
   for (uint32_t b = 0; b < s->k; b++) { FROMC(s, b, c) = AS_NONE; TOC(s, b, c) = AS_INF; }
   s->col[t] = AS_NOCOL;
   s->freecol[s->nfree++] = c;
}

static void as_begin(void *self, ag_tid t)
{
   as_t *s = self;
   s->th[t].merged = 0;
   s->th[t].cur = as_fresh(s, t, 1);
   s->th[t].group = AS_NONE;            /* a group never spans a region */
}

static void as_end(void *self, ag_tid t)
{
   as_t *s = self;
   s->th[t].cur = AS_NONE;
}

static void as_access_start(void *self, ag_tid t, unsigned flags)
{
   as_t *s = self;
   s->no_merge = s->ctx->size > AS_FIX;   /* as_split could not fix them all */
   as_event(s, t);         /* one (unary) transaction for all locations */
   s->no_merge = 0;
   s->in_access = 1;
   as_thread *th = &s->th[t];
   as_recent *r = &th->recent[th->nrecent++ % AS_RECENT];
   r->id = th->j;
   r->event = s->ctx->event;
   r->site = s->ctx->site;
   r->addr = s->ctx->addr;
   r->size = s->ctx->size;
   r->flags = flags;
}

static void as_access(void *self, ag_tid t, void *loc, ag_addr addr, unsigned flags)
{
   as_t *s = self;
   as_loc *l = loc;
   s->link_addr = addr;
   if (flags & AG_WRITE) {
      if (l->r) {
         s->link_write = 0;
         as_link_readers(s, l, t);
         as_clear_readers(s, l);
      }
      s->link_write = 1;
      as_link_write(s, l, t);
      as_set_write(s, l, t);
   } else {
      s->link_write = 1;
      as_link_write(s, l, t);
      as_add_reader(s, l, t, s->th[t].j);
   }
   s->link_write = -1;
   if (s->th[t].merged) {
      s->fix[s->nfix] = l;
      s->fixw[s->nfix++] = !!(flags & AG_WRITE);
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
      as_add_reader(s, l, t, s->th[t].j);
   } else {
      /* the read-releases so far precede this write-release (the writer
         acquired after them), so later acquirers need only it */
      as_clear_readers(s, l);
      as_set_write(s, l, t);
   }
}

static void as_lock_forget(void *self, ag_addr lock)
{
   as_t *s = self;
   as_loc *l = ag_map_get(s->locks, lock);
   if (!l) return;
   as_loc_fini(s, l);
   l->w = l->r = 0;
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
   .locs_die_with_engine = as_locs_die,
   .loc_equal = as_loc_equal,
   .thread_new = as_thread_new,
   .thread_exit = as_thread_exit,
   .begin = as_begin,
   .end = as_end,
   .access_start = as_access_start,
   .access = as_access,
   .acquire = as_acquire,
   .release = as_release,
   .fork = as_fork,
   .join = as_join,
   .access_done = NULL,
   .lock_forget = as_lock_forget,
};
