/* ag_threadrec.h -- one record per thread, by engine thread id: each
 * module's per-thread state is a part of it (ag_threadrec.c).
 *
 * As DRD's ThreadInfo (drd_thread.h), every per-thread field the analysis
 * and the reports keep is declared here, so that one place shows what a
 * thread carries.  Each part has one owner, the only module that writes
 * it; the others read it through that module's functions.  The record
 * sits below everything that uses it (the analysis is below the threads
 * module: tests/test_layers.py), so it knows no module above.
 *
 * Engine thread ids are dense and never reused: a record lives as long as
 * the tool (a report may name a thread that has exited), and never moves
 * (a part's address stays valid across calls that create other threads'
 * records).  What is kept by Valgrind's ThreadId, a slot that is reused,
 * is the threads module's ag_thread (ag_threads.h, with the regions'
 * fields) and the scheduler's own tables (ag_sched.c). */
#ifndef AG_THREADREC_H
#define AG_THREADREC_H

#include "pub_tool_basics.h"       /* Addr, UInt, Bool */
#include "pub_tool_execontext.h"   /* ExeContext */
#include "ag_engine.h"             /* ag_tid */
#include "ag_site.h"               /* a lock set's site bits */

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

#endif
