/* ag_deadlock.h -- deadlocks, reported instead of hung: each thread's
 * current wait (a lock, a join, a condition variable), and the check,
 * when a thread is about to block, that some thread can still run
 * (ag_deadlock.c).  Called by the client requests. */
#ifndef AG_DEADLOCK_H
#define AG_DEADLOCK_H

#include "pub_tool_basics.h"

/* vgtid is about to call something that may block: an untimed lock of
   obj (what AG_WT_LOCK, kind AG_LK_*) or join of the thread whose
   pthread_t is obj (AG_WT_JOIN).  Returns 0, or -- the program being
   deadlocked, reported -- the exit status to end the run with. */
UWord ag_deadlock_wait(ThreadId vgtid, UWord what, Addr obj, UInt kind);
/* An untimed wait on cond with mutex (released already); same result. */
UWord ag_deadlock_cond_wait(ThreadId vgtid, Addr cond, Addr mutex);
/* A slice of vgtid's untimed condition variable wait ran out (the wait is
   made of slices, to recheck): may something the waiter waits for have
   happened?  The condition variable signalled, or its mutex taken by
   another thread (which may have changed the predicate and signalled
   while the waiter held the mutex between slices).  Then the wait returns
   to the program, as a spurious wake-up; else it waits again. */
Bool ag_deadlock_cond_moved(ThreadId vgtid);
/* vgtid still waits as it announced (a slice of the wait ran out): the
   threads that could have released it may have ended since.  Same result. */
UWord ag_deadlock_recheck(ThreadId vgtid);
/* vgtid's wait is over (acquired, joined, woken and returned, failed). */
void ag_deadlock_done(ThreadId vgtid);
/* The thread whose pthread_t is pt is being cancelled: it may leave any
   wait (asynchronous cancellation, or a pending one at the next
   cancellation point), so it never counts as blocked again. */
void ag_deadlock_cancel(UWord pt);
/* vgtid makes its exit system call (only it ends: not exit_group): all
   its code has run, cleanup handlers and destructors too.  If every other
   live thread is blocked for good, none can ever run again: the deadlock
   is reported, the other threads are told to end, and True is returned;
   the run then ends as a process exit does, with the deadlock's status. */
Bool ag_deadlock_thread_ends(ThreadId vgtid);
/* vgtid released lock inside a bracket, where releases are not recorded
   (glibc's own working; but also the program's TSD and thread_local
   destructors, in the thread's teardown): if the records say a thread
   holds it, they may be wrong, and vgtid's end is not checked. */
void ag_deadlock_unseen_release(ThreadId vgtid, Addr lock);
/* vgtid has ended: its ThreadId may be reused. */
void ag_deadlock_exit(ThreadId vgtid);
/* vgtid arrives at barrier b; same result as ag_deadlock_wait. */
UWord ag_deadlock_barrier(ThreadId vgtid, Addr b);
/* b was initialised for count threads (0: destroyed, or not a barrier). */
void ag_deadlock_barrier_count(Addr b, UInt count);
/* Semaphores: initialised with value (pshared: another process may post
   it: its value is not known), posted, taken by vgtid (its wait, if any,
   is over). */
void ag_deadlock_sem_init(Addr s, UInt value, Bool pshared);
void ag_deadlock_sem_post(Addr s);
void ag_deadlock_sem_waited(ThreadId vgtid, Addr s);
/* The program has a signal handler: one may post a semaphore. */
void ag_deadlock_signal_handler(void);
/* obj was destroyed or initialised: what was known of it is not. */
void ag_deadlock_forget(Addr obj);
/* A signal or broadcast of cond returned: whoever waited on it then may
   return.  (Not before the real call: a thread may begin to wait after
   such a report and still be woken by the call.) */
void ag_deadlock_signal(Addr cond);

#endif
