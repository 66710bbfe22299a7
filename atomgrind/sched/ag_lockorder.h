/* ag_lockorder.h -- lock-order inversions, as Helgrind's lock acquisition
 * order graph finds them: a thread takes B while holding A after some
 * thread(s) took A while holding B (ag_lockorder.c).  Called by the sync
 * objects on every acquire and release (a thread's first read hold of an
 * rwlock and its last). */
#ifndef AG_LOCKORDER_H
#define AG_LOCKORDER_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"   /* ExeContext */
#include "ag_engine.h"             /* ag_tid */

/* Thread vgtid (engine id t) took lock at ec; blocking: an untimed call
   that could have waited forever (only those establish an order); shared:
   a read lock of an rwlock. */
void ag_lo_acquire(ThreadId vgtid, ag_tid t, Addr lock, ExeContext *ec, Bool blocking,
                   Bool shared);
void ag_lo_release(ThreadId vgtid, Addr lock);
/* lock was (re)initialised or destroyed: its orders are forgotten */
void ag_lo_forget(Addr lock);
/* the memory at [a, a+len) was freed: locks there are gone */
void ag_lo_forget_range(Addr a, SizeT len);

#endif
