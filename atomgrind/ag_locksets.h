/* ag_locksets.h -- the locks each thread holds, as interned sets, so that
 * a race report can say which locks each of its two accesses held.
 * Written by analysis (lock events), read by analysis (the tag of an
 * access's site) and by errors (ag_locksets.c). */
#ifndef AG_LOCKSETS_H
#define AG_LOCKSETS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "ag_engine.h"             /* ag_tid */

/* A race engine's access site is the access's instruction address with
   the id of the set of locks its thread held in the bits above it (user
   code addresses fit in 48 bits on amd64): the engine keeps sites with
   the accesses it remembers, so the earlier access of a race carries its
   own locks at no cost per location.  Set 0 is the empty set. */
#define AG_LS_SHIFT 48
#define AG_LS_UNKNOWN 0xffffu      /* more distinct sets than ids */

/* With --history-level=full the address is replaced by the access's
   whole stack: its ExeContext's unique number (ECU) with bit 47 set, which
   no user code address has. */
#define AG_SITE_ECU (1ULL << 47)

static inline Addr ag_site_ip(ULong site) { return (Addr)(site & ((1ULL << AG_LS_SHIFT) - 1)); }
static inline UInt ag_site_lockset(ULong site) { return (UInt)(site >> AG_LS_SHIFT); }

/* The current set's id of each thread, shifted into place (read inline
   by the access path; 0 for threads that never locked). */
extern ULong *ag_ls_tags;
extern UInt ag_ls_ntags;
static inline ULong ag_lockset_tag(ag_tid t) { return t < ag_ls_ntags ? ag_ls_tags[t] : 0; }

/* Thread t (Valgrind thread vgtid) acquired / released lock. */
void ag_lockset_acquire(ag_tid t, ThreadId vgtid, Addr lock);
void ag_lockset_release(ag_tid t, Addr lock);
/* lock was (re)initialised or destroyed: its next acquire is its first. */
void ag_lockset_forget(Addr lock);

/* The locks of set id (AG_LS_UNKNOWN: not known), in address order. */
UInt ag_lockset_size(UInt id);
Addr ag_lockset_lock(UInt id, UInt i);
/* Where lock was first acquired (since its initialisation), and by
   whom; NULL if not seen. */
ExeContext *ag_lockset_first_acquire(Addr lock, ag_tid *by);

#endif
