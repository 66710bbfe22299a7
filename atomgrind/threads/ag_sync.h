/* ag_sync.h -- pthread synchronisation objects as events: locks with
 * recursion and reader/writer sides, condvars, semaphores, barriers
 * (ag_sync.c). */
#ifndef AG_SYNC_H
#define AG_SYNC_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool, UInt */
#include "pub_tool_execontext.h" /* ExeContext */
#include "ag_engine.h"           /* ag_tid */

void ag_sync_init(void);
/* kind: AG_LK_*, how: AG_ACQ_* */
void ag_sync_lock_acquired(ThreadId vgtid, Addr lock, UInt kind, UInt how);
void ag_sync_lock_release(ThreadId vgtid, Addr lock);
void ag_sync_cond_wait_pre(ThreadId vgtid, Addr cond, Addr mutex);
void ag_sync_cond_wait_post(ThreadId vgtid, Addr cond, Addr mutex);
void ag_sync_object(ThreadId vgtid, Addr obj);   /* an RMW on a sync object */
void ag_sync_use(ThreadId vgtid, Addr obj);      /* a read of its memory */
/* pthread_once returned (init: inside the initialising call) */
void ag_sync_once(ThreadId vgtid, Addr once, Bool init);
void ag_sync_destroy(ThreadId vgtid, Addr obj);
Bool ag_sync_holds(ThreadId vgtid, Addr lock);  /* exclusively, by this thread */
ULong ag_sync_taken(Addr lock);   /* how many times taken exclusively, ever */
/* The exclusive holder of lock (AG_NO_TID: none), where it took it, and
   how many threads hold its read side. */
ag_tid ag_sync_owner(Addr lock, ExeContext **taken_at, UInt *readers);
void ag_sync_forget_range(Addr a, SizeT len);   /* the memory was freed */

#endif
