/* ag_spec.h -- atomic regions that last as long as a stack frame: calls of
 * the functions --atomic-fns/--atomic-spec name, and source-marked regions
 * a longjmp or an exception abandons (ag_spec.c). */
#ifndef AG_SPEC_H
#define AG_SPEC_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool */
#include "pub_tool_tooliface.h"  /* IRSB */

void ag_spec_init(void);                 /* post_clo_init: patterns, tracking */
Bool ag_spec_tracking(void);             /* frames are tracked */
/* At translation time, before the superblock's own statements: if the
   block starts at the entry of an atomic function, open its region
   (returns True: the call is emitted). */
Bool ag_spec_instrument_entry(IRSB *out, Addr a, Int offset_SP);
/* Frames end where SP rises: ag_instrument calls ag_spec_instrument_sp
   before every write of SP that rises, or may (rises: it is known to),
   in every object, if this says so. */
Bool ag_spec_instruments_sp(void);
void ag_spec_instrument_sp(IRSB *out, IRExpr *new_sp, Int offset_SP, Bool rises);
void ag_spec_marker_begin(ThreadId vgtid);   /* after ATOMGRIND_ATOMIC_BEGIN */
void ag_spec_marker_end(ThreadId vgtid);     /* before ATOMGRIND_ATOMIC_END */
void ag_spec_thread_exit(ThreadId vgtid);    /* closes its function regions */
void ag_spec_fini(void);

#endif
