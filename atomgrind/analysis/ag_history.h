/* ag_history.h -- stacks of recent accesses per thread (--history-level=
 * full), so that a report can show the other thread's access with its
 * whole stack.  Written by analysis, read by errors. */
#ifndef AG_HISTORY_H
#define AG_HISTORY_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "ag_engine.h"             /* ag_tid */

/* t's access numbered `event` (the atomicity engine's event index) had
   stack ec.  Only the latest AG_HISTORY_RING per thread are kept. */
void ag_history_note(ag_tid t, ULong event, ExeContext *ec);
/* Its stack, if still kept; NULL otherwise. */
ExeContext *ag_history_stack(ag_tid t, ULong event);

#endif
