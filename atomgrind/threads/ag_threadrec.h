/* ag_threadrec.h -- one record per thread, each module's per-thread
 * state a part of it (ag_threadrec.c).
 *
 * As DRD's ThreadInfo (drd_thread.h), every per-thread field the tool
 * keeps is declared here, so that one place shows what a thread carries.
 * Each part has one owner, the only module that writes it (ag_thread: the
 * threads module, and the regions their fields); the others read it
 * through that module's functions (ag_thread: directly).  The records sit
 * below every module that uses them (tests/test_layers.py), so they call
 * none.
 *
 * Two kinds, as two keys name a thread:
 *   - by engine thread id (ag_threadrec, ag_rec_of): what the analysis and
 *     the reports keep.  Those ids are dense and never reused: a record
 *     lives as long as the tool (a report may name a thread that has
 *     exited), and never moves (a part's address stays valid across calls
 *     that make other threads' records).
 *   - by Valgrind's ThreadId (ag_threadslot, ag_slot_of): what the threads
 *     module, the regions, lock order, the deadlock detector and the
 *     analysis keep about the thread running in a slot.  The core reuses a slot for a later thread
 *     (and, in a fork child, for the child's threads while the parent's
 *     are gone): the threads module zeroes it when a thread is created in
 *     it (ag_slot_new), so no part carries a former thread's state.
 * The scheduler keeps its own table by ThreadId (ag_sched.c): its entries
 * outlive their threads (an exited thread's clear-on-exit word), change
 * only through its state machine, and pair by index with its policy's
 * (engine/ag_schedpol.c). */
#ifndef AG_THREADREC_H
#define AG_THREADREC_H

#include "pub_tool_basics.h"       /* Addr, UInt, Bool, ThreadId */
#include "pub_tool_execontext.h"   /* ExeContext */
#include "ag_engine.h"             /* ag_tid */
#include "ag_site.h"               /* a lock set's site bits */

/* ---- by engine thread id ---- */

/* ag_threadinfo.c: where the thread was created, and whether a report
   has announced it yet. */
typedef struct {
   ExeContext *created;            /* NULL: the root thread, or a fork child's */
   Bool announced;
} ag_tr_info;

/* ag_locksets.c: the locks the thread holds. */
typedef struct {
   ag_site tag;                    /* its current set, as a site's lock set
                                      bits (read inline by the access path) */
   UInt depth;                     /* locks it holds (its set may be unknown) */
} ag_tr_locks;

/* ag_history.c: the stacks of its recent accesses (--history-level=full),
   a ring allocated at its first note. */
typedef struct ag_hist_ring ag_hist_ring;
typedef struct {
   ag_hist_ring *ring;
} ag_tr_history;

/* ag_dcl.c: check-lock-recheck's view of the thread (the rule is in
   ag_dcl.c's opening comment). */
#define AG_DCL_LOCKS 8
typedef struct {
   UInt nlocks;                    /* locks t holds (outermost acquires) */
   Addr locks[AG_DCL_LOCKS];
   ULong begin_site;               /* t's region's begin, 0 outside regions */
   Bool held;                      /* R1 is held back */
   Addr addr;                      /* ... its location, size, flags, site */
   UInt size, flags;
   Addr ip;
   Bool over;                      /* x was written (under locks) since */
   ag_tid over_tid;
   Addr over_ip;
   ULong over_event;               /* ... as the engine numbered it */
   UInt over_flags;
   ULong over_begin;
   UInt nover;                     /* the locks every such write held */
   Addr over_locks[AG_DCL_LOCKS];
   Bool took_over_lock;            /* t acquired one of them since */
} ag_tr_dcl;

/* ag_stdio.c: libc's last reads by the thread, where a stdio lock's
   owner test shows. */
typedef struct {
   Addr last8, before8;            /* libc's last two 8-byte reads */
   Bool last_was8;                 /* ... the last is its last access */
} ag_tr_stdio;

typedef struct {
   ag_tr_info info;
   ag_tr_locks locks;
   ag_tr_history history;
   ag_tr_dcl dcl;
   ag_tr_stdio stdio;
} ag_threadrec;

/* The records of threads 0 .. ag_nrecs-1 (every one of them exists). */
extern ag_threadrec **ag_recs;
extern UInt ag_nrecs;

/* t's record, made (zeroed) with those of every thread below t if new.
   t is a thread's id, never AG_NO_TID. */
ag_threadrec *ag_rec_of(ag_tid t);
/* t's record if it exists, else NULL (read inline by the access path). */
static inline ag_threadrec *ag_rec_find(ag_tid t) { return t < ag_nrecs ? ag_recs[t] : NULL; }

/* ---- by Valgrind's ThreadId ---- */

typedef struct ag_rg_frame ag_rg_frame;   /* ag_regions.c */

/* ag_threads.c (the regions' fields: ag_regions.c): who the thread is. */
typedef struct {
   Bool valid;
   ag_tid tid;           /* dense engine id; never reused */
   UInt ignore;          /* >0 while inside a synchronisation call */
   Addr stack_max;       /* highest address of the thread's stack (read
                            inline by instrumented code) */
   ag_tid last_child;    /* most recent child created by this thread */
   /* atomic regions (ag_regions.c owns these) */
   UInt depth;           /* regions open, all kinds */
   UInt inl;             /* the inline chain its code is in (read inline by
                            instrumented code; 0: none) */
   UInt inl_open;        /* which of that chain's instances opened a region */
   UInt inl_entered;     /* which of them have passed their copy's entry */
   UInt inl_gap;         /* in a gap: the chain it suspends (0: no gap) ... */
   UInt inl_around;      /* ... the chain of the code in the gap ... */
   UInt inl_gap_blocks;  /* ... the block starts it has passed ... */
   Addr inl_gap_ip;      /* ... and where it began; */
   Bool inl_gap_kept;    /* kept over a stop exit: the block runs again */
   ag_rg_frame *frames;  /* frames that end regions, innermost last */
   UInt nframes, capframes;
   Addr last_ret;        /* the last return address checked at depth 0 ... */
   Bool last_start;      /* ... and whether it returns into start_thread */
} ag_thread;

/* ag_lockorder.c: the locks the thread holds, in the order taken (beyond
   the bound, deeper nesting is not tracked: no order is made from those). */
#define AG_LO_HELD 16
typedef struct {
   UInt n;
   Addr lock[AG_LO_HELD];
   ExeContext *ec[AG_LO_HELD];
   Bool shared[AG_LO_HELD];      /* a read hold of an rwlock */
} ag_ts_lockorder;

/* ag_deadlock.c: what the thread waits for. */
typedef struct {
   UChar what;           /* ag_dw_what */
   UChar kind;           /* AG_LK_* of a lock */
   Bool woken;           /* AG_DW_COND: signalled since it began */
   Addr obj;             /* lock, condition variable, or pthread_t joined */
   Addr mutex;           /* AG_DW_COND ... */
   ULong taken;          /* ... and how many times it was taken before */
   UInt round;           /* AG_DW_BARRIER: the round it arrived in */
   Bool cancelled;       /* a target of pthread_cancel: never blocked */
   Bool unseen;          /* released a lock inside a bracket (a destructor in
                            its teardown): the holders recorded may be stale */
} ag_ts_deadlock;

typedef struct {
   ag_thread thread;
   ag_ts_lockorder lockorder;
   ag_ts_deadlock deadlock;
   UChar in_request;     /* ag_analysis.c: client requests it is inside */
} ag_threadslot;

/* Slot t's record (0 < t < VG_N_THREADS); the slots never move. */
ag_threadslot *ag_slot_of(ThreadId t);
/* A thread is created in slot t: its record starts zeroed. */
void ag_slot_new(ThreadId t);

#endif
