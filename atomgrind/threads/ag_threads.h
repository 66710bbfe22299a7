/* ag_threads.h -- Valgrind thread ids to atomgrind's dense engine thread
 * ids, the running thread, pthread_t lookup (ag_threads.c). */
#ifndef AG_THREADS_H
#define AG_THREADS_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, UWord */
#include "ag_engine.h"           /* ag_tid */

typedef struct ag_rg_frame ag_rg_frame;   /* ag_regions.c */

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

extern ag_thread *ag_cur;                 /* the running thread */
/* Called first at every return of a thread to the scheduler (set by
   ag_regions.c, a layer above: it ends the thread's inline gap). */
extern void (*ag_threads_stop_hook)(ThreadId vgtid);
void ag_threads_init(void);
void ag_threads_exit(ThreadId vgtid);     /* pre_thread_ll_exit (ag_main wires it) */
ag_thread *ag_thread_of(ThreadId vgtid);
UInt ag_threads_live(void);               /* threads that have not exited */
ag_tid ag_tid_of_pthread(UWord pt);       /* AG_NO_TID if unknown */
void ag_threads_set_pthread(ag_tid t, UWord pt);

#endif
