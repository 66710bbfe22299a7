/* ag_blocks.c -- live heap blocks by start address.  Allocation and free
 * are a hash insert and remove; finding the block around an address is a
 * scan, made only for a new report. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_poolalloc.h"   /* the nodes, one per malloc, from a pool */
#include "ag_blocks.h"

typedef struct ag_block {
   struct ag_block *next;    /* VgHashNode's layout: next, key */
   UWord start;
   SizeT n;
   ExeContext *ec;
   ag_tid by;
} ag_block;

Bool ag_blocks_on;
static VgHashTable *ag_bl_table;
static PoolAlloc *ag_bl_pool;

void ag_blocks_alloc(Addr a, SizeT n, ExeContext *ec, ag_tid by)
{
   if (!ag_bl_table) {
      ag_bl_table = VG_(HT_construct)("ag.blocks");
      ag_bl_pool = VG_(newPA)(sizeof(ag_block), 1000, VG_(malloc), "ag.blocks.pool", VG_(free));
   }
   ag_block *b = VG_(allocEltPA)(ag_bl_pool);
   b->start = a;
   b->n = n;
   b->ec = ec;
   b->by = by;
   VG_(HT_add_node)(ag_bl_table, b);
}

Bool ag_blocks_live(Addr a)
{
   return ag_bl_table && VG_(HT_lookup)(ag_bl_table, a) != NULL;
}

Bool ag_blocks_free(Addr a, SizeT *n, ExeContext **ec)
{
   ag_block *b = ag_bl_table ? VG_(HT_remove)(ag_bl_table, a) : NULL;
   if (!b) return False;
   *n = b->n;
   *ec = b->ec;
   VG_(freeEltPA)(ag_bl_pool, b);
   return True;
}

void ag_blocks_xt_next(XT_Allocs *xta, ExeContext **ec)
{
   static Bool iterating;
   if (!iterating && ag_bl_table) VG_(HT_ResetIter)(ag_bl_table);
   ag_block *b = ag_bl_table ? VG_(HT_Next)(ag_bl_table) : NULL;
   iterating = b != NULL;
   xta->nblocks = b ? 1 : 0;
   xta->nbytes = b ? b->n : 0;
   if (b) *ec = b->ec;
}

static Bool ag_bl_in(const ag_block *b, Addr a)
{
   /* a zero-sized block still names its own address */
   return a >= b->start && (a < b->start + b->n || a == b->start);
}

Bool ag_blocks_find(Addr a, Addr *start, SizeT *n, ExeContext **ec, ag_tid *by)
{
   if (!ag_bl_table) return False;
   ag_block *b = VG_(HT_lookup)(ag_bl_table, a);
   if (!b) {
      VG_(HT_ResetIter)(ag_bl_table);
      while ((b = VG_(HT_Next)(ag_bl_table)) && !ag_bl_in(b, a)) {}
   }
   if (!b) return False;
   *start = b->start;
   *n = b->n;
   *ec = b->ec;
   *by = b->by;
   return True;
}
