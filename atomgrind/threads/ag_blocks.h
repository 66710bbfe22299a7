/* ag_blocks.h -- the program's live heap blocks: size, allocation stack
 * and allocating thread, so that a race report can describe a heap
 * address as Helgrind does, and for the heap profile (--xtree-memory).
 * Written and profiled by the malloc replacement, read by errors
 * (ag_blocks.c). */
#ifndef AG_BLOCKS_H
#define AG_BLOCKS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_xtree.h"        /* (pub_tool_xtmemory.h needs it) */
#include "pub_tool_xtmemory.h"     /* XT_Allocs */
#include "ag_engine.h"             /* ag_tid */

/* Every live block is kept, its stack (ec) only when ag_blocks_on (race
   checking, --xtree-memory; NULL otherwise): a stack per malloc costs.
   ag_blocks_on is set before the program starts, so under it every block
   has its stack, as the readers below assume. */
extern Bool ag_blocks_on;
void ag_blocks_alloc(Addr a, SizeT n, ExeContext *ec, ag_tid by);
/* Does a live block start at a? */
Bool ag_blocks_live(Addr a);
/* Forget the live block that starts at a, giving its size (as asked)
   and allocation stack.  False if none. */
Bool ag_blocks_free(Addr a, SizeT *n, ExeContext **ec);
/* The live block containing a, with its stack: False if none. */
Bool ag_blocks_find(Addr a, Addr *start, SizeT *n, ExeContext **ec, ag_tid *by);
/* --xtree-memory=allocs: the live blocks one by one, as VG_(XTMemory_report)
   asks (it calls this till xta->nblocks is 0). */
void ag_blocks_xt_next(XT_Allocs *xta, ExeContext **ec);

#endif
