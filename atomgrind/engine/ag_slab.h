/* ag_slab.h -- small blocks of a few fixed sizes carved from 64 KiB slabs,
 * with a free list per size class: engines' per-location arrays (read
 * sets, prediction entries) cost no allocator header each, and freed ones
 * are reused.  Blocks live until the pool is released.  A slab's blocks
 * start on a cache line: in a pool whose sizes are all multiples of 64
 * bytes, every block is whole lines. */
#ifndef AG_SLAB_H
#define AG_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define AG_SLAB_BYTES (64u * 1024)
#define AG_SLAB_CLASSES 8

typedef struct ag_slab_pool {
   struct ag_slab_free *free[AG_SLAB_CLASSES];
   struct ag_slab_chunk *chunks;
   char *cur;
   size_t left;
   uint64_t bytes;               /* slabs held */
} ag_slab_pool;                  /* all zero: an empty pool */

/* A block of `size` bytes (at most a slab's, a multiple of 8) of size class
   cls (< AG_SLAB_CLASSES): the caller gives every block of one class the
   same size. */
void *ag_slab_alloc(ag_slab_pool *p, unsigned cls, size_t size);
void ag_slab_free(ag_slab_pool *p, unsigned cls, void *block);
/* Every slab back to the allocator. */
void ag_slab_release(ag_slab_pool *p);

#endif
