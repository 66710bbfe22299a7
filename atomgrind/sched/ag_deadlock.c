/* ag_deadlock.c -- deadlocks reported, not hung.
 *
 * The preload library announces each call that can wait forever for
 * another thread -- an untimed lock, a join, an untimed condition wait --
 * before making it (ag_intercepts.c), and says when it is over.  So the
 * tool knows, for every thread, what it waits for; with the lock holders
 * of ag_sync.c, which thread that is.  A thread is blocked for good when
 *
 *   - it locks again a normal mutex it holds (glibc waits until another
 *     thread unlocks it), and every thread is blocked for good;
 *   - it waits for a lock held (exclusively; or, for a write lock, read-
 *     held) by another thread that is blocked for good, or read-held by
 *     threads that all are (not known one by one: only when every thread
 *     is blocked);
 *   - it joins a live thread that is blocked for good;
 *   - it waits on a condition variable that nobody signalled since it
 *     began waiting, and every thread is blocked for good; once signalled
 *     it waits for its mutex, as a lock.
 *
 *   - it waits at a barrier (initialised with its count) that fewer threads
 *     than its count reached in its round, and every thread is blocked;
 *   - it waits on a semaphore (initialised by sem_init, not process-
 *     shared) whose value is 0, every thread is blocked, and the program
 *     has no signal handler (one may post it: sem_post is async-signal-
 *     safe, and a signal may come from a timer or another process).
 *
 * A thread that waits for nothing the tool knows of can run: it computes,
 * sleeps, reads, polls, spins on a flag, or waits with a timeout (none
 * of those is announced).  A
 * thread parked by atomgrind's scheduler waits for its turn, not for the
 * program: it too can run; so can a thread that another one is
 * cancelling (it may leave its wait).  A thread that was signalled or
 * unlocked but has not yet returned from its wait is not blocked.  Every record errs
 * that way: a release is told before the real unlock, an acquisition
 * after the real lock, a post before the real post and a take after it,
 * an arrival at a barrier before the real wait, a thread's end before
 * its joiner can be woken; and a signal marks the waiters woken after the
 * real signal returned, so that one that began waiting during the call
 * counts as woken too (the signaller, inside the call, can run: nothing
 * can be concluded meanwhile).
 *
 * The state changes at announcements and when threads end.  So a
 * deadlock is found when the last thread announces the call that blocks
 * it: at that moment that thread is the only one running, and it ends the
 * run itself (a deadlocked run has no other code left to run).  When the
 * last thread that could run ends instead, it is found at that thread's
 * exit system call (ag_deadlock_thread_ends): all of the thread's code has
 * run by then -- cleanup handlers, TSD and thread_local destructors, which
 * may unlock, post or signal -- and its end only releases its joiners
 * (robust mutexes are never taken as held for good).  No client code is
 * left to end the run there, so the tool tells the other threads to end,
 * as exit_group does, and the last one out ends the run as an exit does.
 * The destructors run inside the teardown's bracket, where lock releases
 * are not recorded: a thread that released there a lock the records say
 * is held is not checked at its end (a barrier arrival is counted even
 * there: glibc waits at no barrier of its own).
 * Untimed joins, condition and semaphore waits also wait in slices of a
 * second (ag_intercepts.c) and ask again after each.  Two checks:
 *
 *   - a cycle: from the lock (or thread) it waits for, follow each
 *     holder's own wait; coming back to it, these threads wait for each
 *     other whatever the rest do;
 *   - every live thread blocked, none of them able to wake another.  Not
 *     after a fork: a process sharing memory with this one (a
 *     process-shared condition variable) could wake it.
 *
 * A deadlock is missed, and the run hangs as before, when a thread
 * blocks on an object whose initialisation was not seen (a named
 * semaphore; a barrier or semaphore in memory it was not initialised in).  A mutex whose holder has ended is held for good unless
 * it is robust (the next lock returns EOWNERDEAD) or process-shared. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client): the mutex's kind */
#include "pub_tool_execontext.h"   /* the blocked threads' stacks */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_libcproc.h"     /* VG_(atfork) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS */
#include "ag_deadlock.h"
#include "ag_lockerrors.h"         /* the report */
#include "ag_map.h"                /* barriers */
#include "ag_requests.h"           /* AG_WT_*, AG_LK_* */
#include "ag_sync.h"               /* lock holders */
#include "ag_syncinfo.h"           /* AG_SK_* */
#include "ag_threadrec.h"          /* what each thread waits for, in its slot */
#include "ag_threads.h"            /* which threads live */

/* The core's --error-exitcode (pub_core_options.h; exported). */
extern Int VG_(clo_error_exitcode);

typedef struct {
   UInt count;          /* threads it waits for (0: not known) */
   UInt arrived;        /* in the current round */
   UInt round;          /* rounds completed */
} ag_dl_barrier;

/* What a thread waits for: its slot's part (ag_threadrec.h). */
typedef ag_ts_deadlock ag_dl_wait;

static Bool ag_dl_started;        /* some thread waited */
static ag_map *ag_dl_barriers;    /* barrier -> ag_dl_barrier */
/* semaphore -> its value + 1 (0: not known); a count no lower than the
   real value: posts are told before the real post, takes after the real
   take */
static ag_map *ag_dl_sems;
static Bool ag_dl_handlers;       /* the program installed a signal handler */
static Bool ag_dl_forked;

/* (both sides: either may share memory with the other) */
static void ag_dl_fork(ThreadId vgtid)
{
   (void)vgtid;
   ag_dl_forked = True;
}

static ag_dl_wait *ag_dl_of(ThreadId vgtid)
{
   if (!ag_dl_started) {
      ag_dl_started = True;
      VG_(atfork)(NULL, ag_dl_fork, ag_dl_fork);
   }
   return &ag_slot_of(vgtid)->deadlock;
}

/* v's wait, whether or not any thread waited yet. */
static ag_dl_wait *ag_dl_w(ThreadId v) { return &ag_slot_of(v)->deadlock; }

/* The thread making its exit system call (ag_deadlock_thread_ends): gone
   for the checks, though the tool still counts it live. */
static ThreadId ag_dl_ending = VG_INVALID_THREADID;

/* Is v a live thread (not the one ending)? */
static Bool ag_dl_live(ThreadId v)
{
   return v != ag_dl_ending && ag_thread_of(v)->valid;
}

/* The live thread whose engine id is t (VG_INVALID_THREADID: none). */
static ThreadId ag_dl_vg_of(ag_tid t)
{
   if (t == AG_NO_TID) return VG_INVALID_THREADID;
   for (ThreadId v = 1; v < VG_N_THREADS; v++)
      if (ag_dl_live(v) && ag_thread_of(v)->tid == t) return v;
   return VG_INVALID_THREADID;
}

/* glibc's pthread_mutex_t (x86-64 and the other 64-bit ports): the kind
   word at byte 16 and its robust and process-shared bits
   (pthreadP.h: PTHREAD_MUTEX_ROBUST_NORMAL_NP, PTHREAD_MUTEX_PSHARED_BIT). */
#define AG_DL_MUTEX_KIND_OFF  16
#define AG_DL_MUTEX_ROBUST    16
#define AG_DL_MUTEX_PSHARED  128

/* May a lock whose holder has ended still be taken?  A robust mutex is
   handed to the next locker (EOWNERDEAD), a process-shared one may be
   unlocked by another process; a spin lock or a rwlock is not looked at. */
static Bool ag_dl_may_recover(Addr lock, UInt kind)
{
   if (kind != AG_LK_MUTEX || !VG_(am_is_valid_for_client)(lock + AG_DL_MUTEX_KIND_OFF,
                                                           sizeof(Int), VKI_PROT_READ))
      return True;
   Int k = *(const Int *)(lock + AG_DL_MUTEX_KIND_OFF);
   return (k & (AG_DL_MUTEX_ROBUST | AG_DL_MUTEX_PSHARED)) != 0;
}

/* Does locking again a mutex its thread holds wait forever?  For glibc's
   normal and adaptive kinds (kind & 3: 0, 3), not robust nor process-
   shared; a recursive one counts, an error-checking one returns EDEADLK. */
static Bool ag_dl_relock_waits(Addr lock, UInt kind)
{
   if (ag_dl_may_recover(lock, kind)) return False;
   Int k = *(const Int *)(lock + AG_DL_MUTEX_KIND_OFF) & 3;
   return k == 0 || k == 3;
}

/* What v waits for now.  Returns False if it can run (waits for nothing,
   or for something it can have at once).  Otherwise *by is the one live
   thread that must act first (VG_INVALID_THREADID: none in particular:
   blocked for good only if every thread is), and *e (if given) describes
   the wait for a report. */
static Bool ag_dl_blocked(ThreadId v, ThreadId *by, ag_dl_entry *e)
{
   const ag_dl_wait *w = ag_dl_w(v);
   ag_thread *th = ag_thread_of(v);
   ag_dl_entry d;
   VG_(memset)(&d, 0, sizeof d);
   d.tid = th->tid;
   d.what = w->what;
   d.obj = w->obj;
   d.mutex = w->mutex;
   d.woken = w->woken;
   d.holder = AG_NO_TID;
   *by = VG_INVALID_THREADID;
   if (w->what == AG_DW_NONE || w->cancelled) return False;
   if (w->what == AG_DW_SEM) {
      const UInt *val = ag_dl_sems ? ag_map_get(ag_dl_sems, w->obj) : NULL;
      if (!val || *val != 1 || ag_dl_handlers) return False;    /* may be posted */
   } else if (w->what == AG_DW_BARRIER) {
      const ag_dl_barrier *b = ag_map_get(ag_dl_barriers, w->obj);
      if (!b || b->count == 0 || b->round != w->round) return False;   /* released */
      d.arrived = b->arrived;
      d.count = b->count;
   } else if (w->what == AG_DW_JOIN) {
      ag_tid t = ag_tid_of_pthread(w->obj);
      *by = ag_dl_vg_of(t);
      if (*by == VG_INVALID_THREADID) return False;    /* it has ended */
      d.holder = t;
   } else if (w->what == AG_DW_LOCK || w->woken) {
      Addr lock = w->what == AG_DW_LOCK ? w->obj : w->mutex;
      UInt kind = w->what == AG_DW_LOCK ? w->kind : AG_LK_MUTEX, readers;
      ExeContext *at;
      ag_tid o = ag_sync_owner(lock, &at, &readers);
      Bool rw = kind == AG_LK_RWLOCK_RD || kind == AG_LK_RWLOCK_WR;
      d.kind = (UChar)ag_syncinfo_kind(lock);
      if (o != AG_NO_TID && o != th->tid) {
         *by = ag_dl_vg_of(o);
         /* a dead holder: a robust or process-shared mutex may be
            handed over; any other stays held (blocked for good if every
            thread is: none could unlock it) */
         if (*by == VG_INVALID_THREADID && !rw && ag_dl_may_recover(lock, kind)) return False;
         d.holder = o;
         d.taken_at = at;
      } else if (o == th->tid && ag_dl_relock_waits(lock, kind)) {
         /* its own: glibc's unlock of such a mutex does not check the
            owner, so another thread could still release it -- blocked for
            good only if every thread is */
         *by = VG_INVALID_THREADID;
         d.holder = o;
         d.taken_at = at;
      } else if (!(kind == AG_LK_RWLOCK_WR && readers > 0 && o == AG_NO_TID)) {
         return False;         /* free, or its own: it goes on */
      }
   }
   if (e) *e = d;
   return True;
}

/* Does following the waits from v's come back to v? */
static Bool ag_dl_cycle(ThreadId v, ag_dl_report *r)
{
   ThreadId at = v, by;
   for (UInt steps = 0; steps < VG_N_THREADS; steps++) {
      ag_dl_entry e;
      if (!ag_dl_blocked(at, &by, &e) || by == VG_INVALID_THREADID) return False;
      if (r->n < AG_DL_MAX) r->e[r->n++] = e;
      else r->more++;
      if (by == v) return True;
      at = by;
   }
   return False;
}

/* Is every live thread blocked?  Fills r with them, v first. */
static Bool ag_dl_all_blocked(ThreadId v, ag_dl_report *r)
{
   ThreadId by;
   ag_dl_entry e;
   /* cheap first: a contended lock asks this, and its holder usually runs */
   for (ThreadId u = 1; u < VG_N_THREADS; u++)
      if ((ag_dl_w(u)->what == AG_DW_NONE || ag_dl_w(u)->cancelled) && ag_dl_live(u))
         return False;
   if (!ag_dl_blocked(v, &by, &r->e[0])) return False;
   r->n = 1;
   for (ThreadId u = 1; u < VG_N_THREADS; u++) {
      if (u == v || !ag_dl_live(u)) continue;
      if (!ag_dl_blocked(u, &by, &e)) return False;
      if (r->n < AG_DL_MAX) r->e[r->n++] = e;
      else r->more++;
   }
   return True;
}

/* Set once a deadlock is reported: its thread is on its way to ending the
   run, and a thread that checks meanwhile (a join's one-second recheck)
   would report the same deadlock again as "every thread is blocked". */
static Bool ag_dl_reported;

/* Reports r (v's first) and says how the run ends: Valgrind's convention,
   --error-exitcode if given; else 1 -- the program never reached an exit
   of its own, and success (0) would be a lie. */
static Int ag_dl_report_end(ThreadId v, ag_dl_report *r)
{
   for (UInt i = 1; i < r->n; i++)
      r->e[i].stack = VG_(record_ExeContext)(ag_dl_vg_of(r->e[i].tid), 0);
   ag_lockerr_deadlock(v, r);
   ag_dl_reported = True;
   Int status = VG_(clo_error_exitcode) > 0 ? VG_(clo_error_exitcode) : 1;
   if (VG_(clo_verbosity) >= 1)
      VG_(umsg)("atomgrind: the program is deadlocked: ending the run (exit status %d)\n\n",
                status);
   return status;
}

/* v's new wait: if it leaves the program deadlocked, report and say how
   the run ends. */
static UWord ag_dl_check(ThreadId v)
{
   ag_dl_report r;
   ThreadId by;
   if (ag_dl_reported || !ag_dl_blocked(v, &by, NULL)) return 0;
   VG_(memset)(&r, 0, sizeof r);
   r.cycle = by != VG_INVALID_THREADID && ag_dl_cycle(v, &r);
   if (!r.cycle) {
      VG_(memset)(&r, 0, sizeof r);
      if (ag_dl_forked || !ag_dl_all_blocked(v, &r)) return 0;
   }
   return (UWord)ag_dl_report_end(v, &r);
}

/* The core's, exported (pub_core_scheduler.h): what exit_group does to
   the other threads -- each is taken out of its system call and ends, and
   the last one ends the run as a process exit does (the tool's fini, the
   error summary, the XML's closing tags). */
extern void VG_(nuke_all_threads_except)(ThreadId me, Int src);
#define AG_DL_SRC_EXIT_PROCESS 2       /* VgSrc_ExitProcess, pub_core_threadstate.h */

Bool ag_deadlock_thread_ends(ThreadId vgtid)
{
   ag_dl_report r;
   ThreadId v = VG_INVALID_THREADID;
   if (!ag_dl_started || ag_dl_reported || ag_dl_forked || ag_dl_w(vgtid)->unseen) return False;
   VG_(memset)(ag_dl_w(vgtid), 0, sizeof(ag_dl_wait));
   ag_dl_ending = vgtid;
   for (ThreadId u = 1; u < VG_N_THREADS && v == VG_INVALID_THREADID; u++)
      if (ag_dl_live(u)) v = u;
   VG_(memset)(&r, 0, sizeof r);
   Bool dead = v != VG_INVALID_THREADID && ag_dl_all_blocked(v, &r);
   r.ended = ag_thread_of(vgtid)->tid + 1;
   Int status = dead ? ag_dl_report_end(v, &r) : 0;
   ag_dl_ending = VG_INVALID_THREADID;
   if (!dead) return False;
   /* the status, through the core's: the last thread out exits with
      --error-exitcode when errors were found (this one, unless suppressed) */
   if (VG_(clo_error_exitcode) <= 0) VG_(clo_error_exitcode) = status;
   VG_(nuke_all_threads_except)(vgtid, AG_DL_SRC_EXIT_PROCESS);
   return True;
}

void ag_deadlock_unseen_release(ThreadId vgtid, Addr lock)
{
   UInt readers;
   ExeContext *at;
   ag_tid o = ag_sync_owner(lock, &at, &readers);
   if (o != AG_NO_TID || readers > 0) ag_dl_w(vgtid)->unseen = True;
}

UWord ag_deadlock_wait(ThreadId vgtid, UWord what, Addr obj, UInt kind)
{
   ag_dl_wait *w = ag_dl_of(vgtid);
   w->what = what == AG_WT_JOIN ? AG_DW_JOIN : what == AG_WT_SEM ? AG_DW_SEM : AG_DW_LOCK;
   w->kind = (UChar)kind;
   w->obj = obj;
   w->woken = False;
   return ag_dl_check(vgtid);
}

UWord ag_deadlock_cond_wait(ThreadId vgtid, Addr cond, Addr mutex)
{
   ag_dl_wait *w = ag_dl_of(vgtid);
   w->what = AG_DW_COND;
   w->obj = cond;
   w->mutex = mutex;
   w->woken = False;
   w->taken = ag_sync_taken(mutex);
   return ag_dl_check(vgtid);
}

Bool ag_deadlock_cond_moved(ThreadId vgtid)
{
   const ag_dl_wait *w = ag_dl_started ? ag_dl_w(vgtid) : NULL;
   return !w || w->what != AG_DW_COND || w->woken || ag_sync_taken(w->mutex) != w->taken;
}

UWord ag_deadlock_recheck(ThreadId vgtid)
{
   return ag_dl_started && ag_dl_w(vgtid)->what != AG_DW_NONE ? ag_dl_check(vgtid) : 0;
}

void ag_deadlock_done(ThreadId vgtid)
{
   if (ag_dl_started) ag_dl_w(vgtid)->what = AG_DW_NONE;
}

void ag_deadlock_cancel(UWord pt)
{
   ThreadId v = ag_dl_vg_of(ag_tid_of_pthread(pt));
   if (v != VG_INVALID_THREADID) ag_dl_of(v)->cancelled = True;
}

void ag_deadlock_exit(ThreadId vgtid)
{
   if (ag_dl_started) VG_(memset)(ag_dl_w(vgtid), 0, sizeof(ag_dl_wait));
}

void ag_deadlock_sem_init(Addr s, UInt value, Bool pshared)
{
   if (!ag_dl_sems) ag_dl_sems = ag_map_new(sizeof(UInt));
   *(UInt *)ag_map_lookup(ag_dl_sems, s, NULL) = pshared ? 0 : value + 1;
}

void ag_deadlock_sem_post(Addr s)
{
   UInt *v = ag_dl_sems ? ag_map_get(ag_dl_sems, s) : NULL;
   if (v && *v) (*v)++;
}

void ag_deadlock_sem_waited(ThreadId vgtid, Addr s)
{
   UInt *v = ag_dl_sems ? ag_map_get(ag_dl_sems, s) : NULL;
   if (v && *v > 1) (*v)--;
   ag_deadlock_done(vgtid);
}

void ag_deadlock_signal_handler(void)
{
   ag_dl_handlers = True;
}

void ag_deadlock_forget(Addr obj)
{
   UInt *v = ag_dl_sems ? ag_map_get(ag_dl_sems, obj) : NULL;
   if (v) *v = 0;
   ag_deadlock_barrier_count(obj, 0);
}

void ag_deadlock_barrier_count(Addr b, UInt count)
{
   if (!ag_dl_barriers) {
      if (count == 0) return;
      ag_dl_barriers = ag_map_new(sizeof(ag_dl_barrier));
   }
   ag_dl_barrier *r = count ? ag_map_lookup(ag_dl_barriers, b, NULL) : ag_map_get(ag_dl_barriers, b);
   if (!r) return;
   r->count = count;
   r->arrived = 0;
   r->round++;            /* whoever waited at the old one is not counted */
}

/* The count-th arrival of a round releases the round (it is not blocked);
   the others wait for it.  Arrivals are told before the real call, so
   the tool never counts fewer than have arrived. */
UWord ag_deadlock_barrier(ThreadId vgtid, Addr b)
{
   ag_dl_barrier *r = ag_dl_barriers ? ag_map_get(ag_dl_barriers, b) : NULL;
   ag_dl_wait *w = ag_dl_of(vgtid);
   w->what = AG_DW_NONE;
   if (!r || r->count == 0) return 0;
   if (++r->arrived == r->count) {
      r->arrived = 0;
      r->round++;
      return 0;
   }
   w->what = AG_DW_BARRIER;
   w->obj = b;
   w->round = r->round;
   return ag_dl_check(vgtid);
}

void ag_deadlock_signal(Addr cond)
{
   if (!ag_dl_started) return;
   for (ThreadId v = 1; v < VG_N_THREADS; v++) {
      ag_dl_wait *w = ag_dl_w(v);
      if (w->what == AG_DW_COND && w->obj == cond) w->woken = True;
   }
}
