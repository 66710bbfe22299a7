/* ag_map.c -- see ag_map.h.  Linear probing on a power-of-two table of
 * (key, record*) pairs; records are carved from chunks so they never move. */
#include "ag_map.h"
#include "ag_shim.h"

typedef struct { uint64_t key; void *rec; } ag_slot;

struct ag_map {
   size_t rec_size;
   ag_slot *slots;
   size_t cap, count;
   char *chunk; size_t chunk_left;   /* record allocation */
   void **chunks; size_t nchunks;
   struct ag_map *pages;             /* the pages (key >> AG_MAP_PAGE_BITS)
                                        that hold keys, once ag_map_foreach_in ran */
};

#define AG_MAP_PAGE_BITS 12

static inline size_t ag_hash(uint64_t k)
{
   k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33;
   return (size_t)k;
}

ag_map *ag_map_new(size_t rec_size)
{
   ag_map *m = ag_calloc(1, sizeof *m);
   m->rec_size = (rec_size + 7) & ~(size_t)7;
   if (m->rec_size == 0) m->rec_size = 8;
   m->cap = 16;
   m->slots = ag_calloc(m->cap, sizeof(ag_slot));
   return m;
}

void ag_map_delete(ag_map *m)
{
   if (!m) return;
   ag_map_delete(m->pages);
   for (size_t i = 0; i < m->nchunks; i++) ag_free(m->chunks[i]);
   ag_free(m->chunks);
   ag_free(m->slots);
   ag_free(m);
}

static void ag_map_grow(ag_map *m)
{
   size_t ncap = m->cap * 2;
   ag_slot *ns = ag_calloc(ncap, sizeof(ag_slot));
   for (size_t i = 0; i < m->cap; i++) {
      if (!m->slots[i].rec) continue;
      size_t j = ag_hash(m->slots[i].key) & (ncap - 1);
      while (ns[j].rec) j = (j + 1) & (ncap - 1);
      ns[j] = m->slots[i];
   }
   ag_free(m->slots);
   m->slots = ns;
   m->cap = ncap;
}

void *ag_map_get(ag_map *m, uint64_t key)
{
   size_t j = ag_hash(key) & (m->cap - 1);
   while (m->slots[j].rec) {
      if (m->slots[j].key == key) return m->slots[j].rec;
      j = (j + 1) & (m->cap - 1);
   }
   return NULL;
}

static void *ag_map_new_rec(ag_map *m)
{
   if (m->chunk_left < m->rec_size) {
      size_t n = m->rec_size * 64;
      m->chunks = ag_realloc(m->chunks, (m->nchunks + 1) * sizeof(void *));
      m->chunk = ag_calloc(1, n);
      m->chunks[m->nchunks++] = m->chunk;
      m->chunk_left = n;
   }
   void *r = m->chunk;
   m->chunk += m->rec_size;
   m->chunk_left -= m->rec_size;
   return r;
}

void *ag_map_lookup(ag_map *m, uint64_t key, int *created)
{
   if (created) *created = 0;
   if ((m->count + 1) * 4 > m->cap * 3) ag_map_grow(m);
   size_t j = ag_hash(key) & (m->cap - 1);
   while (m->slots[j].rec) {
      if (m->slots[j].key == key) return m->slots[j].rec;
      j = (j + 1) & (m->cap - 1);
   }
   m->slots[j].key = key;
   m->slots[j].rec = ag_map_new_rec(m);
   m->count++;
   if (m->pages) ag_map_lookup(m->pages, key >> AG_MAP_PAGE_BITS, NULL);
   if (created) *created = 1;
   return m->slots[j].rec;
}

size_t ag_map_count(const ag_map *m) { return m->count; }

void ag_map_foreach(ag_map *m, void (*fn)(void *, uint64_t, void *), void *arg)
{
   for (size_t i = 0; i < m->cap; i++)
      if (m->slots[i].rec) fn(arg, m->slots[i].key, m->slots[i].rec);
}

typedef struct { uint64_t lo, hi; void (*fn)(void *, uint64_t, void *); void *arg; } ag_range;

static void ag_in_range(void *arg, uint64_t key, void *rec)
{
   ag_range *r = arg;
   if (key >= r->lo && key < r->hi) r->fn(r->arg, key, rec);
}

static void ag_note_page(void *arg, uint64_t key, void *rec)
{
   (void)rec;
   ag_map_lookup(arg, key >> AG_MAP_PAGE_BITS, NULL);
}

/* Pages that hold keys are indexed from the first call on, so that a free
   of a block with no key in its pages (nearly every free) costs a probe or
   two, whatever the number of keys. */
void ag_map_foreach_in(ag_map *m, uint64_t lo, uint64_t hi,
                       void (*fn)(void *, uint64_t, void *), void *arg)
{
   if (m->count == 0 || lo >= hi) return;
   if (!m->pages) {
      m->pages = ag_map_new(1);
      ag_map_foreach(m, ag_note_page, m->pages);
   }
   uint64_t first = lo >> AG_MAP_PAGE_BITS, last = (hi - 1) >> AG_MAP_PAGE_BITS;
   ag_range all = { lo, hi, fn, arg };
   if (last - first >= m->pages->count) {   /* more pages than hold keys */
      ag_map_foreach(m, ag_in_range, &all);
      return;
   }
   for (uint64_t pg = first; pg <= last; pg++) {
      if (!ag_map_get(m->pages, pg)) continue;
      uint64_t base = pg << AG_MAP_PAGE_BITS, top = base + ((uint64_t)1 << AG_MAP_PAGE_BITS);
      uint64_t from = lo > base ? lo : base, to = top && hi > top ? top : hi;
      if (to - from > m->count) {           /* one walk for the rest of the range */
         ag_range rest = { from, hi, fn, arg };
         ag_map_foreach(m, ag_in_range, &rest);
         return;
      }
      for (uint64_t k = from; k < to; k++) {
         void *rec = ag_map_get(m, k);
         if (rec) fn(arg, k, rec);
      }
   }
}
