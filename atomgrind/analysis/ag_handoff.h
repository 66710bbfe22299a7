/* ag_handoff.h -- happens-before for the owner table's hand-overs
 * (ag_handoff.c): the analysis feeds it every ordering event, the owner
 * table (sched/ag_shared.c) asks it whether a slot's stamp happened
 * before the running thread's present, and the instrumentation reads the
 * running thread's stamp inline. */
#ifndef AG_HANDOFF_H
#define AG_HANDOFF_H

#include "pub_tool_basics.h"     /* Addr, UWord, UChar, Bool */
#include "ag_engine.h"           /* ag_tid */

/* The running thread's stamp: its tag (bits 0-7) and its clock's low
   byte (bits 8-15).  Changes at the thread's releases and at switches. */
extern volatile UWord ag_ho_word;

void ag_ho_init(void);                    /* with the scheduler's shared points */
void ag_ho_fini(void);
void ag_ho_running(ag_tid t);             /* t runs generated code next */
UWord ag_ho_word_of(ag_tid t);            /* t's stamp, as ag_ho_word when it runs */
void ag_ho_acquire(ag_tid t, Addr obj);
void ag_ho_release(ag_tid t, Addr obj);
void ag_ho_join(ag_tid joiner, ag_tid child);
void ag_ho_thread_new(ag_tid t);
/* the access stamped `stamp` (by another thread) happened before now */
Bool ag_ho_ordered(UWord stamp);
/* locks (mutexes, rwlocks, stdio's) t takes and releases; does the
   running thread hold one now? */
void ag_ho_lock(ag_tid t, Bool acquired);
Bool ag_ho_holding(void);

#endif
