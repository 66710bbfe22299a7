/* ag_predict.c -- predicted atomicity violations (AVIO-style), engine
 * "predict": unserializable local-remote-local patterns that a feasible
 * reordering of the observed run would show, though the run did not.
 *
 * Patterns.  Thread t's accesses e1 < e2 to one location inside one atomic
 * region, and an access a of another thread u to it, such that e1 a e2
 * is unserializable: R-W-R, W-W-R, W-R-W, R-W-W (types of e1, a, e2).
 * (W-W-W is serializable by view; AVIO leaves it out, and so do we.)
 *
 * Feasibility.  Happens-before (hb) here is program order plus fork, join
 * and synchronisation-object edges (condvar, semaphore, barrier, once --
 * they reach engines as an acquire immediately followed by a release of
 * the object: two consecutive events of one thread, so an empty critical
 * section of a real lock counts as one too, which only orders more).
 * Lock release -> acquire edges are NOT in hb: a reordering may change
 * them.  a may run between e1 and e2 iff
 *   - not a hb e1 and not e2 hb a, and
 *   - no lock that t holds continuously from e1 through e2 is held by u
 *     at a (rwlocks: unless both hold it for reading), and
 *   - the reordering keeps what the two threads read of other locations:
 *     with a after e2, u has read no location other than a's from a write
 *     of t made after e2; with a before e1, t has read (by e2) no location
 *     other than a's from a write of u made after a.  Without this rule a
 *     hand-off through a lock-protected queue or flag (t works on a block,
 *     then enqueues it; u dequeues it, reading the link t wrote, and then
 *     works on it) was predicted, though u reaches the block only through
 *     what it read.  Reads of the pattern's own location may change: that
 *     change is the violation.  A value read under a lock that the writer
 *     also held counts as written at that lock's latest release (WCP's
 *     rule for conflicting critical sections, one step).  Only direct
 *     reads-from is followed (u read what v wrote after v read from t is
 *     not), and reads-from is by the latest write among the threads
 *     remembered for the location.
 * The read and the write of one atomic read-modify-write instruction are
 * never split.
 * Checked: a before e1 in the run: "not a hb e2" (stronger than "not a hb
 * e1": a synchronisation of t between e1 and e2 hides the prediction);
 * a after e2: "not e2 hb a" exactly.  An a observed between e1 and e2 is
 * an observed violation, left to the atomicity engine; the region instance
 * and u are then done for this engine.
 *
 * Bounded memory.  Per location, per thread (at most PD_MAXENT threads per
 * location; the least recently active is dropped): its last read and last
 * write (hb clock, lockset, site) and, for its latest region that touched
 * the location, the first read and first write there; the held-lock sets
 * of the pairs (first, last) are kept too.  So e1 is always a first access
 * of its kind in the region; with a before e1, a is u's last access of its
 * kind before e2; with a after e2, e2 is t's last access of its kind
 * before a (and must still lie in that region).  Locksets are interned.
 * A location's first entry (64 bytes) lives in its shadow cell, the
 * others in an array: nearly every location is touched by one thread.
 * Bounded (cfg.predict_in_regions, the tool's default but with
 * --sched=native): the engine is sent only the accesses made while some
 * thread is inside a region, as the atomicity engines are, so its memory
 * and time follow the regions' accesses.  The reads-from rule needs every
 * read between the pattern's two sides, so no prediction is made across a
 * stretch with no region open (ctx->blind_since): with a after e2, none
 * began after e2; with a before e1, none after a.  What it predicts is then
 * what the unbounded engine would (both sides and everything between them
 * seen alike), less the patterns whose other access, or whose stretch
 * between, lies outside every region.
 * One report per (region instance, other thread).  A prediction against a
 * region that is still open waits for the region's end (and is then
 * reported there): the rest of the region may yet show the interleaving
 * for real, and the observed report is the better one.
 */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_shim.h"
#include "ag_slab.h"           /* further entries of a location */
#include "ag_vclock.h"         /* pd_vc: threads' and sync objects' clocks */

#define PD_MAXENT 4       /* threads remembered per location */
#define PD_MAXPEND 4      /* predictions waiting for a region's end */

/* ---- vector clocks: 32-bit entries (a thread's releases) -------- */

AG_VCLOCK(pd_vc, pd_vc, uint32_t)

/* ---- interned locksets ------------------------------------------- */

/* A held lock: its address shifted left by one, bit 0 = read side. */
typedef struct { uint32_t n; uint64_t *keys; } pd_lset;   /* sorted */

typedef struct { uint32_t id; } pd_lset_slot;

/* ---- state ------------------------------------------------------- */

typedef struct { uint64_t key, acq_event; uint32_t prefix; } pd_held;

/* What a thread has read from another thread's writes: the latest such
   write (its event) on any location, and the latest on a location other
   than that one -- enough to answer "the latest on a location other than
   x" for any x. */
typedef struct { uint64_t ev[2]; ag_addr addr[2]; } pd_rf;

typedef struct {
   pd_vc vc;
   ag_map *rf;             /* writer tid -> pd_rf, made on first use */
   pd_held *held;          /* in acquisition order */
   uint32_t nheld, capheld;
   int known;
   ag_violation pend[PD_MAXPEND];   /* against its open region */
   uint32_t npend;
} pd_thread;

/* An access, 16 bytes: its event, the thread's own clock, and its
   descriptor: site, lockset and flags (and whether it was made inside a
   region) interned together -- few distinct ones, as there are few sites
   and locksets.  "Made in a region" is one bit: the region's begin event
   is needed only for a thread's latest access of a kind (pd_in_region),
   and is found from the entry's rbegin. */
typedef struct {
   uint64_t event;         /* 0: none */
   uint32_t clock;         /* the thread's own clock */
   uint32_t desc;          /* pd_state.descs */
} pd_acc;

#define PD_INREG 0x10000u                /* desc flag: made inside a region */
_Static_assert(PD_INREG < (1u << 17), "the flags fit pd_desc_id's key (bits 47 and up)");

/* rb: for a region's first access, its region's begin site (a
   descriptor); 0 otherwise. */
typedef struct { uint64_t site; uint32_t ls, flags, rb; } pd_desc;
typedef struct { uint64_t site; uint32_t ls, flags, rb, id; } pd_desc_cached;
typedef struct { uint32_t id; } pd_desc_slot;
typedef struct { uint32_t s[2][2]; } pd_h12;
typedef struct { uint32_t id; } pd_h12_slot;
/* Recent descriptors, direct-mapped: every access asks for one, and a
   spec'd pigz run has ~2900 (a site in and out of regions, a region's
   begin site in its first accesses).  256 entries, indexed by 8 bits of a
   key that lost the in-region flag, missed 13 % of 183 M lookups, each
   a hash-map probe (6 % of that run); 4096 miss 0.08 %. */
#define PD_DCACHE_BITS 12
#define PD_DCACHE (1u << PD_DCACHE_BITS)

/* A thread's entry for a location, 64 bytes (most of prediction's
   memory: one per location a thread touched).  Its first accesses of the
   region keep no clock (no check reads e1's), their events are offsets
   from the region's begin event, and their descriptors also name the
   region's begin site; the four sets of locks held from first[i] through
   last[j] are interned together as one id (pd_state.h12s: nearly always
   all empty, id 0). */
typedef struct {
   ag_tid tid;             /* PD_NOTID: none (an empty inline entry) */
   uint32_t h12;           /* pd_state.h12s: the held-lock set ids [i][j] */
   uint32_t fdesc[2];      /* first[i]: its descriptor (with rb) ... */
   uint32_t foff[2];       /* ... and event - rbegin (0: none) */
   uint64_t rbegin;        /* the region first[] belong to: its begin event */
   pd_acc last[2];         /* [0] read, [1] write */
} pd_ent;

#define PD_NOTID ((ag_tid)0xffffffffu)
_Static_assert(sizeof(pd_ent) == 64, "pd_ent is 64 bytes (memory of prediction)");

/* Events stay below 2^48 (pd_access checks): the top 16 bits of an
   entry's three event fields are free, and the first entry of a location
   keeps its further entries there (pd_more).  So every read of rbegin or
   of a last[] event masks them, and every write keeps them. */
#define PD_EV_BITS 48
#define PD_EV_MASK (((uint64_t)1 << PD_EV_BITS) - 1)

static inline uint64_t pd_rbegin(const pd_ent *e) { return e->rbegin & PD_EV_MASK; }

static inline void pd_set_rbegin(pd_ent *e, uint64_t ev)
{
   e->rbegin = (e->rbegin & ~PD_EV_MASK) | ev;
}

/* last[k] of an entry, its event masked */
static inline pd_acc pd_last(const pd_ent *e, int k)
{
   pd_acc a = e->last[k];
   a.event &= PD_EV_MASK;
   return a;
}

static inline void pd_set_last(pd_ent *e, int k, pd_acc a)
{
   a.event |= e->last[k].event & ~PD_EV_MASK;
   e->last[k] = a;
}

/* The 48 free bits of an entry, 16 from each event field */
static inline uint64_t pd_word(const pd_ent *e)
{
   return e->rbegin >> PD_EV_BITS | e->last[0].event >> PD_EV_BITS << 16
          | e->last[1].event >> PD_EV_BITS << 32;
}

static inline void pd_set_word(pd_ent *e, uint64_t m)
{
   e->rbegin = (e->rbegin & PD_EV_MASK) | (m & 0xffff) << PD_EV_BITS;
   e->last[0].event = (e->last[0].event & PD_EV_MASK) | (m >> 16 & 0xffff) << PD_EV_BITS;
   e->last[1].event = (e->last[1].event & PD_EV_MASK) | (m >> 32 & 0xffff) << PD_EV_BITS;
}

/* *dst = *src, keeping dst's free bits */
static inline void pd_ent_put(pd_ent *dst, const pd_ent *src)
{
   uint64_t w = pd_word(dst);
   *dst = *src;
   pd_set_word(dst, w);
}

/* first[i] of an entry, as an access (its clock unknown: never read) */
static inline pd_acc pd_first(const pd_ent *e, int i)
{
   return (pd_acc){ e->foff[i] ? pd_rbegin(e) + e->foff[i] : 0, 0, e->fdesc[i] };
}

/* Per location: the entries of the threads remembered, in order; the
   first inline in the shadow cell, so that a location only one thread
   touched (nearly all of them) costs no allocation, the others in an
   array of exactly their number (up to PD_MAXENT - 1), 64-byte aligned
   (ag_slab.h): one cache line per entry.  The record is the first entry
   alone, one cache line too (the shadow's blocks are 64-byte aligned):
   the array's address (a multiple of 64 below 2^48: 42 bits) and, from
   bit PD_MORE_SHIFT, the array's length make a 48-bit value kept in the
   entry's free bits, 16 in each event field.  (With the value in a field
   of its own, the record was 72 bytes: two lines to load on most
   accesses.) */
typedef struct { pd_ent e0; } pd_rec;
#define PD_MORE_SHIFT 42
_Static_assert(PD_MAXENT - 1 < 64, "the number of further entries fits above PD_MORE_SHIFT");

static inline uint64_t pd_more(const pd_rec *r) { return pd_word(&r->e0); }
static inline void pd_set_more(pd_rec *r, uint64_t m) { pd_set_word(&r->e0, m); }

typedef struct {
   ag_ctx *ctx;
   pd_thread *th;
   uint32_t nth;
   ag_map *sync;           /* object -> pd_vc */
   ag_map *last_rel;       /* lock -> event of its latest release (uint64_t) */
   ag_map *done;           /* (region begin, other tid) -> reported/observed */
   ag_map *lset_idx;       /* hash -> pd_lset_slot */
   pd_lset *lsets;         /* id -> set; id 0 = empty */
   uint32_t nlsets, caplsets;
   ag_map *desc_idx;       /* hash -> pd_desc_slot */
   pd_desc *descs;         /* id -> descriptor */
   uint32_t ndescs, capdescs;
   pd_desc_cached dcache[PD_DCACHE];
   uint64_t dmisses;       /* lookups that missed dcache */
   ag_map *h12_idx;        /* hash -> pd_h12_slot */
   pd_h12 *h12s;           /* id -> the four set ids; id 0 = all empty */
   uint32_t nh12s, caph12s;
   /* further entries: carved from slabs, no allocator header each (a
      location two threads touched is common: a buffer handed over) */
   ag_slab_pool more;                     /* size class: their number */
   uint64_t more_peak;                    /* its bytes before a locs_reset */
} pd_state;

static __attribute__((noinline)) void pd_th_grow(pd_state *pd, ag_tid t)
{
   uint32_t n = pd->nth ? pd->nth : 8;
   while (n <= t) n *= 2;
   pd->th = ag_realloc(pd->th, n * sizeof(pd_thread));
   ag_memzero(pd->th + pd->nth, (n - pd->nth) * sizeof(pd_thread));
   pd->nth = n;
}

/* t's state (every access asks: the test inlined, the growth not) */
static inline pd_thread *pd_th(pd_state *pd, ag_tid t)
{
   if (__builtin_expect(t >= pd->nth, 0)) pd_th_grow(pd, t);
   return &pd->th[t];
}

/* ---- locksets ---------------------------------------------------- */

static uint64_t pd_hash(const uint64_t *k, uint32_t n)
{
   uint64_t h = 1469598103934665603ull;
   for (uint32_t i = 0; i < n; i++) h = (h ^ k[i]) * 1099511628211ull;
   return h ? h : 1;
}

static int pd_lset_eq(const pd_lset *s, const uint64_t *k, uint32_t n)
{
   if (s->n != n) return 0;
   for (uint32_t i = 0; i < n; i++)
      if (s->keys[i] != k[i]) return 0;
   return 1;
}

/* The id of the set of n keys (sorted in place). */
static uint32_t pd_intern(pd_state *pd, uint64_t *k, uint32_t n)
{
   if (n == 0) return 0;
   for (uint32_t i = 1; i < n; i++)          /* insertion sort: sets are small */
      for (uint32_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
         uint64_t x = k[j]; k[j] = k[j - 1]; k[j - 1] = x;
      }
   for (uint64_t h = pd_hash(k, n);; h++) {   /* linear probing on the hash */
      int created;
      pd_lset_slot *s = ag_map_lookup(pd->lset_idx, h, &created);
      if (!created) {
         if (pd_lset_eq(&pd->lsets[s->id], k, n)) return s->id;
         continue;
      }
      if (pd->nlsets == pd->caplsets) {
         pd->caplsets *= 2;
         pd->lsets = ag_realloc(pd->lsets, pd->caplsets * sizeof(pd_lset));
      }
      pd_lset *ls = &pd->lsets[pd->nlsets];
      ls->n = n;
      ls->keys = ag_malloc(n * sizeof(uint64_t));
      ag_memcopy(ls->keys, k, n * sizeof(uint64_t));
      s->id = pd->nlsets++;
      return s->id;
   }
}

/* Could two threads hold these sets at once?  Not if they share a lock
   that one of them holds exclusively. */
static int pd_lset_exclude(const pd_state *pd, uint32_t a, uint32_t b)
{
   if (a == 0 || b == 0) return 0;
   const pd_lset *x = &pd->lsets[a], *y = &pd->lsets[b];
   for (uint32_t i = 0; i < x->n; i++)
      for (uint32_t j = 0; j < y->n; j++)
         if ((x->keys[i] >> 1) == (y->keys[j] >> 1) && !(x->keys[i] & y->keys[j] & 1))
            return 1;
   return 0;
}

/* Recompute the interned prefixes of t's held locks from index `from`. */
static void pd_prefixes(pd_state *pd, pd_thread *th, uint32_t from)
{
   uint64_t buf[16], *k = th->nheld <= 16 ? buf : ag_malloc(th->nheld * sizeof(uint64_t));
   for (uint32_t i = from; i < th->nheld; i++) {
      for (uint32_t j = 0; j <= i; j++) k[j] = th->held[j].key;
      th->held[i].prefix = pd_intern(pd, k, i + 1);
   }
   if (k != buf) ag_free(k);
}

static inline uint32_t pd_lockset(const pd_thread *th)
{
   return th->nheld ? th->held[th->nheld - 1].prefix : 0;
}

/* Locks t holds now that it acquired before event e1: those it held
   continuously since e1 (held[] is in acquisition order). */
static uint32_t pd_held_since(const pd_thread *th, uint64_t e1)
{
   uint32_t k = 0;
   while (k < th->nheld && th->held[k].acq_event < e1) k++;
   return k ? th->held[k - 1].prefix : 0;
}

/* ---- access descriptors ------------------------------------------ */

/* The id of descriptor (site, ls, flags, rb): a direct-mapped cache in
   front of a hash map (linear probing on the hash, as for locksets).
   Every access asks for one: the cache's test is inlined, the rest kept
   out of line (left to the compiler, pd_desc_id was a call with the slow
   path's long prologue: 6% of a spec'd pigz run). */
static __attribute__((noinline))
uint32_t pd_desc_slow(pd_state *pd, uint64_t site, uint32_t ls, uint32_t flags, uint32_t rb,
                      uint64_t h)
{
   for (h = h ? h : 1;; h++) {
      int created;
      pd_desc_slot *sl = ag_map_lookup(pd->desc_idx, h, &created);
      if (!created) {
         const pd_desc *d = &pd->descs[sl->id];
         if (d->site == site && d->ls == ls && d->flags == flags && d->rb == rb) return sl->id;
         continue;
      }
      if (pd->ndescs == pd->capdescs) {
         pd->capdescs = pd->capdescs ? 2 * pd->capdescs : 64;
         pd->descs = ag_realloc(pd->descs, pd->capdescs * sizeof(pd_desc));
      }
      pd->descs[pd->ndescs] = (pd_desc){ site, ls, flags, rb };
      sl->id = pd->ndescs++;
      return sl->id;
   }
}

static inline __attribute__((always_inline))
uint32_t pd_desc_id(pd_state *pd, uint64_t site, uint32_t ls, uint32_t flags, uint32_t rb)
{
   /* every field in the key (flags has 17 bits), the top bits index */
   uint64_t h = (site ^ ((uint64_t)ls << 20) ^ ((uint64_t)rb << 34) ^ ((uint64_t)flags << 47))
                * 0x9e3779b97f4a7c15ull;
   pd_desc_cached *c = &pd->dcache[h >> (64 - PD_DCACHE_BITS)];
   if (c->site == site && c->ls == ls && c->flags == flags && c->rb == rb) return c->id;
   pd->dmisses++;
   uint32_t id = pd_desc_slow(pd, site, ls, flags, rb, h);
   *c = (pd_desc_cached){ site, ls, flags, rb, id };
   return id;
}

/* The id of the four held-lock set ids q. */
static uint32_t pd_h12_id(pd_state *pd, const pd_h12 *q)
{
   const uint64_t k[4] = { q->s[0][0], q->s[0][1], q->s[1][0], q->s[1][1] };
   for (uint64_t h = pd_hash(k, 4);; h++) {   /* linear probing on the hash */
      int created;
      pd_h12_slot *sl = ag_map_lookup(pd->h12_idx, h, &created);
      if (!created) {
         const pd_h12 *o = &pd->h12s[sl->id];
         if (o->s[0][0] == q->s[0][0] && o->s[0][1] == q->s[0][1]
             && o->s[1][0] == q->s[1][0] && o->s[1][1] == q->s[1][1])
            return sl->id;
         continue;
      }
      if (pd->nh12s == pd->caph12s) {
         pd->caph12s *= 2;
         pd->h12s = ag_realloc(pd->h12s, pd->caph12s * sizeof(pd_h12));
      }
      pd->h12s[pd->nh12s] = *q;
      sl->id = pd->nh12s++;
      return sl->id;
   }
}

static inline const pd_desc *pd_d(const pd_state *pd, const pd_acc *a) { return &pd->descs[a->desc]; }
static inline unsigned pd_fl(const pd_state *pd, const pd_acc *a) { return pd_d(pd, a)->flags & ~PD_INREG; }

/* ---- per-location records ---------------------------------------- */

static void pd_loc_init(void *self, void *loc)
{
   (void)self;
   pd_rec *r = loc;
   ag_memzero(r, sizeof *r);
   r->e0.tid = PD_NOTID;
}

static inline uint32_t pd_more_n(uint64_t more) { return (uint32_t)(more >> PD_MORE_SHIFT); }
static inline pd_ent *pd_more_at(uint64_t more)
{
   return (pd_ent *)(uintptr_t)((more & (((uint64_t)1 << PD_MORE_SHIFT) - 1)) << 6);
}

/* An array of n further entries (1 <= n < PD_MAXENT), as pd_more. */
static uint64_t pd_more_new(pd_state *pd, uint32_t n)
{
   pd_ent *e = ag_slab_alloc(&pd->more, n, n * sizeof(pd_ent));
   AG_ASSERT(((uintptr_t)e & 63) == 0 && ((uintptr_t)e >> (PD_MORE_SHIFT + 6)) == 0);
   return (uint64_t)(uintptr_t)e >> 6 | (uint64_t)n << PD_MORE_SHIFT;
}

static void pd_more_free(pd_state *pd, uint64_t more)
{
   if (more) ag_slab_free(&pd->more, pd_more_n(more), pd_more_at(more));
}

static void pd_loc_copy(void *self, void *dst, const void *src)
{
   const pd_rec *s = src;
   pd_rec *d = dst;
   uint64_t sm = pd_more(s);
   *d = *s;
   if (sm) {
      uint64_t dm = pd_more_new(self, pd_more_n(sm));
      ag_memcopy(pd_more_at(dm), pd_more_at(sm), pd_more_n(sm) * sizeof(pd_ent));
      pd_set_more(d, dm);
   }
}

static void pd_loc_fini(void *self, void *loc)
{
   pd_rec *r = loc;
   pd_more_free(self, pd_more(r));
   pd_set_more(r, 0);
}

/* pd_destroy releases the slabs every further entry comes from */
static int pd_locs_die(void *self) { (void)self; return 1; }

/* The number of entries, and entry i. */
static inline uint32_t pd_n(const pd_rec *r)
{
   return r->e0.tid == PD_NOTID ? 0 : 1 + pd_more_n(pd_more(r));
}

static inline pd_ent *pd_at(pd_rec *r, uint32_t i)
{
   return i ? &pd_more_at(pd_more(r))[i - 1] : &r->e0;
}

/* A record's entries in order, the array's address decoded once (the
   checks walk them on every access to a location two threads touched). */
typedef struct { uint32_t n; pd_ent *e[PD_MAXENT]; } pd_ents;

static inline void pd_list(pd_rec *r, pd_ents *l)
{
   uint64_t m = pd_more(r);
   pd_ent *more = pd_more_at(m);
   l->n = pd_n(r);
   l->e[0] = &r->e0;
   for (uint32_t i = 1; i < l->n; i++) l->e[i] = &more[i - 1];
}

static uint64_t pd_recency(const pd_ent *e)
{
   uint64_t r = pd_last(e, 0).event, w = pd_last(e, 1).event;
   return r > w ? r : w;
}

/* A new entry for t, which has none in the record (pd_access looked):
   when PD_MAXENT are kept, the least recently active thread's is dropped,
   the last entry takes its place and the new one comes last. */
static pd_ent *pd_new_entry(pd_state *pd, pd_rec *r, ag_tid t)
{
   uint32_t n = pd_n(r);
   if (n == PD_MAXENT) {
      pd_ents l;
      pd_list(r, &l);
      uint32_t old = 0;
      for (uint32_t i = 1; i < n; i++)
         if (pd_recency(l.e[i]) < pd_recency(l.e[old])) old = i;
      pd_ent_put(l.e[old], l.e[n - 1]);
      n--;
   } else if (n > 0) {
      uint64_t m = pd_more_new(pd, n), old = pd_more(r);
      if (old) {
         ag_memcopy(pd_more_at(m), pd_more_at(old), (n - 1) * sizeof(pd_ent));
         pd_more_free(pd, old);
      }
      pd_set_more(r, m);
   }
   pd_ent *e = pd_at(r, n);
   const pd_ent fresh = { .tid = t };
   pd_ent_put(e, &fresh);
   return e;
}

/* ---- reads-from ---------------------------------------------------- */

/* When is the write w that th reads seen to happen?  At w -- or, if both
   held a common lock (not both for reading), at that lock's latest
   release: the writer's critical section ended before the reader's began,
   and all of it stays before the read in a reordering that keeps the value
   read (a state flag set first, the data copied after, in one critical
   section: xz's get_thread). */
static uint64_t pd_rf_when(const pd_state *pd, const pd_thread *th, const pd_acc *w)
{
   uint64_t ev = w->event;
   const pd_lset *ws = &pd->lsets[pd_d(pd, w)->ls];
   for (uint32_t i = 0; i < th->nheld; i++)
      for (uint32_t j = 0; j < ws->n; j++) {
         uint64_t kr = th->held[i].key, kw = ws->keys[j];
         if ((kr >> 1) != (kw >> 1) || (kr & kw & 1)) continue;
         const uint64_t *rel = ag_map_get(pd->last_rel, kr >> 1);
         if (rel && *rel > ev) ev = *rel;
      }
   return ev;
}

/* t reads the location at addr; its last write (latest by event among the
   threads the record remembers) was by another thread. */
static void pd_rf_note(const pd_state *pd, pd_thread *th, const pd_ents *l, ag_tid t,
                       ag_addr addr)
{
   const pd_ent *w = NULL;
   uint64_t wev = 0;
   for (uint32_t i = 0; i < l->n; i++) {
      const pd_ent *e = l->e[i];
      uint64_t ev = pd_last(e, 1).event;
      if (ev > wev) { w = e; wev = ev; }
   }
   if (!w || w->tid == t) return;
   if (!th->rf) th->rf = ag_map_new(sizeof(pd_rf));
   pd_rf *f = ag_map_lookup(th->rf, w->tid, NULL);
   const pd_acc wl = pd_last(w, 1);
   uint64_t ev = pd_rf_when(pd, th, &wl);
   if (f->ev[0] && f->addr[0] == addr) {
      if (ev > f->ev[0]) f->ev[0] = ev;
   } else if (ev > f->ev[0]) {
      f->ev[1] = f->ev[0];
      f->addr[1] = f->addr[0];
      f->ev[0] = ev;
      f->addr[0] = addr;
   } else if (ev > f->ev[1]) {
      f->ev[1] = ev;
      f->addr[1] = addr;
   }
}

/* The latest write of thread w that th has read, on a location other than x. */
static uint64_t pd_rf_other(const pd_thread *th, ag_tid w, ag_addr x)
{
   const pd_rf *f = th->rf ? ag_map_get(th->rf, w) : NULL;
   if (!f) return 0;
   return f->addr[0] == x ? f->ev[1] : f->ev[0];
}

/* ---- patterns and reports ---------------------------------------- */

/* Is e1 a e2 unserializable (kinds: 0 read, 1 write)? */
static inline int pd_pattern(int k1, int ka, int k2)
{
   return ka ? !(k1 && k2) : (k1 && k2);
}

/* The read and the write of one atomic read-modify-write instruction
   (consecutive events, both AG_ATOMIC): nothing runs between them. */
static inline int pd_one_rmw(const pd_state *pd, const pd_acc *e1, const pd_acc *e2)
{
   if (e2->event != e1->event + 1) return 0;
   unsigned f1 = pd_fl(pd, e1), f2 = pd_fl(pd, e2);
   return (f1 & f2 & AG_ATOMIC) && !(f1 & AG_WRITE) && (f2 & AG_WRITE);
}

/* What is known of (region instance, other thread): */
enum { PD_NEW, PD_PREDICTED, PD_OBSERVED };

static uint8_t *pd_state_of(pd_state *pd, uint64_t rbegin, ag_tid u)
{
   /* event indices stay below 2^48 */
   return ag_map_lookup(pd->done, rbegin ^ ((uint64_t)u << 48), NULL);
}

static void pd_observed(pd_state *pd, uint64_t rbegin, ag_tid u)
{
   *pd_state_of(pd, rbegin, u) = PD_OBSERVED;
}

static void pd_report(pd_state *pd, ag_tid reporter, const pd_ent *loc,
                      const pd_acc *e1, const pd_acc *e2, ag_tid u, const pd_acc *a)
{
   uint8_t *st = pd_state_of(pd, pd_rbegin(loc), u);
   if (*st != PD_NEW) return;
   *st = PD_PREDICTED;
   ag_ctx *ctx = pd->ctx;
   ag_violation v;
   ag_memzero(&v, sizeof v);
   v.addr = ctx->addr;
   v.size = ctx->size;
   v.flags = ctx->flags;
   v.tid = reporter;
   v.local_tid = loc->tid;
   v.begin_event = pd_rbegin(loc);
   v.begin_site = pd->descs[pd_d(pd, e1)->rb].site;
   v.e1_event = e1->event;
   v.e1_site = pd_d(pd, e1)->site;
   v.e1_flags = pd_fl(pd, e1);
   v.e2_event = e2->event;
   v.e2_site = pd_d(pd, e2)->site;
   v.e2_flags = pd_fl(pd, e2);
   v.other_tid = u;
   v.other_event = a->event;
   v.other_site = pd_d(pd, a)->site;
   v.other_flags = pd_fl(pd, a);
   ag_region *r = &ctx->regions[loc->tid];
   pd_thread *th = &pd->th[loc->tid];
   if (r->depth && r->begin_event == v.begin_event) {     /* still open: wait */
      if (th->npend < PD_MAXPEND) th->pend[th->npend++] = v;
      return;
   }
   ag_ctx_report(ctx, &v);
}

/* t's region ends: what was predicted against it and has not been
   observed since is reported now, at its end. */
static void pd_end(void *self, ag_tid t)
{
   pd_state *pd = self;
   pd_thread *th = pd_th(pd, t);
   for (uint32_t i = 0; i < th->npend; i++) {
      ag_violation *v = &th->pend[i];
      if (*pd_state_of(pd, v->begin_event, v->other_tid) != PD_PREDICTED) continue;
      v->tid = t;
      v->at_end = 1;
      ag_ctx_report(pd->ctx, v);
   }
   th->npend = 0;
}

/* The current access (kind k, event ev) of t as e2 of its region `me`,
   with a remote access a of another thread observed before e1. */
static void pd_check_before(pd_state *pd, const pd_ents *l, pd_ent *me, ag_tid t, int k,
                            const pd_acc *cur, ag_addr addr)
{
   pd_thread *th = &pd->th[t];
   for (int i = 0; i < 2; i++) {
      const pd_acc e1v = pd_first(me, i), *e1 = &e1v;
      if (!e1->event) continue;
      for (uint32_t n = 0; n < l->n; n++) {
         const pd_ent *o = l->e[n];
         if (o->tid == t) continue;
         for (int ka = 0; ka < 2; ka++) {
            const pd_acc av = pd_last(o, ka), *a = &av;
            if (!a->event || !pd_pattern(i, ka, k) || pd_one_rmw(pd, e1, cur)) continue;
            if (a->event > e1->event) {          /* observed between e1 and e2 */
               pd_observed(pd, pd_rbegin(me), o->tid);
               continue;
            }
            if (pd->ctx->blind_since > a->event) continue;   /* unseen since a */
            if (pd_vc_get(&th->vc, o->tid) >= a->clock) continue;   /* a hb e2 */
            if (pd_lset_exclude(pd, pd_held_since(th, e1->event), pd_d(pd, a)->ls)) continue;
            if (pd_rf_other(th, o->tid, addr) > a->event) continue;   /* t read past a */
            pd_report(pd, t, me, e1, cur, o->tid, a);
         }
      }
   }
}

/* Was o's access e (one of its last[]) made in o's region rbegin?  An
   access made inside a region after that region's begin event was made in
   it: rbegin is the region of o's latest access here made inside one, and
   a region is one interval of o's events. */
static inline int pd_in_region(const pd_state *pd, const pd_ent *o, const pd_acc *e)
{
   return (pd_d(pd, e)->flags & PD_INREG) && e->event > pd_rbegin(o);
}

/* The current access of t (kind ka) as the remote access a, after e2, for
   the latest regions of other threads that touched this location. */
static void pd_check_after(pd_state *pd, const pd_ents *l, ag_tid t, int ka, const pd_acc *a,
                           ag_addr addr)
{
   pd_thread *th = &pd->th[t];
   for (uint32_t n = 0; n < l->n; n++) {
      const pd_ent *o = l->e[n];
      if (o->tid == t || !pd_rbegin(o)) continue;
      for (int i = 0; i < 2; i++) {
         const pd_acc e1v = pd_first(o, i), *e1 = &e1v;
         if (!e1->event) continue;
         for (int j = 0; j < 2; j++) {
            const pd_acc e2v = pd_last(o, j), *e2 = &e2v;
            if (!pd_in_region(pd, o, e2) || e2->event <= e1->event || !pd_pattern(i, ka, j)
                || pd_one_rmw(pd, e1, e2))
               continue;
            if (pd->ctx->blind_since > e2->event) continue;   /* unseen since e2 */
            if (pd_vc_get(&th->vc, o->tid) >= e2->clock) continue;   /* e2 hb a */
            if (pd_lset_exclude(pd, pd->h12s[o->h12].s[i][j], pd_d(pd, a)->ls)) continue;
            if (pd_rf_other(th, o->tid, addr) > e2->event) continue;   /* u read past e2 */
            pd_report(pd, t, o, e1, e2, t, a);
         }
      }
   }
}

static void pd_access(void *self, ag_tid t, void *loc, ag_addr loc_addr, unsigned flags)
{
   pd_state *pd = self;
   ag_ctx *ctx = pd->ctx;
   pd_thread *th = pd_th(pd, t);
   pd_rec *r = loc;
   /* reads-from is kept by the access's address, the same for every
      location a split access covers (loc_addr is this location's) */
   (void)loc_addr;
   ag_addr addr = ctx->addr;
   int k = (flags & AG_WRITE) ? 1 : 0;
   uint64_t rb = ctx->regions[t].depth ? ctx->regions[t].begin_event : 0;
   AG_ASSERT(!(flags & PD_INREG) && ctx->event <= PD_EV_MASK);
   pd_acc cur = { ctx->event, pd_vc_get(&th->vc, t),
                  pd_desc_id(pd, ctx->site, pd_lockset(th), flags | (rb ? PD_INREG : 0), 0) };
   pd_ent *me = NULL;
   /* only t has touched the location: nothing to check (the common case) */
   if (r->e0.tid != PD_NOTID && (r->e0.tid != t || pd_more(r))) {
      pd_ents l;
      pd_list(r, &l);
      for (uint32_t i = 0; i < l.n; i++)
         if (l.e[i]->tid == t) me = l.e[i];
      if (rb && me && pd_rbegin(me) == rb) pd_check_before(pd, &l, me, t, k, &cur, addr);
      pd_check_after(pd, &l, t, k, &cur, addr);
      if (!k) pd_rf_note(pd, th, &l, t, addr);
   } else if (r->e0.tid == t) {
      me = &r->e0;
   }
   if (!me) me = pd_new_entry(pd, r, t);
   if (rb) {
      if (pd_rbegin(me) != rb) {
         pd_set_rbegin(me, rb);
         me->foff[0] = me->foff[1] = 0;
      }
      /* (a first access more than 2^32 events into its region is not
         kept: only fewer patterns are seen) */
      if (!me->foff[k] && cur.event - rb <= 0xffffffffu) {
         me->foff[k] = (uint32_t)(cur.event - rb);
         me->fdesc[k] = pd_desc_id(pd, ctx->site, pd_lockset(th), flags | PD_INREG,
                                   pd_desc_id(pd, ctx->regions[t].begin_site, 0, 0, 0));
      }
      pd_h12 q = pd->h12s[me->h12];
      for (int i = 0; i < 2; i++)
         if (me->foff[i]) q.s[i][k] = pd_held_since(th, pd_first(me, i).event);
      if (q.s[0][k] != pd->h12s[me->h12].s[0][k] || q.s[1][k] != pd->h12s[me->h12].s[1][k])
         me->h12 = pd_h12_id(pd, &q);
   }
   pd_set_last(me, k, cur);
}

/* ---- synchronisation --------------------------------------------- */

static void pd_thread_new(void *self, ag_tid t)
{
   pd_thread *th = pd_th(self, t);
   if (th->known) return;
   th->known = 1;
   pd_vc_grow(&th->vc, t + 1);
   if (!th->vc.c[t]) th->vc.c[t] = 1;
}

static void pd_acquire(void *self, ag_tid t, ag_addr lock, int shared)
{
   pd_state *pd = self;
   pd_thread *th = pd_th(pd, t);
   if (th->nheld == th->capheld) {
      th->capheld = th->capheld ? 2 * th->capheld : 4;
      th->held = ag_realloc(th->held, th->capheld * sizeof(pd_held));
   }
   th->held[th->nheld].key = (lock << 1) | (shared ? 1 : 0);
   th->held[th->nheld].acq_event = pd->ctx->event;
   th->nheld++;
   pd_prefixes(pd, th, th->nheld - 1);
}

/* A sync-object operation: ordered after the previous one on obj. */
static void pd_sync_op(pd_state *pd, ag_tid t, ag_addr obj)
{
   pd_thread *th = &pd->th[t];
   pd_vc *s = ag_map_lookup(pd->sync, obj, NULL);
   pd_vc_join(&th->vc, s);
   pd_vc_join(s, &th->vc);
   pd_vc_tick(&th->vc, t);
}

static void pd_release(void *self, ag_tid t, ag_addr lock, int shared)
{
   pd_state *pd = self;
   pd_thread *th = pd_th(pd, t);
   uint64_t key = (lock << 1) | (shared ? 1 : 0);
   uint32_t i = th->nheld;
   while (i > 0 && th->held[i - 1].key != key) i--;
   if (i == 0) return;                       /* not held: nothing to undo */
   i--;
   *(uint64_t *)ag_map_lookup(pd->last_rel, lock, NULL) = pd->ctx->event;
   int sync = i == th->nheld - 1 && th->held[i].acq_event + 1 == pd->ctx->event;
   for (uint32_t j = i + 1; j < th->nheld; j++) th->held[j - 1] = th->held[j];
   th->nheld--;
   pd_prefixes(pd, th, i);
   if (sync) pd_sync_op(pd, t, lock);
}

static void pd_fork(void *self, ag_tid parent, ag_tid child)
{
   pd_state *pd = self;
   pd_thread_new(pd, child);
   pd_thread *p = pd_th(pd, parent), *c = pd_th(pd, child);
   pd_vc_join(&c->vc, &p->vc);
   pd_vc_tick(&p->vc, parent);
}

/* The joined thread has exited: its clock is no longer needed (accesses
   keep their own clock values), so memory follows the live threads. */
static void pd_join(void *self, ag_tid joiner, ag_tid child)
{
   pd_state *pd = self;
   pd_thread *c = pd_th(pd, child), *j = pd_th(pd, joiner);
   pd_vc_join(&j->vc, &c->vc);
   if (!pd->ctx->regions[child].live) {
      ag_free(c->vc.c);
      c->vc.c = NULL;
      c->vc.n = 0;
   }
}

static void pd_thread_exit(void *self, ag_tid t)
{
   pd_thread *th = pd_th(self, t);
   ag_free(th->held);
   th->held = NULL;
   if (th->rf) ag_map_delete(th->rf);
   th->rf = NULL;
   th->nheld = th->capheld = 0;
   th->npend = 0;
}

static void pd_lock_forget(void *self, ag_addr lock)
{
   pd_state *pd = self;
   pd_vc *s = ag_map_get(pd->sync, lock);
   if (s) {
      ag_free(s->c);
      s->c = NULL;
      s->n = 0;
   }
}

static void pd_nop(void *self, ag_tid t) { (void)self; (void)t; }

/* ---- lifetime ---------------------------------------------------- */

static void *pd_create(ag_ctx *ctx)
{
   pd_state *pd = ag_calloc(1, sizeof *pd);
   pd->ctx = ctx;
   pd->sync = ag_map_new(sizeof(pd_vc));
   pd->last_rel = ag_map_new(sizeof(uint64_t));
   pd->done = ag_map_new(1);
   pd->lset_idx = ag_map_new(sizeof(pd_lset_slot));
   pd->desc_idx = ag_map_new(sizeof(pd_desc_slot));
   for (uint32_t i = 0; i < PD_DCACHE; i++) pd->dcache[i].flags = ~0u;   /* matches no access */
   pd->caplsets = 16;
   pd->lsets = ag_calloc(pd->caplsets, sizeof(pd_lset));
   pd->nlsets = 1;                           /* id 0: the empty set */
   pd->h12_idx = ag_map_new(sizeof(pd_h12_slot));
   pd->caph12s = 16;
   pd->h12s = ag_calloc(pd->caph12s, sizeof(pd_h12));
   pd->nh12s = 1;                            /* id 0: all four empty */
   return pd;
}

static void pd_free_vc(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   ag_free(((pd_vc *)rec)->c);
}

static void pd_destroy(void *self)
{
   pd_state *pd = self;
   for (uint32_t t = 0; t < pd->nth; t++) {
      ag_free(pd->th[t].vc.c);
      ag_free(pd->th[t].held);
      if (pd->th[t].rf) ag_map_delete(pd->th[t].rf);
   }
   ag_free(pd->th);
   ag_map_foreach(pd->sync, pd_free_vc, NULL);
   ag_map_delete(pd->sync);
   ag_map_delete(pd->last_rel);
   ag_map_delete(pd->done);
   ag_map_delete(pd->lset_idx);
   ag_map_delete(pd->desc_idx);
   ag_map_delete(pd->h12_idx);
   ag_free(pd->h12s);
   ag_free(pd->descs);
   ag_slab_release(&pd->more);
   for (uint32_t i = 0; i < pd->nlsets; i++) ag_free(pd->lsets[i].keys);
   ag_free(pd->lsets);
   ag_free(pd);
}

/* The further entries' slabs (kept until pd_destroy or a locs_reset:
   their peak) */
static uint64_t pd_locs_heap(void *self) { return ((pd_state *)self)->more.bytes; }

static uint64_t pd_heap_peak(void *self)
{
   const pd_state *pd = self;
   return pd->more.bytes > pd->more_peak ? pd->more.bytes : pd->more_peak;
}

/* cfg.loc_budget reached: the dispatcher made a fresh shadow and set
   ctx->blind_since, so no prediction has a side before this event (every
   entry is gone) nor a stretch across it; the reads-from rule's pd_rf
   (thread state, kept) only forbids more.  Every prediction made after
   is one the engine would make on the run's accesses from here on. */
static void pd_locs_reset(void *self)
{
   pd_state *pd = self;
   pd->more_peak = pd_heap_peak(pd);
   ag_slab_release(&pd->more);
}
static uint64_t pd_cache_misses(void *self) { return ((pd_state *)self)->dmisses; }

const ag_engine_ops ag_predict_ops = {
   .name = "predict",
   .help = "predicted atomicity violations (AVIO patterns under hb and locks)",
   .kind = AG_KIND_PREDICT,
   .loc_size = sizeof(pd_rec),
   .create = pd_create,
   .destroy = pd_destroy,
   .loc_init = pd_loc_init,
   .loc_copy = pd_loc_copy,
   .loc_fini = pd_loc_fini,
   .locs_die_with_engine = pd_locs_die,
   .thread_new = pd_thread_new,
   .thread_exit = pd_thread_exit,
   .begin = pd_nop,
   .end = pd_end,
   .access_start = NULL,
   .access = pd_access,
   .acquire = pd_acquire,
   .release = pd_release,
   .fork = pd_fork,
   .join = pd_join,
   .access_done = NULL,
   .lock_forget = pd_lock_forget,
   .locs_reset = pd_locs_reset,
   .locs_heap = pd_locs_heap,
   .heap_peak = pd_heap_peak,
   .cache_misses = pd_cache_misses,
};
