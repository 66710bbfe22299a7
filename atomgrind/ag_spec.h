/* ag_spec.h -- atomic regions that last as long as a stack frame: calls of
 * the functions --atomic-fns/--atomic-spec name, and source-marked regions
 * a longjmp or an exception abandons (ag_spec.c). */
#ifndef AG_SPEC_H
#define AG_SPEC_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool */
#include "pub_tool_tooliface.h"  /* IRSB */

void ag_spec_init(void);                 /* post_clo_init: patterns, tracking */
/* At translation time, before the superblock's own statements: if the
   block starts at the entry of an atomic function, open its region
   (returns True: the call is emitted). */
Bool ag_spec_instrument_entry(IRSB *out, Addr a, Int offset_SP);
/* Frames end where SP rises.  SP's rises are tested in the IR of every
   object (this says whether): ag_instrument passes each statement of a
   superblock to ag_spec_instrument_sp before copying it, with the values
   of SP known so far in the block (temps that hold SP + d, d relative to
   SP at the block's start or at the last write of SP whose value was not
   known), as the core's SP pass keeps them. */
#define AG_SPEC_SP_ALIASES 16
typedef struct {
   struct { IRTemp t; Long d; } a[AG_SPEC_SP_ALIASES];   /* a ring */
   UInt next;
   Long cur;                                             /* SP's own d */
} ag_spec_sp;
Bool ag_spec_tracks_sp(void);                            /* frames tracked, in the IR */
void ag_spec_sp_reset(ag_spec_sp *v);                    /* a block's start */
void ag_spec_instrument_sp(IRSB *out, ag_spec_sp *v, const IRStmt *st, Int offset_SP);
void ag_spec_marker_begin(ThreadId vgtid);   /* after ATOMGRIND_ATOMIC_BEGIN */
void ag_spec_marker_end(ThreadId vgtid);     /* before ATOMGRIND_ATOMIC_END */
void ag_spec_thread_exit(ThreadId vgtid);    /* closes its function regions */
void ag_spec_fini(void);

#endif
