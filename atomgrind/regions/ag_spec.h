/* ag_spec.h -- the frame tracker: at translation time, where regions that
 * last as long as a frame begin and end (entries of the functions
 * --atomic-fns/--atomic-spec name, their inlined instances, SP's rises);
 * ag_regions.c keeps the regions (ag_spec.c). */
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
/* Inlined instances of atomic functions (ag_instances.h): whether they are
   tracked, the chain of the instruction at ip, the check before an
   instruction whose chain may differ from the running code's (a block's
   first, or one whose chain differs from the instruction before it), and
   the call at the end of a block of a non-empty chain that ends in a call. */
Bool ag_spec_inlines(void);
UInt ag_spec_inline_at(Addr ip);
void ag_spec_instrument_inline(IRSB *out, UInt chain, Bool block_start, Addr ip,
                               Int offset_SP, Int offset_IP);
void ag_spec_instrument_call_out(IRSB *out, Int offset_SP);
void ag_spec_fini(void);

#endif
