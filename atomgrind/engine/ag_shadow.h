/* ag_shadow.h -- byte-precise shadow memory holding engine location state.
 *
 * Memory is shadowed per aligned 8-byte word.  A location is a run of
 * bytes of one word that every access so far covered entirely or not at
 * all, so its bytes have had identical histories and one engine state
 * stands for all of them.  A word starts as one location; an access that
 * covers part of a location divides it at the access's bounds, each part
 * taking a copy of the state.  So adjacent struct fields never share a
 * location, while a whole-word, or a 4-byte access to an int array, costs
 * one engine call.  Pages of 512 word slots hang off a hash table keyed by
 * addr >> 12, with a direct-mapped cache in front; a page that a forget
 * (a free, an munmap) covers entirely is freed (to a pool of fresh pages:
 * sampling windows each start from a new shadow).
 *
 * Dividing is forever unless the engine can tell equal states apart
 * (ops->loc_equal): then, each time the shadow has grown by half, a sweep
 * joins adjacent locations of a word whose states are equal (a byte loop
 * by one thread leaves eight equal ones), as if no access had divided
 * them -- a later partial access divides them again, each part taking a
 * copy of the same state, so no engine can see the difference.  Only
 * words joinable at two sweeps in a row and not divided in between are
 * joined (a cheap filter against joining a word an access is dividing).
 * A word divided into bytes is also joined as soon as a byte loop reaches
 * its last byte with eight equal states (ag_shadow_join_bytes): buffers
 * filled or scanned once are seldom swept before they are freed. */
#ifndef AG_SHADOW_H
#define AG_SHADOW_H

#include <stdint.h>
#include "ag_engine_impl.h"
#include "ag_slab.h"           /* the cells' slabs */

typedef struct ag_shadow ag_shadow;

ag_shadow *ag_shadow_new(const ag_engine_ops *ops, void *self);
void ag_shadow_delete(ag_shadow *s);     /* finalises every location */

/* Call fn(arg, loc, loc_addr) for every location [addr, addr+size) touches,
   creating and splitting cells as needed. */
typedef void (*ag_shadow_fn)(void *arg, void *loc, ag_addr loc_addr);
void ag_shadow_visit(ag_shadow *s, ag_addr addr, uint64_t size,
                     ag_shadow_fn fn, void *arg);

/* The same with the engine's access callback, called directly:
   ops->access(self, t, loc, loc_addr, flags) for every location. */
void ag_shadow_access(ag_shadow *s, ag_addr addr, uint64_t size, ag_tid t,
                      unsigned flags);

/* ops->access(self, t, loc, loc_addr, flags) for every location with state
   that overlaps [addr, addr+size), in address order; creates nothing (a
   location partly outside the range is first divided at its bounds). */
void ag_shadow_access_existing(ag_shadow *s, ag_addr addr, uint64_t size,
                               ag_tid t, unsigned flags);

/* 1 if every location [addr, addr+size) overlaps has a state and
   ops->access_idle(self, t, loc, flags) says the access leaves it as it
   is: then the access can be skipped, and no location need be divided
   for it (its parts would all have their location's state again).
   Accesses of more than AG_IDLE_MAX bytes are never idle. */
#define AG_IDLE_MAX 64
int ag_shadow_idle(ag_shadow *s, ag_addr addr, uint64_t size, ag_tid t, unsigned flags);

/* Drop the state of [addr, addr+len): locations return to fresh. */
void ag_shadow_forget(ag_shadow *s, ag_addr addr, uint64_t len);

uint64_t ag_shadow_bytes(const ag_shadow *s);
uint64_t ag_shadow_peak(const ag_shadow *s);    /* the most bytes at once */
/* Bytes of the slabs cells are carved from: kept until the shadow is
   deleted (free cells are reused, for blocks of the same size only). */
uint64_t ag_shadow_slab_bytes(const ag_shadow *s);
/* What the shadow holds now: its slabs and its pages. */
uint64_t ag_shadow_footprint(const ag_shadow *s);
/* The words of its pages by their number of locations: h[0] fresh, h[n]
   divided into n (h[1]: whole), for --stats. */
void ag_shadow_words(ag_shadow *s, uint64_t h[9]);

/* Join adjacent equal locations now (ag_shadow_visit does it by itself
   when the shadow has grown; a no-op without ops->loc_equal). */
void ag_shadow_compact(ag_shadow *s);

/* Shadow bytes below which no sweep is made, read by ag_shadow_new; 0
   sweeps before every general access (tests: every trace exercises it). */
extern uint64_t ag_shadow_compact_min;
/* addr is the last byte of its word: join the word now if it is divided
   into eight equal locations (needs ops->loc_equal). */
void ag_shadow_join_bytes(ag_shadow *s, ag_addr addr);

/* ---- inline fast path (the layout is private to ag_shadow.c) --------
 *
 * A word slot holds 0 (fresh: never accessed since it was last forgotten),
 * a pointer to one cell (the whole word is one location), or a tagged
 * pointer to a block with one cell per location of the word, in address
 * order.  The locations' start offsets ("cuts") live in the top byte of
 * the slot (bit 56+i: a location starts at byte i; bit 56 is always set),
 * the tag in bit 0 (bit 1: see AG_COLD).  A whole word joined from
 * several locations keeps their cuts in its top byte as a hint for when
 * it is divided again.  So the location starting at byte i is cell
 * popcount(cuts below i) of the block: an int array costs 2 cells a word,
 * a char array 8. */

#define AG_PAGE_BITS 12
#define AG_PAGE_WORDS (1u << (AG_PAGE_BITS - 3))
#define AG_SPLIT ((uintptr_t)1)          /* tag bit on a slot: a block */
#define AG_COLD ((uintptr_t)2)           /* on a block: joinable at the last
                                            sweep, not divided since */
#define AG_CUT_SHIFT 56
#define AG_PTR_MASK ((((uintptr_t)1) << AG_CUT_SHIFT) - 1)
#define AG_SHADOW_TOP (~(ag_addr)0 - 0xffff)   /* nothing shadowed above */
#define AG_CACHE_BITS 10                  /* page cache entries (direct-mapped) */
#define AG_CACHE_SIZE (1u << AG_CACHE_BITS)

/* dirty: bit i set if a slot of the i-th 64-byte line of slot[] may be
   non-zero (ag_shadow_visit, which makes every location, sets it), so a
   page is made fresh again by clearing those lines only. */
typedef struct ag_page { void *slot[AG_PAGE_WORDS]; uint64_t dirty; } ag_page;
typedef struct { uint64_t key; ag_page *page; } ag_cache_ent;

struct ag_shadow {
   const ag_engine_ops *ops;
   void *self;
   size_t loc;                       /* loc_size rounded up to 8 */
   struct ag_map *pages;             /* page index -> ag_page* */
   ag_cache_ent cache[AG_CACHE_SIZE];
   ag_slab_pool cells;               /* blocks of n cells, n = 1..8: class n - 1 */
   uint64_t bytes, peak;
   uint64_t compact_at;              /* sweep when bytes reaches this */
};

extern const uint8_t ag_shadow_popcount[256];

ag_page *ag_page_slow(ag_shadow *s, uint64_t key, int create);

/* A page is freed only when a forget covers all of it, which also
   empties its cache entry: the entries stay valid. */
static inline ag_page *ag_page_of(ag_shadow *s, ag_addr a, int create)
{
   uint64_t key = a >> AG_PAGE_BITS;
   ag_cache_ent *ce = &s->cache[key & (AG_CACHE_SIZE - 1)];
   if (__builtin_expect(ce->key == key, 1)) return ce->page;
   return ag_page_slow(s, key, create);
}

#define AG_LOC(s, base, i) ((void *)((char *)(base) + (size_t)(i) * (s)->loc))

static inline char *ag_block(uintptr_t v) { return (char *)(v & AG_PTR_MASK & ~(AG_SPLIT | AG_COLD)); }
static inline unsigned ag_cuts(uintptr_t v) { return (unsigned)(v >> AG_CUT_SHIFT); }
static inline uintptr_t ag_with_cuts(char *b, unsigned cuts)
{
   return (uintptr_t)b | AG_SPLIT | ((uintptr_t)cuts << AG_CUT_SHIFT);
}
/* the cell of the location starting at byte i */
static inline void *ag_cell(ag_shadow *s, uintptr_t v, unsigned i)
{
   return AG_LOC(s, ag_block(v), ag_shadow_popcount[ag_cuts(v) & ((1u << i) - 1)]);
}

/* The one existing location that is exactly [addr, addr+size) (so its
   address is addr), or NULL: then ag_shadow_access does the general case. */
static inline void *ag_shadow_loc1(ag_shadow *s, ag_addr addr, uint64_t size)
{
   ag_addr w = addr & ~(ag_addr)7;
   unsigned lo = (unsigned)(addr - w);
   if (size == 0 || lo + size > 8 || addr >= AG_SHADOW_TOP) return NULL;
   unsigned hi = lo + (unsigned)size;
   ag_page *p = ag_page_of(s, w, 1);
   uintptr_t v = (uintptr_t)p->slot[(w >> 3) & (AG_PAGE_WORDS - 1)];
   if (!(v & AG_SPLIT))
      return hi - lo == 8 ? (void *)ag_block(v) : NULL;   /* NULL if fresh too */
   unsigned cuts = ag_cuts(v);
   /* a location starts at lo, none inside (lo, hi), one at hi (or hi = 8) */
   if (((cuts >> lo) & 1) && (hi == 8 || ((cuts >> hi) & 1))
       && !(cuts & ((1u << hi) - 1) & ~((2u << lo) - 1)))
      return ag_cell(s, v, lo);
   return NULL;
}

#endif
