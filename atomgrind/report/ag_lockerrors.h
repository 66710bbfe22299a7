/* ag_lockerrors.h -- the two lock errors: a deadlock (the run cannot go
 * on) and a lock-order inversion (a possible deadlock), as Helgrind
 * reports the latter: what they carry, recording, printing
 * (ag_lockerrors.c).  Filled by ag_deadlock.c and ag_lockorder.c; printed
 * through ag_errors.c's callbacks. */
#ifndef AG_LOCKERRORS_H
#define AG_LOCKERRORS_H

#include "pub_tool_basics.h"
#include "pub_tool_errormgr.h"     /* Error */
#include "pub_tool_execontext.h"   /* ExeContext */
#include "ag_engine.h"             /* ag_tid */

/* Error kinds, after ag_errors.c's own (Atomgrind:Deadlock, Atomgrind:LockOrder) */
enum { AG_ERR_DEADLOCK = 5, AG_ERR_LOCKORDER = 6 };

/* What a blocked thread waits for */
typedef enum { AG_DW_NONE = 0, AG_DW_LOCK, AG_DW_JOIN, AG_DW_COND, AG_DW_BARRIER,
               AG_DW_SEM } ag_dw_what;

/* One blocked thread of a deadlock. */
typedef struct {
   ag_tid tid;
   UChar what;              /* ag_dw_what */
   UChar kind;              /* AG_SK_* of obj */
   Bool woken;              /* AG_DW_COND: signalled, waits for the mutex */
   Addr obj;                /* lock, condition variable */
   Addr mutex;              /* AG_DW_COND: its mutex */
   ag_tid holder;           /* the thread it waits for (AG_NO_TID: none or many) */
   ExeContext *stack;       /* where it is blocked */
   ExeContext *taken_at;    /* where holder took the lock it waits for */
   UInt arrived, count;     /* AG_DW_BARRIER: threads there, of how many */
} ag_dl_entry;

#define AG_DL_MAX 8
typedef struct {
   Bool cycle;              /* a cycle of waits, else every thread blocked */
   UInt n, more;            /* entries, and blocked threads not shown */
   UInt ended;              /* 1 + the thread whose end left them so (0: none) */
   ag_dl_entry e[AG_DL_MAX];
} ag_dl_report;

/* One order "from before to", established by thread tid. */
typedef struct {
   Addr from, to;
   ExeContext *from_ec, *to_ec;   /* where each was acquired */
   ag_tid tid;
} ag_lo_order;

#define AG_LO_PATH_MAX 4
typedef struct {
   ag_lo_order observed;          /* the new order, against ... */
   UInt n;                        /* ... the orders that make it a cycle */
   ag_lo_order path[AG_LO_PATH_MAX];
   UInt more;                     /* orders of the path not shown */
} ag_lo_report;

void ag_lockerr_deadlock(ThreadId vgtid, const ag_dl_report *r);
void ag_lockerr_order(ThreadId vgtid, const ag_lo_report *r);

/* For ag_errors.c's callbacks (kind is one of the two above) */
Bool ag_lockerr_eq(ErrorKind kind, const void *a, const void *b);
void ag_lockerr_pp(const Error *err, Bool xml);
UInt ag_lockerr_threads(const Error *err, ag_tid *out, UInt max);   /* to announce */
SizeT ag_lockerr_size(ErrorKind kind);

#endif
