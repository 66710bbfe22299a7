/* ag_slab.c -- fixed-size blocks from slabs, free lists by size class. */
#include "ag_slab.h"
#include "ag_shim.h"

struct ag_slab_free { struct ag_slab_free *next; };
typedef struct ag_slab_chunk { struct ag_slab_chunk *next; } ag_slab_chunk;

/* Blocks start 64-byte aligned after the chunk's link, so blocks of a
   multiple of 64 bytes are whole cache lines; AG_SLAB_HEAD bounds the
   bytes skipped. */
#define AG_SLAB_ALIGN 64
#define AG_SLAB_HEAD (sizeof(ag_slab_chunk) + AG_SLAB_ALIGN - 1)

void *ag_slab_alloc(ag_slab_pool *p, unsigned cls, size_t size)
{
   if (cls >= AG_SLAB_CLASSES || size > AG_SLAB_BYTES - AG_SLAB_HEAD)
      ag_panic("ag_slab_alloc: no such size class");
   if (p->free[cls]) {
      struct ag_slab_free *b = p->free[cls];
      p->free[cls] = b->next;
      return b;
   }
   if (p->left < size) {
      ag_slab_chunk *c = ag_malloc(AG_SLAB_BYTES);
      c->next = p->chunks;
      p->chunks = c;
      p->cur = (char *)(((uintptr_t)(c + 1) + AG_SLAB_ALIGN - 1) & ~(uintptr_t)(AG_SLAB_ALIGN - 1));
      p->left = AG_SLAB_BYTES - (size_t)(p->cur - (char *)c);
      p->bytes += AG_SLAB_BYTES;
   }
   void *b = p->cur;
   p->cur += size;
   p->left -= size;
   return b;
}

void ag_slab_free(ag_slab_pool *p, unsigned cls, void *block)
{
   struct ag_slab_free *b = block;
   b->next = p->free[cls];
   p->free[cls] = b;
}

void ag_slab_release(ag_slab_pool *p)
{
   while (p->chunks) {
      ag_slab_chunk *n = p->chunks->next;
      ag_free(p->chunks);
      p->chunks = n;
   }
   ag_memzero(p, sizeof *p);
}
