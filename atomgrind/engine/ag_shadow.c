/* ag_shadow.c -- see ag_shadow.h. */
#include "ag_shadow.h"
#include "ag_map.h"
#include "ag_shim.h"

#define AG_PAGE_BITS 12
#define AG_PAGE_WORDS (1u << (AG_PAGE_BITS - 3))
#define AG_SPLIT ((uintptr_t)1)          /* tag bit on a slot: 8 byte cells */

typedef struct { void *slot[AG_PAGE_WORDS]; } ag_page;

/* free lists of whole (1 loc) and split (8 loc) cells */
typedef struct ag_free_cell { struct ag_free_cell *next; } ag_free_cell;

struct ag_shadow {
   const ag_engine_ops *ops;
   void *self;
   size_t loc;                       /* loc_size rounded up to 8 */
   ag_map *pages;                    /* page index -> ag_page* */
   uint64_t last_key; ag_page *last_page;   /* one-entry lookup cache */
   ag_free_cell *free1, *free8;
   uint64_t bytes;
};

ag_shadow *ag_shadow_new(const ag_engine_ops *ops, void *self)
{
   ag_shadow *s = ag_calloc(1, sizeof *s);
   s->ops = ops;
   s->self = self;
   s->loc = (ops->loc_size + 7) & ~(size_t)7;
   if (s->loc < sizeof(ag_free_cell)) s->loc = sizeof(ag_free_cell);
   s->pages = ag_map_new(sizeof(ag_page *));
   s->last_key = ~(uint64_t)0;
   return s;
}

static void *ag_cell_alloc(ag_shadow *s, int split)
{
   ag_free_cell **fl = split ? &s->free8 : &s->free1;
   size_t n = split ? 8 * s->loc : s->loc;
   s->bytes += n;
   if (*fl) { void *c = *fl; *fl = (*fl)->next; return c; }
   return ag_malloc(n);
}

static void ag_cell_free(ag_shadow *s, void *c, int split)
{
   ag_free_cell **fl = split ? &s->free8 : &s->free1;
   ag_free_cell *f = c;
   s->bytes -= split ? 8 * s->loc : s->loc;
   f->next = *fl;
   *fl = f;
}

static ag_page *ag_page_of(ag_shadow *s, ag_addr a, int create)
{
   uint64_t key = a >> AG_PAGE_BITS;
   if (key == s->last_key) return s->last_page;
   ag_page **pp;
   if (create) {
      int created;
      pp = ag_map_lookup(s->pages, key, &created);
      if (created) { *pp = ag_calloc(1, sizeof(ag_page)); s->bytes += sizeof(ag_page); }
   } else {
      pp = ag_map_get(s->pages, key);
      if (!pp) return NULL;
   }
   s->last_key = key;
   s->last_page = *pp;
   return *pp;
}

#define AG_LOC(s, base, i) ((void *)((char *)(base) + (size_t)(i) * (s)->loc))

/* Make slot hold 8 byte cells; returns their base. */
static char *ag_split(ag_shadow *s, void **slot)
{
   uintptr_t v = (uintptr_t)*slot;
   if (v & AG_SPLIT) return (char *)(v & ~AG_SPLIT);
   char *b = ag_cell_alloc(s, 1);
   if (v) {
      for (int i = 0; i < 8; i++) s->ops->loc_copy(s->self, AG_LOC(s, b, i), (void *)v);
      s->ops->loc_fini(s->self, (void *)v);
      ag_cell_free(s, (void *)v, 0);
   } else {
      for (int i = 0; i < 8; i++) s->ops->loc_init(s->self, AG_LOC(s, b, i));
   }
   *slot = (void *)((uintptr_t)b | AG_SPLIT);
   return b;
}

/* No shadow above this address: the top of the address space is never
   user memory, and clamping keeps every loop below free of wrap-around. */
#define AG_SHADOW_TOP (~(ag_addr)0 - 0xffff)

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
   ag_addr end = addr + size;
   for (ag_addr w = addr & ~(ag_addr)7; w < end; w += 8) {
      ag_page *p = ag_page_of(s, w, 1);
      void **slot = &p->slot[(w >> 3) & (AG_PAGE_WORDS - 1)];
      ag_addr lo = addr > w ? addr : w;
      ag_addr hi = end < w + 8 ? end : w + 8;
      uintptr_t v = (uintptr_t)*slot;
      if (lo == w && hi == w + 8 && !(v & AG_SPLIT)) {
         if (!v) {
            void *c = ag_cell_alloc(s, 0);
            s->ops->loc_init(s->self, c);
            *slot = c;
            v = (uintptr_t)c;
         }
         fn(arg, (void *)v, w);
         continue;
      }
      char *b = ag_split(s, slot);
      for (ag_addr a = lo; a < hi; a++) fn(arg, AG_LOC(s, b, a - w), a);
   }
}

/* Forget [lo, hi), which lies within page p (based at base). */
static void ag_forget_in_page(ag_shadow *s, ag_page *p, ag_addr base, ag_addr lo, ag_addr hi)
{
   for (ag_addr w = lo & ~(ag_addr)7; w < hi; w += 8) {
      void **slot = &p->slot[(w - base) >> 3];
      uintptr_t v = (uintptr_t)*slot;
      if (!v) continue;
      ag_addr a0 = lo > w ? lo : w;
      ag_addr a1 = hi < w + 8 ? hi : w + 8;
      if (a0 == w && a1 == w + 8) {
         if (v & AG_SPLIT) {
            char *b = (char *)(v & ~AG_SPLIT);
            for (int i = 0; i < 8; i++) s->ops->loc_fini(s->self, AG_LOC(s, b, i));
            ag_cell_free(s, b, 1);
         } else {
            s->ops->loc_fini(s->self, (void *)v);
            ag_cell_free(s, (void *)v, 0);
         }
         *slot = NULL;
      } else {
         char *b = ag_split(s, slot);
         for (ag_addr a = a0; a < a1; a++) {
            s->ops->loc_fini(s->self, AG_LOC(s, b, a - w));
            s->ops->loc_init(s->self, AG_LOC(s, b, a - w));
         }
      }
   }
}

typedef struct { ag_shadow *s; ag_addr lo, hi; } ag_forget_range;

static void ag_forget_page_rec(void *arg, uint64_t key, void *rec)
{
   ag_forget_range *r = arg;
   ag_addr base = key << AG_PAGE_BITS, top = base + (1u << AG_PAGE_BITS);
   if (top <= r->lo || base >= r->hi) return;
   ag_forget_in_page(r->s, *(ag_page **)rec, base,
                     r->lo > base ? r->lo : base, r->hi < top ? r->hi : top);
}

void ag_shadow_forget(ag_shadow *s, ag_addr addr, uint64_t len)
{
   if (!ag_clamp(addr, &len)) return;
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
      if (p) ag_forget_in_page(s, p, base, addr > base ? addr : base, end < top ? end : top);
   }
}

static void ag_page_fini(void *arg, uint64_t key, void *rec)
{
   ag_shadow *s = arg;
   ag_page *p = *(ag_page **)rec;
   (void)key;
   for (unsigned i = 0; i < AG_PAGE_WORDS; i++) {
      uintptr_t v = (uintptr_t)p->slot[i];
      if (!v) continue;
      if (v & AG_SPLIT) {
         char *b = (char *)(v & ~AG_SPLIT);
         for (int j = 0; j < 8; j++) s->ops->loc_fini(s->self, AG_LOC(s, b, j));
         ag_free(b);
      } else {
         s->ops->loc_fini(s->self, (void *)v);
         ag_free((void *)v);
      }
   }
   ag_free(p);
}

void ag_shadow_delete(ag_shadow *s)
{
   if (!s) return;
   ag_map_foreach(s->pages, ag_page_fini, s);
   ag_map_delete(s->pages);
   for (int k = 0; k < 2; k++) {
      ag_free_cell *f = k ? s->free8 : s->free1;
      while (f) { ag_free_cell *n = f->next; ag_free(f); f = n; }
   }
   ag_free(s);
}

uint64_t ag_shadow_bytes(const ag_shadow *s) { return s->bytes; }
