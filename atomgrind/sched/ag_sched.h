/* ag_sched.h -- atomgrind's scheduler: which thread runs next at the points
 * that matter for atomicity (see ag_sched.c).  Called by the client
 * requests, the instrumentation and the thread tracker; calls none of them. */
#ifndef AG_SCHED_H
#define AG_SCHED_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool */
#include "ag_engine.h"           /* ag_tid: the engine's thread numbers, tags */


/* Where a thread is when it reaches a scheduling point. */
typedef enum {
   AG_PT_BEGIN,        /* just opened an atomic region (outermost or not) */
   AG_PT_END,          /* about to close one */
   AG_PT_SYNC_PRE,     /* about to call a synchronisation function */
   AG_PT_SYNC_POST,    /* just returned from one */
   AG_PT_PREEMPT,      /* preempted after an access inside a region */
   AG_PT_YIELD,        /* about to call sched_yield: let the others run */
   AG_PT_SHARED,       /* about to access a shared location (ag_shared.c) */
   AG_PT_BLOCKS        /* ran its budget of instructions without a point */
} ag_point;

/* Non-zero when the running thread must stop: at the start of its next
   block where accesses are analysed, and before an access where the
   instrumentation may leave (ag_instrument.c reads it there, and sets
   ag_sched_stopping as it leaves so); elsewhere at Valgrind's next event
   check (ag_sched.c's budget).  Set only for the running thread, not
   inside a synchronisation call; cleared at every return to the
   scheduler. */
extern volatile UWord ag_sched_stop;
extern volatile UWord ag_sched_stopping;
/* The instrumentation leaves right before an access, at the stop asked
   for there: this is the stop exit (sets ag_sched_stopping). */
void ag_sched_stop_exit(void);

void ag_sched_pre_clo_init(void);     /* the big lock's kind */
/* The core's system-call callbacks (ag_main.c registers one pair that
   calls these and ag_fd's): a thread entering a call that may block gives
   up the turn, and takes it back after. */
void ag_sched_pre_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs);
void ag_sched_post_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs, SysRes res);
/* The run ends with every thread (a deadlock, ag_deadlock.c): nobody
   waits for the turn any more, as at exit_group. */
void ag_sched_end_run(void);
/* vgtid is about to exit() the process: the others may run first. */
void ag_sched_exit(ThreadId vgtid);
void ag_sched_init(void);             /* after the options are known */
void ag_sched_fini(void);             /* the line that says what was checked */
void ag_sched_thread_new(ThreadId parent, ThreadId child);
/* The thread parent (the engine's number) created child: race sites are
   not learned from what it did before. */
void ag_sched_thread_born(ag_tid parent, ag_tid child);
void ag_sched_thread_exit(ThreadId vgtid);
/* The thread is about to run generated code (every run): its budget is
   set on Valgrind's event counter. */
void ag_sched_running(ThreadId vgtid);
/* The running thread has left generated code (every return to the
   scheduler): a stop exit taken, or its budget run out, preempts it here. */
void ag_sched_stopped(ThreadId vgtid);

/* A scheduling point of the running thread: it may wait here (the big lock
   released) until the scheduler gives it the turn.  Only from a client
   request handler. */
void ag_sched_point(ThreadId vgtid, ag_point kind);

/* A region opens at code address site (a BEGIN point; regions run often
   are preempted less often). */
void ag_sched_begin(ThreadId vgtid, Addr site);

/* A region opened or closed by generated code (a call of an atomic
   function or an inlined instance of one; ag_regions.c, the only caller
   of the region hooks): counted like BEGIN and END; the opening may ask
   for a preemption at the next superblock start (no waiting here) if
   may_stop (not inside a synchronisation call). */
void ag_sched_region_enter(ThreadId vgtid, Addr site, Bool may_stop);
void ag_sched_region_leave(ThreadId vgtid);
/* The region nesting the scheduler counts (ag_regions.c checks it). */
UInt ag_sched_depth(ThreadId vgtid);

/* An access by the running thread (not to its stack, not ignored): inside
   a region it may ask for a preemption at the next superblock start. */
void ag_sched_access(ThreadId vgtid);

/* vgtid is about to make the access at ip to a location other threads
   touch (ag_shared.c): it may ask for a stop right before it -- generated
   code leaves there (ag_sched_exits) and the access runs once the thread
   has the turn back.  A thread that does not hold the turn stops there to
   wait for it.  a: the address (write: a store); at a learned race site
   (--sched=random) the thread may be postponed (engine/ag_schedrace.c). */
void ag_sched_shared(ThreadId vgtid, Addr ip, Addr a, Bool write);
/* The running thread (stamp: its tag and clock, analysis/ag_handoff.h)
   accesses a at ip (flags: AG_WRITE, AG_ATOMIC) and the inline check
   called (ag_shared.c): race sites are learned here; is ip one (the
   access must then be a point)? */
Bool ag_sched_race_site(Addr a, Addr ip, UWord stamp, UInt flags);
/* [a, a+len) is a new heap block: no access to it before pairs with one
   after (ag_shared_fresh). */
void ag_sched_fresh(Addr a, SizeT len);
/* Locks as race sites: vgtid's next synchronisation call (its SYNC_PRE
   point) blocks to acquire lock; the thread t (the engine's number)
   acquired it (learned when another thread held it last; a learned
   lock's taker counted for lock-order coverage, at its site). */
void ag_sched_lock_wait(ThreadId vgtid, Addr lock);
void ag_sched_lock_acquired(ThreadId vgtid, ag_tid t, Addr lock);

/* An owner-table slot's value after an access by the thread tagged me
   (ag_shared.c); *point: the access is a scheduling point.  A slot one
   thread alone touched becomes private to it at once if no other thread
   waits to run, else by a draw (engine/ag_schedpol.c). */
UChar ag_sched_slot_after(UChar slot, UChar me, Bool write, Int *point);
/* Another thread is waiting to run: the scheduler may switch. */
Bool ag_sched_others(void);

/* Generated code may leave right before an instruction's first access
   (all guest registers are up to date there: set at ag_sched_init). */
extern Bool ag_sched_exits;

#endif
