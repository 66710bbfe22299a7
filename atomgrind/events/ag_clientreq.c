/* ag_clientreq.c -- client requests: the public region markers and the
 * preload library's reports of synchronisation calls. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"     /* a wrapped function's symbol version */
#include "pub_tool_libcbase.h"     /* VG_(strchr) */
#include "pub_tool_tooliface.h"    /* VG_IS_TOOL_USERREQ */
#include "ag_analysis.h"           /* joins */
#include "ag_barrier.h"            /* barriers: generations, misuse */
#include "ag_clientreq.h"
#include "ag_regions.h"            /* the region markers */
#include "ag_deadlock.h"           /* calls that may block forever */
#include "ag_requests.h"           /* what the preload library sends */
#include "ag_errors.h"             /* ag_error_misuse */
#include "ag_poll.h"               /* an acquire ends a polling window */
#include "ag_sched.h"              /* scheduling points */
#include "ag_stdio.h"              /* the standard streams */
#include "ag_sync.h"               /* what a sync call means */
#include "ag_threads.h"            /* the requesting thread */
#include "ag_syncinfo.h"           /* the kind of each sync object */

STATIC_ASSERT((Int)AG_SK_MUTEX == AG_LK_MUTEX && (Int)AG_SK_SPIN == AG_LK_SPIN
              && (Int)AG_SK_RWLOCK_RD == AG_LK_RWLOCK_RD
              && (Int)AG_SK_RWLOCK_WR == AG_LK_RWLOCK_WR);

/* The kind of object a synchronisation request is about (for reports). */
static void ag_note_kind(const UWord *arg)
{
   switch (arg[0]) {
   case AG_CR_LOCK_ACQUIRED: ag_syncinfo_set(arg[1], (UInt)arg[2]); break;
   case AG_CR_COND_WAIT_PRE: case AG_CR_COND_WAIT_POST:
   case AG_CR_COND_SIGNAL: ag_syncinfo_set(arg[1], AG_SK_COND); break;
   case AG_CR_SEM_POST: case AG_CR_SEM_WAITED: ag_syncinfo_set(arg[1], AG_SK_SEM); break;
   case AG_CR_BARRIER_PRE: case AG_CR_BARRIER_POST:
   case AG_CR_BARRIER_INIT_PRE: ag_syncinfo_set(arg[1], AG_SK_BARRIER); break;
   case AG_CR_ONCE_POST: ag_syncinfo_set(arg[1], AG_SK_ONCE); break;
   default: break;
   }
}

static Bool ag_request(ThreadId vgtid, UWord *arg, UWord *ret);

/* Is the function at fn its symbol's default version ("name@@VERSION",
   or unversioned), not a compatibility one ("name@VERSION")?  Asked at
   every untimed condvar wait, of one or two functions: the last answer
   is kept rather than searching the symbols each time. */
static Bool ag_default_version(Addr fn)
{
   static Addr known;
   static Bool answer;
   if (fn == known && fn != 0) return answer;
   const HChar *name;
   const HChar *at = NULL;
   Bool found = VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), fn, &name);
   if (found) at = VG_(strchr)(name, '@');
   known = fn;
   answer = found && (at == NULL || at[1] == '@');
   return answer;
}

/* The core allows discarding translations while any thread is in a client
   request; ag_analysis asks whether the running thread is the one (a
   thread may park in a request for the scheduler while others run). */
Bool ag_handle_client_request(ThreadId vgtid, UWord *arg, UWord *ret)
{
   ag_an_request(vgtid, True);
   Bool mine = ag_request(vgtid, arg, ret);
   ag_an_request(vgtid, False);
   return mine;
}

/* Does the request say the thread acquired something (a lock, a wakeup,
   a join)?  Its reads after it are ordered by that, not polls. */
static Bool ag_acquires(UWord req)
{
   return req == AG_CR_LOCK_ACQUIRED || req == AG_CR_COND_WAIT_POST || req == AG_CR_SEM_WAITED
          || req == AG_CR_BARRIER_POST || req == AG_CR_THREAD_JOINED;
}

static Bool ag_request(ThreadId vgtid, UWord *arg, UWord *ret)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!VG_IS_TOOL_USERREQ('A', 'G', arg[0])) return False;
   *ret = 0;
   if (!th->valid) return True;
   ag_note_kind(arg);
   if (ag_poll_open && ag_acquires(arg[0])) ag_poll_acquired(vgtid);
   switch (arg[0]) {
   case VG_USERREQ__ATOMGRIND_ATOMIC_BEGIN:
      ag_rg_marker_begin(vgtid);
      break;
   case VG_USERREQ__ATOMGRIND_ATOMIC_END:
      ag_rg_marker_end(vgtid);
      break;
   /* Every synchronisation call is bracketed by PUSH and POP: the outermost
      ones are the scheduling points before and after it. */
   case AG_CR_IGNORE_PUSH:
      if (th->ignore == 0) ag_sched_point(vgtid, AG_PT_SYNC_PRE);
      th->ignore++;
      break;
   case AG_CR_IGNORE_POP:
      if (th->ignore) th->ignore--;
      if (th->ignore == 0) ag_sched_point(vgtid, AG_PT_SYNC_POST);
      break;
   case AG_CR_THREAD_CREATED:
      if (th->last_child != AG_NO_TID) ag_threads_set_pthread(th->last_child, arg[1]);
      break;
   case AG_CR_THREAD_JOINED: {
      ag_tid child = ag_tid_of_pthread(arg[1]);
      if (child != AG_NO_TID) ag_an_join(th->tid, child);
      ag_deadlock_done(vgtid);
      break;
   }
   case AG_CR_THREAD_DETACHED:
      break;   /* nothing orders a detached thread's end */
   case AG_CR_LOCK_ACQUIRED:
      /* Locks taken and released inside another synchronisation call are
         that call's working, like its memory accesses (ld.so's lock in
         pthread_create; a contended glibc pthread_spin_lock loops back to
         its own entry point, which enters our wrapper again). */
      if (th->ignore == 0) {
         ag_sync_lock_acquired(vgtid, arg[1], (UInt)arg[2], (UInt)arg[3]);
         ag_sched_lock_acquired(vgtid, th->tid, arg[1]);
         ag_deadlock_done(vgtid);
      }
      break;
   case AG_CR_LOCK_RELEASE:
      if (th->ignore == 0) ag_sync_lock_release(vgtid, arg[1]);
      else ag_deadlock_unseen_release(vgtid, arg[1]);
      break;
   case AG_CR_COND_WAIT_PRE:
      ag_sync_cond_wait_pre(vgtid, arg[1], arg[2]);
      if (arg[3] == AG_ACQ_BLOCK) *ret = ag_deadlock_cond_wait(vgtid, arg[1], arg[2]);
      break;
   case AG_CR_COND_WAIT_POST:
      ag_deadlock_done(vgtid);
      ag_sync_cond_wait_post(vgtid, arg[1], arg[2]);
      break;
   case AG_CR_WAIT:
      /* (the program's own calls only, as for AG_CR_LOCK_ACQUIRED) */
      if (th->ignore == 0) *ret = ag_deadlock_wait(vgtid, arg[1], arg[2], (UInt)arg[3]);
      if (th->ignore == 0 && arg[1] == AG_WT_LOCK) ag_sched_lock_wait(vgtid, arg[2]);
      break;
   case AG_CR_WAIT_DONE:
      ag_deadlock_done(vgtid);
      break;
   case AG_CR_WAIT_CHECK:
      *ret = ag_deadlock_recheck(vgtid);
      break;
   case AG_CR_EXIT:
      ag_sched_exit(vgtid);
      break;
   case AG_CR_COND_SLICEABLE:
      *ret = ag_default_version(arg[1]);
      break;
   case AG_CR_COND_SLICE:
      *ret = ag_deadlock_cond_moved(vgtid);
      break;
   case AG_CR_COND_SIGNAL:
      ag_sync_object(vgtid, arg[1]);
      break;
   case AG_CR_COND_SIGNALLED:
      /* the cond is read after the release: glibc's signal still touches
         it after the futex wake, when the waiter may be on its way to
         free it (ThreadSanitizer's cond_race) */
      ag_sync_use(vgtid, arg[1]);
      ag_deadlock_signal(arg[1]);
      break;
   case AG_CR_CANCEL:
      ag_deadlock_cancel(arg[1]);
      break;
   case AG_CR_STDIO_FILES:
      for (Int i = 1; i <= 3; i++) ag_stdio_file(arg[i]);
      break;
   case AG_CR_SEM_POST:
      ag_deadlock_sem_post(arg[1]);
      ag_sync_use(vgtid, arg[1]);        /* before the release it makes */
      ag_sync_object(vgtid, arg[1]);
      break;
   case AG_CR_SEM_WAITED:
      ag_deadlock_sem_waited(vgtid, arg[1]);
      ag_sync_object(vgtid, arg[1]);
      ag_sync_use(vgtid, arg[1]);
      break;
   case AG_CR_SEM_INIT:
      ag_deadlock_sem_init(arg[1], (UInt)arg[2], arg[3] != 0);
      break;
   case AG_CR_SIGNAL_HANDLER:
      ag_deadlock_signal_handler();
      break;
   case AG_CR_BARRIER_PRE:
      if (!ag_bar_misused(arg[1])) ag_sync_use(vgtid, arg[1]);
      ag_bar_arrive(vgtid, arg[1]);
      /* (inside a bracket too: glibc waits at no barrier of its own, and a
         TSD destructor's arrival, in the thread's teardown, counts) */
      *ret = ag_deadlock_barrier(vgtid, arg[1]);
      break;
   case AG_CR_BARRIER_POST:
      ag_deadlock_done(vgtid);
      ag_bar_depart(vgtid, arg[1]);
      /* a leaving waiter reads the barrier too (glibc's counts its way
         out): a destroy not ordered after every waiter's return races,
         as ThreadSanitizer and DRD count it */
      if (!ag_bar_misused(arg[1])) ag_sync_use(vgtid, arg[1]);
      break;
   case AG_CR_BARRIER_COUNT:
      ag_bar_set_inited(arg[1], True);
      ag_deadlock_barrier_count(arg[1], (UInt)arg[2]);
      break;
   case AG_CR_BARRIER_INIT_PRE:
      if (th->ignore == 0) ag_bar_init_pre(vgtid, arg[1], (UInt)arg[2]);
      break;
   case AG_CR_BARRIER_DESTROY_PRE:
      if (th->ignore == 0) ag_bar_destroy_pre(vgtid, arg[1]);
      break;
   case AG_CR_ONCE_POST:
      ag_sync_once(vgtid, arg[1], arg[2] != 0);
      break;
   case AG_CR_SPIN_INIT_OR_UNLOCK:
      /* one glibc function is both pthread_spin_init and _unlock */
      if (th->ignore > 0) break;
      if (ag_sync_holds(vgtid, arg[1])) ag_sync_lock_release(vgtid, arg[1]);
      else ag_sync_destroy(vgtid, arg[1]);
      break;
   case AG_CR_LOCK_DESTROY:
      ag_deadlock_forget(arg[1]);     /* a barrier's count, a semaphore's value */
      if (arg[2]) ag_bar_destroyed(vgtid, arg[1]);
      ag_sync_destroy(vgtid, arg[1]);
      break;
   default:
      ag_error_misuse(vgtid, "Unknown atomgrind client request 0x%lx "
                      "(header and tool versions differ?)", arg[0]);
      break;
   }
   return True;
}
