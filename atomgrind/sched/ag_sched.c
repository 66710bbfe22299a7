/* ag_sched.c -- atomgrind's own scheduler: at the points that matter for
 * atomicity it decides which thread runs next, so that the regions of
 * different threads actually interleave under Valgrind's big lock.
 *
 * Valgrind runs one thread at a time and switches every 100,000
 * superblocks or at a blocking system call, so regions of different
 * threads almost never overlap on their own.  Here one thread at a time
 * holds "the turn".  At a scheduling point (region begin and end, before
 * and after each synchronisation call, and -- inside a region -- after an
 * access, by stopping at the next superblock) the holder asks the strategy
 * whether to keep it; a thread that reaches a point without the turn parks
 * there: it releases the big lock and sleeps on a futex of its own until
 * the turn is handed to it.
 *
 * Strategies (--sched=):
 *   random  at each point inside a region (and, less often, outside),
 *           hand the turn to a random enabled thread: many short
 *           preemptions, each at a point where an atomicity bug can show.
 *   pct     Burckhardt et al. (ASPLOS 2010): random distinct priorities,
 *           d-1 change points at which the holder drops to the lowest
 *           priority; the highest-priority enabled thread holds the turn.
 *
 * Enabled threads: those parked at a point, and those on their way to
 * one: created but not yet at their first point, or back from a system
 * call that may block (futex waits, sleeps, reads ...).  A
 * holder gives the turn away before such a call; back from it, the thread
 * runs uncontrolled until its next point, but it can be handed the turn
 * (or a lock-barging holder would starve a woken waiter forever).
 *
 * Never hang: a parked thread sleeps at most --sched-timeout ms at a time;
 * if the holder reached no point meanwhile (it spins on a flag, computes,
 * or blocks where we cannot see), the parked thread takes the turn.  A
 * holder that keeps the turn for AG_SC_MAX_RUN points while others wait
 * loses it (a spin loop made of lock/unlock).  At exit_group, in a fork
 * child, and when a thread exits, nobody waits for threads that are gone.
 *
 * Determinism: a seed fixes every choice.  A program whose threads do not
 * block in the kernel is scheduled the same way each run.  Threads woken
 * by the holder (an unlock, a post, a thread's exit waking its joiner) are
 * let back before anyone runs on (ag_sc_settle); a thread that passed the
 * turn before a futex wait is let fall asleep in the kernel before the
 * next holder runs (ag_sc_let_sleep), so waiters queue in the scheduler's
 * order; a join on a thread that has exited keeps the turn.  Other
 * returns from blocking calls (sleeps, timed waits, reads, signals) and
 * takeovers after a timeout depend on timing. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"  /* the command, for PCT's record */
#include "pub_tool_vki.h"          /* futex ops, struct vki_timespec */
#include "pub_tool_vkiscnums.h"    /* __NR_* */
#include "pub_tool_libcassert.h"   /* tl_assert */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcfile.h"     /* VG_(open): a thread's state in /proc */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_libcproc.h"     /* VG_(atfork), clocks, VG_(getpid) */
#include "pub_tool_guest.h"        /* VexGuestArchState: the event counter */
#include "pub_tool_machine.h"      /* the guest state: its counter, IP */
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS */
#include "pub_tool_tooliface.h"    /* VG_(track_*), VG_(needs_syscall_wrapper) */
#include "ag_map.h"                /* region sites -> runs */
#include "ag_schedpol.h"           /* the policy: choices, damping, budgets, PCT */
#include "ag_schedrace.h"          /* race sites: learned, postponed at */
#include "ag_schedlearn.h"         /* ... kept between runs */
#include "ag_schedwake.h"          /* the accounting of futex wakes */
#include "ag_options.h"            /* --sched & co. */
#include "ag_objects.h"            /* the C runtime's code: no budget's end there */
#include "ag_handoff.h"            /* happens-before, for the race sites learned */
#include "ag_stacks.h"             /* where a thread takes a lock, in the program */
#include "ag_sched.h"

/* Core functions that are not in the tool headers but are exported (as
   VG_(vg_yield) is).  ThreadStatus is core-private too: VgTs_Yielding is 4
   (pub_core_threadstate.h). */
extern void VG_(acquire_BigLock)(ThreadId tid, const HChar *who);
extern void VG_(release_BigLock)(ThreadId tid, Int sleepstate, const HChar *who);
extern Bool VG_(is_exiting)(ThreadId tid);
extern SysRes VG_(do_syscall)(UWord sysno, RegWord, RegWord, RegWord, RegWord, RegWord,
                              RegWord, RegWord, RegWord);
#define AG_SC_VGTS_YIELDING 4
/* --fair-sched (pub_core_options.h); 2 is try_fair_sched. */
extern Int VG_(clo_fair_sched);
#define AG_SC_TRY_FAIR_SCHED 2

/* PCT draws its change points among the run's k points: as many as the
   last run of the same command made (ag_sc_pct_recorded), or, in a first
   run, a k drawn among doublings (engine/ag_schedpol.c: why, and what
   PCT's bound becomes). */
/* The rates at shared accesses, the claims of slots, the budgets of
   instructions, PCT's change points and priorities, the damping of
   regions, the rule for rare regions, and the choice of the next holder
   are engine/ag_schedpol.c's. */

volatile UWord ag_sched_stop;
volatile UWord ag_sched_stopping;

typedef enum {
   AG_SC_GONE = 0,   /* no such thread (or it exited) */
   AG_SC_NEW,        /* created; runs until its first point; enabled */
   AG_SC_RUNNING,    /* running client code */
   AG_SC_PARKED,     /* waiting at a point for the turn; enabled */
   AG_SC_SYSCALL,    /* in a system call that may block */
   AG_SC_RETURNING   /* back from one, runs until its next point; enabled */
} ag_sc_state;

#define AG_SC_MASK_WORDS 16     /* a CPU affinity mask: 1024 CPUs */

typedef struct {
   UChar state;          /* ag_sc_state */
   volatile Int word;    /* futex word: set to 1 when handed the turn */
   Addr futex;           /* the futex it waits on, in AG_SC_SYSCALL */
   Addr ctid;            /* the word the kernel clears and wakes at its end */
   Int lwp;              /* its kernel thread (once it waited or blocked) */
   Bool queued;          /* in AG_SC_SYSCALL: seen asleep in the kernel */
   ULong begin_all;      /* all points at its outermost BEGIN */
   ULong backs_at_wake;  /* ag_sc_wk.backs when its futex wake began */
   Bool narrowed;        /* woken on a preempted thread's CPU: own CPUs in mask */
   ULong mask[AG_SC_MASK_WORDS];   /* its CPU affinity before */
   Addr stop_ip;         /* the shared access a stop was asked before (0: none) */
   Bool stop_switch;     /* ... to switch (else only to wait for the turn) */
   Addr resume_ip;       /* the access the last stop was taken before */
   Addr lock_next;       /* the lock its next SYNC_PRE point waits for */
} ag_sc_thread;

static ag_sc_thread *ag_sc_th;          /* indexed by ThreadId */
static ThreadId ag_sc_turn = VG_INVALID_THREADID;
static ULong ag_sc_epoch;               /* moves whenever the holder progresses */
static Bool ag_sc_draining;             /* exit_group: nobody waits any more */
static ag_schedwake ag_sc_wk;           /* futex waits and wakes (engine/ag_schedwake.c) */

static ThreadId ag_sc_settler = VG_INVALID_THREADID;   /* waits for them */
static Addr ag_sc_clone_ctid;           /* the ctid of the clone under way */
/* The policy's state (engine/ag_schedpol.c): the threads enabled, the
   points so far, PCT's priorities ... */
static ag_schedpol ag_sc_pol;
static ag_sp_thread *ag_sc_pth;         /* its threads, indexed by ThreadId */
static ULong ag_sc_pct_k;               /* PCT: the run's length in points */
static Bool ag_sc_pct_from_record;      /* ... as the last run of the command made */
static Int ag_sc_pid;                   /* the process that records it */
static HChar ag_sc_pct_path[512];       /* where it is recorded */

/* What the run checked (the exit line). */
static ULong ag_sc_switches, ag_sc_timeouts, ag_sc_preempts;
static ULong ag_sc_settles, ag_sc_settle_ms_total;
static ULong ag_sc_late;                /* time bounds that ran out (settle, sleep) */
static ULong ag_sc_narrows;             /* hand-overs woken on the preempted thread's CPU */
static ULong ag_sc_regions, ag_sc_overlapped;
static ULong ag_sc_postponed;          /* postponements at race sites */
Bool ag_sched_exits;
static ag_map *ag_sc_sites;             /* region BEGIN address -> runs (UInt) */
static UInt ag_sc_threads_seen;

static Bool ag_sc_on(void) { return ag_clo_sched != AG_SCHED_NATIVE; }

static ULong ag_sc_rand(void) { return ag_sp_rand(&ag_sc_pol); }

static Bool ag_sc_is_enabled(ThreadId t)
{
   UChar s = ag_sc_th[t].state;
   return s == AG_SC_NEW || s == AG_SC_PARKED || s == AG_SC_RETURNING;
}

static void ag_sc_set_state(ThreadId t, ag_sc_state s)
{
   Bool was = ag_sc_is_enabled(t);
   ag_sc_th[t].state = s;
   Bool is = ag_sc_is_enabled(t);
   if (was != is) ag_sp_enable(&ag_sc_pol, t, is);
}

/* ---- waiting and handing over ---- */

static void ag_sc_futex_wake(volatile Int *w)
{
   VG_(do_syscall)(__NR_futex, (UWord)w, VKI_FUTEX_WAKE | VKI_FUTEX_PRIVATE_FLAG, 1,
                   0, 0, 0, 0, 0);
}

static void ag_sc_futex_wait(volatile Int *w, UInt ms)
{
   struct vki_timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
   VG_(do_syscall)(__NR_futex, (UWord)w, VKI_FUTEX_WAIT | VKI_FUTEX_PRIVATE_FLAG,
                   0, (UWord)&ts, 0, 0, 0, 0);
}

/* Wait up to ms for w to be set, in pieces of at most AG_SC_PIECE_MS: a
   thread that dies of a signal (an assertion's abort) kills the process
   without waking anybody, and a parked thread must notice that it is
   exiting soon, not after a whole --sched-timeout (the tests give 10 s). */
#define AG_SC_PIECE_MS 50
static void ag_sc_park(volatile Int *w, ThreadId vgtid, UInt ms)
{
   UInt start = VG_(read_millisecond_timer)(), waited = 0;
   do {
      UInt left = ms - waited;
      ag_sc_futex_wait(w, left < AG_SC_PIECE_MS ? left : AG_SC_PIECE_MS);
      waited = VG_(read_millisecond_timer)() - start;
   } while (*w == 0 && waited < ms && !ag_sc_draining && !VG_(is_exiting)(vgtid));
}

static Bool ag_sc_affine = True;        /* off once the kernel refuses */

/* A preemption inside a region hands the turn to a thread that is woken
   on the preempted thread's CPU, which that one leaves at once (it parks):
   not on another, idle one, where waking costs an interrupt (in a virtual
   machine, a halted virtual CPU's wake-up).  Preemptions come often (a
   long region draws them among its accesses): a spec'd pigz spent 15% of
   its time there.  The woken thread's affinity is narrowed to that CPU
   until it runs (ag_sc_unnarrow), if its own affinity allows it.  Not at
   the program's own hand-overs (a lock, a condition wait): moving the
   threads of a compressor onto one CPU there cost their caches more than
   the wake-ups (xz -T2: 6% more time). */
static void ag_sc_wake_here(ag_sc_thread *n)
{
   if (!ag_sc_affine || n->lwp == 0 || n->narrowed) return;
   UInt cpu = 0;
   SysRes r = VG_(do_syscall)(__NR_getcpu, (UWord)&cpu, 0, 0, 0, 0, 0, 0, 0);
   if (!sr_isError(r))
      r = VG_(do_syscall)(__NR_sched_getaffinity, n->lwp, sizeof n->mask,
                          (UWord)n->mask, 0, 0, 0, 0, 0);
   if (sr_isError(r) || cpu >= 64 * AG_SC_MASK_WORDS) {
      ag_sc_affine = False;
      return;
   }
   UInt cpus = 0;
   for (UInt i = 0; i < AG_SC_MASK_WORDS; i++) cpus += __builtin_popcountll(n->mask[i]);
   /* not if it may not run there, or may run nowhere else anyway */
   if (!(n->mask[cpu / 64] >> (cpu % 64) & 1) || cpus == 1) return;
   ULong one[AG_SC_MASK_WORDS];
   VG_(memset)(one, 0, sizeof one);
   one[cpu / 64] = 1ULL << (cpu % 64);
   r = VG_(do_syscall)(__NR_sched_setaffinity, n->lwp, sizeof one, (UWord)one,
                       0, 0, 0, 0, 0);
   n->narrowed = !sr_isError(r);
   ag_sc_affine = n->narrowed;            /* refused (a sandbox): not again */
   ag_sc_narrows += n->narrowed;
}

static void ag_sc_unnarrow(ag_sc_thread *t)
{
   if (!t->narrowed) return;
   VG_(do_syscall)(__NR_sched_setaffinity, 0, sizeof t->mask, (UWord)t->mask, 0, 0, 0, 0, 0);
   t->narrowed = False;
}

/* The program sets a thread's affinity (0: its own): if that thread is
   narrowed, its own setting is not to be undone. */
static void ag_sc_affinity_set(Int lwp)
{
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (ag_sc_th[t].narrowed && ag_sc_th[t].lwp == lwp) ag_sc_th[t].narrowed = False;
}

/* ---- the budget, on Valgrind's event counter ----

   The holder's turn ends after a count, deterministically: the policy
   draws a budget of guest instructions (ag_sp_budget), counted here in
   Valgrind's event checks, at AG_SC_INSNS_PER_CHECK instructions each.
   Valgrind's generated code already counts, for the core's time slices:
   a block entered by a backward jump (a loop's next round) or an indirect
   one (a return) starts with an event check, which decrements the
   thread's host_EvC_COUNTER and leaves generated code when it goes below
   zero, before the block runs, with the guest state exact.  When the
   thread starts a run (ag_sched_running) the counter holds what is left
   of the core's slice; the budget lowers it, and a stop asked for
   (ag_sc_ask_stop) makes it 0.  When it leaves (ag_sched_stopped), what
   the counter went down is taken off the budget, and a counter of -1 says
   the check failed: the stop or the budget's end.  The instrumentation
   adds nothing per block (a count of its own was 10-17% of xz -T2's
   time).  The core takes a lowered counter that ran out for its slice's
   end, and lets others have the big lock there, as at a slice's end
   (Valgrind's --stats=yes counts each such slice as a whole one). */
/* xz -T2 and tests/progs/bugs/lost_update.c under --tool=none: 17 and
   12 guest instructions per event check */
#define AG_SC_INSNS_PER_CHECK 16
/* A budget that runs out in the C runtime (libc, libpthread, libm,
   libgcc_s, the preload's string functions) or the dynamic linker makes
   no point there: it starts again, as drawn (at least
   AG_SC_OUTSIDE_CHECKS checks, so that a long memcpy costs a few of
   these), and ends in the program's code, as when only the program's
   instructions were counted.  A checker formatting its report with
   snprintf (binding its symbols lazily) is not cut short: 14 of seeds
   1-20 fail as they should in tests/progs/exit_checker.c, 0 when the
   dynamic linker's code counted.  The preload's wrappers count: a switch
   inside pthread_create's or a lock's wrapper makes SCTBench's
   deadlock01 deadlock (9 of seeds 1-20; 2 when the budget ended out of
   them too; 7 when the program's instructions were counted inline).
   Not longer: a new thread runs its start there, and a longer run on
   (doubling each time) took it through its first loop with no point
   (tests/progs/bugs/lost_update.c). */
#define AG_SC_OUTSIDE_CHECKS 64
/* In a memory-block function (memcpy, memset: a compressor's buffers),
   each start again would end the core's slice too (the big lock's yield,
   a signal poll: 6,000 of them in a zstd -T2 run of 3 MiB), so there
   they double, up to this many checks.  What is left over when the copy
   returns runs in the program's code before the budget ends: about
   what the copy took, at most. */
#define AG_SC_BLOCK_FN_CHECKS (1L << 16)
#define AG_SC_EVC offsetof(VexGuestArchState, host_EvC_COUNTER)
static Long ag_sc_budget = 1L << 30;    /* checks left (refilled at ag_sched_init) ... */
static Long ag_sc_drawn = 1L << 30;     /* ... of this many */
static Long ag_sc_block_ext;            /* the last start again in a memory-block function */
static ThreadId ag_sc_evc_tid;          /* the thread in generated code, 0: none ... */
static Int ag_sc_evc_set;               /* ... its counter when last set ... */
static Int ag_sc_evc_left;              /* ... and the most it may be: the core's slice left */

static Int ag_sc_evc_get(ThreadId t)
{
   UInt c;
   VG_(get_shadow_regs_area)(t, (UChar *)&c, 0, AG_SC_EVC, sizeof c);
   return (Int)c;
}

static void ag_sc_evc_put(ThreadId t, Int c)
{
   UInt v = (UInt)c;
   VG_(set_shadow_regs_area)(t, 0, AG_SC_EVC, sizeof v, (const UChar *)&v);
   ag_sc_evc_set = c;
}

/* Take the event checks passed since the counter was set off the budget
   (and the core's slice); True if a check failed (-1: the thread is at a
   block's start). */
static Bool ag_sc_evc_take(ThreadId t)
{
   Int c = ag_sc_evc_get(t);
   Int now = c < 0 ? 0 : c;
   ag_sc_budget -= ag_sc_evc_set - now;
   ag_sc_evc_left -= ag_sc_evc_set - now;
   ag_sc_evc_set = now;
   return c < 0;
}

/* At least 1: the core runs a function that a wrapper calls (a no-redir
   translation) as a run of its own, which must not fail its check.  No
   stop is asked for at a run's start: stops are asked for in generated
   code, and every return to the scheduler drops them. */
void ag_sched_running(ThreadId vgtid)
{
   if (!ag_sc_on() || !ag_sc_th) return;
   Int c = ag_sc_evc_get(vgtid);
   Long want = ag_sc_budget < 1 ? 1 : ag_sc_budget;
   ag_sc_evc_tid = vgtid;
   ag_sc_evc_left = c;
   if (want < c) ag_sc_evc_put(vgtid, (Int)want);
   else ag_sc_evc_set = c;
}

/* Stop the running thread at its next event check (where accesses are
   analysed, at its next block: ag_instrument.c tests ag_sched_stop). */
static void ag_sc_ask_stop(void)
{
   ag_sched_stop = 1;
   if (ag_sc_evc_tid == VG_INVALID_THREADID) return;   /* ag_sched_running sets it */
   ag_sc_evc_take(ag_sc_evc_tid);
   ag_sc_evc_put(ag_sc_evc_tid, 0);
}

void ag_sched_stop_exit(void)
{
   ag_sched_stopping = 1;
   if (ag_sc_evc_tid == VG_INVALID_THREADID) return;
   /* the counter back to the budget: a counter left lowered would end the
      core's slice (a yield of the big lock) at every such stop */
   Long c = ag_sc_budget < 0 ? 0 : ag_sc_budget;
   ag_sc_evc_put(ag_sc_evc_tid, (Int)(c < ag_sc_evc_left ? c : ag_sc_evc_left));
}

/* A new budget for the thread that runs next. */
static void ag_sc_refill(void)
{
   ag_sc_budget = (ag_sp_budget(&ag_sc_pol) + AG_SC_INSNS_PER_CHECK - 1) / AG_SC_INSNS_PER_CHECK;
   ag_sc_drawn = ag_sc_budget;
   ag_sc_block_ext = 0;
}

/* The budget ran out at a block's start: a point, in the program's code
   if it can be (True: it was made). */
static Bool ag_sc_budget_out(ThreadId vgtid)
{
   Addr ip = VG_(get_IP)(vgtid);
   if (ag_object_runtime(ip)) {
      Long again = ag_sc_drawn > AG_SC_OUTSIDE_CHECKS ? ag_sc_drawn : AG_SC_OUTSIDE_CHECKS;
      if (ag_object_block_fn(ip)) {
         if (ag_sc_block_ext >= again)
            again = ag_sc_block_ext < AG_SC_BLOCK_FN_CHECKS ? 2 * ag_sc_block_ext : ag_sc_block_ext;
         ag_sc_block_ext = again;
      }
      ag_sc_budget = again;
      return False;
   }
   ag_sp_budget_out(&ag_sc_pol);
   ag_sc_refill();
   ag_sched_point(vgtid, AG_PT_BLOCKS);
   return True;
}

/* Hand the turn to next; here: on this CPU (ag_sc_wake_here). */
static void ag_sc_hand(ThreadId next, Bool here)
{
   ag_sc_refill();
   ag_sc_turn = next;
   ag_sc_epoch++;
   ag_sc_switches++;
   ag_sp_took(&ag_sc_pol, next);
   if (ag_sc_th[next].state == AG_SC_PARKED) {
      if (here) ag_sc_wake_here(&ag_sc_th[next]);
      ag_sc_th[next].word = 1;
      ag_sc_futex_wake(&ag_sc_th[next].word);
   }
}

/* Does the turn's holder still run towards a point?  Not if it is gone,
   blocked in a call, or nobody holds the turn. */
static Bool ag_sc_holder_active(void)
{
   ThreadId h = ag_sc_turn;
   if (h == VG_INVALID_THREADID) return False;
   UChar s = ag_sc_th[h].state;
   return s == AG_SC_NEW || s == AG_SC_RUNNING || s == AG_SC_PARKED || s == AG_SC_RETURNING;
}

/* The holder made a futex wake (an unlock, a signal, a post) on a futex
   that another thread waits on.  A woken thread -- or one whose wait found
   the futex changed before it slept -- needs the big lock to come back,
   and the holder keeps it until it blocks or its 100,000-superblock
   quantum ends: a holder that relocks at once would starve it.  So the
   holder lets them come back (and become enabled) before going on -- as
   many as the wake says it woke (a barrier wakes all) -- for at
   most --sched-timeout ms: the wake may have been for nobody.  That is
   rare (a wake whose threads are back already sets no settle), and a
   shorter bound ran out on a loaded machine, where the woken thread waits
   for a CPU: the seed's schedule was lost. */
static void ag_sc_settle(ThreadId vgtid)
{
   ag_sc_thread *t = &ag_sc_th[vgtid];
   UInt start = VG_(read_millisecond_timer)();
   while (ag_sc_wk.woke && ag_sc_wk.in_futex > 0 && !ag_sc_draining && !VG_(is_exiting)(vgtid)
          && VG_(read_millisecond_timer)() - start < ag_clo_sched_timeout_ms) {
      ag_sc_settler = vgtid;
      t->word = 0;
      VG_(release_BigLock)(vgtid, AG_SC_VGTS_YIELDING, "atomgrind: let woken threads in");
      ag_sc_futex_wait(&t->word, 1);
      VG_(acquire_BigLock)(vgtid, "atomgrind: let woken threads in");
   }
   ag_sc_settler = VG_INVALID_THREADID;
   if (ag_sc_wk.woke && ag_sc_wk.in_futex > 0 && !ag_sc_draining && !VG_(is_exiting)(vgtid))
      ag_sc_late++;                      /* not all back in time */
   ag_sw_clear(&ag_sc_wk);
   ag_sc_settles++;
   ag_sc_settle_ms_total += VG_(read_millisecond_timer)() - start;
}

/* Is kernel thread lwp asleep (not running towards its call)? */
static Bool ag_sc_asleep(Int lwp)
{
   HChar path[64], buf[512];
   VG_(sprintf)(path, "/proc/self/task/%d/stat", lwp);
   SysRes fd = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) return True;              /* gone */
   Int n = VG_(read)(sr_Res(fd), buf, sizeof buf - 1);
   VG_(close)(sr_Res(fd));
   if (n <= 0) return True;
   buf[n] = 0;
   HChar *close = VG_(strrchr)(buf, ')');         /* after "pid (comm" */
   return !close || close[1] != ' ' || close[2] != 'R';
}

/* Threads that passed the turn before a futex wait (on a; 0: any) run
   towards the kernel without the big lock.  Whether one gets there before
   the next holder changes the word (it then returns at once) or waits
   on it, and in which order waiters queue (a wake takes the first), would
   be a race: they are let get there first.  Bounded: a thread that is not
   asleep in --sched-timeout ms is not waited for. */
static void ag_sc_let_sleep(ThreadId vgtid, Addr a)
{
   for (ThreadId t = 1; t < VG_N_THREADS; t++) {
      ag_sc_thread *th = &ag_sc_th[t];
      if (t == vgtid || th->state != AG_SC_SYSCALL || th->futex == 0 || th->queued
          || (a != 0 && th->futex != a))
         continue;
      UInt start = VG_(read_millisecond_timer)();
      Bool asleep;
      while (!(asleep = ag_sc_asleep(th->lwp))
             && VG_(read_millisecond_timer)() - start < ag_clo_sched_timeout_ms)
         VG_(do_syscall)(__NR_sched_yield, 0, 0, 0, 0, 0, 0, 0, 0);
      ag_sc_late += !asleep;
      th->queued = True;
   }
}

/* Park vgtid until it holds the turn.  The big lock is released while it
   sleeps, in slices of --sched-timeout ms; a holder that made no progress
   over a whole slice loses the turn to the sleeper. */
static void ag_sc_wait(ThreadId vgtid)
{
   ag_sc_thread *t = &ag_sc_th[vgtid];
   ag_sc_set_state(vgtid, AG_SC_PARKED);
   t->lwp = VG_(gettid)();
   ULong epoch = ag_sc_epoch;
   while (ag_sc_turn != vgtid && !ag_sc_draining && !VG_(is_exiting)(vgtid)) {
      if (!ag_sc_holder_active()) {
         ag_sc_turn = vgtid;
         ag_sc_epoch++;
         break;
      }
      t->word = 0;
      VG_(release_BigLock)(vgtid, AG_SC_VGTS_YIELDING, "atomgrind: wait for the turn");
      ag_sc_park(&t->word, vgtid, ag_clo_sched_timeout_ms);
      VG_(acquire_BigLock)(vgtid, "atomgrind: wait for the turn");
      if (ag_sc_turn == vgtid) break;
      if (ag_sc_epoch != epoch) {        /* the holder progresses: wait on */
         epoch = ag_sc_epoch;
         continue;
      }
      if (t->word == 0 && ag_sc_th[ag_sc_turn].state != AG_SC_PARKED) {
         /* a whole slice without progress, and the holder is not merely
            waiting to be scheduled after a hand-over */
         ag_sc_timeouts++;
         ag_sc_turn = vgtid;
         ag_sc_epoch++;
         break;
      }
   }
   ag_sp_took(&ag_sc_pol, vgtid);
   ag_sc_unnarrow(t);
   /* handed the turn by a thread that woke others and left (its exit
      wakes a joiner): let one come back before running on, as the
      holder does at its next point -- this one's accesses in a region
      draw stops only while some thread is enabled */
   if (ag_sc_wk.woke && ag_sc_turn == vgtid) ag_sc_settle(vgtid);
   if (ag_sc_turn == vgtid) ag_sc_let_sleep(vgtid, 0);
   ag_sp_runs(&ag_sc_pol, vgtid);
   ag_sc_set_state(vgtid, AG_SC_RUNNING);
}

/* ---- the strategy (engine/ag_schedpol.c) ---- */

/* ag_point and the policy's kinds are the same numbers. */
STATIC_ASSERT((Int)AG_PT_BEGIN == AG_SP_PT_BEGIN && (Int)AG_PT_END == AG_SP_PT_END
              && (Int)AG_PT_SYNC_PRE == AG_SP_PT_SYNC_PRE
              && (Int)AG_PT_SYNC_POST == AG_SP_PT_SYNC_POST
              && (Int)AG_PT_PREEMPT == AG_SP_PT_PREEMPT && (Int)AG_PT_YIELD == AG_SP_PT_YIELD
              && (Int)AG_PT_SHARED == AG_SP_PT_SHARED && (Int)AG_PT_BLOCKS == AG_SP_PT_BLOCKS);

/* Who holds the turn after self's point of this kind. */
static ThreadId ag_sc_choose(ThreadId self, ag_point kind)
{
   return ag_sp_choose(&ag_sc_pol, self, kind, ag_sc_th[self].stop_switch);
}

/* ---- the points ---- */

static void ag_sc_count(ThreadId vgtid, ag_point kind)
{
   ag_sc_thread *t = &ag_sc_th[vgtid];
   const ag_sp_thread *p = &ag_sc_pth[vgtid];
   if (kind == AG_PT_SHARED) return;      /* counted by ag_sched_shared */
   Int region = ag_sp_count(&ag_sc_pol, vgtid, kind);
   if (region > 0) {
      ag_sc_regions++;
      t->begin_all = ag_sc_pol.points;
   } else if (region < 0) {
      /* another thread reached a point while the region was open */
      if (ag_sc_pol.points - t->begin_all > p->points - p->begin_own) ag_sc_overlapped++;
   }
}

/* The outermost BEGIN of a region at code address site. */
static void ag_sc_damp_for(ThreadId vgtid, Addr site);

void ag_sched_begin(ThreadId vgtid, Addr site)
{
   ag_sc_damp_for(vgtid, site);
   ag_sched_point(vgtid, AG_PT_BEGIN);
}

/* Random: the holder is about to wait for a lock learned as a race site:
   is it postponed there (as at an access, ag_sched_shared)? */
static Bool ag_sc_lock_postponed(ThreadId vgtid, Addr lock)
{
   if (lock == 0 || ag_clo_sched != AG_SCHED_RANDOM
       || !ag_sr_shared(&ag_sc_pol, vgtid, lock, lock, 1, ag_sr_has(&ag_sc_pol, lock)))
      return False;
   ag_sc_postponed++;
   return True;
}

/* Where a thread takes a learned lock, for lock-order coverage: the
   program's call (an unwind, so only at learned locks; 0: not random). */
static Addr ag_sc_lock_site(ThreadId vgtid, Addr lock)
{
   return ag_clo_sched == AG_SCHED_RANDOM && ag_sr_has(&ag_sc_pol, lock)
          ? ag_stacks_program_ip(vgtid) : 0;
}

void ag_sched_lock_wait(ThreadId vgtid, Addr lock)
{
   if (!ag_sc_th) return;
   ag_sc_th[vgtid].lock_next = lock;
   ag_so_waits_at(&ag_sc_pol, vgtid, lock, ag_sc_lock_site(vgtid, lock));
}

void ag_sched_lock_acquired(ThreadId vgtid, ag_tid t, Addr lock)
{
   if (!ag_sc_th || ag_clo_sched != AG_SCHED_RANDOM) return;
   ag_sr_access(&ag_sc_pol, lock, lock, ag_sp_tag(t) | AG_SR_UNORDERED, 1);
   Addr site = ag_so_site_of(&ag_sc_pol, vgtid, lock);     /* from the wait, else now */
   ag_so_taken(&ag_sc_pol, lock, site ? site : ag_sc_lock_site(vgtid, lock), ag_sp_tag(t));
   ag_so_waits_at(&ag_sc_pol, vgtid, 0, 0);
}

void ag_sched_thread_born(ag_tid parent, ag_tid child)
{
   if (ag_sc_th) ag_sr_born(&ag_sc_pol, ag_sp_tag(child), ag_sp_tag(parent));
}

void ag_sched_point(ThreadId vgtid, ag_point kind)
{
   ag_sc_count(vgtid, kind);
   Addr lock = 0;
   if (ag_sc_th && kind == AG_PT_SYNC_PRE) {
      lock = ag_sc_th[vgtid].lock_next;
      ag_sc_th[vgtid].lock_next = 0;
   }
   if (!ag_sc_on() || ag_sc_draining || ag_sc_th[vgtid].state == AG_SC_GONE) return;
   if (ag_sc_is_enabled(vgtid)) ag_sc_set_state(vgtid, AG_SC_RUNNING);
   if (ag_sc_turn != vgtid && ag_sc_holder_active()) {
      ag_sp_parks(&ag_sc_pol, vgtid, kind);
      ag_sc_wait(vgtid);                 /* someone else holds the turn */
      return;
   }
   ag_sc_turn = vgtid;
   if (ag_sc_wk.woke) ag_sc_settle(vgtid);
   ThreadId next = ag_sc_lock_postponed(vgtid, lock)
                   ? ag_sp_choose(&ag_sc_pol, vgtid, AG_SP_PT_SHARED, 1)
                   : ag_sc_choose(vgtid, kind);
   if (next == vgtid || next == VG_INVALID_THREADID) {
      ag_sp_kept(&ag_sc_pol, vgtid);
      ag_sc_epoch++;
      return;
   }
   if (kind == AG_PT_PREEMPT) ag_sc_preempts++;
   /* random: a thread preempted inside its region stays out for a while,
      so that the others get far enough to conflict with it */
   ag_sp_switched(&ag_sc_pol, vgtid);
   ag_sc_hand(next, kind == AG_PT_PREEMPT);
   ag_sp_parks(&ag_sc_pol, vgtid, kind);
   ag_sc_wait(vgtid);
}

static void ag_sc_damp_for(ThreadId vgtid, Addr site)
{
   if (ag_sc_pth[vgtid].depth == 0 && ag_sc_sites) {
      UInt *runs = ag_map_lookup(ag_sc_sites, site, NULL);
      ag_sp_region_site(&ag_sc_pol, vgtid, ++*runs);
   }
}

void ag_sched_region_enter(ThreadId vgtid, Addr site, Bool may_stop)
{
   if (!ag_sc_th) return;
   ag_sc_damp_for(vgtid, site);
   ag_sc_count(vgtid, AG_PT_BEGIN);
   if (!ag_sc_on() || ag_sc_draining || ag_sc_turn != vgtid || ag_sc_pol.enabled == 0) return;
   if (ag_sp_region_stop(&ag_sc_pol, vgtid) && may_stop) ag_sc_ask_stop();
}

void ag_sched_region_leave(ThreadId vgtid)
{
   if (ag_sc_th) ag_sc_count(vgtid, AG_PT_END);
}

UInt ag_sched_depth(ThreadId vgtid) { return ag_sc_th ? ag_sc_pth[vgtid].depth : 0; }

void ag_sched_access(ThreadId vgtid)
{
   if (ag_sc_turn == vgtid && ag_sp_access(&ag_sc_pol, vgtid)) ag_sc_ask_stop();
}

/* Every return to the scheduler.  If the thread left at a stop (at a
   block's start, the event check's, or before an access, the
   instrumentation's exit: nothing of its translation is in use), preempt
   it here; a stop asked for but overtaken by a client request, a system
   call or a translation miss is dropped.  A budget run out is a point
   too. */
void ag_sched_stopped(ThreadId vgtid)
{
   Bool out = ag_sc_evc_tid == vgtid && ag_sc_evc_take(vgtid);
   ag_sc_evc_tid = VG_INVALID_THREADID;
   Bool asked = ag_sched_stop != 0;
   ag_sched_stop = 0;
   ag_sc_thread *t = ag_sc_th ? &ag_sc_th[vgtid] : NULL;
   Addr at = t ? t->stop_ip : 0;
   if (t) t->stop_ip = 0;
   Bool stopping = ag_sched_stopping || (out && asked);
   ag_sched_stopping = 0;
   if (!stopping) {
      /* the check failed with no stop asked: the budget's end, or the
         core's slice */
      if (out && ag_sc_budget <= 0) ag_sc_budget_out(vgtid);
      return;
   }
   if (at == 0) {
      if (ag_sc_budget > 0 || !ag_sc_budget_out(vgtid)) ag_sched_point(vgtid, AG_PT_PREEMPT);
      return;
   }
   /* left before the shared access at `at` (or, without an exit there,
      at the next superblock): when it runs, it is no point again */
   t->resume_ip = at;
   ag_sched_point(vgtid, AG_PT_SHARED);
   t->stop_switch = False;
}

Bool ag_sched_others(void)
{
   return ag_sc_th && ag_sc_on() && ag_sc_pol.enabled > 0;
}

UChar ag_sched_slot_after(UChar slot, UChar me, Bool write, Int *point)
{
   int p;
   UChar after = ag_sp_slot_after(&ag_sc_pol, slot, me, write, ag_sched_others(), &p);
   *point = p;
   return after;
}

Bool ag_sched_race_site(Addr a, Addr ip, UWord stamp, UInt flags)
{
   if (!ag_sc_th || ag_clo_sched != AG_SCHED_RANDOM) return False;
   UInt atomic = flags & AG_ATOMIC ? AG_SR_ATOMIC : 0;
   return ag_sr_access(&ag_sc_pol, a, ip, (UInt)(stamp & 0xffff) | atomic, (flags & AG_WRITE) != 0);
}

void ag_sched_fresh(Addr a, SizeT len)
{
   if (ag_sc_th && ag_clo_sched == AG_SCHED_RANDOM) ag_sr_fresh(&ag_sc_pol, a, len);
}

void ag_sched_shared(ThreadId vgtid, Addr ip, Addr a, Bool write)
{
   if (!ag_sc_th || ag_sc_draining || !ag_sc_on()) return;
   ag_sc_thread *t = &ag_sc_th[vgtid];
   Addr resumed = t->resume_ip;
   t->resume_ip = 0;
   if (resumed == ip || t->state == AG_SC_GONE) return;
   ag_sp_shared_point(&ag_sc_pol);
   ag_sp_count(&ag_sc_pol, vgtid, AG_SP_PT_SHARED);
   ag_sc_epoch++;                         /* progress: no waiter takes over */
   if (ag_sc_turn != vgtid) {
      /* running without the turn (new, or back from a blocking call):
         wait for it right here, the access not yet made */
      if (ag_sc_holder_active()) {
         t->stop_ip = ip;
         t->stop_switch = False;
         ag_sc_ask_stop();
      }
      return;
   }
   Bool stop;
   if (ag_clo_sched == AG_SCHED_PCT) {
      stop = ag_sp_pct_shared(&ag_sc_pol, vgtid);
   } else if (ag_sr_shared(&ag_sc_pol, vgtid, a, ip, write, ag_sr_has(&ag_sc_pol, ip))) {
      stop = True;                       /* postponed at a race site */
      ag_sc_postponed++;
   } else {
      /* inside a region its accesses draw their preemptions already
         (ag_sched_access, with its damping and rare regions) */
      stop = ag_sc_pth[vgtid].depth == 0 && ag_sp_shared_preempts(&ag_sc_pol, ip, ag_sc_pol.enabled > 0);
   }
   if (!stop) return;
   t->stop_ip = ip;
   t->stop_switch = True;
   ag_sc_ask_stop();
}

/* ---- threads and system calls ---- */

/* A new thread waits for the turn before its first instruction (the core
   calls this with the big lock held, before the thread's scheduler loop),
   so that it does not race the others through its start-up code. */
static void ag_sc_first_insn(ThreadId vgtid)
{
   if (!ag_sc_on() || ag_sc_draining || ag_sc_th[vgtid].state != AG_SC_NEW) return;
   if (ag_sc_turn == vgtid || !ag_sc_holder_active()) {
      ag_sc_turn = vgtid;
      ag_sc_epoch++;
      ag_sc_set_state(vgtid, AG_SC_RUNNING);
      return;
   }
   ag_sc_wait(vgtid);
}

void ag_sched_thread_new(ThreadId parent, ThreadId child)
{
   (void)parent;
   if (!ag_sc_th) return;
   ag_sc_thread *c = &ag_sc_th[child];
   VG_(memset)(c, 0, sizeof *c);
   /* a thread's struct (its ctid) is reused by the next one */
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (ag_sc_th[t].ctid == ag_sc_clone_ctid) ag_sc_th[t].ctid = 0;
   c->ctid = ag_sc_clone_ctid;
   ag_sc_clone_ctid = 0;
   ag_sc_threads_seen++;
   ag_sp_thread_new(&ag_sc_pol, child, ag_sc_threads_seen);
   if (parent == VG_INVALID_THREADID) {
      c->state = AG_SC_RUNNING;
      ag_sc_turn = child;
   } else {
      ag_sc_set_state(child, AG_SC_NEW);
   }
}

/* Does a thread wait on the futex at a (in a call, or about to be)? */
static Bool ag_sc_waiter_on(Addr a)
{
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (ag_sc_th[t].state == AG_SC_SYSCALL && ag_sc_th[t].futex == a) return True;
   return False;
}

/* The holder leaves (or blocks): the turn goes to the enabled thread the
   strategy prefers, or to nobody. */
static void ag_sc_pass_turn(ThreadId self)
{
   if (ag_sc_turn != self) return;
   ThreadId next = ag_sp_pass(&ag_sc_pol, self);
   if (next == VG_INVALID_THREADID) {
      ag_sc_turn = VG_INVALID_THREADID;
      ag_sc_epoch++;
   } else {
      ag_sc_hand(next, False);
   }
}

void ag_sched_thread_exit(ThreadId vgtid)
{
   if (!ag_sc_th || ag_sc_th[vgtid].state == AG_SC_GONE) return;
   ag_sc_set_state(vgtid, AG_SC_GONE);
   ag_sp_region_exit(&ag_sc_pol, vgtid);
   if (!ag_sc_on()) return;
   /* its exit wakes its joiner (the kernel's futex wake on the ctid):
      the next holder lets it come back first, as after a futex wake */
   if (ag_sc_th[vgtid].ctid && ag_sc_waiter_on(ag_sc_th[vgtid].ctid))
      ag_sw_add(&ag_sc_wk, 1, ag_sc_th[vgtid].ctid, 0);
   ag_sc_pass_turn(vgtid);
}

void ag_sched_exit(ThreadId vgtid)
{
   if (!ag_sc_th || !ag_sc_on() || ag_sc_draining || ag_sc_turn != vgtid) return;
   if (ag_sp_exit_holds(&ag_sc_pol, vgtid)) ag_sched_point(vgtid, AG_PT_YIELD);
}

/* A futex call's operation, without FUTEX_PRIVATE and FUTEX_CLOCK_REALTIME */
static UWord ag_sc_futex_cmd(UWord op) { return op & 0x7f; }

/* System calls during which the thread may wait for another thread. */
static Bool ag_sc_may_block(UInt sysno, UWord *args)
{
   switch (sysno) {
   case __NR_futex: {
      UWord op = ag_sc_futex_cmd(args[1]);
      return op == VKI_FUTEX_WAIT || op == VKI_FUTEX_WAIT_BITSET || op == VKI_FUTEX_LOCK_PI
             || op == VKI_FUTEX_WAIT_REQUEUE_PI;
   }
   case __NR_nanosleep: case __NR_clock_nanosleep:
   case __NR_read: case __NR_readv: case __NR_recvfrom: case __NR_recvmsg:
   case __NR_accept: case __NR_accept4: case __NR_connect:
   case __NR_poll: case __NR_ppoll: case __NR_select: case __NR_pselect6:
   case __NR_epoll_wait: case __NR_epoll_pwait: case __NR_wait4: case __NR_waitid:
   case __NR_pause: case __NR_rt_sigsuspend: case __NR_rt_sigtimedwait:
   case __NR_msgrcv: case __NR_semop: case __NR_semtimedop: case __NR_flock:
      return True;
   default:
      return False;
   }
}

/* Is a the ctid of a thread that has exited here?  Its kernel thread ends
   moments later, clearing the word and waking its joiners. */
static Bool ag_sc_exit_pending(Addr a)
{
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (a != 0 && ag_sc_th[t].state == AG_SC_GONE && ag_sc_th[t].ctid == a) return True;
   return False;
}

/* Futex operations that wake waiters (their result: how many). */
static Bool ag_sc_futex_wakes(UWord op)
{
   op = ag_sc_futex_cmd(op);
   return op == VKI_FUTEX_WAKE || op == VKI_FUTEX_WAKE_OP || op == VKI_FUTEX_WAKE_BITSET
          || op == VKI_FUTEX_REQUEUE || op == VKI_FUTEX_CMP_REQUEUE || op == VKI_FUTEX_UNLOCK_PI;
}

/* How many waiters a wake that returned res woke.  A requeue counts the
   waiters it moved to the second word too, which sleep on: at most
   nr_wake (its third argument) were woken. */
static ULong ag_sc_futex_woken(UWord op, UWord nr_wake, ULong res)
{
   op = ag_sc_futex_cmd(op);
   if ((op == VKI_FUTEX_REQUEUE || op == VKI_FUTEX_CMP_REQUEUE) && res > nr_wake) return nr_wake;
   return res;
}

/* exit_group: wake everyone, and let nobody wait any more. */
static void ag_sc_drain(void)
{
   ag_sc_draining = True;
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (ag_sc_th[t].state == AG_SC_PARKED) {
         ag_sc_th[t].word = 1;
         ag_sc_futex_wake(&ag_sc_th[t].word);
      }
}

void ag_sched_end_run(void)
{
   if (ag_sc_on() && ag_sc_th && !ag_sc_draining) ag_sc_drain();
}

void ag_sched_pre_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs)
{
   (void)nargs;
   if (!ag_sc_on() || !ag_sc_th || ag_sc_draining) return;
   ag_sched_stop = 0;
   if (sysno == __NR_exit_group) {
      ag_sc_drain();
      return;
   }
   UChar st = ag_sc_th[vgtid].state;
   if (sysno == __NR_sched_yield && st != AG_SC_GONE) {
      /* a yield is a scheduling point, not a blocking call: the thread
         hands the turn on and waits for it, so a polling loop advances as
         the strategy says -- not as the kernel's yield, which on a loaded
         machine gives the CPU away for a whole time slice while the others
         run on without it */
      ag_sched_point(vgtid, AG_PT_YIELD);
      return;
   }
   if (sysno == __NR_sched_setaffinity) ag_sc_affinity_set((Int)args[0]);
   if (sysno == __NR_clone && (args[0] & VKI_CLONE_CHILD_CLEARTID)) {
      ag_sc_clone_ctid = args[3];
      return;
   }
   /* a join on a thread that exited here but not yet in the kernel: the
      wake is moments away, and whether the joiner waits at all (the word
      may be cleared already) is timing.  It keeps the turn, as if the
      call did not block. */
   if (sysno == __NR_futex && ag_sc_exit_pending(args[0])) return;
   if (sysno == __NR_futex && ag_sc_futex_wakes(args[1])) {
      ag_sc_th[vgtid].backs_at_wake = ag_sc_wk.backs;
      return;
   }
   if (!ag_sc_may_block(sysno, args) || (st != AG_SC_RUNNING && st != AG_SC_RETURNING))
      return;
   if (sysno == __NR_futex) ag_sc_let_sleep(vgtid, args[0]);
   /* a wake right before the wait (a condition wait unlocks the mutex,
      then waits): the woken thread is let back to be handed the turn */
   if (ag_sc_wk.woke && ag_sc_turn == vgtid) ag_sc_settle(vgtid);
   ag_sc_set_state(vgtid, AG_SC_SYSCALL);
   ag_sc_th[vgtid].futex = sysno == __NR_futex ? args[0] : 0;
   ag_sc_th[vgtid].lwp = VG_(gettid)();
   ag_sc_th[vgtid].queued = False;
   if (sysno == __NR_futex) ag_sw_wait(&ag_sc_wk);
   ag_sc_pass_turn(vgtid);
}

void ag_sched_post_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs,
                               SysRes res)
{
   (void)nargs;
   if (!ag_sc_on() || !ag_sc_th) return;
   if (ag_sc_th[vgtid].state == AG_SC_SYSCALL) {
      ag_sc_set_state(vgtid, AG_SC_RETURNING);
      /* one woken is back: the holder settling for it is told */
      if (ag_sw_back(&ag_sc_wk, ag_sc_th[vgtid].futex, sysno == __NR_futex)) {
         if (ag_sc_settler != VG_INVALID_THREADID) {
            ag_sc_th[ag_sc_settler].word = 1;
            ag_sc_futex_wake(&ag_sc_th[ag_sc_settler].word);
         }
      }
      /* back from the call, the thread waits for the turn before it runs
         on (the core holds no state across this callback) */
      if (ag_sc_turn != vgtid && ag_sc_holder_active() && !VG_(is_exiting)(vgtid))
         ag_sc_wait(vgtid);
   } else if (sysno == __NR_futex && ag_sc_futex_wakes(args[1]) && ag_sc_wk.in_futex > 0) {
      Addr a0 = args[0], a1 = ag_sc_futex_cmd(args[1]) != VKI_FUTEX_WAKE ? args[4] : 0;
      ULong woken = sr_isError(res) ? 0 : ag_sc_futex_woken(args[1], args[2], sr_Res(res));
      UInt n = ag_sw_unsettled(&ag_sc_wk, a0, a1, woken, ag_sc_th[vgtid].backs_at_wake);
      if (n == 0) return;
      if (!ag_sc_waiter_on(a0) && !(a1 != 0 && ag_sc_waiter_on(a1))) return;
      ag_sw_add(&ag_sc_wk, n, a0, a1);
   }
}

/* In a fork child only the forking thread exists. */
static void ag_sc_fork_child(ThreadId vgtid)
{
   for (ThreadId t = 1; t < VG_N_THREADS; t++)
      if (t != vgtid) ag_sc_set_state(t, AG_SC_GONE);
   ag_sp_fork_child(&ag_sc_pol, vgtid);
   ag_sc_set_state(vgtid, AG_SC_RUNNING);
   ag_sc_turn = vgtid;
   ag_sc_wk.in_futex = 0;
   ag_sw_clear(&ag_sc_wk);
}

/* ---- set-up and the exit line ---- */

void ag_sched_pre_clo_init(void)
{
   /* Valgrind's default big lock is a pipe: a thread spinning on a flag
      releases and retakes it before a thread woken from a system call (the
      one that would set the flag) gets it, for seconds to minutes on a
      loaded machine -- under --tool=none and DRD too.  The ticket lock
      hands the big lock over in order.  Set before the options are read,
      so --fair-sched=no still wins. */
   VG_(clo_fair_sched) = AG_SC_TRY_FAIR_SCHED;
}

/* PCT's k is recorded per command (the program and its arguments, not
   atomgrind's options: other seeds share it) in $TMPDIR (else /tmp). */
static void ag_sc_cmd_path(HChar *buf, SizeT size, const HChar *kind)
{
   ULong h = 1469598103934665603ULL;                /* FNV-1a */
   Int n = VG_(args_for_client) ? VG_(sizeXA)(VG_(args_for_client)) : 0;
   for (Int i = -1; i < n; i++) {
      const HChar *a = i < 0 ? VG_(args_the_exename)
                             : *(HChar **)VG_(indexXA)(VG_(args_for_client), i);
      for (; a && *a; a++) h = (h ^ (UChar)*a) * 1099511628211ULL;
      h = (h ^ 0xff) * 1099511628211ULL;
   }
   const HChar *dir = VG_(getenv)("TMPDIR");
   if (!dir || !*dir || VG_(strlen)(dir) > 400) dir = "/tmp";
   VG_(snprintf)(buf, size, "%s/atomgrind-%s-%d-%016llx", dir, kind, VG_(geteuid)(), h);
}

static void ag_sc_pct_path_set(void)
{
   ag_sc_cmd_path(ag_sc_pct_path, sizeof ag_sc_pct_path, "pct");
}

/* The points of the last run of this command, or 0. */
static ULong ag_sc_pct_recorded(void)
{
   SysRes fd = VG_(open)(ag_sc_pct_path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) return 0;
   HChar buf[32];
   Int n = VG_(read)(sr_Res(fd), buf, sizeof buf - 1);
   VG_(close)(sr_Res(fd));
   if (n <= 0) return 0;
   buf[n] = 0;
   HChar *end;
   ULong k = VG_(strtoull10)(buf, &end);
   return end != buf ? k : 0;
}

static void ag_sc_pct_record(void)
{
   if (VG_(getpid)() != ag_sc_pid || ag_sc_pol.points == 0) return;   /* not a fork child's */
   /* written aside and renamed: runs of other seeds in parallel read a
      whole record, never a truncated one */
   HChar tmp[sizeof ag_sc_pct_path + 16], buf[32];
   VG_(snprintf)(tmp, sizeof tmp, "%s.%d", ag_sc_pct_path, ag_sc_pid);
   SysRes fd = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
   if (sr_isError(fd)) return;
   VG_(snprintf)(buf, sizeof buf, "%llu\n", ag_sc_pol.points);
   Int n = VG_(write)(sr_Res(fd), buf, VG_(strlen)(buf));
   VG_(close)(sr_Res(fd));
   if (n != (Int)VG_(strlen)(buf) || VG_(rename)(tmp, ag_sc_pct_path) != 0) VG_(unlink)(tmp);
}

/* PCT: d - 1 change points, each uniform among the run's k points. */
static void ag_sc_pct_init(void)
{
   ag_sc_pid = VG_(getpid)();
   ag_sc_pct_path_set();
   ULong k = ag_sc_pct_recorded();
   ag_sc_pct_from_record = k > 0;
   ag_sc_pct_k = ag_sp_pct_init(&ag_sc_pol, ag_clo_sched_depth, k);
}

/* A seed that differs between runs: the clock and the pid. */
static ULong ag_sc_fresh_seed(void)
{
   struct vki_timespec ts;
   VG_(clock_gettime)(&ts, VKI_CLOCK_REALTIME);
   ULong x = (ULong)ts.tv_nsec ^ ((ULong)ts.tv_sec << 20) ^ ((ULong)VG_(getpid)() << 40);
   ag_sp_init(&ag_sc_pol, x);
   return ag_sc_rand() % 1000000000ULL;
}

/* A pair of accesses in happens-before order is no race site to learn
   (a buffer a queue hands over), unless the thread holds a lock: two
   critical sections that conflict are where atomicity bugs across two
   of them sit, and postponing there is what finds them
   (tests/progs/bugs/condvar_ticket.cpp: 31 of 40 seeds when no ordered
   pair was learned, 39 of 40 with these). */
static int ag_sc_ordered(unsigned stamp) { return !ag_ho_holding() && ag_ho_ordered(stamp); }

void ag_sched_init(void)
{
   if (!ag_clo_sched_seed_given) ag_clo_sched_seed = ag_sc_fresh_seed();
   ag_sp_init(&ag_sc_pol, ag_clo_sched_seed);
   ag_sc_pol.race.ordered = ag_sc_ordered;
   if (ag_sc_on()) ag_sc_refill();
   ag_sc_th = VG_(calloc)("ag.sched", VG_N_THREADS, sizeof(ag_sc_thread));
   ag_sc_pth = VG_(calloc)("ag.sched.policy", VG_N_THREADS, sizeof(ag_sp_thread));
   ag_sp_threads(&ag_sc_pol, ag_sc_pth, VG_N_THREADS, ag_clo_sched == AG_SCHED_PCT);
   ag_sc_sites = ag_map_new(sizeof(UInt));
   if (ag_clo_sched == AG_SCHED_PCT) ag_sc_pct_init();
   if (ag_clo_sched == AG_SCHED_RANDOM) {
      HChar path[512];
      ag_sc_cmd_path(path, sizeof path, "races");
      ag_sl_init(&ag_sc_pol, path);
   }
   /* a stop right before an access (ag_sched_shared) resumes at that
      instruction: every guest register must be up to date there */
   if (ag_sc_on()) {
      if (VG_(clo_vex_control).iropt_register_updates_default < VexRegUpdAllregsAtMemAccess)
         VG_(clo_vex_control).iropt_register_updates_default = VexRegUpdAllregsAtMemAccess;
      if (VG_(clo_px_file_backed) != VexRegUpd_INVALID
          && VG_(clo_px_file_backed) < VexRegUpdAllregsAtMemAccess)
         VG_(clo_px_file_backed) = VexRegUpdAllregsAtMemAccess;
      ag_sched_exits = True;
   }
   VG_(track_pre_thread_first_insn)(ag_sc_first_insn);
   VG_(atfork)(NULL, NULL, ag_sc_fork_child);
   if (VG_(clo_verbosity) >= 2 && ag_sc_on())
      VG_(umsg)("atomgrind: scheduler %s, seed %llu (repeat with --sched-seed=%llu)\n",
                ag_clo_sched == AG_SCHED_PCT ? "pct" : "random",
                ag_clo_sched_seed, ag_clo_sched_seed);
}

void ag_sched_fini(void)
{
   if (ag_clo_sched == AG_SCHED_PCT) ag_sc_pct_record();
   if (ag_clo_sched == AG_SCHED_RANDOM) ag_sl_fini(&ag_sc_pol);
   if (VG_(clo_verbosity) < 1) return;
   const HChar *name = ag_clo_sched == AG_SCHED_PCT ? "pct"
                     : ag_clo_sched == AG_SCHED_RANDOM ? "random" : "native";
   VG_(umsg)("Checked: %llu region(s), %llu overlapped another thread's work; "
             "%llu scheduling point(s) (%llu at shared accesses), %llu switch(es)\n",
             ag_sc_regions, ag_sc_overlapped, ag_sc_pol.points, ag_sc_pol.shared_points,
             ag_sc_switches);
   if (ag_sl_snapshot())
      VG_(umsg)("Scheduler: %s, seed %llu, %u race site(s) learned before "
                "(repeat with --sched-seed=%llu --sched-races=%s)\n",
                name, ag_clo_sched_seed, ag_sl_loaded(), ag_clo_sched_seed, ag_sl_snapshot());
   else if (ag_sc_on())
      VG_(umsg)("Scheduler: %s, seed %llu (repeat with --sched-seed=%llu)\n",
                name, ag_clo_sched_seed, ag_clo_sched_seed);
   else
      VG_(umsg)("Scheduler: native\n");
   if (ag_sc_on() && ag_sc_timeouts + ag_sc_late > 0)
      VG_(umsg)("Scheduler: %llu choice(s) fell back on a time bound (a holder that reached "
                "no point for --sched-timeout ms, a woken thread not back in time): the seed "
                "may not repeat this run\n", ag_sc_timeouts + ag_sc_late);
   if (ag_clo_sched == AG_SCHED_PCT && ag_sc_pct_from_record)
      VG_(umsg)("PCT: depth %u, change points among %llu point(s) (as the last run of this "
                "command made)\n", ag_sc_pol.nchange + 1, ag_sc_pct_k);
   else if (ag_clo_sched == AG_SCHED_PCT)
      VG_(umsg)("PCT: depth %u, change points among %llu point(s) (a first run: drawn among "
                "%u doublings of %u up to %llu; the next run of this command uses this one's "
                "%llu)\n", ag_sc_pol.nchange + 1, ag_sc_pct_k, AG_SP_PCT_SCALES, AG_SP_PCT_K0,
                (ULong)AG_SP_PCT_K0 << (AG_SP_PCT_SCALES - 1), ag_sc_pol.points);
   if (VG_(clo_verbosity) >= 2)
      VG_(umsg)("atomgrind: scheduler: %llu preemption(s) after accesses, "
                "%llu takeover(s) after a timeout, %llu wait(s) for woken threads "
                "(%llu ms), %llu hand-over(s) woken on the preempted thread's CPU, "
                "%llu postponement(s) at %u race site(s) (%u learned in this run), "
                "%u meeting(s) at a lock weighed by %u lock-order pair(s)\n",
                ag_sc_preempts, ag_sc_timeouts, ag_sc_settles, ag_sc_settle_ms_total,
                ag_sc_narrows, ag_sc_postponed, ag_sc_pol.race.nsites, ag_sc_pol.race.learned,
                ag_sc_pol.race.steered, ag_sc_pol.race.norder);
   if (ag_sc_regions > 0 && ag_sc_overlapped == 0 && ag_sc_threads_seen > 1)
      VG_(umsg)("WARNING: no atomic region overlapped another thread's work: "
                "this check was vacuous\n");
}
