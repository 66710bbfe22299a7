/* ag_analysis.h -- the engines the tool runs and the events it feeds
 * them (ag_analysis.c).  Callers pass engine thread ids; reports go on
 * to the error manager with the Valgrind thread of the event. */
#ifndef AG_ANALYSIS_H
#define AG_ANALYSIS_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, SizeT, Bool */
#include "ag_engine.h"           /* ag_tid */

void ag_analysis_init(void);
void ag_analysis_fini(void);
void ag_an_running(ThreadId vgtid);       /* this thread runs from now on */
void ag_an_stopped(void);                 /* it left generated code: none in use */
/* vgtid enters (in) or leaves a client request's handler: only then may
   the analysis discard translations at once (ag_an_instrument_now). */
void ag_an_request(ThreadId vgtid, Bool in);
void ag_an_thread_new(ag_tid t);
void ag_an_fork(ag_tid parent, ag_tid child);
void ag_an_join(ag_tid joiner, ag_tid child);
void ag_an_thread_exit(ag_tid t, ThreadId vgtid);
/* Returns the region's begin site (an ExeContext, as reports carry it);
   0 for a nested region, which has none. */
ULong ag_an_begin(ag_tid t, ThreadId vgtid);
void ag_an_end(ag_tid t, ThreadId vgtid);
void ag_an_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);
/* A lock (or a read side) taken or let go: outermost only. */
void ag_an_lock_acquire(ag_tid t, Addr lock, Bool shared);
void ag_an_lock_release(ag_tid t, Addr lock, Bool shared);
/* A read-modify-write of a synchronisation object (condvar, semaphore,
   barrier, once): ordered after the previous one on the object. */
void ag_an_sync_rmw(ag_tid t, Addr obj);
/* pthread_once on `once` returned: its initialising call (init) or a
   later one.  Atomicity engines see a write or a read of the control;
   the others (races, prediction) an RMW of it as a sync object. */
void ag_an_once(ag_tid t, Addr once, Bool init);
/* For the race engine only: an acquire or a release of obj that is no
   lock (a descriptor's bytes), and an access that no instruction makes
   (a descriptor's use, a system call's buffer) at code address ip. */
void ag_an_order(ag_tid t, Addr obj, Bool release);
void ag_an_world_access(ag_tid t, Addr a, SizeT len, Bool write, Addr ip);
/* A barrier's arrival or departure: the race engine orders departures
   after their generation's arrivals (gen: that generation's object). */
void ag_an_barrier(ag_tid t, Addr b, Addr gen, Bool arrive);
void ag_an_forget(Addr a, SizeT len);     /* memory freed, unmapped, reused */
void ag_an_free(ag_tid t, Addr a, SizeT len);  /* t frees a heap block */
void ag_an_atomic_seen(Addr a, UInt size);     /* an atomic access outside a window */
Bool ag_an_in_region(ag_tid t);
Int ag_an_depth(ag_tid t);                /* t's region nesting; -1: no engine */
void ag_an_disable(void);                 /* nothing is analysed from now on */

/* Read inline by instrumented code. */
extern volatile UWord ag_an_gate;         /* 0: accesses need not be reported */
extern Bool ag_an_instrument_accesses;    /* read at translation: False while
                                             no region has opened yet */
extern volatile UWord ag_an_leave;        /* tested after an atomic function's
                                             entry: leave to retranslate */
extern ULong ag_an_clock, ag_an_next;     /* RPT time, and when to tick */
void ag_an_tick(void);

#endif
