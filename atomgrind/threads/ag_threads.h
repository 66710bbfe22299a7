/* ag_threads.h -- Valgrind thread ids to atomgrind's dense engine thread
 * ids, the running thread, pthread_t lookup (ag_threads.c). */
#ifndef AG_THREADS_H
#define AG_THREADS_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, UWord */
#include "ag_engine.h"           /* ag_tid */
#include "ag_threadrec.h"        /* ag_thread: the threads module's part of a slot */

extern ag_thread *ag_cur;                 /* the running thread */
/* Called first at every return of a thread to the scheduler (set by
   ag_regions.c, a layer above: it ends the thread's inline gap). */
extern void (*ag_threads_stop_hook)(ThreadId vgtid);
void ag_threads_init(void);
void ag_threads_exit(ThreadId vgtid);     /* pre_thread_ll_exit (ag_main wires it) */
ag_thread *ag_thread_of(ThreadId vgtid);
/* The live thread, other than `except`, whose stack holds a between its
   SP (less the red zone) and its top; AG_NO_TID if none. */
ag_tid ag_threads_stack_owner(Addr a, ThreadId except);
UInt ag_threads_live(void);               /* threads that have not exited */
ag_tid ag_tid_of_pthread(UWord pt);       /* AG_NO_TID if unknown */
void ag_threads_set_pthread(ag_tid t, UWord pt);

#endif
