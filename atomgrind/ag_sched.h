/* ag_sched.h -- atomgrind's scheduler: which thread runs next at the points
 * that matter for atomicity (see ag_sched.c).  Called by the client
 * requests, the instrumentation and the thread tracker; calls none of them. */
#ifndef AG_SCHED_H
#define AG_SCHED_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool */


/* Where a thread is when it reaches a scheduling point. */
typedef enum {
   AG_PT_BEGIN,        /* just opened an atomic region (outermost or not) */
   AG_PT_END,          /* about to close one */
   AG_PT_SYNC_PRE,     /* about to call a synchronisation function */
   AG_PT_SYNC_POST,    /* just returned from one */
   AG_PT_PREEMPT,      /* preempted after an access inside a region */
   AG_PT_YIELD         /* about to call sched_yield: let the others run */
} ag_point;

/* Non-zero when the running thread must stop at the start of its next
   superblock: instrumented code reads it there (ag_instrument.c), and
   sets ag_sched_stopping as it takes the stop exit.  Set only for the
   running thread, not inside a synchronisation call; cleared at every
   return to the scheduler. */
extern volatile UWord ag_sched_stop;
extern volatile UWord ag_sched_stopping;

void ag_sched_pre_clo_init(void);     /* registers the syscall callbacks */
void ag_sched_init(void);             /* after the options are known */
void ag_sched_fini(void);             /* the line that says what was checked */
void ag_sched_thread_new(ThreadId parent, ThreadId child);
void ag_sched_thread_exit(ThreadId vgtid);
/* The running thread has left generated code (every return to the
   scheduler): a stop exit taken preempts it here. */
void ag_sched_stopped(ThreadId vgtid);

/* A scheduling point of the running thread: it may wait here (the big lock
   released) until the scheduler gives it the turn.  Only from a client
   request handler. */
void ag_sched_point(ThreadId vgtid, ag_point kind);

/* A region opens at code address site (a BEGIN point; regions run often
   are preempted less often). */
void ag_sched_begin(ThreadId vgtid, Addr site);

/* A region opened or closed by generated code (a call of an atomic
   function, ag_spec.c): counted like BEGIN and END; the opening may ask
   for a preemption at the next superblock start (no waiting here) if
   may_stop (not inside a synchronisation call). */
void ag_sched_region_enter(ThreadId vgtid, Addr site, Bool may_stop);
void ag_sched_region_leave(ThreadId vgtid);
/* The region nesting the scheduler counts (ag_regions.c checks it). */
UInt ag_sched_depth(ThreadId vgtid);

/* An access by the running thread (not to its stack, not ignored): inside
   a region it may ask for a preemption at the next superblock start. */
void ag_sched_access(ThreadId vgtid);

#endif
