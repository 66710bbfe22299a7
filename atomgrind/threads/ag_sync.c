/* ag_sync.c -- what pthread synchronisation means as events.
 *
 * Mutexes, spinlocks and the write side of rwlocks are acquire/release of
 * the lock; the read side is a shared acquire/release.  Recursion is
 * tracked here so engines see only the outermost acquire and release.
 * Condition variables, semaphores and barriers are read-modify-writes of
 * a synchronisation object (an acquire immediately followed by a
 * release): every such operation is ordered after the previous one on
 * the object, which gives signal -> woken wait, post -> wait, arrivals ->
 * departures.  For races, a barrier's departures are ordered after the
 * arrivals of their own generation only (ag_sync_barrier_arrive).  pthread_once: see ag_sync_once.
 *
 * The objects' own memory, for the race engine (as ThreadSanitizer does):
 * init and destroy write the object's first byte, every other operation
 * reads it -- before the release it makes, after the acquire -- so that
 * destroying, re-initialising or freeing an object while another thread
 * may still be using it is a race, and doing so after that thread's last
 * use is ordered (a join, the object's own lock) is not.  A barrier
 * wait reads it on arrival only: glibc's destroy waits for the threads
 * still leaving, so destroying it right after one's own wait is fine. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"   /* where a lock was taken */
#include "ag_analysis.h"           /* the events a sync operation means */
#include "ag_barrier.h"            /* barriers' generations and state */
#include "ag_callsite.h"           /* where the program called */
#include "ag_requests.h"          /* AG_LK_* lock kinds */
#include "ag_errors.h"             /* ag_error_misuse */
#include "ag_locksets.h"           /* a re-initialised or freed lock is new */
#include "ag_lockorder.h"          /* lock-order inversions */
#include "ag_map.h"                /* lock address -> state */
#include "ag_sync.h"
#include "ag_threads.h"            /* the calling thread's engine id */

typedef struct {
   ag_tid owner;        /* exclusive holder, AG_NO_TID if none */
   UInt count;          /* its recursion depth */
   ExeContext *taken_at;   /* where the owner took it */
   UInt readers;        /* threads holding the read side */
   ag_tid displaced;    /* holder when the core let another thread in */
   ULong taken;         /* exclusive acquisitions, ever */
} ag_lock;

static ag_map *ag_locks;       /* lock address -> ag_lock */
static ag_map *ag_readers;     /* (lock, tid) -> read-hold count */

static ULong ag_reader_key(Addr lock, ag_tid t)
{
   /* user addresses fit in 48 bits on amd64 */
   return (ULong)lock | ((ULong)(t + 1) << 48);
}

static ag_lock *ag_lock_of(Addr a)
{
   int created;
   ag_lock *l = ag_map_lookup(ag_locks, a, &created);
   if (created) l->owner = l->displaced = AG_NO_TID;
   return l;
}

/* The calling thread reads (uses) or writes (inits, destroys) obj.  Its
   wrapper in the preload library is the frame the request comes from. */
static void ag_sync_touch(ThreadId vgtid, ag_tid t, Addr obj, Bool write)
{
   ag_an_world_access(t, obj, 1, write, ag_callsite_within(vgtid, 3));
}

void ag_sync_use(ThreadId vgtid, Addr obj)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (th->valid) ag_sync_touch(vgtid, th->tid, obj, False);
}

void ag_sync_init(void)
{
   ag_locks = ag_map_new(sizeof(ag_lock));
   ag_readers = ag_map_new(sizeof(UInt));
   ag_bar_init();
}

void ag_sync_lock_acquired(ThreadId vgtid, Addr lock, UInt kind, UInt how)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_lock *l = ag_lock_of(lock);
   /* the lock word is read before the acquire orders this thread after
      the last release: an init that only the lock itself would order
      races with it (ThreadSanitizer's race_on_mutex) */
   ag_sync_touch(vgtid, th->tid, lock, False);
   if (kind == AG_LK_RWLOCK_RD) {
      UInt *n = ag_map_lookup(ag_readers, ag_reader_key(lock, th->tid), NULL);
      if ((*n)++ == 0) {
         l->readers++;
         /* a read hold excludes writers: it takes part in lock orders */
         ag_lo_acquire(vgtid, th->tid, lock, VG_(record_ExeContext)(vgtid, 0),
                       how == AG_ACQ_BLOCK, True);
         ag_an_lock_acquire(th->tid, lock, True);
      }
   } else if (l->owner == th->tid) {       /* recursive mutex */
      l->count++;
   } else {
      /* Valgrind returns a priority-inheritance mutex's FUTEX_LOCK_PI
         interrupted by a signal as if it had succeeded, and glibc believes
         it: this thread now runs as the holder while the real one still
         holds it.  The latter's unlock is then no misuse (DRD's
         pth_mutex_signal). */
      l->displaced = l->owner != AG_NO_TID ? l->owner : l->displaced;
      l->owner = th->tid;
      l->count = 1;
      l->taken++;
      /* a deadlock report says where each lock was taken, and so does an
         inversion (only a new order looks at it, but any may become one) */
      l->taken_at = VG_(record_ExeContext)(vgtid, 0);
      ag_lo_acquire(vgtid, th->tid, lock, l->taken_at, how == AG_ACQ_BLOCK, False);
      ag_an_lock_acquire(th->tid, lock, False);
   }
}

void ag_sync_lock_release(ThreadId vgtid, Addr lock)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_lock *l = ag_map_get(ag_locks, lock);
   ag_sync_touch(vgtid, th->tid, lock, False);
   if (l && l->owner == th->tid) {
      if (--l->count == 0) {
         l->owner = AG_NO_TID;
         ag_lo_release(vgtid, lock);
         ag_an_lock_release(th->tid, lock, False);
      }
      return;
   }
   if (l && l->displaced == th->tid) {
      l->displaced = AG_NO_TID;
      ag_an_lock_release(th->tid, lock, False);
      return;
   }
   UInt *n = ag_map_get(ag_readers, ag_reader_key(lock, th->tid));
   if (n && *n > 0) {
      if (--*n == 0) {
         if (l && l->readers > 0) l->readers--;
         ag_lo_release(vgtid, lock);
         ag_an_lock_release(th->tid, lock, True);
      }
      return;
   }
   ag_error_misuse(vgtid, "Thread #%u unlocked lock %#lx, which it does not hold",
                   th->tid + 1, (unsigned long)lock);
}

void ag_sync_cond_wait_pre(ThreadId vgtid, Addr cond, Addr mutex)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_sync_touch(vgtid, th->tid, cond, False);
   ag_lock *l = ag_map_get(ag_locks, mutex);
   if (!l || l->owner != th->tid) {
      ag_error_misuse(vgtid, "Thread #%u waits on condition variable %#lx with mutex %#lx, "
                      "which it does not hold", th->tid + 1, (unsigned long)cond,
                      (unsigned long)mutex);
      return;
   }
   /* the wait releases the mutex entirely */
   l->owner = AG_NO_TID;
   l->count = 0;
   ag_lo_release(vgtid, mutex);
   ag_an_lock_release(th->tid, mutex, False);
}

void ag_sync_cond_wait_post(ThreadId vgtid, Addr cond, Addr mutex)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_sync_object(vgtid, cond);
   ag_lock *l = ag_map_get(ag_locks, mutex);
   if (l && l->owner == th->tid) return;     /* the pre step found it unheld */
   ag_sync_lock_acquired(vgtid, mutex, AG_LK_MUTEX, AG_ACQ_BLOCK);
}

void ag_sync_object(ThreadId vgtid, Addr obj)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_an_sync_rmw(th->tid, obj);
}

/* pthread_once is a write of its control by the initialising call and a
   read by every call after it (regions that each call it on a finished
   control do not conflict), and an ordering of the routine before every
   later return. */
void ag_sync_once(ThreadId vgtid, Addr once, Bool init)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_an_once(th->tid, once, init);
}

ULong ag_sync_taken(Addr lock)
{
   ag_lock *l = ag_map_get(ag_locks, lock);
   return l ? l->taken : 0;
}

Bool ag_sync_holds(ThreadId vgtid, Addr lock)
{
   ag_thread *th = ag_thread_of(vgtid);
   ag_lock *l = ag_map_get(ag_locks, lock);
   return th->valid && l && l->owner == th->tid;
}

/* init or destroy of a lock or sync object: whatever comes next at this
   address is a new object, unordered with the old one's users (engines
   forget their state for it, as when its memory is freed). */
void ag_sync_destroy(ThreadId vgtid, Addr obj)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (th->valid) ag_sync_touch(vgtid, th->tid, obj, True);
   ag_lock *l = ag_map_get(ag_locks, obj);
   if (l) { l->owner = l->displaced = AG_NO_TID; l->count = 0; l->readers = 0; }
   ag_bar_set_inited(obj, False);       /* a new barrier: generations anew */
   ag_lo_forget(obj);
   ag_lockset_forget(obj);
   ag_an_forget(obj, 1);
   /* the write stays: a use that comes later, unordered with it, races
      with the init or destroy (the forget above dropped it with the
      object's clock) */
   if (th->valid) ag_sync_touch(vgtid, th->tid, obj, True);
}


ag_tid ag_sync_owner(Addr lock, ExeContext **taken_at, UInt *readers)
{
   ag_lock *l = ag_map_get(ag_locks, lock);
   *taken_at = l ? l->taken_at : NULL;
   *readers = l ? l->readers : 0;
   return l ? l->owner : AG_NO_TID;
}

/* Memory freed: the lock orders of locks in it are forgotten, and where
   they were first acquired (a lock that lived there is gone, even if it
   was never destroyed). */
void ag_sync_forget_range(Addr a, SizeT len)
{
   ag_lo_forget_range(a, len);
   ag_lockset_forget_range(a, len);
   ag_bar_forget_range(a, len);
}
