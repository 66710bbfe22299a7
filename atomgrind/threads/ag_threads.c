/* ag_threads.c -- Valgrind thread ids to atomgrind's dense, never reused
 * engine thread ids; the running thread; pthread_t lookup for joins. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"    /* VG_(am_find_nsegment): a dead thread's stack */
#include "pub_tool_execontext.h"   /* VG_(record_ExeContext) */
#include "pub_tool_libcassert.h"   /* tl_assert */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_libcproc.h"     /* VG_(atfork) */
#include "pub_tool_machine.h"      /* VG_(get_SP) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS, VG_(thread_get_stack_max) */
#include "pub_tool_tooliface.h"    /* VG_(track_*), VG_STACK_REDZONE_SZB */
#include "ag_analysis.h"           /* thread events go to the engines */
#include "ag_callsite.h"           /* the creator's frames, shared */
#include "ag_options.h"            /* --check, --check-stack-var */
#include "ag_map.h"                /* pthread_t -> ag_tid */
#include "ag_objects.h"            /* ag_preload_present */
#include "ag_sched.h"              /* threads come and go for the scheduler */
#include "ag_handoff.h"            /* the running thread's stamp in the owner table */
#include "ag_shared.h"             /* the owner table: its start, quiet code */
#include "ag_threadinfo.h"         /* creation stacks, for reports */
#include "ag_threadrec.h"          /* each slot's record, zeroed at creation */
#include "ag_threads.h"

static ag_thread ag_idle = { .ignore = 1, .tid = AG_NO_TID };  /* before any thread runs */
ag_thread *ag_cur = &ag_idle;
void (*ag_threads_stop_hook)(ThreadId vgtid);

static ag_tid ag_next_tid;
static UInt ag_live;                   /* threads created and not exited */
static ThreadId ag_hi;                 /* the highest ThreadId a thread was made in */
static ag_map *ag_by_pthread;          /* pthread_t -> ag_tid */

static void ag_start_client_code(ThreadId vgtid, ULong bbs_done)
{
   (void)bbs_done;
   ag_cur = ag_thread_of(vgtid);
   ag_an_running(vgtid);
   ag_ho_running(ag_cur->tid);
   ag_sched_running(vgtid);
   if (ag_cur->valid && ag_cur->stack_max == 0)
      ag_cur->stack_max = VG_(thread_get_stack_max)(vgtid);
}

/* After a thread's run of generated code: first the analysis and the
   shared points (they may discard translations: none is in use, and the
   next run looks its code up afresh), then the scheduler (it may hand the turn to another). */
static void ag_stop_client_code(ThreadId vgtid, ULong bbs_done)
{
   (void)bbs_done;
   if (ag_threads_stop_hook) ag_threads_stop_hook(vgtid);
   ag_an_stopped();
   ag_shared_stopped(vgtid);
   ag_sched_stopped(vgtid);
}

/* Races on the stack (without --check-stack-var): a thread's own stack
   is skipped inline, below stack_max.  What a thread shares through its
   stack is mostly what its live frames hand the threads it creates (a
   local passed by address, as the thread's argument or in a struct): at
   each creation, its frames from the one that called pthread_create up
   are checked from then on, and the frames it calls later stay private.
   (A stack variable handed over later, through memory, is seen only from
   the other thread's side.) */
static void ag_threads_share_frames(ThreadId parent)
{
   if (!(ag_clo_check & AG_CHECK_RACES) || ag_clo_check_stack_var) return;
   Addr sp = ag_callsite_sp(parent);
   ag_thread *p = ag_thread_of(parent);
   if (sp == 0 || p->stack_max == 0 || sp > p->stack_max) return;
   if (sp - 1 < p->stack_max) p->stack_max = sp - 1;
}

static void ag_thread_create(ThreadId parent, ThreadId child)
{
   ag_thread *c = ag_thread_of(child);
   tl_assert(!c->valid);
   ag_slot_new(child);
   c->valid = True;
   c->tid = ag_next_tid++;
   ag_live++;
   if (child > ag_hi) ag_hi = child;
   c->last_child = AG_NO_TID;
   ag_sched_thread_new(parent, child);
   ag_thread *p = parent != VG_INVALID_THREADID ? ag_thread_of(parent) : NULL;
   if (p && p->valid) {
      ag_sched_thread_born(p->tid, c->tid);
      static Bool checked;
      if (!checked) {
         /* the first thread the program starts: synchronisation must be
            visible from here on, or reports would be wrong */
         checked = True;
         if (!ag_preload_present()) {
            VG_(umsg)("atomgrind: WARNING: the program does not use atomgrind's "
                      "pthread wrappers (is it\n");
            VG_(umsg)("atomgrind: statically linked?): locks, joins and malloc are "
                      "invisible, so nothing\n");
            VG_(umsg)("atomgrind: is checked.  Link it dynamically to check it.\n");
            ag_an_disable();
         }
      }
      p->last_child = c->tid;
      ag_threads_share_frames(parent);
      ag_threadinfo_created(c->tid, VG_(record_ExeContext)(parent, 0));
      ag_an_fork(p->tid, c->tid);
   } else {
      ag_an_thread_new(c->tid);
   }
}

void ag_threads_exit(ThreadId vgtid)
{
   ag_thread *t = ag_thread_of(vgtid);
   if (!t->valid) return;
   ag_an_thread_exit(t->tid, vgtid);
   /* glibc hands a dead thread's stack mapping (stack, TLS, thread
      descriptor) to the next thread it creates: that memory starts fresh */
   const NSegment *seg = VG_(am_find_nsegment)(VG_(get_SP)(vgtid));
   if (vgtid != 1 && seg && seg->kind == SkAnonC)
      ag_an_forget(seg->start, seg->end + 1 - seg->start);
   t->valid = False;
   ag_live--;
   ag_sched_thread_exit(vgtid);
}

/* In a fork child only the forking thread exists; the core drops the
   others without telling tools, and reuses their ThreadIds.  Nothing of
   theirs happens in the child after the fork: the forking thread joins
   them (glibc gives their stacks to the child's next threads). */
static void ag_threads_fork_child(ThreadId me)
{
   ag_thread *m = ag_thread_of(me);
   for (ThreadId t = 1; t < VG_N_THREADS; t++) {
      ag_thread *o = ag_thread_of(t);
      if (t != me && o->valid) {
         if (m->valid) ag_an_join(m->tid, o->tid);
         o->valid = False;
         ag_live--;
      }
   }
}

void ag_threads_init(void)
{
   ag_by_pthread = ag_map_new(sizeof(ag_tid));
   ag_shared_init();
   VG_(track_start_client_code)(ag_start_client_code);
   VG_(track_stop_client_code)(ag_stop_client_code);
   VG_(track_pre_thread_ll_create)(ag_thread_create);
   VG_(atfork)(NULL, NULL, ag_threads_fork_child);
}

UInt ag_threads_live(void) { return ag_live; }

ag_tid ag_threads_stack_owner(Addr a, ThreadId except)
{
   for (ThreadId t = 1; t <= ag_hi; t++) {
      ag_thread *o = ag_thread_of(t);
      if (t == except || !o->valid) continue;
      /* the stack's real top: stack_max is lowered in race mode
         (ag_threads_share_frames) */
      if (a <= VG_(thread_get_stack_max)(t) && VG_(get_SP)(t) <= a + VG_STACK_REDZONE_SZB)
         return o->tid;
   }
   return AG_NO_TID;
}

ag_thread *ag_thread_of(ThreadId vgtid)
{
   return &ag_slot_of(vgtid)->thread;
}

ag_tid ag_tid_of_pthread(UWord pt)
{
   ag_tid *t = ag_map_get(ag_by_pthread, pt);
   return t ? *t : AG_NO_TID;
}

void ag_threads_set_pthread(ag_tid t, UWord pt)
{
   *(ag_tid *)ag_map_lookup(ag_by_pthread, pt, NULL) = t;
}
