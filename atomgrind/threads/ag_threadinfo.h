/* ag_threadinfo.h -- where each thread was created, and whether a report
 * has announced it yet.  Written by threads, read by errors
 * (ag_threadinfo.c). */
#ifndef AG_THREADINFO_H
#define AG_THREADINFO_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "ag_engine.h"             /* ag_tid */

/* t was created at ec (NULL: the root thread, or a fork child's). */
void ag_threadinfo_created(ag_tid t, ExeContext *ec);
ExeContext *ag_threadinfo_creation(ag_tid t);
/* True the first time it is asked for t, False after. */
Bool ag_threadinfo_announce(ag_tid t);

#endif
