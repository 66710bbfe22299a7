/* ag_requests.h -- the requests the preload library (ag_intercepts.c)
 * sends the tool (ag_clientreq.c).  Not part of the public interface.
 * Included by both sides, so it uses no tool header. */
#ifndef AG_REQUESTS_H
#define AG_REQUESTS_H

#include "atomgrind.h"           /* VG_USERREQ__ATOMGRIND_INTERNAL */

enum {
   /* Accesses by this thread between PUSH and POP are the internals of a
      synchronisation call, not program accesses: the tool ignores them. */
   AG_CR_IGNORE_PUSH = VG_USERREQ__ATOMGRIND_INTERNAL,
   AG_CR_IGNORE_POP,
   AG_CR_THREAD_CREATED,     /* arg1: pthread_t of the child (in the parent, after create) */
   AG_CR_THREAD_JOINED,      /* arg1: pthread_t of the joined child (after join) */
   AG_CR_LOCK_ACQUIRED,      /* arg1: lock address, arg2: AG_LK_*, arg3: AG_ACQ_*
                                (after success) */
   AG_CR_LOCK_RELEASE,       /* arg1: lock address (before the real unlock) */
   AG_CR_COND_WAIT_PRE,      /* arg1: cond, arg2: mutex, arg3: AG_ACQ_* (before the
                                real wait; see AG_CR_WAIT for the result) */
   AG_CR_COND_WAIT_POST,     /* arg1: cond, arg2: mutex (after the real wait) */
   AG_CR_COND_SIGNAL,        /* arg1: cond (before signal/broadcast) */
   AG_CR_SEM_POST,           /* arg1: sem (before the real post) */
   AG_CR_SEM_WAITED,         /* arg1: sem (after a successful wait/trywait) */
   AG_CR_BARRIER_PRE,        /* arg1: barrier (the result as for AG_CR_WAIT) */
   AG_CR_BARRIER_POST,       /* arg1: barrier */
   AG_CR_ONCE_POST,          /* arg1: once control (after pthread_once returns,
                                and after the init routine, with arg2 = 1) */
   AG_CR_LOCK_DESTROY,       /* arg1: lock/cond/sem/barrier address (init or destroy);
                                arg2: 1 after pthread_barrier_destroy */
   AG_CR_THREAD_DETACHED,    /* arg1: pthread_t */
   /* arg1: spinlock (before the real call).  glibc on x86-64 makes
      pthread_spin_init and pthread_spin_unlock one function at one address,
      so the wrapper cannot tell which was called: a release if the calling
      thread holds the lock, otherwise an init (drop the lock's state). */
   AG_CR_SPIN_INIT_OR_UNLOCK,
   /* arg1: AG_WT_*, arg2: the object, arg3: AG_LK_* for a lock (before a
      call that may block until another thread acts).  The result, as for
      an untimed AG_CR_COND_WAIT_PRE: 0 to go on, else the program is
      deadlocked and the caller ends the run with this exit status. */
   AG_CR_WAIT,
   AG_CR_WAIT_DONE,          /* the call announced by AG_CR_WAIT failed or was
                                cancelled (success: ACQUIRED or JOINED) */
   AG_CR_WAIT_CHECK,         /* still in the announced call (a join's slice
                                ran out): the result as for AG_CR_WAIT */
   AG_CR_BARRIER_COUNT,      /* arg1: barrier, arg2: its count (after a
                                successful init) */
   AG_CR_SEM_INIT,           /* arg1: sem, arg2: value, arg3: pshared (after a
                                successful sem_init) */
   AG_CR_SIGNAL_HANDLER,     /* the program installed a signal handler (after
                                sigaction, signal ... succeeded) */
   AG_CR_COND_SIGNALLED,     /* arg1: cond (after signal/broadcast returned:
                                whoever waited on it then may be woken) */
   AG_CR_CANCEL,             /* arg1: pthread_t (before pthread_cancel) */
   AG_CR_STDIO_FILES,        /* arg1..3: stdin, stdout, stderr (before the
                                first pthread_create: ag_stdio.h) */
   AG_CR_BARRIER_INIT_PRE,   /* arg1: barrier, arg2: count (before the real init) */
   AG_CR_BARRIER_DESTROY_PRE,/* arg1: barrier (before the real destroy) */
   AG_CR_COND_SLICE,         /* a slice of an untimed cond wait ran out: the
                                result is 1 to return to the program, 0 to
                                wait again (ag_deadlock_cond_moved) */
   AG_CR_COND_SLICEABLE,     /* arg1: the wrapped pthread_cond_wait: 1 if it is
                                the current version (not a compatibility one) */
   AG_CR_EXIT                /* arg1: status (before exit() does its work) */
};

/* How a lock was asked for (AG_CR_LOCK_ACQUIRED, AG_CR_COND_WAIT_PRE): only
   an untimed blocking call can wait forever or establish a lock order. */
enum { AG_ACQ_BLOCK = 0, AG_ACQ_TRY, AG_ACQ_TIMED };

/* What an AG_CR_WAIT waits for */
enum { AG_WT_LOCK = 1, AG_WT_JOIN, AG_WT_SEM };

/* Lock kinds for AG_CR_LOCK_ACQUIRED */
enum { AG_LK_MUTEX = 1, AG_LK_SPIN, AG_LK_RWLOCK_RD, AG_LK_RWLOCK_WR };

#endif
