/* ag_locksets.h -- the locks each thread holds, as interned sets, so that
 * a race report can say which locks each of its two accesses held.
 * Written by analysis (lock events), read by analysis (the tag of an
 * access's site) and by errors (ag_locksets.c). */
#ifndef AG_LOCKSETS_H
#define AG_LOCKSETS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "ag_engine.h"             /* ag_tid */
#include "ag_site.h"               /* a site's lock set bits */
#include "ag_threadrec.h"          /* each thread's set, in its record */

/* A race engine's access site carries the id of the set of locks its
   thread held (engine/ag_site.h has the layout).  Set 0 is the empty set. */
#define AG_LS_UNKNOWN AG_SITE_LS_UNKNOWN   /* more distinct sets than ids */

/* The current set of thread t, as a site's lock set bits (ag_site_locks;
   read inline by the access path; 0 for threads that never locked). */
static inline ag_site ag_lockset_tag(ag_tid t)
{
   const ag_threadrec *r = ag_rec_find(t);
   return r ? r->locks.tag : 0;
}

/* Thread t (Valgrind thread vgtid) acquired / released lock. */
void ag_lockset_acquire(ag_tid t, ThreadId vgtid, Addr lock);
void ag_lockset_release(ag_tid t, Addr lock);
/* lock was (re)initialised or destroyed: its next acquire is its first.
   So are those of the locks in [a, a+len), whose memory was freed. */
void ag_lockset_forget(Addr lock);
void ag_lockset_forget_range(Addr a, SizeT len);

/* The locks of set id (AG_LS_UNKNOWN: not known), in address order. */
UInt ag_lockset_size(UInt id);
Addr ag_lockset_lock(UInt id, UInt i);
/* Where lock was first acquired (since its initialisation), and by
   whom; NULL if not seen. */
ExeContext *ag_lockset_first_acquire(Addr lock, ag_tid *by);

#endif
