/* ag_blocks.h -- the program's live heap blocks: size, allocation stack
 * and allocating thread, so that a race report can describe a heap
 * address as Helgrind does.  Written by the malloc replacement, read by
 * errors (ag_blocks.c). */
#ifndef AG_BLOCKS_H
#define AG_BLOCKS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "ag_engine.h"             /* ag_tid */

/* Kept only while ag_blocks_on (race checking): a stack per malloc costs. */
extern Bool ag_blocks_on;
void ag_blocks_alloc(Addr a, SizeT n, ExeContext *ec, ag_tid by);
void ag_blocks_free(Addr a);
/* The live block containing a: False if none. */
Bool ag_blocks_find(Addr a, Addr *start, SizeT *n, ExeContext **ec, ag_tid *by);

#endif
