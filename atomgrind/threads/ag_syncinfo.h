/* ag_syncinfo.h -- what kind of synchronisation object lives at an
 * address, so that reports name a condition variable as one.  Written by
 * the client-request handler, read by the error printer. */
#ifndef AG_SYNCINFO_H
#define AG_SYNCINFO_H

#include "pub_tool_basics.h"

/* Kinds: AG_LK_* of ag_clientreq.h for locks, then the other objects. */
enum { AG_SK_UNKNOWN = 0, AG_SK_MUTEX = 1, AG_SK_SPIN, AG_SK_RWLOCK_RD, AG_SK_RWLOCK_WR,
       AG_SK_COND, AG_SK_SEM, AG_SK_BARRIER, AG_SK_ONCE };

void ag_syncinfo_set(Addr obj, UInt kind);
UInt ag_syncinfo_kind(Addr obj);           /* AG_SK_UNKNOWN if never seen */
/* "lock", "spinlock", "rwlock", "condition variable", "semaphore",
   "barrier", "pthread_once control" */
const HChar *ag_syncinfo_name(UInt kind);
Bool ag_syncinfo_is_lock(UInt kind);       /* acquired and released by one thread */

#endif
