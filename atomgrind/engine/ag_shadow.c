/* ag_shadow.c -- see ag_shadow.h (which also holds the slot layout and
 * the inline fast path).
 *
 * Per access: the page comes from a direct-mapped cache in front of the
 * hash table, the engine's access callback is called directly.  Cells are
 * carved from slabs (ag_slab.h: no allocator call, no per-cell header). */
#include "ag_shadow.h"
#include "ag_map.h"
#include "ag_shim.h"


#define AG_P2(n) n, n + 1, n + 1, n + 2
#define AG_P4(n) AG_P2(n), AG_P2(n + 1), AG_P2(n + 1), AG_P2(n + 2)
#define AG_P6(n) AG_P4(n), AG_P4(n + 1), AG_P4(n + 1), AG_P4(n + 2)
const uint8_t ag_shadow_popcount[256] = { AG_P6(0), AG_P6(1), AG_P6(1), AG_P6(2) };

uint64_t ag_shadow_compact_min = 8u << 20;

ag_shadow *ag_shadow_new(const ag_engine_ops *ops, void *self)
{
   ag_shadow *s = ag_calloc(1, sizeof *s);
   s->ops = ops;
   s->self = self;
   s->loc = (ops->loc_size + 7) & ~(size_t)7;
   if (s->loc < sizeof(void *)) s->loc = sizeof(void *);   /* a free block holds a link */
   s->pages = ag_map_new(sizeof(ag_page *));
   for (unsigned i = 0; i < AG_CACHE_SIZE; i++) s->cache[i].key = ~(uint64_t)0;
   s->compact_at = ops->loc_equal ? ag_shadow_compact_min : ~(uint64_t)0;
   return s;
}

/* a block of n cells (1..8) */
static void *ag_cell_alloc(ag_shadow *s, unsigned n)
{
   size_t sz = n * s->loc;
   s->bytes += sz;
   if (s->bytes > s->peak) s->peak = s->bytes;
   void *c = ag_slab_alloc(&s->cells, n - 1, sz);
   AG_ASSERT(((uintptr_t)c & ~AG_PTR_MASK) == 0);
   return c;
}

static void ag_cell_free(ag_shadow *s, void *c, unsigned n)
{
   s->bytes -= n * s->loc;
   ag_slab_free(&s->cells, n - 1, c);
}

/* Freed pages, made fresh, for the next shadow page made: a sampling
   window (--sample=rpt) starts from a new shadow and makes a hundred or
   so pages, each of which would be allocated and cleared whole, then
   freed at the window's end.  A recycled page has only the lines it used
   cleared (ag_page.dirty).  At most AG_PAGE_POOL are kept (1 MiB). */
#define AG_PAGE_POOL 256
static ag_page *ag_page_pool[AG_PAGE_POOL];
static unsigned ag_page_pooled;

static ag_page *ag_page_new(void)
{
   if (ag_page_pooled) return ag_page_pool[--ag_page_pooled];
   return ag_calloc(1, sizeof(ag_page));
}

static void ag_page_recycle(ag_page *p)
{
   if (ag_page_pooled == AG_PAGE_POOL) {
      ag_free(p);
      return;
   }
   for (uint64_t d = p->dirty; d; d &= d - 1) {
      void **line = &p->slot[8 * __builtin_ctzll(d)];
      for (unsigned i = 0; i < 8; i++) line[i] = NULL;
   }
   p->dirty = 0;
   ag_page_pool[ag_page_pooled++] = p;
}

ag_page *ag_page_slow(ag_shadow *s, uint64_t key, int create)
{
   ag_page **pp;
   if (create) {
      pp = ag_map_lookup(s->pages, key, NULL);
      if (!*pp) {
         *pp = ag_page_new();
         s->bytes += sizeof(ag_page);
         if (s->bytes > s->peak) s->peak = s->bytes;
      }
   } else {
      pp = ag_map_get(s->pages, key);
      if (!pp || !*pp) return NULL;
   }
   ag_cache_ent *ce = &s->cache[key & (AG_CACHE_SIZE - 1)];
   ce->key = key;
   ce->page = *pp;
   return *pp;
}

#define AG_POP(c) ag_shadow_popcount[(c) & 0xff]

/* Set the word's locations to those starting at the bits of ncuts, a
   superset of its current ones (a fresh or whole word has one, at 0): each
   new location takes a copy of the state of the one it is cut from, a
   fresh word's are fresh.  Returns the new slot value. */
static uintptr_t ag_recut(ag_shadow *s, void **slot, unsigned ncuts)
{
   uintptr_t v = (uintptr_t)*slot;
   unsigned n = AG_POP(ncuts);
   char *nb;
   if (!v) {
      nb = ag_cell_alloc(s, n);
      for (unsigned k = 0; k < n; k++) s->ops->loc_init(s->self, AG_LOC(s, nb, k));
   } else {
      /* a whole word's cell is a block of one cell, cut at 0 */
      unsigned cuts = (v & AG_SPLIT) ? ag_cuts(v) : 1u;
      char *ob = ag_block(v);
      if (ncuts == cuts) {
         v = ag_with_cuts(ob, cuts);
         *slot = (void *)v;
         return v;
      }
      nb = ag_cell_alloc(s, n);
      unsigned k = 0, from = 0;
      for (unsigned i = 0; i < 8; i++) {
         if (cuts & (1u << i)) from = AG_POP(cuts & ((1u << i) - 1));
         if (ncuts & (1u << i))
            s->ops->loc_copy(s->self, AG_LOC(s, nb, k++), AG_LOC(s, ob, from));
      }
      unsigned on = AG_POP(cuts);
      for (k = 0; k < on; k++) s->ops->loc_fini(s->self, AG_LOC(s, ob, k));
      ag_cell_free(s, ob, on);
   }
   v = ag_with_cuts(nb, ncuts);
   *slot = (void *)v;
   return v;
}

/* Make [lo, hi) (offsets in the word, 0 <= lo < hi <= 8) a union of whole
   locations; returns the slot value. */
static inline uintptr_t ag_refine(ag_shadow *s, void **slot, unsigned lo, unsigned hi)
{
   uintptr_t v = (uintptr_t)*slot;
   unsigned cuts = !v ? 0 : (v & AG_SPLIT) ? ag_cuts(v) : 1u;
   unsigned ncuts = cuts | 1u | (1u << lo) | (hi < 8 ? 1u << hi : 0);
   if (v && !(v & AG_SPLIT)) ncuts |= ag_cuts(v);   /* as before its join */
   /* A loop over a word's bytes (or 2-byte items) that has reached its
      second one goes on to the word's end, cutting one location off the
      rest at each step: cut all the items at once, one block instead of
      one per step.  Cutting is invisible to the engines. */
   else if (hi - lo == lo && lo <= 2 && cuts == (1u | 1u << lo))
      ncuts = lo == 1 ? 0xffu : 0x55u;
   if (ncuts == cuts && (v & AG_SPLIT)) return v;
   return ag_recut(s, slot, ncuts);
}

/* No shadow above this address: the top of the address space is never
   user memory, and clamping keeps every loop below free of wrap-around.
   (ag_shadow_loc1 relies on AG_SHADOW_TOP being 8-aligned.) */
static int ag_clamp(ag_addr addr, uint64_t *len)
{
   if (*len == 0 || addr >= AG_SHADOW_TOP) return 0;
   if (*len > AG_SHADOW_TOP - addr) *len = AG_SHADOW_TOP - addr;
   return 1;
}

void ag_shadow_visit(ag_shadow *s, ag_addr addr, uint64_t size,
                     ag_shadow_fn fn, void *arg)
{
   if (!ag_clamp(addr, &size)) return;
   if (__builtin_expect(s->bytes >= s->compact_at, 0)) ag_shadow_compact(s);
   ag_addr end = addr + size;
   for (ag_addr w = addr & ~(ag_addr)7; w < end; w += 8) {
      ag_page *p = ag_page_of(s, w, 1);
      void **slot = &p->slot[(w >> 3) & (AG_PAGE_WORDS - 1)];
      p->dirty |= (uint64_t)1 << ((w >> 6) & 63);
      unsigned lo = addr > w ? (unsigned)(addr - w) : 0;
      unsigned hi = end < w + 8 ? (unsigned)(end - w) : 8;
      uintptr_t v = (uintptr_t)*slot;
      if (lo == 0 && hi == 8 && !(v & AG_SPLIT)) {
         if (!v) {
            void *c = ag_cell_alloc(s, 1);
            s->ops->loc_init(s->self, c);
            *slot = c;
            v = (uintptr_t)c;
         }
         fn(arg, ag_block(v), w);
         continue;
      }
      v = ag_refine(s, slot, lo, hi);
      unsigned cuts = ag_cuts(v);
      char *b = ag_block(v);
      unsigned k = AG_POP(cuts & ((1u << lo) - 1));
      for (unsigned m = cuts & ((1u << hi) - 1) & ~((1u << lo) - 1); m; m &= m - 1, k++)
         fn(arg, AG_LOC(s, b, k), w + (unsigned)__builtin_ctz(m));
   }
}

typedef struct { ag_shadow *s; ag_tid t; unsigned flags; } ag_access_arg;

static void ag_access_fn(void *arg, void *loc, ag_addr a)
{
   ag_access_arg *x = arg;
   x->s->ops->access(x->s->self, x->t, loc, a, x->flags);
}

/* The dispatcher's general case (ag_shadow_loc1 handles the common one). */
void ag_shadow_access(ag_shadow *s, ag_addr addr, uint64_t size, ag_tid t, unsigned flags)
{
   ag_access_arg x = { s, t, flags };
   ag_shadow_visit(s, addr, size, ag_access_fn, &x);
}

/* Every location [addr, addr+size) overlaps has a state, and the access
   is idle on each (ops->access_idle). */
int ag_shadow_idle(ag_shadow *s, ag_addr addr, uint64_t size, ag_tid t, unsigned flags)
{
   if (!ag_clamp(addr, &size) || size > AG_IDLE_MAX) return 0;
   ag_addr end = addr + size;
   for (ag_addr w = addr & ~(ag_addr)7; w < end; w += 8) {
      ag_page *p = ag_page_of(s, w, 0);
      uintptr_t v = p ? (uintptr_t)p->slot[(w >> 3) & (AG_PAGE_WORDS - 1)] : 0;
      if (!v) return 0;
      if (!(v & AG_SPLIT)) {
         if (!s->ops->access_idle(s->self, t, ag_block(v), flags)) return 0;
         continue;
      }
      unsigned lo = addr > w ? (unsigned)(addr - w) : 0;
      unsigned hi = end < w + 8 ? (unsigned)(end - w) : 8;
      unsigned cuts = ag_cuts(v);
      /* the location holding byte lo, and every one starting in (lo, hi) */
      unsigned k = AG_POP(cuts & ((2u << lo) - 1)) - 1;
      unsigned n = AG_POP(cuts & ((1u << hi) - 1) & ~((2u << lo) - 1)) + 1;
#ifdef AG_SHADOW_MUTANT    /* the differential test's: the first one only */
      n = 1;
#endif
      for (char *b = ag_block(v); n; n--, k++)
         if (!s->ops->access_idle(s->self, t, AG_LOC(s, b, k), flags)) return 0;
   }
   return 1;
}

/* The locations with state of [lo, hi), which lies within page p. */
static void ag_existing_in_page(ag_shadow *s, ag_page *p, ag_addr base, ag_addr lo,
                                ag_addr hi, ag_tid t, unsigned flags)
{
   for (ag_addr w = lo & ~(ag_addr)7; w < hi; w += 8) {
      uintptr_t v = (uintptr_t)p->slot[(w - base) >> 3];
      if (!v) continue;
      if (!(v & AG_SPLIT) && lo <= w && w + 8 <= hi) {
         s->ops->access(s->self, t, ag_block(v), w, flags);
         continue;
      }
      unsigned a0 = lo > w ? (unsigned)(lo - w) : 0;
      unsigned a1 = hi < w + 8 ? (unsigned)(hi - w) : 8;
      /* divide a location the range covers in part, so that the bytes
         outside keep their state (joining equal locations would otherwise
         change what is visited) */
      if (a0 > 0 || a1 < 8) v = ag_refine(s, &p->slot[(w - base) >> 3], a0, a1);
      unsigned cuts = ag_cuts(v), k = 0;
      for (unsigned i = 0; i < 8; i++) {
         if (!(cuts & (1u << i))) continue;
         unsigned next = i + 1;
         while (next < 8 && !(cuts & (1u << next))) next++;
         if (i < a1 && next > a0)
            s->ops->access(s->self, t, AG_LOC(s, ag_block(v), k), w + i, flags);
         k++;
      }
   }
}

typedef struct { ag_shadow *s; ag_addr lo, hi; ag_tid t; unsigned flags; } ag_existing_range;

static void ag_existing_page_rec(void *arg, uint64_t key, void *rec)
{
   ag_existing_range *r = arg;
   ag_addr base = key << AG_PAGE_BITS, top = base + (1u << AG_PAGE_BITS);
   if (top <= r->lo || base >= r->hi || !*(ag_page **)rec) return;
   ag_existing_in_page(r->s, *(ag_page **)rec, base, r->lo > base ? r->lo : base,
                       r->hi < top ? r->hi : top, r->t, r->flags);
}

void ag_shadow_access_existing(ag_shadow *s, ag_addr addr, uint64_t size,
                               ag_tid t, unsigned flags)
{
   if (!ag_clamp(addr, &size)) return;
   ag_addr end = addr + size;
   uint64_t first = addr >> AG_PAGE_BITS, last = (end - 1) >> AG_PAGE_BITS;
   if (last - first >= ag_map_count(s->pages)) {
      /* wider than what is shadowed: visit the pages that exist (in no
         particular order) */
      ag_existing_range r = { s, addr, end, t, flags };
      ag_map_foreach(s->pages, ag_existing_page_rec, &r);
      return;
   }
   for (uint64_t pg = first; pg <= last; pg++) {
      ag_addr base = pg << AG_PAGE_BITS, top = base + (1u << AG_PAGE_BITS);
      ag_page *p = ag_page_of(s, base, 0);
      if (p) ag_existing_in_page(s, p, base, addr > base ? addr : base,
                                 end < top ? end : top, t, flags);
   }
}

static void ag_block_free(ag_shadow *s, uintptr_t v)
{
   char *b = ag_block(v);
   unsigned n = AG_POP(ag_cuts(v));
   for (unsigned k = 0; k < n; k++) s->ops->loc_fini(s->self, AG_LOC(s, b, k));
   ag_cell_free(s, b, n);
}

/* A page whose every word was forgotten goes back to the allocator (its
   record in the map stays, empty: the map cannot remove keys). */
static void ag_page_drop(ag_shadow *s, ag_page **pp, uint64_t key)
{
   ag_cache_ent *ce = &s->cache[key & (AG_CACHE_SIZE - 1)];
   if (ce->key == key) ce->key = ~(uint64_t)0;
   ag_page_recycle(*pp);
   *pp = NULL;
   s->bytes -= sizeof(ag_page);
}

/* Forget [lo, hi), which lies within page p (based at base). */
static void ag_forget_in_page(ag_shadow *s, ag_page *p, ag_addr base, ag_addr lo, ag_addr hi)
{
   for (ag_addr w = lo & ~(ag_addr)7; w < hi; w += 8) {
      void **slot = &p->slot[(w - base) >> 3];
      uintptr_t v = (uintptr_t)*slot;
      if (!v) continue;
      unsigned a0 = lo > w ? (unsigned)(lo - w) : 0;
      unsigned a1 = hi < w + 8 ? (unsigned)(hi - w) : 8;
      if (a0 == 0 && a1 == 8) {
         if (v & AG_SPLIT) ag_block_free(s, v);
         else {
            s->ops->loc_fini(s->self, ag_block(v));
            ag_cell_free(s, ag_block(v), 1);
         }
         *slot = NULL;
         continue;
      }
      /* [a0, a1) becomes one fresh location: rebuild the block without
         the locations inside it */
      v = ag_refine(s, slot, a0, a1);
      unsigned cuts = ag_cuts(v);
      unsigned in = cuts & ((1u << a1) - 1) & ~((1u << a0) - 1);
      unsigned ncuts = (cuts & ~in) | (1u << a0);
      char *ob = ag_block(v), *nb = ag_cell_alloc(s, AG_POP(ncuts));
      unsigned k = 0, j = 0;
      for (unsigned i = 0; i < 8; i++) {
         if (!(cuts & (1u << i))) continue;
         if (in & (1u << i)) {
            if (i == a0) s->ops->loc_init(s->self, AG_LOC(s, nb, j++));
         } else {
            s->ops->loc_copy(s->self, AG_LOC(s, nb, j++), AG_LOC(s, ob, k));
         }
         k++;
      }
      ag_block_free(s, v);
      *slot = (void *)ag_with_cuts(nb, ncuts);
   }
}

typedef struct { ag_shadow *s; ag_addr lo, hi; } ag_forget_range;

static void ag_forget_page_rec(void *arg, uint64_t key, void *rec)
{
   ag_forget_range *r = arg;
   ag_addr base = key << AG_PAGE_BITS, top = base + (1u << AG_PAGE_BITS);
   if (top <= r->lo || base >= r->hi || !*(ag_page **)rec) return;
   ag_forget_in_page(r->s, *(ag_page **)rec, base,
                     r->lo > base ? r->lo : base, r->hi < top ? r->hi : top);
   if (r->lo <= base && top <= r->hi) ag_page_drop(r->s, rec, key);
}

void ag_shadow_forget(ag_shadow *s, ag_addr addr, uint64_t len)
{
   if (!ag_clamp(addr, &len) || ag_map_count(s->pages) == 0) return;
   ag_addr end = addr + len;
   uint64_t first = addr >> AG_PAGE_BITS, last = (end - 1) >> AG_PAGE_BITS;
   if (last - first >= ag_map_count(s->pages)) {
      /* a range wider than what is shadowed (an munmap, a big free):
         visit the pages that exist rather than every page in the range */
      ag_forget_range r = { s, addr, end };
      ag_map_foreach(s->pages, ag_forget_page_rec, &r);
      return;
   }
   for (uint64_t pg = first; pg <= last; pg++) {
      ag_addr base = pg << AG_PAGE_BITS, top = base + (1u << AG_PAGE_BITS);
      ag_page *p = ag_page_of(s, base, 0);
      if (!p) continue;
      ag_forget_in_page(s, p, base, addr > base ? addr : base, end < top ? end : top);
      if (addr <= base && top <= end) ag_page_drop(s, ag_map_get(s->pages, pg), pg);
   }
}

static void ag_page_fini(void *arg, uint64_t key, void *rec)
{
   ag_shadow *s = arg;
   ag_page *p = *(ag_page **)rec;
   (void)key;
   if (!p) return;
   for (unsigned i = 0; i < AG_PAGE_WORDS; i++) {
      uintptr_t v = (uintptr_t)p->slot[i];
      if (!v) continue;
      if (v & AG_SPLIT) {
         char *b = ag_block(v);
         unsigned n = AG_POP(ag_cuts(v));
         for (unsigned k = 0; k < n; k++) s->ops->loc_fini(s->self, AG_LOC(s, b, k));
      } else {
         s->ops->loc_fini(s->self, ag_block(v));
      }
   }
   ag_page_recycle(p);
}

static void ag_page_free(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   if (*(ag_page **)rec) ag_page_recycle(*(ag_page **)rec);
}

void ag_shadow_delete(ag_shadow *s)
{
   if (!s) return;
   /* finalising each location reads every cell: skipped when the engine's
      destroy frees what they hold anyway */
   int fini = !s->ops->locs_die_with_engine || !s->ops->locs_die_with_engine(s->self);
   ag_map_foreach(s->pages, fini ? ag_page_fini : ag_page_free, s);
   ag_map_delete(s->pages);
   ag_slab_release(&s->cells);
   ag_free(s);
}

uint64_t ag_shadow_bytes(const ag_shadow *s) { return s->bytes; }
uint64_t ag_shadow_peak(const ag_shadow *s) { return s->peak; }
uint64_t ag_shadow_slab_bytes(const ag_shadow *s) { return s->cells.bytes; }
uint64_t ag_shadow_footprint(const ag_shadow *s)
{
   return s->cells.bytes + ag_map_count(s->pages) * sizeof(ag_page);
}

/* ---- joining equal locations ------------------------------------- */

/* Make the divided word at slot the locations starting at ncuts (a subset
   of its cuts, with 0), each keeping the state of the location that
   started there: the others are equal to the one before them.  The kept
   ones move to a new block of their size: blocks are freed at the size
   they were allocated with, so that the free lists keep serving the same
   mix of sizes. */
static void ag_keep_cuts(ag_shadow *s, void **slot, unsigned ncuts)
{
   uintptr_t v = (uintptr_t)*slot;
   unsigned cuts = ag_cuts(v);
   char *b = ag_block(v), *nb = ag_cell_alloc(s, AG_POP(ncuts));
   for (unsigned i = 0, k = 0, j = 0; i < 8; i++) {
      if (!(cuts & (1u << i))) continue;
      if (ncuts & (1u << i)) s->ops->loc_copy(s->self, AG_LOC(s, nb, j++), AG_LOC(s, b, k));
      k++;
   }
   ag_block_free(s, v);
   /* a word joined whole keeps its cuts as a hint: a byte loop divides
      it again in one step, not seven */
   *slot = (void *)(ncuts == 1u ? (uintptr_t)nb | (uintptr_t)cuts << AG_CUT_SHIFT
                    : ag_with_cuts(nb, ncuts));
}

/* Join the word's adjacent locations with equal states (if the word is
   cold: see ag_shadow.h). */
static void ag_join_word(ag_shadow *s, void **slot)
{
   uintptr_t v = (uintptr_t)*slot;
   if (!(v & AG_SPLIT)) return;
   unsigned cuts = ag_cuts(v), ncuts = 1u;
   char *b = ag_block(v);
   void *prev = AG_LOC(s, b, 0);
   for (unsigned i = 1, k = 1; i < 8; i++) {
      if (!(cuts & (1u << i))) continue;
      void *c = AG_LOC(s, b, k++);
      if (!s->ops->loc_equal(s->self, prev, c)) { ncuts |= 1u << i; prev = c; }
   }
   if (ncuts == cuts || !(v & AG_COLD)) {        /* join at the next sweep */
      *slot = (void *)(ncuts == cuts ? v & ~AG_COLD : v | AG_COLD);
      return;
   }
   ag_keep_cuts(s, slot, ncuts);
}

static void ag_join_page(void *arg, uint64_t key, void *rec)
{
   ag_shadow *s = arg;
   ag_page *p = *(ag_page **)rec;
   (void)key;
   if (!p) return;
   for (unsigned i = 0; i < AG_PAGE_WORDS; i++) ag_join_word(s, &p->slot[i]);
}

void ag_shadow_compact(ag_shadow *s)
{
   if (!s->ops->loc_equal) return;
   ag_map_foreach(s->pages, ag_join_page, s);
   /* the next sweep once the shadow has grown by half: linear time overall */
   uint64_t min = ag_shadow_compact_min, next = s->bytes + s->bytes / 2;
   s->compact_at = !min ? 0 : next > min ? next : min;
}

/* A byte loop has just reached the last byte of addr's word: if the word
   is divided into bytes and all eight hold equal states, make it one
   location now (as a sweep would, later).  Each byte was touched alone,
   so nothing but a sweep would ever join them; joined, the word costs one
   cell, and a next byte loop divides it again in one step (the hint). */
void ag_shadow_join_bytes(ag_shadow *s, ag_addr addr)
{
   ag_addr w = addr & ~(ag_addr)7;
   if (w >= AG_SHADOW_TOP) return;
   ag_page *p = ag_page_of(s, w, 0);
   if (!p) return;
   void **slot = &p->slot[(w >> 3) & (AG_PAGE_WORDS - 1)];
   uintptr_t v = (uintptr_t)*slot;
   if (!(v & AG_SPLIT) || ag_cuts(v) != 0xff) return;
   char *b = ag_block(v);
   for (unsigned k = 1; k < 8; k++)
      if (!s->ops->loc_equal(s->self, AG_LOC(s, b, 0), AG_LOC(s, b, k))) return;
   ag_keep_cuts(s, slot, 1u);
}

/* ---- statistics -------------------------------------------------- */

static void ag_hist_page(void *arg, uint64_t key, void *rec)
{
   (void)key;
   uint64_t *h = arg;
   const ag_page *p = *(ag_page **)rec;
   if (!p) return;
   for (unsigned i = 0; i < AG_PAGE_WORDS; i++) {
      uintptr_t v = (uintptr_t)p->slot[i];
      if (!v) h[0]++;
      else h[v & AG_SPLIT ? ag_shadow_popcount[ag_cuts(v)] : 1]++;
   }
}

void ag_shadow_words(ag_shadow *s, uint64_t h[9])
{
   for (unsigned i = 0; i < 9; i++) h[i] = 0;
   ag_map_foreach(s->pages, ag_hist_page, h);
}
