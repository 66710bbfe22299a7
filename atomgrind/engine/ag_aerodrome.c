/* ag_aerodrome.c -- AeroDrome: conflict-serializability with vector clocks
 * (Mathur & Viswanathan, ASPLOS 2020, Algorithm 1 and the optimisations of
 * its Section 4.3 and appendix C).
 *
 * State (the paper's names):
 *   thread t:   C_t (clock of t's last event), cb = C_t(t) at t's open begin
 *   lock l:     L_l (last exclusive release), lastRelThr_l; plus the shared
 *               (rwlock read side) releases since that release
 *   location x: W_x (last write), lastWThr_x; R_{u,x} for each thread u that
 *               read x since the last write
 * A violation is reported when a clock joined into C_t already knows the
 * begin of t's open transaction; at `end`, the transaction's clock is pushed
 * into every clock that knows its begin.
 *
 * How it is made cheap (and where it departs from the paper's listings):
 *  - Clocks are immutable, reference-counted snapshots.  A write stores a
 *    reference to the writer's current clock, a read a reference to the
 *    reader's; the thread copies its clock only when it next changes while
 *    shared.  So reads and writes cost O(1) unless knowledge flows, and
 *    thread-local data shares one clock per thread.  Each read is remembered
 *    with its own snapshot (exact, unlike joining the reader's *current*
 *    clock later, which would be wrong for unary reads).
 *  - Read clocks are dropped at each write: the write joined them, so W_x
 *    knows them and every later check against them is implied by W_x's
 *    (this is what the R_x/chR_x reduction of Section 4.3 buys: no O(k)
 *    clocks per location; here a location holds W_x plus one pointer per
 *    reader since the last write).
 *  - Only C_t's own component is compared: C_t(t) = cb while t is inside a
 *    transaction, and a clock knows t's begin iff its t-component >= cb
 *    (the paper's Cb_t <= clk, by its local-time invariant).
 *  - Each thread u lists the open transactions its clock knows (`act`), and
 *    each open transaction lists the threads that know it (`kn`), updated
 *    when a join makes a component cross a begin.  `end` then visits only
 *    the knowers, and the update sets: the locations (`us`) and locks (`lus`)
 *    whose clocks may know the transaction.  A location or lock is added
 *    whenever it takes a clock that knows an open transaction: at accesses
 *    and releases, at the end-push of another transaction (the appendix's
 *    listing forgets this case), and when a location's state is copied.
 *    Update sets hold location indices; a stale index only costs a check.
 *  - GC: an end pushes nothing when the transaction learned nothing from
 *    others (its clock is its begin's, which every clock knowing the begin
 *    holds) or knows no other open transaction (it can't lie on a future
 *    cycle: edges only enter open transactions).  The appendix's listing
 *    uses the first test but, as we read it, also drops the transaction's
 *    lazily kept writes, which loses cycles through an earlier transaction
 *    of the same thread; writes here keep exact snapshots.
 *  - Unary transactions are not checked (the paper's rule).  An access that
 *    touches several locations is one unary transaction: its checks and
 *    joins come first and its clock is stored into every location at
 *    access_done, so all of them carry the whole event's knowledge.
 *  - Location state lives in records the shadow cell indexes.  The bytes of
 *    a split word share one record until an access sets some of them apart
 *    (copy on write), so a 4-byte access costs one record, not four.  A
 *    cell also remembers the last accessing thread and its clock version:
 *    that thread reading again, or writing after its own write, with an
 *    unchanged clock stores nothing new and is skipped.
 *  - After a violation the join that closed the cycle is skipped.
 */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_shim.h"

/* ---- vector clocks --------------------------------------------------- */

typedef struct ad_vc {
   uint32_t refs;
   uint32_t len;              /* components past len are 0 */
   uint32_t v[];
} ad_vc;

static ad_vc *ad_vc_new(uint32_t len)
{
   ad_vc *c = ag_malloc(sizeof(ad_vc) + (size_t)len * sizeof(uint32_t));
   c->refs = 1;
   c->len = len;
   for (uint32_t i = 0; i < len; i++) c->v[i] = 0;
   return c;
}

static inline ad_vc *ad_vc_ref(ad_vc *c) { if (c) c->refs++; return c; }
static inline void ad_vc_unref(ad_vc *c) { if (c && --c->refs == 0) ag_free(c); }
static inline uint32_t ad_vc_get(const ad_vc *c, uint32_t i)
{
   return c && i < c->len ? c->v[i] : 0;
}

/* a ⊔ b as a new reference, sharing an operand when it is the result */
static ad_vc *ad_vc_join(ad_vc *a, ad_vc *b)
{
   if (!a || a == b) return ad_vc_ref(b);
   if (!b) return ad_vc_ref(a);
   uint32_t n = a->len > b->len ? a->len : b->len;
   int a_le = 1, b_le = 1;
   for (uint32_t i = 0; i < n && (a_le || b_le); i++) {
      uint32_t x = ad_vc_get(a, i), y = ad_vc_get(b, i);
      if (x > y) a_le = 0;
      if (y > x) b_le = 0;
   }
   if (a_le) return ad_vc_ref(b);
   if (b_le) return ad_vc_ref(a);
   ad_vc *c = ad_vc_new(n);
   for (uint32_t i = 0; i < n; i++) {
      uint32_t x = ad_vc_get(a, i), y = ad_vc_get(b, i);
      c->v[i] = x > y ? x : y;
   }
   return c;
}

/* ---- sets of uint32 ids, cleared in O(1) ------------------------------ */

typedef struct {
   uint32_t *ids;             /* members in insertion order */
   uint32_t n, cap;
   uint64_t *tab;             /* stamp << 32 | id; live iff stamp == cur */
   uint32_t tsize, cur;
} ad_idset;

static inline uint32_t ad_hash(uint32_t x)
{
   x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
   return x;
}

static void ad_idset_place(ad_idset *s, uint32_t id)
{
   uint32_t h = ad_hash(id) & (s->tsize - 1);
   while ((uint32_t)(s->tab[h] >> 32) == s->cur) h = (h + 1) & (s->tsize - 1);
   s->tab[h] = (uint64_t)s->cur << 32 | id;
}

static void ad_idset_retable(ad_idset *s, uint32_t tsize)
{
   ag_free(s->tab);
   s->tsize = tsize;
   s->tab = ag_calloc(tsize, sizeof(uint64_t));
   s->cur = 1;
   for (uint32_t i = 0; i < s->n; i++) ad_idset_place(s, s->ids[i]);
}

static void ad_idset_add(ad_idset *s, uint32_t id)
{
   if (2 * (s->n + 1) > s->tsize) ad_idset_retable(s, s->tsize ? 2 * s->tsize : 16);
   uint32_t h = ad_hash(id) & (s->tsize - 1);
   for (;;) {
      uint64_t x = s->tab[h];
      if ((uint32_t)(x >> 32) != s->cur) break;
      if ((uint32_t)x == id) return;
      h = (h + 1) & (s->tsize - 1);
   }
   s->tab[h] = (uint64_t)s->cur << 32 | id;
   if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 16;
      s->ids = ag_realloc(s->ids, s->cap * sizeof(uint32_t));
   }
   s->ids[s->n++] = id;
}

static void ad_idset_clear(ad_idset *s)
{
   uint32_t n = s->n;
   s->n = 0;
   if (s->tsize > 8192 && n < s->tsize / 32) {   /* shrink after a big one */
      s->cap = 0;
      ag_free(s->ids);
      s->ids = NULL;
      ad_idset_retable(s, 64);
   } else if (++s->cur == 0) {
      ag_memzero(s->tab, s->tsize * sizeof(uint64_t));
      s->cur = 1;
   }
}

static void ad_idset_free(ad_idset *s) { ag_free(s->ids); ag_free(s->tab); }

/* ---- engine state ----------------------------------------------------- */

/* t's txn begun at cb, and the event of the knowing thread through which
   it came to know it (event 0: not one of its own, e.g. an end-push): an
   access (addr, size, flags), an acquire (lock) or a join (neither).  An
   end-of-region report names it. */
typedef struct {
   ag_tid t; uint32_t cb;
   uint64_t event, site;
   ag_addr addr, lock;
   uint32_t size, flags;
} ad_act;

typedef struct {
   ad_vc *c;                  /* C_t */
   uint32_t cb;               /* C_t(t) at the open begin */
   uint8_t exists, active, ran;
   uint8_t learned;           /* C_t took knowledge since the open begin */
   uint32_t apos;             /* index in ad.actv while active */
   uint32_t regver;           /* bumped when C_t comes to know a new txn */
   uint32_t ver;              /* bumped when C_t changes (and at begin) */
   ad_act *act; uint32_t nact, capact;   /* open txns of others C_t knows */
   ag_tid *kn; uint32_t nkn, capkn;      /* threads that know t's open txn */
   ad_idset us, lus;          /* locations / locks that may know it */
} ad_thr;

/* an earlier event whose clock is kept: a read or a shared release */
typedef struct {
   ad_vc *c;
   ag_tid tid;
   uint32_t cb;               /* its thread's cb then, 0 if outside a txn */
   uint64_t event, site;
} ad_ev;

typedef struct {             /* (the fields an access uses come first) */
   ad_vc *w;                  /* W_x, NULL = bottom */
   ag_tid lastw;              /* AG_NO_TID if none; next free index if !live */
   uint32_t nrd;              /* reads since the last write: rd0, more[] */
   ad_ev rd0;
   ag_tid regt;               /* it is in the update sets of the txns */
   uint32_t regv;             /* regt's clock knew at its regver regv */
   uint32_t live;
   uint32_t wcb;
   ad_ev *more;
   uint32_t caprd;            /* counts more[] */
   uint32_t refs;             /* cells sharing this state (copy on write) */
   uint64_t wevent, wsite;
   uint64_t mark;             /* access_done scratch: event, */
   uint32_t mcnt, mnew;       /* its cells in it, where they go */
} ad_loc;

/* The shadow cell: the location's index, and a fast path: the last access
   was by thread ft (a write if fw) when its clock had version fver. */
typedef struct {
   uint32_t idx;              /* 0 = never accessed */
   uint32_t fver;
   ag_tid ft;
   uint32_t fw;
} ad_cell;

typedef struct {
   ad_vc *l;                  /* L_l: last exclusive release */
   ag_tid lastrel;
   uint32_t relcb;
   uint64_t relevent, relsite;
   ad_ev *sh;                 /* shared releases since then */
   uint32_t nsh, capsh;
   uint32_t id;
} ad_lock;

#define AD_MEMO 64

typedef struct {
   ag_ctx *ctx;
   ad_thr *thr; uint32_t nthr;
   ag_tid *actv; uint32_t nactv, capactv;     /* threads inside a txn */
   ad_loc *locs; uint32_t nlocs, caplocs, freel;
   ag_map *locks; ad_lock **lockv; uint32_t nlocks, caplockv;
   struct { ad_cell *cell; unsigned flags; } *pend;  /* this access's locations */
   uint32_t npend, cappend;
   uint32_t ver0;             /* the accessing thread's ver at access_start */
   ad_vc *memo_in[AD_MEMO], *memo_out[AD_MEMO];     /* joins of one end */
   uint32_t last_idx;         /* the last location checked in this access */
   uint32_t fresh_idx;        /* the state its never-accessed bytes share */
   /* the thread whose own event (an access, acquire or join) is being
      checked now, AG_NO_TID if none; the lock if an acquire */
   ag_tid cause_tid;
   ag_addr cause_lock;
} ad;

#define GROW(p, n, cap) do { if ((n) == (cap)) { \
   (cap) = (cap) ? 2 * (cap) : 4; \
   (p) = ag_realloc((p), (size_t)(cap) * sizeof(*(p))); } } while (0)

/* ---- threads and what they know --------------------------------------- */

/* Make t's clock private and at least len long, before changing it. */
static void ad_thr_own(ad_thr *th, uint32_t len)
{
   ad_vc *c = th->c;
   if (c->refs == 1 && c->len >= len) return;
   ad_vc *n = ad_vc_new(c->len > len ? c->len : len);
   for (uint32_t i = 0; i < c->len; i++) n->v[i] = c->v[i];
   ad_vc_unref(c);
   th->c = n;
}

static inline int ad_txn_open(const ad *e, ag_tid t, uint32_t cb)
{
   return t < e->nthr && e->thr[t].active && e->thr[t].cb == cb;
}

static uint32_t ad_act_compact(ad *e, ad_thr *th);

/* C_u := C_u ⊔ k, noting the open transactions u comes to know. */
static void ad_thr_learn(ad *e, ag_tid u, ad_vc *k)
{
   ad_thr *th = &e->thr[u];
   if (!k || k == th->c) return;
   uint32_t i, n = k->len;
   for (i = 0; i < n; i++) if (k->v[i] > ad_vc_get(th->c, i)) break;
   if (i == n) return;
   th->learned = 1;
   th->ver++;
   ad_thr_own(th, n);
   for (; i < n; i++) {
      uint32_t old = th->c->v[i], nv = k->v[i];
      if (nv <= old) continue;
      th->c->v[i] = nv;
      if (i == u || i >= e->nthr) continue;
      ad_thr *o = &e->thr[i];
      if (o->active && old < o->cb && nv >= o->cb) {     /* crossed i's begin */
         if (th->nact == th->capact) ad_act_compact(e, th);
         GROW(th->act, th->nact, th->capact);
         ad_act *a = &th->act[th->nact++];
         ag_memzero(a, sizeof *a);
         a->t = i;
         a->cb = o->cb;
         if (e->cause_tid == u) {
            a->event = e->ctx->event;
            a->site = e->ctx->site;
            a->lock = e->cause_lock;
            if (!a->lock) { a->addr = e->ctx->addr; a->size = e->ctx->size; a->flags = e->ctx->flags; }
         }
         GROW(o->kn, o->nkn, o->capkn);
         o->kn[o->nkn++] = u;
         th->regver++;
      }
   }
}

/* Drop u's act entries whose transaction is over; returns how many remain. */
static uint32_t ad_act_compact(ad *e, ad_thr *th)
{
   uint32_t j = 0;
   for (uint32_t i = 0; i < th->nact; i++)
      if (ad_txn_open(e, th->act[i].t, th->act[i].cb)) th->act[j++] = th->act[i];
   th->nact = j;
   return j;
}

/* Something (a location if lock == 0, else a lock) now holds a clock that
   knows what C_u knows: put it in the update set of each open transaction
   C_u knows (u's own included). */
static void ad_note_holder(ad *e, ag_tid u, uint32_t id, int lock)
{
   ad_thr *th = &e->thr[u];
   if (!lock) {               /* done already for this version of C_u? */
      ad_loc *l = &e->locs[id];
      if (l->regt == u && l->regv == th->regver) return;
      l->regt = u;
      l->regv = th->regver;
   }
   if (th->active) ad_idset_add(lock ? &th->lus : &th->us, id);
   if (th->nact && ad_act_compact(e, th))
      for (uint32_t i = 0; i < th->nact; i++) {
         ad_thr *o = &e->thr[th->act[i].t];
         ad_idset_add(lock ? &o->lus : &o->us, id);
      }
}

/* u's act entry for t's transaction begun at cb, or NULL */
static const ad_act *ad_act_of(const ad *e, ag_tid u, ag_tid t, uint32_t cb)
{
   const ad_thr *th = &e->thr[u];
   for (uint32_t i = 0; i < th->nact; i++)
      if (th->act[i].t == t && th->act[i].cb == cb && th->act[i].event) return &th->act[i];
   return NULL;
}

static void ad_report(ad *e, ag_tid t, ag_tid o, uint32_t ocb, uint64_t oevent,
                   uint64_t osite, unsigned oflags, int at_end)
{
   ag_violation v;
   ag_memzero(&v, sizeof v);
   v.tid = t;
   v.at_end = at_end;
   v.other_tid = o;
   v.other_event = oevent;
   v.other_site = osite;
   v.other_flags = oflags;
   if (at_end) {
      /* t's transaction (begun at cb) ends knowing o's open one, which
         knows t's: the cycle's two ways in, each the event of its region
         through which the order reached it (an access's address and size,
         or an acquired lock as own/other_addr with size 0) */
      const ad_act *mine = ad_act_of(e, t, o, ocb), *theirs = ad_act_of(e, o, t, e->thr[t].cb);
      if (mine) {
         v.own_event = mine->event;
         v.own_site = mine->site;
         v.own_addr = mine->lock ? mine->lock : mine->addr;
         v.own_size = mine->size;
         v.own_flags = mine->flags;
      }
      if (theirs) {
         v.other_event = theirs->event;
         v.other_site = theirs->site;
         v.other_addr = theirs->lock ? theirs->lock : theirs->addr;
         v.other_size = theirs->size;
         v.other_flags = theirs->flags;
      }
   }
   if (ocb && ad_txn_open(e, o, ocb)) ag_ctx_other_region(e->ctx, &v, o);
   ag_ctx_report(e->ctx, &v);
}

/* The paper's checkAndGet(k, t): the source is another thread's event. */
static void ad_check_get(ad *e, ag_tid t, ad_vc *k, ag_tid o, uint32_t ocb,
                      uint64_t oevent, uint64_t osite, unsigned oflags)
{
   ad_thr *th = &e->thr[t];
   if (th->active && ad_vc_get(k, t) >= th->cb) {
      ad_report(e, t, o, ocb, oevent, osite, oflags, 0);
      return;                 /* keep the state of the acyclic prefix */
   }
   ad_thr_learn(e, t, k);
}

static inline uint32_t ad_cur_cb(const ad_thr *th) { return th->active ? th->cb : 0; }

/* A kept event of t now: snapshot of C_t plus where it happened. */
static void ad_ev_set(ad *e, ad_ev *x, ag_tid t, ad_vc *snap)
{
   ad_vc_ref(snap);
   ad_vc_unref(x->c);
   x->c = snap;
   x->tid = t;
   x->cb = ad_cur_cb(&e->thr[t]);
   x->event = e->ctx->event;
   x->site = e->ctx->site;
}

/* ---- locations -------------------------------------------------------- */

static inline ad_ev *ad_loc_rd(ad_loc *l, uint32_t i) { return i ? &l->more[i - 1] : &l->rd0; }

static void ad_loc_drop_reads(ad_loc *l)
{
   for (uint32_t i = 0; i < l->nrd; i++) ad_vc_unref(ad_loc_rd(l, i)->c);
   l->rd0.c = NULL;
   l->nrd = 0;
}

static uint32_t ad_loc_alloc(ad *e)
{
   uint32_t idx;
   if (e->freel) {
      idx = e->freel;
      e->freel = e->locs[idx].lastw;
   } else {
      if (e->nlocs == e->caplocs) {
         e->caplocs = e->caplocs ? 2 * e->caplocs : 1024;
         e->locs = ag_realloc(e->locs, (size_t)e->caplocs * sizeof(ad_loc));
      }
      idx = e->nlocs++;
   }
   ad_loc *l = &e->locs[idx];
   ag_memzero(l, sizeof *l);
   l->lastw = AG_NO_TID;
   l->regt = AG_NO_TID;
   l->live = 1;
   l->refs = 1;
   return idx;
}

static void ad_loc_release(ad *e, uint32_t idx)
{
   ad_loc *l = &e->locs[idx];
   ad_vc_unref(l->w);
   ad_loc_drop_reads(l);
   ag_free(l->more);
   ag_memzero(l, sizeof *l);
   l->lastw = e->freel;       /* live = 0 */
   e->freel = idx;
}

static int ad_loc_knows(const ad_loc *l, ag_tid a, uint32_t cb)
{
   if (ad_vc_get(l->w, a) >= cb) return 1;
   for (uint32_t i = 0; i < l->nrd; i++)
      if (ad_vc_get(ad_loc_rd((ad_loc *)l, i)->c, a) >= cb) return 1;
   return 0;
}

/* ---- locks ------------------------------------------------------------ */

static ad_lock *ad_lock_get(ad *e, ag_addr a)
{
   int created;
   ad_lock *k = ag_map_lookup(e->locks, a, &created);
   if (created) {
      k->lastrel = AG_NO_TID;
      k->id = e->nlocks;
      GROW(e->lockv, e->nlocks, e->caplockv);
      e->lockv[e->nlocks++] = k;
   }
   return k;
}

/* ---- ops -------------------------------------------------------------- */

static void *ad_create(ag_ctx *ctx)
{
   ad *e = ag_calloc(1, sizeof *e);
   e->ctx = ctx;
   e->cause_tid = AG_NO_TID;
   e->locks = ag_map_new(sizeof(ad_lock));
   e->nlocs = 1;              /* index 0 = no state */
   e->caplocs = 1024;
   e->locs = ag_calloc(e->caplocs, sizeof(ad_loc));
   return e;
}

static void ad_destroy(void *self)
{
   ad *e = self;
   for (uint32_t i = 1; i < e->nlocs; i++)
      if (e->locs[i].live) ad_loc_release(e, i);
   ag_free(e->locs);
   for (uint32_t i = 0; i < e->nlocks; i++) {
      ad_lock *k = e->lockv[i];
      ad_vc_unref(k->l);
      for (uint32_t j = 0; j < k->nsh; j++) ad_vc_unref(k->sh[j].c);
      ag_free(k->sh);
   }
   ag_free(e->lockv);
   ag_map_delete(e->locks);
   for (uint32_t t = 0; t < e->nthr; t++) {
      ad_thr *th = &e->thr[t];
      ad_vc_unref(th->c);
      ag_free(th->act);
      ag_free(th->kn);
      ad_idset_free(&th->us);
      ad_idset_free(&th->lus);
   }
   ag_free(e->thr);
   ag_free(e->actv);
   ag_free(e->pend);
   ag_free(e);
}

static void ad_loc_init(void *self, void *loc)
{
   (void)self;
   ag_memzero(loc, sizeof(ad_cell));
}

static void ad_loc_fini(void *self, void *loc)
{
   ad *e = self;
   ad_cell *c = loc;
   if (c->idx && --e->locs[c->idx].refs == 0) ad_loc_release(e, c->idx);
   ag_memzero(c, sizeof *c);
}

/* A split copies a word's cell to its 8 bytes: they share the state (and
   its place in update sets) until one of them changes. */
static void ad_loc_copy(void *self, void *dst, const void *src)
{
   ad *e = self;
   const ad_cell *sc = src;
   *(ad_cell *)dst = *sc;
   if (sc->idx) e->locs[sc->idx].refs++;
}

/* A private copy of location sidx's state for n of its cells (a read is
   about to change it); it enters the update sets the original is in. */
static uint32_t ad_loc_unshare(ad *e, uint32_t sidx, uint32_t n)
{
   uint32_t idx = ad_loc_alloc(e);          /* may move e->locs */
   ad_loc *s = &e->locs[sidx], *d = &e->locs[idx];
   s->refs -= n;
   d->refs = n;
   d->w = ad_vc_ref(s->w);
   d->lastw = s->lastw;
   d->wcb = s->wcb;
   d->wevent = s->wevent;
   d->wsite = s->wsite;
   d->nrd = s->nrd;
   d->rd0 = s->rd0;
   ad_vc_ref(d->rd0.c);
   if (s->nrd > 1) {
      d->caprd = s->nrd - 1;
      d->more = ag_malloc(d->caprd * sizeof(ad_ev));
      for (uint32_t i = 0; i + 1 < s->nrd; i++) {
         d->more[i] = s->more[i];
         ad_vc_ref(d->more[i].c);
      }
   }
   for (uint32_t i = 0; i < e->nactv; i++) {
      ad_thr *a = &e->thr[e->actv[i]];
      if (ad_loc_knows(d, e->actv[i], a->cb)) ad_idset_add(&a->us, idx);
   }
   return idx;
}

static void ad_thread_new(void *self, ag_tid t)
{
   ad *e = self;
   if (t >= e->nthr) {
      uint32_t n = e->nthr ? e->nthr : 8;
      while (n <= t) n *= 2;
      e->thr = ag_realloc(e->thr, (size_t)n * sizeof(ad_thr));
      ag_memzero(e->thr + e->nthr, (size_t)(n - e->nthr) * sizeof(ad_thr));
      e->nthr = n;
   }
   ad_thr *th = &e->thr[t];
   if (th->exists) return;
   th->exists = 1;
   th->c = ad_vc_new(t + 1);
   th->c->v[t] = 1;           /* C_t = bottom[1/t] */
   th->ver = 1;
}

static void ad_begin(void *self, ag_tid t)
{
   ad *e = self;
   ad_thr *th = &e->thr[t];
   th->ran = 1;
   if (th->active) return;
   ad_thr_own(th, t + 1);
   if (th->c->v[t] == 0xffffffffu)
      ag_fatal("aerodrome: transaction counter overflow (2^32 transactions of one thread)");
   th->cb = ++th->c->v[t];
   th->active = 1;
   th->learned = 0;
   th->regver++;
   th->ver++;
   th->apos = e->nactv;
   GROW(e->actv, e->nactv, e->capactv);
   e->actv[e->nactv++] = t;
}

/* The end-push of one transaction: *p := *p ⊔ ct, memoised per input. */
static int ad_push(ad *e, ad_vc **p, ad_vc *ct)
{
   ad_vc *in = *p;
   unsigned h = (unsigned)((uintptr_t)in >> 4) & (AD_MEMO - 1);
   ad_vc *out;
   if (e->memo_in[h] == in) {
      out = ad_vc_ref(e->memo_out[h]);
   } else {
      out = ad_vc_join(in, ct);
      ad_vc_unref(e->memo_in[h]);
      ad_vc_unref(e->memo_out[h]);
      e->memo_in[h] = ad_vc_ref(in);
      e->memo_out[h] = ad_vc_ref(out);
   }
   *p = out;
   ad_vc_unref(in);
   return out != in;
}

static void ad_end(void *self, ag_tid t)
{
   ad *e = self;
   ad_thr *th = &e->thr[t];
   th->ran = 1;
   if (!th->active) return;
   uint32_t cb = th->cb;
   /* T is complete from here: nobody learns it any more */
   th->active = 0;
   ag_tid last = e->actv[--e->nactv];
   e->actv[th->apos] = last;
   e->thr[last].apos = th->apos;

   /* GC: a T that knows no open transaction can't be on a future cycle;
      a T that learned nothing has C_t = its begin's clock, which every
      clock knowing the begin already holds (and nothing can report). */
   if (ad_act_compact(e, th) && th->learned) {
      ad_vc *ct = ad_vc_ref(th->c);
      for (uint32_t i = 0; i < th->nkn; i++) {
         ag_tid u = th->kn[i];
         ad_thr *uh = &e->thr[u];
         if (uh->active && ad_vc_get(ct, u) >= uh->cb)
            ad_report(e, t, u, uh->cb, 0, 0, 0, 1);
         else
            ad_thr_learn(e, u, ct);
      }
      for (uint32_t i = 0; i < th->lus.n; i++) {
         uint32_t id = th->lus.ids[i];
         ad_lock *k = e->lockv[id];
         int ch = 0;
         if (ad_vc_get(k->l, t) >= cb) ch |= ad_push(e, &k->l, ct);
         for (uint32_t j = 0; j < k->nsh; j++)
            if (ad_vc_get(k->sh[j].c, t) >= cb) ch |= ad_push(e, &k->sh[j].c, ct);
         if (ch) ad_note_holder(e, t, id, 1);
      }
      for (uint32_t i = 0; i < th->us.n; i++) {
         uint32_t idx = th->us.ids[i];
         ad_loc *l = &e->locs[idx];
         if (!l->live) continue;
         int ch = 0;
         if (ad_vc_get(l->w, t) >= cb) ch |= ad_push(e, &l->w, ct);
         for (uint32_t j = 0; j < l->nrd; j++) {
            ad_ev *r = ad_loc_rd(l, j);
            if (ad_vc_get(r->c, t) >= cb) ch |= ad_push(e, &r->c, ct);
         }
         if (ch) ad_note_holder(e, t, idx, 0);
      }
      for (int h = 0; h < AD_MEMO; h++) {
         ad_vc_unref(e->memo_in[h]);
         ad_vc_unref(e->memo_out[h]);
         e->memo_in[h] = e->memo_out[h] = NULL;
      }
      ad_vc_unref(ct);
   }
   th->nkn = 0;
   ad_idset_clear(&th->us);
   ad_idset_clear(&th->lus);
}

static void ad_access_start(void *self, ag_tid t, unsigned flags)
{
   ad *e = self;
   (void)flags;
   e->npend = 0;
   e->last_idx = 0;
   e->fresh_idx = 0;
   e->thr[t].ran = 1;
   e->ver0 = e->thr[t].ver;
   e->cause_tid = t;
   e->cause_lock = 0;
}

#define AD_SKIP 0x100u           /* pend flag: nothing to check or join */

/* Checks and joins now; the location takes the event's clock at access_done.
   Fast path: t's own last access at the same clock, and a read or a write
   after a write, changes nothing (what it would store is already there, or
   is subsumed by W_x; what it would join t already holds). */
static void ad_access(void *self, ag_tid t, void *loc, ag_addr addr, unsigned flags)
{
   ad *e = self;
   ad_cell *cell = loc;
   (void)addr;
   GROW(e->pend, e->npend, e->cappend);
   e->pend[e->npend].cell = cell;
   if (cell->ft == t && cell->fver == e->ver0 && cell->idx && (!(flags & AG_WRITE) || cell->fw)) {
      e->pend[e->npend++].flags = flags | AD_SKIP;
      return;
   }
   e->pend[e->npend++].flags = flags;
   if (!cell->idx) {
      if (e->fresh_idx) {
         cell->idx = e->fresh_idx;
         e->locs[cell->idx].refs++;
      } else {
         cell->idx = e->fresh_idx = ad_loc_alloc(e);
      }
   }
   if (cell->idx == e->last_idx) return;     /* bytes sharing one state */
   e->last_idx = cell->idx;
   ad_loc *l = &e->locs[cell->idx];
   if (l->w && l->lastw != t)
      ad_check_get(e, t, l->w, l->lastw, l->wcb, l->wevent, l->wsite, AG_WRITE);
   if (flags & AG_WRITE)
      for (uint32_t i = 0; i < l->nrd; i++) {
         ad_ev *r = ad_loc_rd(l, i);
         if (r->tid != t) ad_check_get(e, t, r->c, r->tid, r->cb, r->event, r->site, 0);
      }
}

/* Location idx takes t's event (clock snap). */
static void ad_loc_store(ad *e, uint32_t idx, ag_tid t, ad_vc *snap, unsigned flags)
{
   ad_thr *th = &e->thr[t];
   ad_loc *l = &e->locs[idx];
   if (flags & AG_WRITE) {
      ad_loc_drop_reads(l);               /* W_x knows them now */
      ad_vc_unref(l->w);
      l->w = ad_vc_ref(snap);
      l->lastw = t;
      l->wcb = ad_cur_cb(th);
      l->wevent = e->ctx->event;
      l->wsite = e->ctx->site;
   } else {
      uint32_t j;
      for (j = 0; j < l->nrd; j++) if (ad_loc_rd(l, j)->tid == t) break;
      if (j == l->nrd) {
         if (j > 0) {
            if (j - 1 == l->caprd) {
               l->caprd = l->caprd ? 2 * l->caprd : 2;
               l->more = ag_realloc(l->more, l->caprd * sizeof(ad_ev));
            }
            l->more[j - 1].c = NULL;
         }
         l->nrd++;
      }
      ad_ev_set(e, ad_loc_rd(l, j), t, snap);
   }
   ad_note_holder(e, t, idx, 0);
}

static void ad_access_done(void *self, ag_tid t)
{
   ad *e = self;
   ad_thr *th = &e->thr[t];
   /* the event learned something: every location takes the new clock */
   int changed = th->ver != e->ver0;
   uint64_t ev = e->ctx->event;
   ad_vc *snap = NULL;
   uint32_t i;
   /* count the cells of each state this event changes */
   for (i = 0; i < e->npend; i++) {
      if ((e->pend[i].flags & AD_SKIP) && !changed) continue;
      ad_loc *l = &e->locs[e->pend[i].cell->idx];
      if (l->mark != ev) { l->mark = ev; l->mcnt = 0; l->mnew = 0; }
      l->mcnt++;
   }
   for (i = 0; i < e->npend; i++) {
      ad_cell *cell = e->pend[i].cell;
      unsigned flags = e->pend[i].flags;
      if ((flags & AD_SKIP) && !changed) continue;
      uint32_t idx = cell->idx;
      ad_loc *l = &e->locs[idx];
      if (!l->mnew) {
         /* all its cells are here: change it in place; else the cells
            here move to a copy (a write needs none of the old state) */
         uint32_t n = l->mcnt, to = idx;
         if (l->refs != n) {
            if (flags & AG_WRITE) {
               to = ad_loc_alloc(e);
               e->locs[to].refs = n;
               e->locs[idx].refs -= n;
            } else {
               to = ad_loc_unshare(e, idx, n);
            }
            e->locs[to].mark = ev;
         }
         e->locs[idx].mnew = to;
         e->locs[to].mnew = to;
         if (!snap) snap = ad_vc_ref(th->c);
         ad_loc_store(e, to, t, snap, flags);
      }
      cell->idx = e->locs[idx].mnew;
      cell->ft = t;
      cell->fver = th->ver;
      cell->fw = (flags & AG_WRITE) != 0;
   }
   ad_vc_unref(snap);
   e->npend = 0;
   e->cause_tid = AG_NO_TID;
}

static void ad_acquire(void *self, ag_tid t, ag_addr lock, int shared)
{
   ad *e = self;
   e->thr[t].ran = 1;
   ad_lock *k = ad_lock_get(e, lock);
   e->cause_tid = t;
   e->cause_lock = lock;
   if (k->l && k->lastrel != t)
      ad_check_get(e, t, k->l, k->lastrel, k->relcb, k->relevent, k->relsite, 0);
   if (!shared)                /* a writer comes after the readers too */
      for (uint32_t i = 0; i < k->nsh; i++)
         if (k->sh[i].tid != t)
            ad_check_get(e, t, k->sh[i].c, k->sh[i].tid, k->sh[i].cb,
                      k->sh[i].event, k->sh[i].site, 0);
   e->cause_tid = AG_NO_TID;
}

static void ad_release(void *self, ag_tid t, ag_addr lock, int shared)
{
   ad *e = self;
   ad_thr *th = &e->thr[t];
   th->ran = 1;
   ad_lock *k = ad_lock_get(e, lock);
   if (!shared) {
      for (uint32_t i = 0; i < k->nsh; i++) ad_vc_unref(k->sh[i].c);
      k->nsh = 0;             /* the acquire joined them: L_l knows them */
      ad_vc_unref(k->l);
      k->l = ad_vc_ref(th->c);
      k->lastrel = t;
      k->relcb = ad_cur_cb(th);
      k->relevent = e->ctx->event;
      k->relsite = e->ctx->site;
   } else {
      uint32_t i;
      for (i = 0; i < k->nsh; i++) if (k->sh[i].tid == t) break;
      if (i == k->nsh) {
         GROW(k->sh, k->nsh, k->capsh);
         k->sh[k->nsh++].c = NULL;
      }
      ad_ev_set(e, &k->sh[i], t, th->c);
   }
   ad_note_holder(e, t, k->id, 1);
}

static void ad_lock_forget(void *self, ag_addr lock)
{
   ad *e = self;
   ad_lock *k = ag_map_get(e->locks, lock);
   if (!k) return;
   for (uint32_t i = 0; i < k->nsh; i++) ad_vc_unref(k->sh[i].c);
   k->nsh = 0;
   ad_vc_unref(k->l);
   k->l = NULL;              /* update sets may still name it: harmless */
   k->lastrel = AG_NO_TID;
}

static void ad_fork(void *self, ag_tid parent, ag_tid child)
{
   ad *e = self;
   e->thr[parent].ran = 1;
   if (child >= e->nthr || !e->thr[child].exists) ad_thread_new(e, child);
   ad_thr_learn(e, child, e->thr[parent].c);
}

static void ad_join(void *self, ag_tid joiner, ag_tid child)
{
   ad *e = self;
   e->thr[joiner].ran = 1;
   /* a child that ran nothing adds no edge (fork and join in one txn) */
   if (child >= e->nthr || !e->thr[child].exists || !e->thr[child].ran) return;
   ad_thr *ch = &e->thr[child];
   e->cause_tid = joiner;
   e->cause_lock = 0;
   ad_check_get(e, joiner, ch->c, child, ad_cur_cb(ch), 0, 0, 0);
   e->cause_tid = AG_NO_TID;
}

const ag_engine_ops ag_aerodrome_ops = {
   .name = "aerodrome",
   .help = "AeroDrome: conflict-serializability with vector clocks, O(k) per event,"
           " O(k(k+v+l)) per end",
   .kind = AG_KIND_ATOMICITY,
   .loc_size = sizeof(ad_cell),
   .create = ad_create,
   .destroy = ad_destroy,
   .loc_init = ad_loc_init,
   .loc_copy = ad_loc_copy,
   .loc_fini = ad_loc_fini,
   .thread_new = ad_thread_new,
   .begin = ad_begin,
   .end = ad_end,
   .access_start = ad_access_start,
   .access = ad_access,
   .acquire = ad_acquire,
   .release = ad_release,
   .fork = ad_fork,
   .join = ad_join,
   .access_done = ad_access_done,
   .lock_forget = ad_lock_forget,
};
