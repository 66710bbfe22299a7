/* ag_regions.c -- the one owner of atomic regions (see ag_regions.h).
 *
 * A region opens for a source marker (ATOMGRIND_ATOMIC_BEGIN), a call of an
 * atomic function (its entry, ag_spec.c) or an inlined instance of one (its
 * code entered from outside, ag_instrument.c).  Each opening is counted
 * here, in the thread's record (ag_threads.h), in the engines (ag_an_begin)
 * and in the scheduler (ag_sched_begin, ag_sched_region_enter), and each
 * closing in all three: no other module calls them, so the three depths
 * cannot drift apart (ag_rg_thread_exit checks it).
 *
 * Frames end regions.  A call's region lasts until its frame is gone: at
 * the entry SP points at the return address (the frame's "slot"), and
 * whatever ends the call -- a return, a longjmp, C++ unwinding -- raises
 * SP above the slot (ag_rg_sp_rise).  A tail call jumps with SP at the
 * slot, so the callee stays inside the caller's region; recursion nests; a
 * signal handler runs below the interrupted SP and its own frames close
 * when it returns.  A marked region gets a frame too: a longjmp or an
 * exception that leaves its function before the END is a misuse, and the
 * region is closed there; a normal return leaves it open (a helper may
 * begin a region that its caller ends).  An inlined instance has no frame
 * of its own: it closes when its code is left other than by a call; a call
 * out of it pushes a frame that keeps the instance open until the callee
 * returns (or is unwound), and then restores it.
 *
 * Optimised code interleaves an instance's instructions with its caller's
 * (a load hoisted above the caller's test, a store sunk past it, a branch
 * to a block of the caller's that comes back).  Where the code steps from
 * an instance out into the code around it, for the rest of that superblock
 * and at most one more, the instance is not closed but suspended: the thread is
 * "ignored" (as inside a synchronisation call) and the accesses of that
 * gap are kept aside.  Coming back into the same instance resumes it; the
 * gap's accesses (the caller's code, scheduled inside the copy) are then
 * analysed if a region around the instance is open (they are in it either
 * way), else left out: that can miss a violation, never make one up.  Anything else
 * ends the gap and closes the instance where the gap began, and the gap's
 * accesses are then analysed after it, as they ran: another instance, a
 * call, a marker, the start of a superblock outside it, or any return to
 * the scheduler (so no other thread runs while a gap is open). */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client) */
#include "pub_tool_debuginfo.h"    /* VG_(get_fnname), VG_(describe_IP) */
#include "pub_tool_libcassert.h"   /* tl_assert2 */
#include "pub_tool_libcbase.h"     /* VG_STREQ */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_machine.h"      /* VG_(get_IP) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc), VG_(free) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "pub_tool_stacktrace.h"   /* VG_(get_StackTrace) */
#include "ag_analysis.h"           /* regions for the engines */
#include "ag_errors.h"             /* ag_error_misuse */
#include "ag_fnspec.h"             /* which functions are atomic */
#include "ag_instances.h"          /* inline chains */
#include "ag_options.h"            /* --sample=rpt */
#include "ag_regions.h"
#include "ag_sched.h"              /* regions for the scheduler */
#include "ag_threads.h"            /* the per-thread record */

/* Core-private, but linkable: a jump of SP by more than this is a stack
   switch, not a frame's end. */
extern Word VG_(clo_max_stackframe);
/* Core-private too: --sanity-level=2 or more makes the depth check fatal. */
extern Int VG_(clo_sanity_level);

typedef enum { AG_RG_FN, AG_RG_MARK, AG_RG_CALL } ag_rg_kind;

struct ag_rg_frame {
   Addr slot;            /* the frame's return-address slot */
   ag_rg_kind kind;
   Int fn;               /* AG_RG_FN: the atomic function */
   Addr begin_ip;        /* AG_RG_MARK: the ATOMGRIND_ATOMIC_BEGIN ... */
   Addr ret;             /* ... and the return address, as it was then */
   UInt inl, inl_open, inl_entered;   /* AG_RG_CALL: the caller's chain, kept open */
};

UInt ag_rg_open_frames;
static Bool ag_rg_tracking;
static ULong ag_rg_opened[3];          /* by kind: calls, markers, inline instances */
static UInt ag_rg_exits_inside;        /* threads that exited inside a region */

/* ---- opening and closing ------------------------------------------- */

/* The engines first (the region's begin site, 0 when nested); the caller
   then tells the scheduler, which may make the thread wait. */
static ULong ag_rg_open(ThreadId vgtid, ag_thread *th, ag_rg_kind kind)
{
   th->depth++;
   ag_rg_opened[kind]++;
   return ag_an_begin(th->tid, vgtid);
}

/* from_request: at an END client request, a scheduling point (the thread
   may wait); otherwise generated code is running, and the scheduler only
   counts it. */
static void ag_rg_close(ThreadId vgtid, ag_thread *th, Bool from_request)
{
   if (from_request) ag_sched_point(vgtid, AG_PT_END);
   else ag_sched_region_leave(vgtid);
   if (th->depth > 0) th->depth--;
   ag_an_end(th->tid, vgtid);
}

/* ---- frames -------------------------------------------------------- */

static void ag_rg_push(ag_thread *th, ag_rg_frame f)
{
   if (th->nframes == th->capframes) {
      th->capframes = th->capframes ? 2 * th->capframes : 16;
      th->frames = VG_(realloc)("ag.regions.frames", th->frames,
                                th->capframes * sizeof *th->frames);
   }
   th->frames[th->nframes++] = f;
   ag_rg_open_frames++;
}

static void ag_rg_remove(ag_thread *th, UInt i)
{
   for (; i + 1 < th->nframes; i++) th->frames[i] = th->frames[i + 1];
   th->nframes--;
   ag_rg_open_frames--;
}

/* Can the tool read the client's word at a (a slot found by unwinding, or
   one on a stack that may have been unmapped since)? */
static Bool ag_rg_readable(Addr a)
{
   return VG_(am_is_valid_for_client)(a, sizeof(Addr), VKI_PROT_READ);
}

/* Close the instances of the thread's current chain, from level k in. */
static void ag_rg_inline_close(ThreadId vgtid, ag_thread *th, UInt k)
{
   const ag_inst_chain *c = ag_inst_chain_of(th->inl);
   for (UInt i = c->n; i-- > k;)
      if (th->inl_open & (1u << i)) {
         th->inl_open &= ~(1u << i);
         ag_rg_close(vgtid, th, False);
      }
}

/* th->inl in a gap: never a real chain, so every block's check calls. */
#define AG_RG_IN_GAP 0xffffffffu

static void ag_rg_inline_move(ThreadId vgtid, ag_thread *th, UInt chain, Bool may_suspend,
                              Bool block_start, Addr ip);

/* The accesses of the running thread's gap (only the running thread can
   be in one: every return to the scheduler ends it), in order. */
#define AG_RG_GAP_MAX 256
static struct { Addr a; UWord szfl; Addr ip; } ag_rg_gap_acc[AG_RG_GAP_MAX];
static UInt ag_rg_ngap;
static ULong ag_rg_gap_lost;           /* accesses past the buffer, for -v */

void ag_rg_gap_access(Addr a, UWord szfl, Addr ip)
{
   if (ag_rg_ngap == AG_RG_GAP_MAX) {
      ag_rg_gap_lost++;
      return;
   }
   ag_rg_gap_acc[ag_rg_ngap].a = a;
   ag_rg_gap_acc[ag_rg_ngap].szfl = szfl;
   ag_rg_gap_acc[ag_rg_ngap].ip = ip;
   ag_rg_ngap++;
}

/* Leave a gap: back in the chain it suspended; returns the chain the code
   of the gap was in. */
static UInt ag_rg_gap_leave(ag_thread *th)
{
   UInt around = th->inl_around;
   th->inl = th->inl_gap;
   th->inl_gap = th->inl_around = 0;
   th->inl_gap_kept = False;
   if (th->ignore > 0) th->ignore--;
   return around;
}

/* Replay the gap's accesses (in the regions open now). */
static void ag_rg_gap_replay(ag_thread *th)
{
   for (UInt i = 0; i < ag_rg_ngap && ag_an_gate; i++)
      ag_an_access(th->tid, ag_rg_gap_acc[i].a, (UInt)(ag_rg_gap_acc[i].szfl & 0xffff),
                   (UInt)(ag_rg_gap_acc[i].szfl >> 16), ag_rg_gap_acc[i].ip);
   ag_rg_ngap = 0;
}

/* The gap's accesses so far, as the caller's code scheduled inside the
   instances: inside a region around the instances they belong to it
   whatever their order (nested regions count as the outermost), and are
   analysed; otherwise they cannot be placed before or after the
   instance, and are left out. */
static void ag_rg_gap_flush(ag_thread *th)
{
   UInt k = ag_inst_chain_of(th->inl_around)->n, suspended = 0;
   for (UInt m = th->inl_open >> k; m; m &= m - 1) suspended++;
   if (th->depth > suspended) ag_rg_gap_replay(th);
   ag_rg_ngap = 0;
}

/* The code came back into the suspended instances. */
static void ag_rg_gap_resume(ag_thread *th)
{
   ag_rg_gap_flush(th);
   ag_rg_gap_leave(th);
}

/* It did not: the instances closed where the gap began, so its accesses
   come after them, as they ran (nothing else ran in between). */
static void ag_rg_gap_close(ThreadId vgtid, ag_thread *th)
{
   if (th->inl_gap == 0) return;
   ag_rg_inline_move(vgtid, th, ag_rg_gap_leave(th), False, False, 0);
   ag_rg_gap_replay(th);
}

/* Every return of the running thread to the scheduler (ag_threads.c).
   Another thread may run before this one resumes, so the gap ends here
   (a blocking call, the core's time slice); but not at the scheduler's own
   stop exit (nothing of the thread happens there): where and how often
   the scheduler stops must not change the regions.  If another thread
   can run, the gap's accesses so far are settled now, as if the code came
   back into the instances (ag_rg_gap_flush): left out unless a region is
   around them, even should the gap close later -- never placed after the
   other thread's work, which follows them. */
static void ag_rg_stopped(ThreadId vgtid)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (th->inl_gap == 0) return;
   if (!ag_sched_stopping) {
      ag_rg_gap_close(vgtid, th);
      return;
   }
   if (ag_threads_live() > 1) ag_rg_gap_flush(th);
   th->inl_gap_kept = True;
}

/* Frame f has ended; returned: by a return, not unwound. */
static void ag_rg_frame_ends(ThreadId vgtid, ag_thread *th, const ag_rg_frame *f, Bool returned)
{
   if (!th->valid) return;
   switch (f->kind) {
   case AG_RG_FN:
      ag_rg_close(vgtid, th, False);
      break;
   case AG_RG_MARK:
      if (returned) break;
      ag_error_misuse(vgtid, "Atomic region abandoned by a longjmp or an exception "
                      "(closed here); it began at %s",
                      VG_(describe_IP)(VG_(current_DiEpoch)(), f->begin_ip, NULL));
      ag_rg_close(vgtid, th, False);
      break;
   case AG_RG_CALL:
      /* the callee's own instances end with it; the caller's resume */
      ag_rg_gap_close(vgtid, th);
      ag_rg_inline_close(vgtid, th, 0);
      th->inl = f->inl;
      th->inl_open = f->inl_open;
      th->inl_entered = f->inl_entered;
      break;
   }
}

/* SP rose from old_sp to new_sp: every frame whose slot lies below new_sp
   is gone.  A slot far below (more than --max-stackframe) belongs to
   another stack -- a signal handler running on an alternate stack above
   this one -- and stays. */
void ag_rg_sp_rise(ThreadId vgtid, Addr old_sp, Addr new_sp)
{
   ag_thread *th = ag_thread_of(vgtid);
   while (th->nframes > 0) {
      ag_rg_frame f = th->frames[th->nframes - 1];
      if (f.slot >= new_sp || new_sp - f.slot > (Addr)VG_(clo_max_stackframe)) break;
      ag_rg_gap_close(vgtid, th);        /* its accesses came before the frame's end */
      th->nframes--;
      ag_rg_open_frames--;
      /* returned: SP stepped off the slot, and the slot still holds the
         return address (C++ unwinding ends with a ret too, but through a
         slot it rewrote to the landing pad) */
      ag_rg_frame_ends(vgtid, th, &f, f.slot == old_sp
                       && (f.kind != AG_RG_MARK
                           || (ag_rg_readable(f.slot) && *(Addr *)f.slot == f.ret)));
   }
}

/* ---- source markers ------------------------------------------------ */

/* The marker's frame: sps[1] is SP in the caller once the function that
   holds the BEGIN has returned. */
static void ag_rg_marker_frame(ThreadId vgtid, ag_thread *th)
{
   Addr ips[2], sps[2];
   if (!ag_rg_tracking) return;
   if (VG_(get_StackTrace)(vgtid, ips, 2, sps, NULL, 0) < 2) return;
   Addr slot = sps[1] - sizeof(Addr);
   if (sps[1] <= sps[0] || !ag_rg_readable(slot)) return;   /* no usable unwind info */
   ag_rg_push(th, (ag_rg_frame){ .slot = slot, .kind = AG_RG_MARK, .fn = AG_NO_FN,
                                 .begin_ip = ips[0], .ret = *(Addr *)slot });
}

void ag_rg_marker_begin(ThreadId vgtid)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_rg_gap_close(vgtid, th);
   ag_rg_open(vgtid, th, AG_RG_MARK);
   ag_rg_marker_frame(vgtid, th);
   ag_sched_begin(vgtid, VG_(get_IP)(vgtid));   /* others may run inside it */
}

/* The innermost marker frame is the one this END closes.  An END with no
   region open is reported by the engines (ag_an_end). */
void ag_rg_marker_end(ThreadId vgtid)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_rg_gap_close(vgtid, th);
   for (UInt i = th->nframes; i-- > 0;)
      if (th->frames[i].kind == AG_RG_MARK) {
         ag_rg_remove(th, i);
         break;
      }
   ag_rg_close(vgtid, th, True);
}

/* ---- calls of atomic functions -------------------------------------- */

/* Is the call whose return address sits at slot the start routine of a
   thread (called by glibc's start_thread, or by our pthread_create
   wrapper's trampoline)? */
static Bool ag_rg_called_by_start_thread(ag_thread *th, Addr slot)
{
   const HChar *name;
   Addr ret = *(Addr *)slot;
   if (ret != th->last_ret) {    /* one symbol lookup per new call site */
      th->last_ret = ret;
      th->last_start = VG_(get_fnname)(VG_(current_DiEpoch)(), ret - 1, &name)
         && (VG_STREQ(name, "start_thread") || VG_STREQ(name, "ag_thread_start"));
   }
   return th->last_start;
}

void ag_rg_fn_enter(ThreadId vgtid, Int fn, Addr sp)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid || !ag_fnspec_atomic(fn)) return;
   ag_rg_gap_close(vgtid, th);
   /* the same frame: a tail call, or a loop back to the entry */
   if (th->nframes > 0 && th->frames[th->nframes - 1].kind != AG_RG_CALL
       && th->frames[th->nframes - 1].slot == sp)
      return;
   /* a thread's start routine holds the whole thread: not unless named */
   if (th->depth == 0 && vgtid != 1 && !ag_fnspec_explicit(fn)
       && ag_rg_called_by_start_thread(th, sp)) {
      ag_fnspec_start_routine(fn);
      return;
   }
   /* a nested call counts as entered too: were its caller dropped, the
      refined spec must still make it atomic */
   ag_fnspec_entered(fn, ag_rg_open(vgtid, th, AG_RG_FN));
   ag_rg_push(th, (ag_rg_frame){ .slot = sp, .kind = AG_RG_FN, .fn = fn });
   /* may preempt it at the next superblock */
   ag_sched_region_enter(vgtid, (Addr)fn, th->ignore == 0);
}

/* ---- inlined instances --------------------------------------------- */

/* From the thread's chain (no gap) to `chain`: the instances both are in
   stay open, unless `chain` begins one anew (an entry reached by a copy
   that passed its own: the next copy of an unrolled call, ag_instances.c);
   those left close, or, if may_suspend and the code is the one around
   them (a chain they strictly extend), are suspended in a gap. */
static void ag_rg_inline_move(ThreadId vgtid, ag_thread *th, UInt chain, Bool may_suspend,
                              Bool block_start, Addr ip)
{
   if (th->inl == chain) return;
   const ag_inst_chain *from = ag_inst_chain_of(th->inl), *to = ag_inst_chain_of(chain);
   UInt k = 0, entered = th->inl_entered;
   while (k < from->n && k < to->n && from->id[k] == to->id[k]
          && !(to->starts & entered & (1u << k)))
      k++;
   /* (not with RPT: its helpers drop an ignored thread's accesses) */
   if (may_suspend && k == to->n && k < from->n && th->valid && !ag_clo_sample_rpt) {
      th->inl_gap = th->inl;
      th->inl_around = chain;
      th->inl_gap_blocks = block_start;
      th->inl_gap_ip = ip;
      th->inl = AG_RG_IN_GAP;
      th->ignore++;
      return;
   }
   ag_rg_inline_close(vgtid, th, k);
   th->inl = chain;
   th->inl_entered = (entered & ((1u << k) - 1)) | to->starts;
   if (!th->valid) return;
   for (UInt i = k; i < to->n; i++) {
      if (!ag_fnspec_atomic(to->fn[i])) continue;
      ag_fnspec_entered(to->fn[i], ag_rg_open(vgtid, th, AG_RG_CALL));
      th->inl_open |= 1u << i;
      ag_sched_region_enter(vgtid, (Addr)to->fn[i], th->ignore == 0);
   }
}

/* A gap lasts until the code comes back into the instances, or goes
   elsewhere, or reaches a second block start of the code around them.  A
   jump back to or before where the gap began (a loop's next round) ends
   it: a copy reached so is the next call, not the same one resumed. */
void ag_rg_inline_switch(ThreadId vgtid, UInt chain, Bool block_start, Addr ip)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (th->inl == chain) return;
   if (th->inl_gap != 0) {
      /* the block the stop exit left runs again from its start: the
         same code around the instances, not a new block of it */
      Bool again = th->inl_gap_kept && block_start
                   && ag_inst_continues(th->inl_around, chain, th->inl_entered);
      th->inl_gap_kept = False;
      if (again) return;
      Bool forward = ip > th->inl_gap_ip;   /* (VEX unrolls loops too) */
      if (forward && ag_inst_continues(th->inl_gap, chain, th->inl_entered)) {
         ag_rg_gap_resume(th);                    /* back into the suspended code */
         ag_rg_inline_move(vgtid, th, chain, False, block_start, ip);   /* (its entry) */
         return;
      }
      if (forward && ag_inst_continues(th->inl_around, chain, th->inl_entered)
          && th->inl_gap_blocks++ == 0)
         return;                                  /* one more block around them */
      ag_rg_gap_close(vgtid, th);
   }
   ag_rg_inline_move(vgtid, th, chain, True, block_start, ip);
}

void ag_rg_inline_call(ThreadId vgtid, Addr slot)
{
   ag_thread *th = ag_thread_of(vgtid);
   ag_rg_gap_close(vgtid, th);
   if (th->inl == 0 || !ag_rg_tracking) return;
   ag_rg_push(th, (ag_rg_frame){ .slot = slot, .kind = AG_RG_CALL, .fn = AG_NO_FN,
                                 .inl = th->inl, .inl_open = th->inl_open,
                                 .inl_entered = th->inl_entered });
   th->inl = 0;
   th->inl_open = th->inl_entered = 0;
}

/* ---- threads ------------------------------------------------------- */

/* Every region but the marked ones ends with the thread (a marked region
   still open is the misuse the engines report at its exit). */
static void ag_rg_close_all_but_marks(ThreadId vgtid, ag_thread *th)
{
   ag_rg_gap_close(vgtid, th);
   ag_rg_inline_close(vgtid, th, 0);
   while (th->nframes > 0) {
      ag_rg_frame f = th->frames[--th->nframes];
      ag_rg_open_frames--;
      if (f.kind != AG_RG_MARK) ag_rg_frame_ends(vgtid, th, &f, True);
      if (f.kind == AG_RG_CALL) ag_rg_inline_close(vgtid, th, 0);
   }
   th->inl = th->inl_open = th->inl_entered = 0;
}

/* The debug check: the engines' and the scheduler's depths are this
   module's.  A disagreement is a bug of the tool. */
static void ag_rg_check_depths(ThreadId vgtid, ag_thread *th)
{
   Int eng = ag_an_depth(th->tid);
   UInt sch = ag_sched_depth(vgtid);
   if ((eng < 0 || (UInt)eng == th->depth) && sch == th->depth) return;
   VG_(umsg)("atomgrind: internal error: region depths disagree at the exit of "
             "thread #%u: regions %u, engines %d, scheduler %u\n",
             th->tid + 1, th->depth, eng, sch);
   tl_assert2(VG_(clo_sanity_level) < 2, "region depths disagree");
}

void ag_rg_thread_exit(ThreadId vgtid)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_rg_close_all_but_marks(vgtid, th);
   ag_rg_check_depths(vgtid, th);
   if (th->depth > 0) ag_rg_exits_inside++;
   th->depth = 0;
   th->last_ret = 0;
   VG_(free)(th->frames);
   th->frames = NULL;
   th->nframes = th->capframes = 0;
}

UInt ag_rg_depth(ThreadId vgtid) { return ag_thread_of(vgtid)->depth; }

void ag_regions_init(Bool track_frames)
{
   ag_rg_tracking = track_frames;
   ag_threads_stop_hook = ag_rg_stopped;
}

void ag_regions_fini(void)
{
   if (VG_(clo_verbosity) >= 2)
      VG_(umsg)("atomgrind: regions: %llu marked, %llu call(s) of atomic functions, "
                "%llu inlined instance(s); %u thread(s) exited inside one\n",
                ag_rg_opened[AG_RG_MARK], ag_rg_opened[AG_RG_FN], ag_rg_opened[AG_RG_CALL],
                ag_rg_exits_inside);
   if (VG_(clo_verbosity) >= 2 && ag_rg_gap_lost)
      VG_(umsg)("atomgrind: regions: %llu access(es) of the code around inlined "
                "instances not analysed (gap buffer full)\n", ag_rg_gap_lost);
}
