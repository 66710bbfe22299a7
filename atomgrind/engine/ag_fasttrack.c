/* ag_fasttrack.c -- FastTrack happens-before race detection (Flanagan &
 * Freund, PLDI'09), engine "fasttrack".
 *
 * Threads, locks and sync objects carry vector clocks; a location keeps
 * epochs (clock@tid) of its last accesses, inflating to per-thread clocks
 * when accesses are concurrent (below).
 *
 * Happens-before:
 *   release(l)            L_l  |= C_t; C_t[t]++      (join: a sync object
 *                                                    used as a semaphore may
 *                                                    be released by several)
 *   acquire(l)            C_t |= L_l | RR_l; RR_l = 0
 *   release(l, shared)    RR_l |= C_t; C_t[t]++      (readers' releases)
 *   acquire(l, shared)    C_t |= L_l                 (after write releases)
 *   fork(t, u)            C_u |= C_t; C_t[t]++
 *   join(t, u)            C_t |= C_u; C_u[u]++
 * Condvars, semaphores and barriers reach us as acquire/release of sync
 * objects and need nothing more.
 *
 * Atomics (C11/C++ atomics as compiled for x86, where only RMWs and xchg
 * are visible as atomic instructions):
 *   - an AG_ATOMIC access is an acquire of its location (its address is
 *     the key of a sync clock, kept in the lock map: only atomic locations
 *     pay for one), and if it writes also a release there: L_x |= C_t;
 *   - every location it touches becomes part of an atomic object
 *     [addr, addr+size) (ft_mark: kept beside the location).  A later plain store of
 *     exactly that address and size is an atomic store, a release; a later
 *     plain load that starts inside the object an atomic load, an acquire
 *     of it (acquire loads, release stores and seq_cst loads are plain
 *     movs; compiled code tests the guard of a C++ function-local static,
 *     set by __cxa_guard_release with xchg, with a byte load, and
 *     shared_ptr's release loads both 4-byte counts with one 8-byte load).
 *     Other plain accesses overlapping the object stay plain.  The decision is made on the access's first location and
 *     holds for those of its locations that are part of an atomic object
 *     (fresh ones stay plain); a release takes effect once, at the thread's
 *     next event, so every location of the access carries the epoch the
 *     release covers;
 *   - when a location becomes atomic, the plain accesses kept for it (those
 *     since its last plain write, and that write) are taken to have been
 *     atomic: loads and stores of the object before an atomic instruction
 *     revealed it.  A plain initialisation racing with the first atomic
 *     access is therefore missed -- unless the front end knows that access
 *     atomic by where its code comes from (AG_ATOMIC_LS: std::atomic's
 *     operations), which it then knows of every atomic access of the
 *     object: the plain accesses before it stay plain.  Nor is a kept
 *     access taken for atomic when it is a free's write, or its site's
 *     instruction is a plain read-modify-write (AG_PLAIN_RMW: `Global++`
 *     as one add to memory, which no atomic operation compiles to); such
 *     an instruction's access stays plain on an atomic object too;
 *   - freed memory (ag_ev_forget) returns to fresh: no longer atomic, and
 *     a free of part of an atomic object frees all of it (a heap block's
 *     free keeps its write, plain, and the location stays atomic until
 *     the block is reused: an atomic access after the free races with
 *     it, as the free's write is not made atomic: ag_ev_free).  The
 *     dispatcher remembers atomic objects across sampling windows and
 *     replays them (atomic_mark) when the engine restarts.
 * Releases join (L_x |= C_t) rather than assign, as if every store
 * continued a release sequence: more order, never a false race.
 *
 * Accesses: two accesses race when they touch a common location, at least
 * one writes, not both are AG_ATOMIC, and neither happens before the other.
 * A location keeps the epoch of its last plain write and, since then, the
 * plain reads, atomic reads and atomic writes: one epoch while each such
 * access happens after the previous one and covers it (conflicts with all
 * it conflicts with), else a per-thread, per-kind clock (FastTrack's read
 * vector clock, extended to the three kinds; stored sparse, only the
 * threads that made such an access, in sets carved from slabs).  A plain write conflicts with
 * everything, so it replaces all of that.  Every access is checked against
 * the last plain write and the kept accesses it conflicts with; one report
 * per racing event (the dispatcher drops the others), naming the earlier
 * access's thread, site and flags.
 *
 * Before the first race on a location this is exact: the first racy access
 * is reported.  No check is ever skipped by a "same epoch" shortcut that
 * could hide a race, and an access is only dropped by a rule that depends
 * on the events since it (a later covering access ordered after it, or a
 * plain write).
 *
 * With cfg.approx_history (the tool's default; not --history-level=full,
 * nor atomgrind-trace) an access returns before any work when the
 * location holds nothing but the thread's own accesses of its current
 * epoch, one of the access's kind among them (ft_own_epoch): nothing can
 * race with it, and the state stays as it is but for the site of that
 * kind, which then names the epoch's first such access, not its last.
 * Both race with exactly the same later accesses (one thread, one clock),
 * so only the earlier access a report names changes, never whether or
 * where it is made: tests/engine/test_rpt_sound.c compares the two on
 * random traces, and two deliberate mutants (AG_FT_MUTANT=1, 2: a lost
 * report, an extra one) show that it notices.  Hence the
 * state built by analysing a suffix of a trace is a subset of the full
 * analysis's, and every race reported on a window (RPT sampling: fresh
 * state at the window start) is reported at the same event by the full
 * analysis -- tests/engine/test_rpt_sound.c checks both on random traces.
 */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_shim.h"
#include "ag_slab.h"           /* read sets */
#include "ag_vclock.h"         /* ag_vc: C_t, lock clocks, inflated read sets */

/* ---- vector clocks: 64-bit entries, for the 40-bit epoch clocks ---- */

AG_VCLOCK(ag_vc, ft_vc, uint64_t)

/* ---- epochs: clock << 24 | tid; clock 0 is "no access" ----------- */

#define AG_FT_TID_BITS 24
#define AG_FT_TID_MASK ((1u << AG_FT_TID_BITS) - 1)

static inline uint64_t ft_ep(ag_tid t, uint64_t clk)
{
   return clk << AG_FT_TID_BITS | t;
}
static inline ag_tid ft_ep_tid(uint64_t e) { return (ag_tid)(e & AG_FT_TID_MASK); }
static inline uint64_t ft_ep_clk(uint64_t e) { return e >> AG_FT_TID_BITS; }

/* e happened before (or is) the current point of a thread with clock c */
static inline int ft_ep_leq(uint64_t e, const ag_vc *c)
{
   return ft_ep_clk(e) <= ft_vc_get(c, ft_ep_tid(e));
}

/* ---- per-location state ------------------------------------------ */

/* The accesses a later access may race with, since the last plain write:
   plain reads, atomic reads and atomic writes (kinds of ag_ft_set). */
enum { AG_PR, AG_AR, AG_AW, AG_NKINDS };

/* Kinds of earlier access that conflict with an access of `flags`. */
static inline unsigned ft_conflicts(unsigned flags)
{
   switch (flags & (AG_WRITE | AG_ATOMIC)) {
   case 0:                    return 1u << AG_AW;
   case AG_ATOMIC:            return 0;
   case AG_WRITE:             return 1u << AG_PR | 1u << AG_AR | 1u << AG_AW;
   default:                   return 1u << AG_PR;           /* atomic write */
   }
}
static inline unsigned ft_kind(unsigned flags)
{
   return flags & AG_WRITE ? AG_AW : flags & AG_ATOMIC ? AG_AR : AG_PR;
}
static const unsigned ag_kind_flags[AG_NKINDS] = { 0, AG_ATOMIC, AG_WRITE | AG_ATOMIC };

/* A later access of kind `b` that happens after one of kind `a` may replace
   it: everything that conflicts with a conflicts with b. */
static inline int ft_dominates(unsigned b, unsigned a)
{
   return a == b || (a == AG_AR && b == AG_PR);
}

/* A read set: per thread and kind, its last such access since the last
   plain write (sites as numbered by ft_site_id).  Sparse: only the
   (thread, kind) pairs that have one, in increasing order of thread, then
   kind (the order checks and reports follow), never a zero clock.  Most
   sets hold two or three entries, whatever the threads' numbers. */
typedef struct { uint64_t ep; uint32_t site; uint32_t kind; } ag_ft_ent;
typedef struct { uint32_t n, cap; ag_ft_ent e[]; } ag_ft_set;
_Static_assert(sizeof(ag_ft_ent) == 16, "ag_ft_ent is 16 bytes (memory of race mode)");

#define AG_FT_SET 3u           /* ag_ft_loc.skind: s is an ag_ft_set* */

/* One per location (per byte where a program accesses bytes), so kept to
   16 bytes: two words, each an epoch packed with its site number and the
   small fields (one load, one store per update).  From bit 0:
     w:  atom   1   part of an atomic object (its size and offset: beside)
         wsite 20   the site number of w
         wep   43   w, packed: clock (27 bits) << 16 | tid; 0: none
     s:  skind  2   AG_PR/AG_AR/AG_AW of s's epoch, or AG_FT_SET: then the
                    word less skind is an ag_ft_set* (aligned: bits free)
         ssite 20   the site number of s
         sep   42   s, packed: clock (26 bits) << 16 | tid
   The word s is 0 when it holds nothing.  A value too large for its
   field -- a site number from 1M on, a thread from 64K on, a clock from
   64M (s) or 128M (w) synchronisations on, and an atomic object's size
   and offset always -- is stored as the field's all-ones (ESC) and the
   value itself in the engine's map `wide`, keyed by the cell's address
   and field: slower, never wrong, never wrapped.  (A read set already
   holds full epochs.) */
typedef struct {
   uint64_t w;          /* the last plain write, its site, atom */
   uint64_t s;          /* since then: one access, or an ag_ft_set* */
} ag_ft_loc;
_Static_assert(sizeof(ag_ft_loc) == 16, "ag_ft_loc is 16 bytes (memory of race mode)");

#define AG_FT_ATOM 1ull
#define AG_FT_SITE_BITS 20
#define AG_FT_SITE_ESC ((1u << AG_FT_SITE_BITS) - 1)
#define AG_FT_WSITE 1                               /* fields' first bits */
#define AG_FT_WEP (AG_FT_WSITE + AG_FT_SITE_BITS)
#define AG_FT_SSITE 2
#define AG_FT_SEP (AG_FT_SSITE + AG_FT_SITE_BITS)
#define AG_FT_PTID 16                               /* packed epochs' tid bits */
#define AG_FT_WEP_ESC ((1ull << (64 - AG_FT_WEP)) - 1)
#define AG_FT_SEP_ESC ((1ull << (64 - AG_FT_SEP)) - 1)
/* fields kept in `wide` */
enum { AG_FT_F_WSITE, AG_FT_F_SSITE, AG_FT_F_WEP, AG_FT_F_SEP, AG_FT_F_ATOM, AG_FT_NF };

static inline unsigned ft_skind(const ag_ft_loc *l) { return (unsigned)(l->s & 3); }
static inline uint32_t ft_wsite_field(const ag_ft_loc *l)
{
   return (uint32_t)(l->w >> AG_FT_WSITE) & AG_FT_SITE_ESC;
}
static inline uint32_t ft_ssite_field(const ag_ft_loc *l)
{
   return (uint32_t)(l->s >> AG_FT_SSITE) & AG_FT_SITE_ESC;
}
static inline uint64_t ft_wep_field(const ag_ft_loc *l) { return l->w >> AG_FT_WEP; }
static inline uint64_t ft_sep_field(const ag_ft_loc *l) { return l->s >> AG_FT_SEP; }

/* Site numbers from this one on are kept outside the location (tests
   lower it to exercise that; it must not exceed AG_FT_SITE_ESC; lowered,
   it also lowers the threads and clocks packed, see ft_create). */
uint32_t ag_fasttrack_site_inline = AG_FT_SITE_ESC;

static inline ag_ft_set *ft_set_of(const ag_ft_loc *l)
{
   return (ag_ft_set *)(uintptr_t)(l->s & ~(uint64_t)3);
}

/* ---- engine state ------------------------------------------------ */

typedef struct { ag_vc w, rr; } ag_ft_lock;   /* write releases, read releases */

/* Recent sites' numbers, direct-mapped by the top bits of the site times
   the golden ratio.  1024 entries by the low bits of site ^ site >> 10
   missed 5 % of pigz's and pbzip2's lookups; 4096 miss 0.01 % and 0.8 %. */
#define AG_FT_SITE_CACHE_BITS 12
#define AG_FT_SITE_CACHE (1u << AG_FT_SITE_CACHE_BITS)
#define AG_FT_ATOM_CACHE 64
#define AG_FT_SET_CLASSES 6                         /* capacities 2..64 */
#define AG_FT_SLAB_CAP (2u << (AG_FT_SET_CLASSES - 1))

typedef struct {
   ag_ctx *ctx;
   uint32_t site_inline;          /* ag_fasttrack_site_inline at creation */
   uint64_t tid_lim, wclk_lim, sclk_lim;   /* packed epochs' tids and clocks
                                              are below these */
   int escaped;                   /* a site or epoch was ever kept in `wide` */
   int approx;                    /* cfg.approx_history: ft_own_epoch */
   ag_vc *thr;          /* C_t, indexed by tid */
   uint32_t nthr;       /* capacity of thr */
   ag_map *locks;       /* lock/sync object/atomic object address -> ag_ft_lock */
   /* a release by an atomic write, done at the next event (see above) */
   ag_tid pend_tid;     /* AG_NO_TID: none */
   ag_addr pend_key;
   uint64_t pend_event;
   /* is the plain access of event up_event an atomic one? */
   uint64_t up_event;
   int up;
   ag_addr up_key;      /* ... of the atomic object at up_key */
   /* site numbers: site -> number + 1, number -> site, and a
      direct-mapped cache of the first (id 0: empty) */
   ag_map *site_ids;
   ag_site *sites;
   uint8_t *site_plain;           /* by number: the site's accesses are
                                     surely plain, AG_PLAIN_RMW or frees
                                     (see ft_atomize) */
   uint32_t nsites, site_cap;
   struct { ag_site site; uint32_t id; } site_cache[AG_FT_SITE_CACHE];
   uint64_t site_misses;          /* lookups that missed site_cache */
   ag_map *wide;                  /* cell address | AG_FT_F_* -> value */
   /* the atomic objects of recently used cells, as last stored in or read
      from `wide` (direct-mapped by cell address; every store goes
      through ft_wide_put, so a hit is the map's value) */
   struct { const void *cell; uint64_t v; } atom_cache[AG_FT_ATOM_CACHE];
   /* read sets of up to AG_FT_SLAB_CAP entries: carved from slabs, free
      lists by capacity (class c: 2 << c entries); larger ones: heap */
   ag_slab_pool sets;
   uint64_t big_bytes;            /* held for larger sets */
   uint64_t set_peak;             /* most held for read sets at once */
} ag_ft;

static void *ft_create(ag_ctx *ctx)
{
   ag_ft *f = ag_calloc(1, sizeof *f);
   f->ctx = ctx;
   f->locks = ag_map_new(sizeof(ag_ft_lock));
   f->site_ids = ag_map_new(sizeof(uint32_t));
   f->site_inline = ag_fasttrack_site_inline < AG_FT_SITE_ESC
                    ? ag_fasttrack_site_inline : AG_FT_SITE_ESC;
   f->wide = ag_map_new(sizeof(uint64_t));
   f->tid_lim = 1u << AG_FT_PTID;
   f->wclk_lim = (AG_FT_WEP_ESC >> AG_FT_PTID) - 1;     /* all ones: ESC */
   f->sclk_lim = (AG_FT_SEP_ESC >> AG_FT_PTID) - 1;
   if (f->site_inline < AG_FT_SITE_ESC)     /* tests: escape epochs too */
      f->tid_lim = f->site_inline / 4, f->wclk_lim = f->sclk_lim = f->site_inline;
   f->pend_tid = AG_NO_TID;
   f->approx = ctx->cfg.approx_history;
   return f;
}

/* The number of a site (a loop repeats its few sites: cached). */
static inline uint32_t ft_site_id(ag_ft *f, ag_site site)
{
   /* (the tool's sites carry the access's lock set (ag_site.h): one code
      site under two lock sets takes two entries) */
   unsigned h = (unsigned)((site * 0x9e3779b97f4a7c15ull) >> (64 - AG_FT_SITE_CACHE_BITS));
   if (__builtin_expect(f->site_cache[h].id && f->site_cache[h].site == site, 1))
      return f->site_cache[h].id - 1;
   f->site_misses++;
   int created;
   uint32_t *id = ag_map_lookup(f->site_ids, site, &created);
   if (created) {
      if (f->nsites == 0xfffffffeu) ag_fatal("fasttrack: more than 4G access sites");
      if (f->nsites == f->site_cap) {
         f->site_cap = f->site_cap ? 2 * f->site_cap : 256;
         f->sites = ag_realloc(f->sites, f->site_cap * sizeof(ag_site));
         f->site_plain = ag_realloc(f->site_plain, f->site_cap);
      }
      f->site_plain[f->nsites] = 0;
      f->sites[f->nsites] = site;
      *id = ++f->nsites;
   }
   f->site_cache[h].site = site;
   f->site_cache[h].id = *id;
   return *id - 1;
}

/* A location's fields, with values too large for them kept in f->wide.
   An entry of f->wide is read only while its field holds ESC, and every
   store of ESC writes it first, so entries left behind by later stores
   and freed cells are never read (they stay: ag_map cannot remove keys;
   at most AG_FT_NF per cell address ever used). */
static inline uint64_t ft_wide_key(const ag_ft_loc *l, unsigned field)
{
   return (uint64_t)(uintptr_t)l | field;          /* cells are 8-aligned */
}

/* (rare paths: kept out of line, away from the access path's code) */
#define AG_FT_COLD __attribute__((noinline, cold))

static AG_FT_COLD void ft_wide_put(ag_ft *f, const ag_ft_loc *l, unsigned field, uint64_t v)
{
   *(uint64_t *)ag_map_lookup(f->wide, ft_wide_key(l, field), NULL) = v;
   if (field != AG_FT_F_ATOM) {
      f->escaped = 1;                          /* (atom: its own bit) */
   } else {
      unsigned h = (unsigned)((uintptr_t)l >> 3) % AG_FT_ATOM_CACHE;
      f->atom_cache[h].cell = l;
      f->atom_cache[h].v = v;
   }
}

static AG_FT_COLD uint64_t ft_wide_get(ag_ft *f, const ag_ft_loc *l, unsigned field)
{
   uint64_t *v = ag_map_get(f->wide, ft_wide_key(l, field));
   AG_ASSERT(v);
   return *v;
}

/* The atomic object of a cell whose atom bit is set (a loop's few
   atomic locations: cached) */
static uint64_t ft_atom(ag_ft *f, const ag_ft_loc *l)
{
   unsigned h = (unsigned)((uintptr_t)l >> 3) % AG_FT_ATOM_CACHE;
   if (__builtin_expect(f->atom_cache[h].cell == l, 1)) return f->atom_cache[h].v;
   uint64_t v = ft_wide_get(f, l, AG_FT_F_ATOM);
   f->atom_cache[h].cell = l;
   f->atom_cache[h].v = v;
   return v;
}

/* The field value of site number id (ESC: kept beside) */
static inline uint64_t ft_site_pack(ag_ft *f, const ag_ft_loc *l, unsigned field, uint32_t id)
{
   if (__builtin_expect(id < f->site_inline, 1)) return id;
   ft_wide_put(f, l, field, id);
   return AG_FT_SITE_ESC;
}

/* Epoch e packed (0 stays 0), or -1 if it does not fit below clk_lim */
static inline uint64_t ft_ep_try(const ag_ft *f, uint64_t e, uint64_t clk_lim)
{
   uint64_t t = e & AG_FT_TID_MASK, clk = e >> AG_FT_TID_BITS;
   if (__builtin_expect(t < f->tid_lim && clk < clk_lim, 1)) return clk << AG_FT_PTID | t;
   return (uint64_t)-1;
}

/* The field value of epoch e (esc: kept beside) */
static inline uint64_t ft_ep_pack(ag_ft *f, const ag_ft_loc *l, unsigned field, uint64_t e,
                                  uint64_t clk_lim, uint64_t esc)
{
   uint64_t p = ft_ep_try(f, e, clk_lim);
   if (__builtin_expect(p != (uint64_t)-1, 1)) return p;
   ft_wide_put(f, l, field, e);
   return esc;
}

static inline uint64_t ft_ep_unpack(uint64_t p)
{
   return (p >> AG_FT_PTID) << AG_FT_TID_BITS | (p & ((1u << AG_FT_PTID) - 1));
}

/* the last plain write's epoch (0: none) and site */
static inline uint64_t ft_w(ag_ft *f, const ag_ft_loc *l)
{
   uint64_t p = ft_wep_field(l);
   return __builtin_expect(p != AG_FT_WEP_ESC, 1) ? ft_ep_unpack(p) : ft_wide_get(f, l, AG_FT_F_WEP);
}

static uint32_t ft_wsite(ag_ft *f, const ag_ft_loc *l)
{
   uint32_t id = ft_wsite_field(l);
   return id != AG_FT_SITE_ESC ? id : (uint32_t)ft_wide_get(f, l, AG_FT_F_WSITE);
}

/* s's epoch and site, s holding one access (not a set) */
static inline uint64_t ft_s(ag_ft *f, const ag_ft_loc *l)
{
   uint64_t p = ft_sep_field(l);
   return __builtin_expect(p != AG_FT_SEP_ESC, 1) ? ft_ep_unpack(p) : ft_wide_get(f, l, AG_FT_F_SEP);
}

static uint32_t ft_ssite(ag_ft *f, const ag_ft_loc *l)
{
   uint32_t id = ft_ssite_field(l);
   return id != AG_FT_SITE_ESC ? id : (uint32_t)ft_wide_get(f, l, AG_FT_F_SSITE);
}

/* w becomes epoch e (0: none) at site number site */
static inline void ft_w_put(ag_ft *f, ag_ft_loc *l, uint64_t e, uint32_t site)
{
   l->w = (l->w & AG_FT_ATOM)
          | ft_site_pack(f, l, AG_FT_F_WSITE, site) << AG_FT_WSITE
          | ft_ep_pack(f, l, AG_FT_F_WEP, e, f->wclk_lim, AG_FT_WEP_ESC) << AG_FT_WEP;
}

/* s becomes one access of kind k, epoch e (> 0), at site number site */
static inline void ft_s_put(ag_ft *f, ag_ft_loc *l, uint64_t e, unsigned k, uint32_t site)
{
   l->s = k | ft_site_pack(f, l, AG_FT_F_SSITE, site) << AG_FT_SSITE
          | ft_ep_pack(f, l, AG_FT_F_SEP, e, f->sclk_lim, AG_FT_SEP_ESC) << AG_FT_SEP;
}

static inline void ft_s_set(ag_ft_loc *l, ag_ft_set *v)
{
   l->s = (uint64_t)(uintptr_t)v | AG_FT_SET;
}

/* Does the field hold ESC (its value kept beside)? */
static int ft_is_esc(const ag_ft_loc *l, unsigned field)
{
   switch (field) {
   case AG_FT_F_WSITE: return ft_wsite_field(l) == AG_FT_SITE_ESC;
   case AG_FT_F_WEP:   return ft_wep_field(l) == AG_FT_WEP_ESC;
   case AG_FT_F_ATOM:  return (l->w & AG_FT_ATOM) != 0;
   case AG_FT_F_SSITE: return ft_skind(l) != AG_FT_SET && l->s && ft_ssite_field(l) == AG_FT_SITE_ESC;
   default:            return ft_skind(l) != AG_FT_SET && l->s && ft_sep_field(l) == AG_FT_SEP_ESC;
   }
}

/* ---- read sets --------------------------------------------------- */

static size_t ft_set_size(uint32_t cap) { return sizeof(ag_ft_set) + cap * sizeof(ag_ft_ent); }

static unsigned ft_set_class(uint32_t cap)
{
   unsigned c = 0;
   while ((2u << c) < cap) c++;
   return c;
}

/* An empty set for cap entries (a power of two, at least 2). */
static ag_ft_set *ft_set_new(ag_ft *f, uint32_t cap)
{
   ag_ft_set *v;
   if (cap > AG_FT_SLAB_CAP) {
      v = ag_malloc(ft_set_size(cap));
      f->big_bytes += ft_set_size(cap);
   } else {
      v = ag_slab_alloc(&f->sets, ft_set_class(cap), ft_set_size(cap));
   }
   uint64_t held = f->sets.bytes + f->big_bytes;
   if (held > f->set_peak) f->set_peak = held;
   v->n = 0;
   v->cap = cap;
   return v;
}

static void ft_set_free(ag_ft *f, ag_ft_set *v)
{
   if (v->cap > AG_FT_SLAB_CAP) {
      f->big_bytes -= ft_set_size(v->cap);
      ag_free(v);
   } else {
      ag_slab_free(&f->sets, ft_set_class(v->cap), v);
   }
}

static void ft_set_drop(ag_ft *f, ag_ft_loc *l)
{
   if (ft_skind(l) == AG_FT_SET) ft_set_free(f, ft_set_of(l));
   l->s = 0;
}

static inline uint32_t ft_key(ag_tid u, unsigned k) { return (uint32_t)u << 2 | k; }
static inline uint32_t ft_ent_key(const ag_ft_ent *e) { return ft_key(ft_ep_tid(e->ep), e->kind); }

/* The index of (u, k) in v, or where it would go. */
static uint32_t ft_set_find(const ag_ft_set *v, ag_tid u, unsigned k)
{
   uint32_t key = ft_key(u, k), i = 0;
   while (i < v->n && ft_ent_key(&v->e[i]) < key) i++;
   return i;
}

/* Set the entry of (u, k) to clock clk (> 0) at site; returns the set,
   which may have moved. */
static ag_ft_set *ft_set_put(ag_ft *f, ag_ft_set *v, ag_tid u, unsigned k,
                             uint64_t clk, uint32_t site)
{
   uint32_t i = ft_set_find(v, u, k);
   if (i == v->n || ft_ent_key(&v->e[i]) != ft_key(u, k)) {
      if (v->n == v->cap) {
         ag_ft_set *w = ft_set_new(f, 2 * v->cap);
         ag_memcopy(w->e, v->e, v->n * sizeof(ag_ft_ent));
         w->n = v->n;
         ft_set_free(f, v);
         v = w;
      }
      for (uint32_t j = v->n; j > i; j--) v->e[j] = v->e[j - 1];
      v->n++;
   }
   v->e[i].ep = ft_ep(u, clk);
   v->e[i].site = site;
   v->e[i].kind = k;
   return v;
}

/* Remove the entry of (u, k), if any. */
static void ft_set_del(ag_ft_set *v, ag_tid u, unsigned k)
{
   uint32_t i = ft_set_find(v, u, k);
   if (i == v->n || ft_ent_key(&v->e[i]) != ft_key(u, k)) return;
   for (v->n--; i < v->n; i++) v->e[i] = v->e[i + 1];
}

/* The clock of (u, k) in v (0: none). */
static uint64_t ft_set_clk(const ag_ft_set *v, ag_tid u, unsigned k)
{
   uint32_t i = ft_set_find(v, u, k);
   return i < v->n && ft_ent_key(&v->e[i]) == ft_key(u, k) ? ft_ep_clk(v->e[i].ep) : 0;
}

static uint64_t ft_heap_peak(void *self)
{
   return ((ag_ft *)self)->set_peak;
}

static uint64_t ft_cache_misses(void *self) { return ((ag_ft *)self)->site_misses; }

static void ft_free_lock(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   ag_ft_lock *l = rec;
   ft_vc_free(&l->w);
   ft_vc_free(&l->rr);
}

static void ft_destroy(void *self)
{
   ag_ft *f = self;
   for (uint32_t i = 0; i < f->nthr; i++) ft_vc_free(&f->thr[i]);
   ag_free(f->thr);
   ag_map_foreach(f->locks, ft_free_lock, NULL);
   ag_map_delete(f->locks);
   ag_map_delete(f->site_ids);
   ag_map_delete(f->wide);
   ag_free(f->sites);
   ag_free(f->site_plain);
   /* the shadow is deleted first: sets too big for the slabs were freed
      by loc_fini (ft_locs_die), the slabs hold the rest */
   ag_slab_release(&f->sets);
   ag_free(f);
}

/* C_t, created on first use with C_t[t] = 1 (threads appear dynamically,
   and after a sampling restart only live threads are announced). */
static ag_vc *ft_thr_slow(ag_ft *f, ag_tid t)
{
   if (t > AG_FT_TID_MASK) ag_fatal("fasttrack: more than 16M threads in one run");
   if (t >= f->nthr) {
      uint32_t cap = f->nthr ? f->nthr : 8;
      while (cap <= t) cap *= 2;
      f->thr = ag_realloc(f->thr, cap * sizeof(ag_vc));
      ag_memzero(f->thr + f->nthr, (cap - f->nthr) * sizeof(ag_vc));
      f->nthr = cap;
   }
   ag_vc *c = &f->thr[t];
   if (ft_vc_get(c, t) == 0) {
      ft_vc_grow(c, t + 1);
      c->c[t] = 1;
   }
   return c;
}

/* ... on every access: inline while it exists (as it nearly always does) */
static inline ag_vc *ft_thr(ag_ft *f, ag_tid t)
{
   if (__builtin_expect(t < f->nthr, 1)) {
      ag_vc *c = &f->thr[t];
      if (__builtin_expect(t < c->n && c->c[t] != 0, 1)) return c;
   }
   return ft_thr_slow(f, t);
}

/* Not ft_vc_tick: C_t always has entry t (ft_thr), so no growth check,
   and the tick stays small enough to inline into every release. */
static void ft_tick(ag_vc *c, ag_tid t)
{
   c->c[t]++;
   if (c->c[t] >> (64 - AG_FT_TID_BITS))
      ag_fatal("fasttrack: clock overflow (2^40 synchronisations of one thread)");
}

static void ft_thread_new(void *self, ag_tid t)
{
   ft_thr(self, t);
}

static void ft_nop(void *self, ag_tid t) { (void)self; (void)t; }

/* ---- locations --------------------------------------------------- */

static void ft_loc_init(void *self, void *loc)
{
   (void)self;
   ag_memzero(loc, sizeof(ag_ft_loc));
}

/* d's site numbers kept beside it are s's */
static AG_FT_COLD void ft_copy_wide(ag_ft *f, ag_ft_loc *d, const ag_ft_loc *s)
{
   for (unsigned field = 0; field < AG_FT_F_ATOM; field++)
      if (ft_is_esc(s, field)) ft_wide_put(f, d, field, ft_wide_get(f, s, field));
}

static void ft_loc_copy(void *self, void *dst, const void *src)
{
   ag_ft *f = self;
   ag_ft_loc *d = dst;
   const ag_ft_loc *s = src;
   *d = *s;
   if (__builtin_expect(f->escaped, 0)) ft_copy_wide(f, d, s);
   if (__builtin_expect(s->w & AG_FT_ATOM, 0))
      ft_wide_put(f, d, AG_FT_F_ATOM, ft_atom(f, s));
   if (ft_skind(s) == AG_FT_SET) {
      ag_ft_set *v = ft_set_of(s);
      ag_ft_set *c = ft_set_new(self, v->cap);
      ag_memcopy(c->e, v->e, v->n * sizeof(ag_ft_ent));
      c->n = v->n;
      ft_s_set(d, c);
   }
}

static void ft_loc_fini(void *self, void *loc)
{
   ft_set_drop(self, loc);
}

/* ft_destroy releases the slabs; a set too big for them is the
   location's own */
static int ft_locs_die(void *self) { return ((ag_ft *)self)->big_bytes == 0; }

/* Entries are kept in one order and never with a zero clock: equal sets
   have equal arrays. */
static int ft_set_equal(const ag_ft_set *a, const ag_ft_set *b)
{
   if (a->n != b->n) return 0;
   for (uint32_t i = 0; i < a->n; i++)
      if (a->e[i].ep != b->e[i].ep || a->e[i].site != b->e[i].site
          || a->e[i].kind != b->e[i].kind)
         return 0;
   return 1;
}

/* Equal epochs, sites and atomic object: every check and update gives the
   same result on both.  Equal fields hold equal values unless they hold
   ESC; unequal ones differ (a value kept in its field is one that fits,
   every value kept beside it one that does not). */
static int ft_loc_equal(void *self, const void *pa, const void *pb)
{
   ag_ft *f = self;
   const ag_ft_loc *a = pa, *b = pb;
   if (a->w != b->w || ft_skind(a) != ft_skind(b)) return 0;
   if (ft_skind(a) == AG_FT_SET) {
      if (!ft_set_equal(ft_set_of(a), ft_set_of(b))) return 0;
   } else if (a->s != b->s) {
      return 0;
   }
   if (__builtin_expect(a->w & AG_FT_ATOM, 0)
       && ft_atom(f, a) != ft_atom(f, b))
      return 0;
   if (__builtin_expect(f->escaped, 0))
      for (unsigned field = 0; field < AG_FT_F_ATOM; field++)
         if (ft_is_esc(a, field) && ft_wide_get(f, a, field) != ft_wide_get(f, b, field))
            return 0;
   return 1;
}

/* ---- accesses ---------------------------------------------------- */

static void ft_flush(ag_ft *f);

/* Before every event: the pending release of the previous one. */
static inline void ft_sync_pending(ag_ft *f)
{
   if (__builtin_expect(f->pend_tid != AG_NO_TID, 0)
       && f->pend_event != f->ctx->event)
      ft_flush(f);
}

static void ft_race(ag_ft *f, ag_tid t, ag_addr addr, unsigned flags,
                       ag_tid u, uint32_t site, unsigned uflags)
{
   ag_violation v;
   ag_memzero(&v, sizeof v);
   v.tid = t;
   v.addr = addr;
   v.size = 1;
   v.flags = flags;
   v.other_tid = u;
   v.other_site = f->sites[site];
   v.other_flags = uflags;
   ag_ctx_report(f->ctx, &v);
}

/* Report the first tracked access that races with this one, if any: the
   last plain write, then the accesses since. */
static void ft_check(ag_ft *f, ag_tid t, const ag_vc *c, const ag_ft_loc *l,
                        ag_addr addr, unsigned flags)
{
   uint64_t w = ft_w(f, l);
   if (w && !ft_ep_leq(w, c)) {
      ft_race(f, t, addr, flags, ft_ep_tid(w), ft_wsite(f, l), AG_WRITE);
      return;
   }
   unsigned conf = ft_conflicts(flags);
   if (!conf || !l->s) return;
   unsigned sk = ft_skind(l);
   if (sk != AG_FT_SET) {
      uint64_t e = ft_s(f, l);
      if ((conf >> sk & 1) && !ft_ep_leq(e, c))
         ft_race(f, t, addr, flags, ft_ep_tid(e), ft_ssite(f, l), ag_kind_flags[sk]);
      return;
   }
   const ag_ft_set *v = ft_set_of(l);
   for (uint32_t i = 0; i < v->n; i++) {
      const ag_ft_ent *e = &v->e[i];
      if ((conf >> e->kind & 1) && !ft_ep_leq(e->ep, c)) {
         ft_race(f, t, addr, flags, ft_ep_tid(e->ep), e->site, ag_kind_flags[e->kind]);
         return;
      }
   }
}

/* The location's accesses since its last plain write as a set. */
static ag_ft_set *ft_setify(ag_ft *f, ag_ft_loc *l)
{
   if (ft_skind(l) != AG_FT_SET) {
      ag_ft_set *v = ft_set_new(f, 2);
      if (l->s) {
         v->e[0].ep = ft_s(f, l);
         v->e[0].site = ft_ssite(f, l);
         v->e[0].kind = ft_skind(l);
         v->n = 1;
      }
      ft_s_set(l, v);
   }
   return ft_set_of(l);
}

/* The location becomes part of an atomic object: its kept plain accesses
   are taken to have been atomic ones, but for those of plain
   read-modify-write instructions and frees (see the opening comment). */
static void ft_atomize(ag_ft *f, ag_ft_loc *l)
{
   uint64_t w = ft_w(f, l);
   if (!w || f->site_plain[ft_wsite(f, l)]) {
      if (l->s && ft_skind(l) == AG_PR && !f->site_plain[ft_ssite(f, l)]) l->s |= AG_AR;
      if (ft_skind(l) != AG_FT_SET) return;
   } else {
      ag_tid u = ft_ep_tid(w);
      ag_ft_set *v = ft_setify(f, l);
      if (ft_set_clk(v, u, AG_AW) < ft_ep_clk(w))
         v = ft_set_put(f, v, u, AG_AW, ft_ep_clk(w), ft_wsite(f, l));
      ft_s_set(l, v);
      l->w &= AG_FT_ATOM;
   }
   /* each thread's plain read becomes its atomic read, unless that is
      later (a thread's AR entry directly follows its PR entry) */
   ag_ft_set *v = ft_set_of(l);
   uint32_t j = 0;
   for (uint32_t i = 0; i < v->n; i++) {
      ag_ft_ent e = v->e[i];
      if (e.kind == AG_PR && !f->site_plain[e.site]) {
         const ag_ft_ent *ar = &v->e[i + 1];
         if (i + 1 < v->n && ar->kind == AG_AR && ft_ep_tid(ar->ep) == ft_ep_tid(e.ep)) {
            if (ar->ep >= e.ep) e = *ar;
            i++;
         }
         e.kind = AG_AR;
      }
      v->e[j++] = e;
   }
   v->n = j;
}

/* The atomic object, kept beside the location: size | offset << 8 (the
   offset of its start from the location's 8-byte word, an int8_t). */
static void ft_mark(ag_ft *f, ag_ft_loc *l, ag_addr loc_addr, ag_addr addr, unsigned size)
{
   int64_t off = (int64_t)(addr - (loc_addr & ~(ag_addr)7));
   if (size > 255 || off < -128) return;        /* no such atomic access */
   if (size == 0) {
      l->w &= ~AG_FT_ATOM;
      return;
   }
   uint64_t v = size | (uint64_t)(uint8_t)(int8_t)off << 8;
   if (!(l->w & AG_FT_ATOM) || ft_atom(f, l) != v) ft_wide_put(f, l, AG_FT_F_ATOM, v);
   l->w |= AG_FT_ATOM;
}

static void ft_atomic_acquire(ag_ft *f, ag_tid t, ag_addr key)
{
   ag_ft_lock *k = ag_map_get(f->locks, key);
   if (k) ft_vc_join(ft_thr(f, t), &k->w);
}

static void ft_atomic_release(ag_ft *f, ag_tid t, ag_addr key)
{
   f->pend_tid = t;
   f->pend_key = key;
   f->pend_event = f->ctx->event;
}

/* An access that is atomic or touches an atomic object: its synchronisation,
   and its flags for the race check. */
static unsigned ft_atomic_access(ag_ft *f, ag_tid t, ag_ft_loc *l,
                                    ag_addr addr, unsigned flags)
{
   const ag_ctx *x = f->ctx;
   int first = addr == x->addr;           /* the access's first location */
   if (flags & AG_ATOMIC) {
      /* revealed by an instruction known atomic only because it is one
         (not by where its code comes from: AG_ATOMIC_LS), earlier plain
         accesses may have been atomic ones that look plain */
      if (!(l->w & AG_FT_ATOM) && !(flags & AG_ATOMIC_LS)) ft_atomize(f, l);
      ft_mark(f, l, addr, x->addr, x->size);
      if (first) ft_atomic_acquire(f, t, x->addr);
      if (flags & AG_WRITE) ft_atomic_release(f, t, x->addr);
      return flags;
   }
   if (first) {
      uint64_t atom = ft_atom(f, l);
      ag_addr obj = (addr & ~(ag_addr)7) + (ag_addr)(int64_t)(int8_t)(atom >> 8);
      f->up_event = x->event;
      f->up_key = obj;
      if (flags & AG_PLAIN_RMW)
         f->up = 0;
      else if (flags & AG_WRITE)
         f->up = !(flags & AG_FREE) && obj == x->addr && (atom & 0xff) == x->size;
      else
         f->up = 1;            /* a load starting inside the object */
   }
   if (f->up_event != x->event || !f->up) return flags;
   if (flags & AG_WRITE) ft_atomic_release(f, t, x->addr);
   else if (first) ft_atomic_acquire(f, t, f->up_key);
   return flags | AG_ATOMIC;
}

static void ft_atomic_mark(void *self, void *loc, ag_addr loc_addr,
                              ag_addr addr, unsigned size)
{
   ft_mark(self, loc, loc_addr, addr, size);
}

/* The location holds nothing that can race with this plain access, and
   the general path would leave the state as it is but for the site of
   the access's kind: a write finds its own write of the current epoch and
   nothing since; a read finds its own read of the current epoch and no
   write but one ordered before the access.  (The mutants are the
   differential test's: 1 loses a report -- a write skipped while another
   thread's access is kept since its own write; 2, in ft_access, adds
   one: such a write checked, but the other access not dropped; 3 loses
   one -- a read skipped after a racing write.) */
static inline int ft_own_epoch(const ag_ft *f, const ag_ft_loc *l, ag_tid t, const ag_vc *c,
                               unsigned flags)
{
   uint64_t now = c->c[t];
   /* (compared packed: an epoch kept beside takes the general path) */
   switch (flags & (AG_WRITE | AG_ATOMIC)) {
#if AG_FT_MUTANT == 1
   case AG_WRITE: return ft_wep_field(l) == ft_ep_try(f, ft_ep(t, now), f->wclk_lim);
#else
   case AG_WRITE:
      return ft_wep_field(l) == ft_ep_try(f, ft_ep(t, now), f->wclk_lim) && l->s == 0;
#endif
   case 0: {
      uint64_t w = ft_wep_field(l);
#if AG_FT_MUTANT == 3
      w = 0;
#endif
      /* (the write is ordered before the access, or it races and the
         access must be reported again) */
      return ft_sep_field(l) == ft_ep_try(f, ft_ep(t, now), f->sclk_lim) && ft_skind(l) == AG_PR
             && (w == 0 || (w != AG_FT_WEP_ESC && ft_ep_leq(ft_ep_unpack(w), c)));
   }
   default: return 0;
   }
}

/* A plain access to part of a whole word that ft_own_epoch leaves as it
   is (ag_engine_impl.h: the word is not divided for it). */
static int ft_access_idle(void *self, ag_tid t, const void *loc, unsigned flags)
{
   ag_ft *f = self;
   const ag_ft_loc *l = loc;
   if (!f->approx || (flags & AG_ATOMIC) || (l->w & AG_FT_ATOM)) return 0;
   ft_sync_pending(f);
   return ft_own_epoch(f, l, t, ft_thr(f, t), flags);
}

static void ft_access(void *self, ag_tid t, void *loc, ag_addr addr,
                         unsigned flags)
{
   ag_ft *f = self;
   ag_ft_loc *l = loc;
   ft_sync_pending(f);
   if (__builtin_expect((flags & AG_ATOMIC) || (l->w & AG_FT_ATOM), 0))
      flags = ft_atomic_access(f, t, l, addr, flags);
   ag_vc *c = ft_thr(f, t);
   uint64_t now = c->c[t];
#if AG_FT_MUTANT == 2
   if (f->approx && (flags & (AG_WRITE | AG_ATOMIC)) == AG_WRITE && ft_w(f, l) == ft_ep(t, now)) {
      ft_check(f, t, c, l, addr, flags);
      return;
   }
#endif
   if (f->approx && ft_own_epoch(f, l, t, c, flags)) return;
   uint32_t site = ft_site_id(f, f->ctx->site);
   if (__builtin_expect(flags & (AG_PLAIN_RMW | AG_FREE), 0)) f->site_plain[site] = 1;

   ft_check(f, t, c, l, addr, flags);

   if ((flags & (AG_WRITE | AG_ATOMIC)) == AG_WRITE) {
      /* a plain write conflicts with everything: it alone is kept */
      ft_w_put(f, l, ft_ep(t, now), site);
      ft_set_drop(f, l);
      return;
   }
   unsigned k = ft_kind(flags);
   unsigned sk = ft_skind(l);
   if (sk != AG_FT_SET && (l->s == 0 || (ft_dominates(k, sk) && ft_ep_leq(ft_s(f, l), c)))) {
      ft_s_put(f, l, ft_ep(t, now), k, site);
      return;
   }
   /* not ordered after the one kept, or of a kind that does not cover
      it: keep both, per thread and kind */
   ag_ft_set *v = ft_set_put(f, ft_setify(f, l), t, k, now, site);
   if (k == AG_PR) ft_set_del(v, t, AG_AR);     /* covered by this read */
   ft_s_set(l, v);
}

/* ---- synchronisation --------------------------------------------- */

static void ft_acquire(void *self, ag_tid t, ag_addr lock, int shared)
{
   ag_ft *f = self;
   ft_sync_pending(f);
   ag_vc *c = ft_thr(f, t);
   ag_ft_lock *l = ag_map_get(f->locks, lock);
   if (!l) return;                      /* never released: no ordering */
   ft_vc_join(c, &l->w);
   if (!shared) {                       /* after every reader's release too */
      ft_vc_join(c, &l->rr);
      ft_vc_clear(&l->rr);
   }
}

static void ft_release(void *self, ag_tid t, ag_addr lock, int shared)
{
   ag_ft *f = self;
   ft_sync_pending(f);
   ag_vc *c = ft_thr(f, t);
   ag_ft_lock *l = ag_map_lookup(f->locks, lock, NULL);
   ft_vc_join(shared ? &l->rr : &l->w, c);
   ft_tick(c, t);
}

static void ft_fork(void *self, ag_tid parent, ag_tid child)
{
   ag_ft *f = self;
   ft_sync_pending(f);
   ft_thr(f, child);
   ag_vc *p = ft_thr(f, parent);     /* may move thr: re-read child */
   ft_vc_join(&f->thr[child], p);
   ft_tick(p, parent);
}

static void ft_join(void *self, ag_tid joiner, ag_tid child)
{
   ag_ft *f = self;
   ft_sync_pending(f);
   ft_thr(f, child);
   ag_vc *j = ft_thr(f, joiner);
   ag_vc *c = &f->thr[child];
   ft_vc_join(j, c);
   /* a child that has exited has no events after its join: its clock (as
      long as the number of threads created before it) is not needed */
   if (!f->ctx->regions[child].live) ft_vc_free(c);
   else ft_tick(c, child);
}

static void ft_flush(ag_ft *f)
{
   ag_tid t = f->pend_tid;
   f->pend_tid = AG_NO_TID;
   ag_vc *c = ft_thr(f, t);
   ag_ft_lock *k = ag_map_lookup(f->locks, f->pend_key, NULL);
   ft_vc_join(&k->w, c);
   ft_tick(c, t);
}

static void ft_lock_forget(void *self, ag_addr lock)
{
   ag_ft *f = self;
   ft_sync_pending(f);
   ag_ft_lock *l = ag_map_get(f->locks, lock);
   if (l) ft_free_lock(NULL, lock, l);
}

const ag_engine_ops ag_fasttrack_ops = {
   .name = "fasttrack",
   .help = "FastTrack happens-before data races (epochs, read clocks)",
   .kind = AG_KIND_RACE,
   .loc_size = sizeof(ag_ft_loc),
   .create = ft_create,
   .destroy = ft_destroy,
   .loc_init = ft_loc_init,
   .loc_copy = ft_loc_copy,
   .loc_fini = ft_loc_fini,
   .locs_die_with_engine = ft_locs_die,
   .loc_equal = ft_loc_equal,
   .thread_new = ft_thread_new,
   .begin = ft_nop,
   .end = ft_nop,
   .access_start = NULL,
   .access = ft_access,
   .access_idle = ft_access_idle,
   .acquire = ft_acquire,
   .release = ft_release,
   .fork = ft_fork,
   .join = ft_join,
   .access_done = NULL,
   .lock_forget = ft_lock_forget,
   .atomic_mark = ft_atomic_mark,
   .heap_peak = ft_heap_peak,
   .cache_misses = ft_cache_misses,
};
