/* ag_engine.c -- the dispatcher between front-ends and engines: event
 * numbering, region nesting, shadow memory, per-event report de-duplication,
 * sampling activation.  See ag_engine.h.  (The registry of engines is
 * ag_registry.c, above the engines, which call in here.) */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_sampler.h"        /* cfg.access_windows */
#include "ag_shadow.h"
#include "ag_shim.h"

/* ---- instance ---------------------------------------------------- */

int ag_engine_join_bytes = 1;

/* What the dispatcher keeps per lock: whether the engine has state for it
   (see ag_forget_lock), and for reports closed by an acquire, who last
   acquired and released it.  An exclusive holder releases what it
   acquired; a reader's acquire may be overwritten by another reader's
   (its release then names no acquire). */
typedef struct {
   ag_tid tid;
   uint64_t acq_event; ag_site acq_site; uint64_t rel_event; ag_site rel_site;
} ag_lock_use;

typedef struct {
   uint8_t known;              /* first byte: the engine has lock state */
   ag_lock_use acq;            /* the latest acquire (rel_* unused) */
   ag_lock_use rel[2];         /* the last two releases by different
                                  threads, newest first */
} ag_lock_hist;

struct ag_engine {
   const ag_engine_ops *ops;
   void *self;                 /* engine state; NULL while inactive */
   ag_shadow *shadow;
   ag_map *locks;              /* lock address -> ag_lock_hist */
   ag_ctx ctx;
   uint32_t cap;               /* capacity of ctx.regions */
   ag_report_fn report;
   void *cookie;
   int active;
   int quiesce;                /* accesses outside regions are not needed
                                  (ag_quiescent) */
   uint32_t open;              /* threads inside a region */
   uint64_t analysed, reports;
   uint64_t shadow_peak;       /* of the shadows already deleted (sampling) */
   uint64_t heap_peak;         /* of the engine instances already destroyed */
   uint64_t cache_misses;      /* of the engine instances already destroyed */
   uint64_t loc_resets;        /* cfg.loc_budget reached (ag_engine_reset_locs) */
   uint64_t last_report_event;
   ag_addr acq_lock;           /* the acquire being dispatched, 0 if none */
   int acq_shared;
   /* atomic objects (race engines with atomic_mark): address of an atomic
      access -> ag_atomic_rec; kept while the engine is inactive, so that
      a restarted engine knows them (ag_atomic_replay) */
   ag_map *atomics;
   uint64_t atomic_seq;
   uint32_t atomic_max;        /* the largest atomic object's size */
   /* a byte loop's word is joined at its last byte (ag_shadow_join_bytes),
      if the engine can tell equal locations (ops->loc_equal): FastTrack's
      byte loops leave equal ones (one thread, one epoch, one instruction),
      AtomSanitizer's inside a region (one transaction) */
   int join_bytes;
   /* cfg.access_windows: which accesses are sent (ag_send) */
   ag_sampler *win;
   uint64_t win_clock;         /* accesses offered so far */
   uint64_t win_sent;          /* ... and sent */
   uint64_t win_next;          /* ... at which to ask the sampler again */
   int win_on;
   uint32_t held;              /* locks held now, all threads */
   /* a drop waiting for held == 0 (ag_drop_when_free): 1, or 2 for one
      that counts in loc_resets; no access is sent meanwhile */
   int drop_pending;
   uint32_t nobs;              /* observers (ag_engine_observe) */
   ag_observer obs[AG_MAX_OBSERVERS];
};

/* The atomic objects at one address: up to AG_ATOMIC_SIZES sizes (more is
   unheard of; the oldest gives way), each with the sequence number of its
   latest atomic access, so a restart replays them in order.  Size 0: an
   empty slot. */
#define AG_ATOMIC_SIZES 4
typedef struct {
   uint64_t seq[AG_ATOMIC_SIZES];
   uint32_t size[AG_ATOMIC_SIZES];
} ag_atomic_rec;

static void ag_atomic_replay(ag_engine *e);

static void ag_engine_start(ag_engine *e)
{
   e->self = e->ops->create(&e->ctx);
   e->shadow = ag_shadow_new(e->ops, e->self);
   e->locks = ag_map_new(sizeof(ag_lock_hist));
   if (e->atomics) ag_atomic_replay(e);
}

static void ag_engine_stop(ag_engine *e)
{
   if (ag_shadow_peak(e->shadow) > e->shadow_peak) e->shadow_peak = ag_shadow_peak(e->shadow);
   ag_shadow_delete(e->shadow);
   ag_map_delete(e->locks);
   e->heap_peak = ag_engine_heap_peak(e);
   e->cache_misses = ag_engine_cache_misses(e);
   e->ops->destroy(e->self);
   e->shadow = NULL;
   e->locks = NULL;
   e->self = NULL;
}

/* Every location's state, dropped; nothing is predicted across the drop. */
static void ag_drop_locs(ag_engine *e)
{
   if (ag_shadow_peak(e->shadow) > e->shadow_peak) e->shadow_peak = ag_shadow_peak(e->shadow);
   ag_shadow_delete(e->shadow);      /* without loc_fini: locs_reset frees */
   e->ctx.blind_since = e->ctx.event;
   e->ops->locs_reset(e->self);
   e->shadow = ag_shadow_new(e->ops, e->self);
   if (e->atomics) ag_atomic_replay(e);
   if (e->drop_pending == 2) e->loc_resets++;
   e->drop_pending = 0;
}

/* A drop is made while no thread holds a lock: prediction takes a value
   read under a lock its writer also held as written at the writer's
   release (what rules out a hand-off through a locked queue), so a write
   dropped inside a critical section would let the rest of the section,
   after the drop, be predicted as if the hand-off were not there.  Asked
   for under a lock, it is made at the release that frees the last one,
   and until then no access is sent (what the drop would forget). */
static void ag_drop_when_free(ag_engine *e, int counted)
{
   if (!e->self) return;
   if (e->drop_pending < 1 + counted) e->drop_pending = 1 + counted;
   if (e->held == 0) ag_drop_locs(e);
}

void ag_engine_reset_locs(ag_engine *e)
{
   if (e->ops->locs_reset) ag_drop_when_free(e, 1);
}

/* Over cfg.loc_budget?  Asked where locations are made (an access that
   was not to one existing location), not on the hot path: the budget is
   overshot by what one access makes, and by what engines keep beside the
   shadow (prediction's further entries) made in between. */
static inline void ag_loc_budget(ag_engine *e)
{
   if (__builtin_expect(e->ctx.cfg.loc_budget != 0, 0) && !e->drop_pending
       && ag_shadow_footprint(e->shadow)
          + (e->ops->locs_heap ? e->ops->locs_heap(e->self) : 0) > e->ctx.cfg.loc_budget)
      ag_engine_reset_locs(e);
}

/* ---- accesses in windows (cfg.access_windows) ------------------- */

static void ag_win_new(ag_engine *e)
{
   if (!e->ctx.cfg.access_windows || !e->ops->locs_reset) return;
   e->win = ag_calloc(1, sizeof *e->win);
   ag_sampler_init(e->win, e->ctx.cfg.win_epsilon, e->ctx.cfg.win_delta, e->ctx.cfg.win_seed);
   ag_sampler_override(e->win, e->ctx.cfg.win_r, e->ctx.cfg.win_k);
   e->win_on = 1;
}

/* The sampler's windows, and every access before cfg.win_whole (where its
   own whole-run prefix usually ends first).  A window ends with a drop
   (ag_drop_when_free), and opens only while no lock is held: a write made
   in the gap inside a critical section that goes on into the window is
   the case ag_drop_when_free is about.  Until then it asks again at
   every access. */
static void ag_win_tick(ag_engine *e)
{
   uint64_t whole = e->ctx.cfg.win_whole;
   ag_sampler_note_threads(e->win, e->ctx.nthreads);
   ag_sampler_note_locks_held(e->win, e->held);
   int on = ag_sampler_advance(e->win, e->win_clock) || e->win_clock < whole;
   e->win_next = ag_sampler_next_change(e->win);
   if (e->win_clock < whole && e->win_next > whole) e->win_next = whole;
   if (on == e->win_on) return;
   if (on && e->held) {                      /* opens when no lock is held */
      e->win_next = e->win_clock + 1;
      return;
   }
   e->win_on = on;
   if (!on) ag_drop_when_free(e, 0);         /* a window ends */
}

/* Is the window open for the access being dispatched?  (Time is counted
   in the accesses offered: the position of this one is those before.) */
static inline int ag_win_open(ag_engine *e)
{
   if (e->win_clock >= e->win_next) ag_win_tick(e);
   e->win_clock++;
   return e->win_on;
}

/* Is the access being dispatched sent to the engine?  Not between
   windows, nor while a drop waits for the locks (it would forget it). */
static int ag_send(ag_engine *e)
{
   if ((e->win && !ag_win_open(e)) || e->drop_pending) return 0;
   if (e->win) e->win_sent++;
   return 1;
}

uint64_t ag_engine_win_offered(const ag_engine *e) { return e->win ? e->win_clock : 0; }
uint64_t ag_engine_win_sent(const ag_engine *e) { return e->win ? e->win_sent : 0; }
uint64_t ag_engine_win_windows(const ag_engine *e)
{
   return e->win ? ag_sampler_windows(e->win) : 0;
}

ag_engine *ag_engine_new(const ag_engine_ops *ops, const ag_config *cfg,
                         ag_report_fn report, void *cookie)
{
   ag_engine *e = ag_calloc(1, sizeof *e);
   e->ops = ops;
   if (cfg) e->ctx.cfg = *cfg;
   e->ctx.disp = e;
   e->report = report;
   e->cookie = cookie;
   e->active = 1;
   e->quiesce = (ops->kind == AG_KIND_ATOMICITY
                 || (ops->kind == AG_KIND_PREDICT && e->ctx.cfg.predict_in_regions))
                && !e->ctx.cfg.keep_quiescent;
   e->join_bytes = ag_engine_join_bytes && ops->loc_equal != NULL;
   if (ops->atomic_mark) e->atomics = ag_map_new(sizeof(ag_atomic_rec));
   ag_win_new(e);
   ag_engine_start(e);
   return e;
}

void ag_engine_delete(ag_engine *e)
{
   if (!e) return;
   if (e->self) ag_engine_stop(e);
   if (e->atomics) ag_map_delete(e->atomics);
   ag_free(e->win);
   ag_free(e->ctx.regions);
   ag_free(e);
}

const ag_engine_ops *ag_engine_ops_of(const ag_engine *e) { return e->ops; }

/* ---- reports ----------------------------------------------------- */

/* An acquire closed the cycle: where the other thread last took and
   released the lock, and where v's thread let it go inside its region. */
static void ag_report_lock_uses(ag_engine *e, ag_violation *v)
{
   const ag_lock_hist *h = ag_map_get(e->locks, e->acq_lock);
   if (!h) return;
   if (v->other_tid != AG_NO_TID && h->rel[0].rel_event && h->rel[0].tid == v->other_tid) {
      v->lock_acq_event = h->rel[0].acq_event;
      v->lock_acq_site = h->rel[0].acq_site;
      v->lock_rel_event = h->rel[0].rel_event;
      v->lock_rel_site = h->rel[0].rel_site;
   }
   for (int i = 0; i < 2; i++)
      if (h->rel[i].rel_event && h->rel[i].tid == v->tid
          && h->rel[i].rel_event > v->begin_event && v->begin_event) {
         v->own_rel_event = h->rel[i].rel_event;
         v->own_rel_site = h->rel[i].rel_site;
         break;
      }
}

static int ag_ctx_report_predicted(ag_engine *e, ag_violation *v)
{
   v->engine = e->ops->name;
   v->kind = e->ops->kind;
   v->event = e->ctx.event;
   v->site = e->ctx.site;
   e->reports++;
   if (e->report) e->report(e->cookie, v);
   return 1;
}

int ag_ctx_report(ag_ctx *ctx, ag_violation *v)
{
   ag_engine *e = ctx->disp;
   if (e->ops->kind == AG_KIND_PREDICT) return ag_ctx_report_predicted(e, v);
   if (e->last_report_event == ctx->event) return 0;   /* one per event */
   ag_region *r = v->tid < ctx->nthreads ? &ctx->regions[v->tid] : NULL;
   if (e->ops->kind == AG_KIND_ATOMICITY && r && r->begin_event) {
      if (r->reported && r->reported_other == v->other_tid) return 0;
      r->reported = 1;
      r->reported_other = v->other_tid;
   }
   e->last_report_event = ctx->event;
   if (r && r->begin_event) {
      v->begin_event = r->begin_event;
      v->begin_site = r->begin_site;
   }
   v->engine = e->ops->name;
   v->kind = e->ops->kind;
   v->event = ctx->event;
   v->site = ctx->site;
   if (ctx->size) {
      v->addr = ctx->addr;
      v->size = ctx->size;
      v->flags = ctx->flags;
   }
   if (e->acq_lock) {
      v->lock = e->acq_lock;
      v->shared = e->acq_shared;
      ag_report_lock_uses(e, v);
   }
   e->reports++;
   if (e->report) e->report(e->cookie, v);
   return 1;
}

int ag_ctx_lock_held(ag_ctx *ctx, ag_tid a, uint64_t *acq_event, uint64_t *rel_event)
{
   ag_engine *e = ctx->disp;
   const ag_lock_hist *h = e->acq_lock ? ag_map_get(e->locks, e->acq_lock) : NULL;
   if (!h || !h->rel[0].rel_event || h->rel[0].tid != a || !h->rel[0].acq_event) return 0;
   *acq_event = h->rel[0].acq_event;
   *rel_event = h->rel[0].rel_event;
   return 1;
}

void ag_ctx_other_region(ag_ctx *ctx, ag_violation *v, ag_tid u)
{
   if (u < ctx->nthreads && ctx->regions[u].begin_event) {
      v->other_begin_event = ctx->regions[u].begin_event;
      v->other_begin_site = ctx->regions[u].begin_site;
   }
}

/* ---- events ------------------------------------------------------ */

void ag_ev_thread_new(ag_engine *e, ag_tid t)
{
   if (t == AG_NO_TID) return;
   if (t >= e->cap) {
      uint32_t ncap = e->cap ? e->cap : 8;
      while (ncap <= t) ncap *= 2;
      e->ctx.regions = ag_realloc(e->ctx.regions, ncap * sizeof(ag_region));
      ag_memzero(e->ctx.regions + e->cap, (ncap - e->cap) * sizeof(ag_region));
      e->cap = ncap;
   }
   if (t >= e->ctx.nthreads) e->ctx.nthreads = t + 1;
   if (e->ctx.regions[t].live) return;
   e->ctx.regions[t].live = 1;
   if (e->active) e->ops->thread_new(e->self, t);
}

/* Start an event: count it, check the thread.  Returns 1 if it must be
   forwarded to the engine: the engine is active and `wanted` it. */
static inline int ag_event_if(ag_engine *e, ag_tid t, ag_site site, int wanted, int *bad)
{
   e->ctx.event++;
   e->ctx.site = site;
   *bad = !(t < e->ctx.nthreads && e->ctx.regions[t].live);
   if (*bad || !e->active || !wanted) return 0;
   e->analysed++;
   return 1;
}

static int ag_event(ag_engine *e, ag_tid t, ag_site site, int *bad)
{
   return ag_event_if(e, t, site, 1, bad);
}

int ag_engine_observe(ag_engine *e, const ag_observer *o)
{
   if (e->nobs == AG_MAX_OBSERVERS) return -1;
   e->obs[e->nobs++] = *o;
   return 0;
}

static __attribute__((noinline, cold)) void ag_publish_now(ag_engine *e, int kind, ag_tid t,
                                                           uint64_t a, unsigned size, int shared)
{
   ag_xp_event ev = { e->ctx.event, kind, t, a, size, shared };
   for (uint32_t i = 0; i < e->nobs; i++) e->obs[i].event(e->obs[i].cookie, &ev);
}

/* The event just numbered, to the observers (right after ag_event). */
static inline void ag_publish(ag_engine *e, int kind, ag_tid t, uint64_t a, unsigned size,
                              int shared)
{
   if (__builtin_expect(e->nobs != 0, 0)) ag_publish_now(e, kind, t, a, size, shared);
}

/* While no thread is inside a region, an access cannot lie on a cycle of
   transactions: a cycle through it would have to lead from a later event
   back to an earlier one, and only a transaction spanning that moment
   (an open region) can do that.  The same holds for every event before
   and after, so such accesses are not needed for any later cycle either:
   atomicity engines do not see them (see ag_engine.h). */
static inline int ag_quiescent(const ag_engine *e)
{
   return e->quiesce && e->open == 0;
}

int ag_ev_begin(ag_engine *e, ag_tid t, ag_site site)
{
   int bad, fwd = ag_event(e, t, site, &bad);
   ag_publish(e, AG_XE_BEGIN, t, 0, 0, 0);
   if (bad) return AG_MISUSE_BAD_TID;
   ag_region *r = &e->ctx.regions[t];
   if (r->depth++ == 0) {
      e->open++;
      r->begin_event = e->ctx.event;
      r->begin_site = site;
      r->reported = 0;
      if (fwd) e->ops->begin(e->self, t);
   }
   return AG_OK;
}

static void ag_close_region(ag_engine *e, ag_tid t, int fwd)
{
   ag_region *r = &e->ctx.regions[t];
   if (fwd) e->ops->end(e->self, t);
   if (--e->open == 0 && e->quiesce) e->ctx.blind_since = e->ctx.event;
   r->begin_event = 0;
   r->begin_site = 0;
}

int ag_ev_end(ag_engine *e, ag_tid t, ag_site site)
{
   int bad, fwd = ag_event(e, t, site, &bad);
   ag_publish(e, AG_XE_END, t, 0, 0, 0);
   if (bad) return AG_MISUSE_BAD_TID;
   ag_region *r = &e->ctx.regions[t];
   if (r->depth == 0) return AG_MISUSE_END;
   if (--r->depth == 0) ag_close_region(e, t, fwd);
   return AG_OK;
}

/* ---- atomic objects ---------------------------------------------- */

static void ag_atomic_note(ag_engine *e, ag_addr addr, unsigned size)
{
   ag_atomic_rec *r = ag_map_lookup(e->atomics, addr, NULL);
   unsigned k = 0;
   for (unsigned i = 0; i < AG_ATOMIC_SIZES; i++) {
      if (r->size[i] == size) { k = i; break; }
      if (r->seq[i] < r->seq[k]) k = i;        /* empty slots have seq 0 */
   }
   r->seq[k] = ++e->atomic_seq;
   r->size[k] = size;
   if (size > e->atomic_max) e->atomic_max = size;
}

typedef struct { ag_addr addr; uint64_t seq; uint32_t size; } ag_atomic_ent;
typedef struct { ag_atomic_ent *v; size_t n; } ag_atomic_list;

static void ag_atomic_collect(void *arg, uint64_t key, void *rec)
{
   ag_atomic_list *l = arg;
   const ag_atomic_rec *r = rec;
   for (unsigned i = 0; i < AG_ATOMIC_SIZES; i++)
      if (r->size[i]) l->v[l->n++] = (ag_atomic_ent){ key, r->seq[i], r->size[i] };
}

/* Sort by seq (merge sort; tmp has n entries). */
static void ag_atomic_sort(ag_atomic_ent *v, ag_atomic_ent *tmp, size_t n)
{
   if (n < 2) return;
   size_t h = n / 2, i = 0, j = h, k = 0;
   ag_atomic_sort(v, tmp, h);
   ag_atomic_sort(v + h, tmp, n - h);
   while (i < h || j < n)
      tmp[k++] = j >= n || (i < h && v[i].seq < v[j].seq) ? v[i++] : v[j++];
   ag_memcopy(v, tmp, n * sizeof *v);
}

typedef struct { ag_engine *e; const ag_atomic_ent *a; } ag_mark_arg;

static void ag_atomic_mark_fn(void *arg, void *loc, ag_addr loc_addr)
{
   ag_mark_arg *m = arg;
   m->e->ops->atomic_mark(m->e->self, loc, loc_addr, m->a->addr, m->a->size);
}

/* A (re)started engine learns the atomic objects, oldest first (where two
   overlap, the later one is what the engine would know). */
static void ag_atomic_replay(ag_engine *e)
{
   size_t n = ag_map_count(e->atomics) * AG_ATOMIC_SIZES;
   if (n == 0) return;
   ag_atomic_list l = { ag_malloc(2 * n * sizeof(ag_atomic_ent)), 0 };
   ag_map_foreach(e->atomics, ag_atomic_collect, &l);
   ag_atomic_sort(l.v, l.v + n, l.n);
   for (size_t i = 0; i < l.n; i++) {
      ag_mark_arg m = { e, &l.v[i] };
      ag_shadow_visit(e->shadow, l.v[i].addr, l.v[i].size, ag_atomic_mark_fn, &m);
   }
   ag_free(l.v);
}

void ag_ev_atomic_seen(ag_engine *e, ag_addr addr, unsigned size)
{
   /* (a spin read is an atomic read for the engines that keep these) */
   if (e->atomics && size) ag_atomic_note(e, addr, size);
}

/* What AG_SPIN, AG_ATOMIC_LS, AG_COMMUTE and AG_PLAIN_RMW are to this
   engine (see ag_engine.h): e->atomics is kept by the race engines only. */
static unsigned ag_idiom_flags(const ag_engine *e, unsigned flags)
{
   unsigned atomic = flags & (AG_SPIN | AG_ATOMIC_LS);
   if ((flags & AG_COMMUTE) && !e->atomics) flags &= ~AG_WRITE;
   /* race engines keep AG_ATOMIC_LS: an object it reveals was atomic
      from its first atomic operation on, not before; and AG_PLAIN_RMW
      (ag_fasttrack.c) */
   flags &= ~(AG_SPIN | AG_COMMUTE | (e->atomics ? 0 : AG_ATOMIC_LS | AG_PLAIN_RMW));
   return atomic && e->atomics ? flags | AG_ATOMIC : flags;
}

int ag_ev_access(ag_engine *e, ag_tid t, ag_addr addr, unsigned size,
                 unsigned flags, ag_site site)
{
   int bad, fwd = ag_event_if(e, t, site, size != 0 && !ag_quiescent(e), &bad);
   ag_publish(e, flags & AG_WRITE ? AG_XE_WRITE : AG_XE_READ, t, addr, size, 0);
   if (bad) return AG_MISUSE_BAD_TID;
   if (__builtin_expect(flags & (AG_SPIN | AG_ATOMIC_LS | AG_COMMUTE | AG_PLAIN_RMW), 0))
      flags = ag_idiom_flags(e, flags);
   if (__builtin_expect(flags & AG_ATOMIC, 0) && e->atomics && size)
      ag_atomic_note(e, addr, size);
   if (!fwd) return AG_OK;
   if (__builtin_expect(e->win != NULL || e->drop_pending, 0) && !ag_send(e)) {
      e->analysed--;                     /* offered, not sent */
      return AG_OK;
   }
   e->ctx.flags = flags;
   e->ctx.addr = addr;
   e->ctx.size = size;
   const ag_engine_ops *ops = e->ops;
   /* look the location up first and prefetch it: the engine's per-event
      work in access_start then overlaps the likely cache miss */
   void *loc = ag_shadow_loc1(e->shadow, addr, size);
   if (__builtin_expect(loc != NULL, 1)) __builtin_prefetch(loc, 1);
   /* an unaligned or partial access with nothing for the engine to do: a
      byte loop over a word the thread has just read whole, say, costs no
      division of the word (and no join after it) */
   else if (ops->access_idle && ag_shadow_idle(e->shadow, addr, size, t, flags)) {
      e->ctx.size = 0;
      return AG_OK;
   }
   if (ops->access_start) ops->access_start(e->self, t, flags);
   if (__builtin_expect(loc != NULL, 1)) ops->access(e->self, t, loc, addr, flags);
   else ag_shadow_access(e->shadow, addr, size, t, flags);
   if (ops->access_done) ops->access_done(e->self, t);
   if (__builtin_expect(loc == NULL, 0)) ag_loc_budget(e);
   if (__builtin_expect((addr & 7) == 7 && size == 1, 0) && e->join_bytes)
      ag_shadow_join_bytes(e->shadow, addr);
   e->ctx.size = 0;
   return AG_OK;
}

int ag_ev_acquire(ag_engine *e, ag_tid t, ag_addr lock, int shared, ag_site site)
{
   int bad, fwd = ag_event(e, t, site, &bad);
   ag_publish(e, AG_XE_ACQ, t, lock, 0, shared);
   if (bad) return AG_MISUSE_BAD_TID;
   if (fwd) {
      ag_lock_hist *h = ag_map_lookup(e->locks, lock, NULL);
      h->known = 1;
      h->acq.tid = t;
      h->acq.acq_event = e->ctx.event;
      h->acq.acq_site = site;
      e->acq_lock = lock ? lock : 1;
      e->acq_shared = shared;
      e->ops->acquire(e->self, t, lock, shared);
      e->acq_lock = 0;
   }
   e->ctx.regions[t].held++;      /* counted while inactive too (sampling) */
   e->held++;
   return AG_OK;
}

static void ag_lock_note_release(ag_lock_hist *h, ag_tid t, uint64_t event, ag_site site)
{
   if (h->rel[0].rel_event && h->rel[0].tid != t) h->rel[1] = h->rel[0];
   h->rel[0].tid = t;
   h->rel[0].acq_event = h->acq.tid == t ? h->acq.acq_event : 0;
   h->rel[0].acq_site = h->acq.tid == t ? h->acq.acq_site : 0;
   h->rel[0].rel_event = event;
   h->rel[0].rel_site = site;
}

/* t released a lock (or left holding some): a drop waits for none held. */
static void ag_held_release(ag_engine *e, ag_tid t)
{
   ag_region *r = &e->ctx.regions[t];
   if (r->held == 0) return;
   r->held--;
   if (--e->held == 0 && e->drop_pending && e->self) ag_drop_locs(e);
}

int ag_ev_release(ag_engine *e, ag_tid t, ag_addr lock, int shared, ag_site site)
{
   int bad, fwd = ag_event(e, t, site, &bad);
   ag_publish(e, AG_XE_REL, t, lock, 0, shared);
   if (bad) return AG_MISUSE_BAD_TID;
   if (fwd) {
      ag_lock_hist *h = ag_map_lookup(e->locks, lock, NULL);
      h->known = 1;
      ag_lock_note_release(h, t, e->ctx.event, site);
      e->ops->release(e->self, t, lock, shared);
   }
   ag_held_release(e, t);
   return AG_OK;
}

int ag_ev_fork(ag_engine *e, ag_tid parent, ag_tid child, ag_site site)
{
   if (child == AG_NO_TID || child == parent) {
      int bad;
      ag_event(e, parent, site, &bad);
      ag_publish(e, AG_XE_FORK, parent, child, 0, 0);
      return AG_MISUSE_BAD_TID;
   }
   ag_ev_thread_new(e, child);
   int bad, fwd = ag_event(e, parent, site, &bad);
   ag_publish(e, AG_XE_FORK, parent, child, 0, 0);
   if (bad) return AG_MISUSE_BAD_TID;
   if (fwd) e->ops->fork(e->self, parent, child);
   return AG_OK;
}

int ag_ev_join(ag_engine *e, ag_tid joiner, ag_tid child, ag_site site)
{
   int bad, fwd = ag_event(e, joiner, site, &bad);
   ag_publish(e, AG_XE_JOIN, joiner, child, 0, 0);
   if (bad || child >= e->ctx.nthreads || child == joiner) return AG_MISUSE_BAD_TID;
   if (fwd) e->ops->join(e->self, joiner, child);
   return AG_OK;
}

int ag_ev_thread_exit(ag_engine *e, ag_tid t)
{
   for (uint32_t i = 0; i < e->nobs; i++)
      if (e->obs[i].thread_exit) e->obs[i].thread_exit(e->obs[i].cookie, t);
   if (!(t < e->ctx.nthreads && e->ctx.regions[t].live)) return AG_MISUSE_BAD_TID;
   ag_region *r = &e->ctx.regions[t];
   int rc = AG_OK;
   while (r->held) ag_held_release(e, t);   /* its locks are nobody's now */
   if (r->depth) {
      r->depth = 0;
      ag_close_region(e, t, e->active);
      rc = AG_MISUSE_OPEN_EXIT;
   }
   r->live = 0;
   if (e->active && e->ops->thread_exit) e->ops->thread_exit(e->self, t);
   return rc;
}

/* Forgetting the keys of a map that lie in a range: fn(e, key, rec) for
   each record that is still known. */
typedef void (*ag_key_fn)(void *arg, uint64_t key, void *rec);

/* fn(arg, key, rec) for each key of m in [addr, addr + len) */
static void ag_keys_in(ag_map *m, ag_addr addr, uint64_t len, ag_key_fn fn, void *arg)
{
   ag_addr hi = addr + len < addr ? ~(ag_addr)0 : addr + len;
   ag_map_foreach_in(m, addr, hi, fn, arg);
}

typedef void (*ag_forget_fn)(ag_engine *e, ag_addr key, void *rec);
typedef struct { ag_engine *e; ag_forget_fn fn; } ag_forget_arg;

static void ag_forget_one(void *arg, uint64_t key, void *rec)
{
   ag_forget_arg *f = arg;
   f->fn(f->e, key, rec);
}

/* fn(e, key, rec) for each record of m in the range that is still known. */
static void ag_forget_keys(ag_engine *e, ag_map *m, ag_addr addr, uint64_t len,
                           ag_forget_fn fn)
{
   ag_forget_arg f = { e, fn };
   ag_keys_in(m, addr, len, ag_forget_one, &f);
}

static void ag_forget_lock(ag_engine *e, ag_addr lock, void *rec)
{
   ag_lock_hist *h = rec;
   if (!h->known) return;
   ag_memzero(h, sizeof *h);
   e->ops->lock_forget(e->self, lock);
}

/* An atomic object's sync clock lives with the engine's lock state. */
static void ag_forget_atomic(ag_engine *e, ag_addr addr, void *rec)
{
   ag_atomic_rec *r = rec;
   unsigned known = 0;
   for (unsigned i = 0; i < AG_ATOMIC_SIZES; i++) known |= r->size[i];
   if (!known) return;
   ag_memzero(r, sizeof *r);
   if (e->active && e->ops->lock_forget) e->ops->lock_forget(e->self, addr);
}

/* Widening a freed range over the atomic objects it touches. */
typedef struct { ag_addr lo, hi; int grew; } ag_widen;

static void ag_widen_key(void *arg, uint64_t key, void *rec)
{
   ag_widen *w = arg;
   const ag_atomic_rec *r = rec;
   for (unsigned i = 0; i < AG_ATOMIC_SIZES; i++) {
      if (!r->size[i] || key >= w->hi || key + r->size[i] <= w->lo) continue;
      if (key < w->lo) { w->lo = key; w->grew = 1; }
      if (key + r->size[i] > w->hi) { w->hi = key + r->size[i]; w->grew = 1; }
   }
}

/* A free of part of an atomic object destroys all of it: the range grows
   to cover every object it touches (until none sticks out), so that what
   a restarted engine replays (ag_atomic_replay) is what the running one
   kept -- an object replayed whole over bytes freed since would make a
   window report what the full analysis does not.  Malloc'd blocks, pages
   and stack frames never split an object: this is for odd programs. */
static void ag_atomic_widen(ag_engine *e, ag_addr *addr, uint64_t *len)
{
   if (ag_map_count(e->atomics) == 0 || *len == 0 || *addr + *len < *addr) return;
   ag_widen w = { *addr, *addr + *len, 1 };
   while (w.grew) {              /* objects start at most atomic_max - 1 below */
      w.grew = 0;
      ag_addr from = w.lo > e->atomic_max ? w.lo - e->atomic_max + 1 : 0;
      ag_keys_in(e->atomics, from, w.hi - from, ag_widen_key, &w);
   }
   *addr = w.lo;
   *len = w.hi - w.lo;
}

/* The forget, keeping the state of [keep, keep + nkeep) (a freed block's,
   for a race engine) but not its atomic objects nor its locks. */
static void ag_forget_but(ag_engine *e, ag_addr addr, uint64_t len, ag_addr keep, uint64_t nkeep)
{
   ag_addr lo = addr;
   uint64_t n = len;
   if (e->atomics) {
      ag_atomic_widen(e, &lo, &n);
      ag_forget_keys(e, e->atomics, lo, n, ag_forget_atomic);
   }
   if (!e->active) return;
   if (nkeep == 0) {
      ag_shadow_forget(e->shadow, lo, n);
   } else {       /* what the widening added around the block goes */
      ag_shadow_forget(e->shadow, lo, keep - lo);
      ag_shadow_forget(e->shadow, keep + nkeep, lo + n - (keep + nkeep));
   }
   if (e->ops->lock_forget) ag_forget_keys(e, e->locks, addr, len, ag_forget_lock);
}

void ag_ev_forget(ag_engine *e, ag_addr addr, uint64_t len) { ag_forget_but(e, addr, len, 0, 0); }

int ag_ev_free(ag_engine *e, ag_tid t, ag_addr addr, uint64_t len, ag_site site)
{
   int rc = AG_OK;
   if (e->ops->kind == AG_KIND_RACE && len) {
      int bad, fwd = ag_event(e, t, site, &bad);
      ag_publish(e, AG_XE_WRITE, t, addr, len > 0xffffffffu ? 0xffffffffu : (unsigned)len, 0);
      if (bad) rc = AG_MISUSE_BAD_TID;
      else if (fwd) {
         e->ctx.flags = AG_WRITE | AG_FREE;
         e->ctx.addr = addr;
         e->ctx.size = len > 0xffffffffu ? 0xffffffffu : (unsigned)len;
         ag_shadow_access_existing(e->shadow, addr, len, t, AG_WRITE | AG_FREE);
         e->ctx.size = 0;
         /* the free's write stays until the block is reused (the front
            end forgets it then): an access after the free that is not
            ordered after it races with it, whichever came first */
         ag_forget_but(e, addr, len, addr, len);
         return rc;
      }
   }
   ag_ev_forget(e, addr, len);
   return rc;
}

/* ---- sampling ---------------------------------------------------- */

void ag_engine_set_active(ag_engine *e, int active)
{
   active = !!active;
   if (active == e->active) return;
   e->active = active;
   if (!active) {
      ag_engine_stop(e);     /* nothing is analysed until the next window */
      return;
   }
   ag_engine_start(e);
   for (ag_tid t = 0; t < e->ctx.nthreads; t++) {
      ag_region *r = &e->ctx.regions[t];
      if (!r->live) continue;
      e->ops->thread_new(e->self, t);
      if (r->depth) e->ops->begin(e->self, t);   /* synthetic begin */
   }
}


/* ---- counters ---------------------------------------------------- */

uint64_t ag_engine_events(const ag_engine *e) { return e->ctx.event; }
uint64_t ag_engine_analysed(const ag_engine *e) { return e->analysed; }
uint64_t ag_engine_reports(const ag_engine *e) { return e->reports; }
uint64_t ag_engine_shadow_bytes(const ag_engine *e)
{
   return e->shadow ? ag_shadow_bytes(e->shadow) : 0;
}
uint64_t ag_engine_shadow_slabs(const ag_engine *e)
{
   return e->shadow ? ag_shadow_slab_bytes(e->shadow) : 0;
}
uint64_t ag_engine_shadow_peak(const ag_engine *e)
{
   uint64_t p = e->shadow ? ag_shadow_peak(e->shadow) : 0;
   return p > e->shadow_peak ? p : e->shadow_peak;
}

uint64_t ag_engine_cache_misses(const ag_engine *e)
{
   if (!e->self || !e->ops->cache_misses) return e->cache_misses;
   return e->cache_misses + e->ops->cache_misses(e->self);
}

uint64_t ag_engine_loc_resets(const ag_engine *e) { return e->loc_resets; }

void ag_engine_shadow_words(const ag_engine *e, uint64_t h[9])
{
   if (e->shadow) ag_shadow_words(e->shadow, h);
   else for (unsigned i = 0; i < 9; i++) h[i] = 0;
}

uint64_t ag_engine_heap_peak(const ag_engine *e)
{
   uint64_t p = e->self && e->ops->heap_peak ? e->ops->heap_peak(e->self) : 0;
   return p > e->heap_peak ? p : e->heap_peak;
}
uint32_t ag_engine_threads(const ag_engine *e) { return e->ctx.nthreads; }
uint32_t ag_engine_open_regions(const ag_engine *e) { return e->open; }
uint32_t ag_engine_depth(const ag_engine *e, ag_tid t)
{
   return t < e->ctx.nthreads ? e->ctx.regions[t].depth : 0;
}
