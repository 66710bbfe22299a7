/* ag_spec.c -- atomic regions that last as long as a stack frame.
 *
 * A call of a function named by --atomic-fns/--atomic-spec is a region
 * from its first instruction until that call's frame is gone.  At the
 * entry SP points at the return address (the frame's "slot"); whatever
 * ends the call -- a return, a longjmp, C++ unwinding -- raises SP above
 * the slot, and die_mem_stack tells.  A tail call jumps with SP at the
 * slot, so the callee stays inside the caller's region; recursion nests
 * (the outermost call counts, as regions nest); a signal handler runs
 * below the interrupted SP and its own frames close when it returns.
 *
 * The same frames catch source-marked regions (ATOMGRIND_ATOMIC_BEGIN)
 * whose function is left by a longjmp or an exception before the END:
 * that is a misuse, and the region is closed there.  A normal return
 * (SP steps exactly off the slot) leaves a marked region open, since a
 * helper may begin a region that its caller ends.
 *
 * Frames are tracked when a spec is given or atomicity is checked (so a
 * C++ throw out of a marked region is caught with no option), or with
 * --track-frames=yes.  SP's rises are found in the IR (ag_spec_instrument_sp),
 * not by the core's die_mem_stack: that calls a helper at every rise of SP,
 * even while no frame is open (7% of a call-heavy run). */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client) */
#include "pub_tool_debuginfo.h"    /* VG_(get_fnname), VG_(describe_IP) */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_machine.h"      /* VG_(fnptr_to_fnentry) */
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "pub_tool_options.h"      /* VG_(clo_vex_control), VG_(clo_stats) */
#include "pub_tool_stacktrace.h"   /* VG_(get_StackTrace) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS, VG_(get_running_tid) */
#include "pub_tool_tooliface.h"    /* VG_(track_*), IR */
#include "ag_analysis.h"           /* regions open and close */
#include "ag_errors.h"             /* ag_error_misuse */
#include "ag_fnspec.h"             /* which functions are atomic */
#include "ag_options.h"            /* --track-frames */
#include "ag_sched.h"              /* function regions for the scheduler */
#include "ag_spec.h"
#include "ag_threads.h"            /* engine thread ids */

/* Core-private, but linkable: a jump of SP by more than this is a stack
   switch, not a frame's end. */
extern Word VG_(clo_max_stackframe);

typedef struct {
   Addr slot;            /* the frame's return-address slot */
   Int fn;               /* the atomic function, or AG_NO_FN: a source marker */
   Addr begin_ip;        /* a marker's ATOMGRIND_ATOMIC_BEGIN */
   Addr ret;             /* a marker's return address, as it was then */
} ag_sp_frame;

typedef struct {
   ag_sp_frame *f;
   UInt n, cap;
   Addr last_ret;        /* the last return address checked at depth 0 ... */
   Bool last_start;      /* ... and whether it returns into start_thread */
} ag_sp_stack;

static ag_sp_stack *ag_sp_threads;   /* indexed by ThreadId */
static UInt ag_sp_open;              /* frames on all stacks: the fast path */
static Bool ag_sp_tracking;

static void ag_sp_push(ag_sp_stack *st, Addr slot, Int fn, Addr begin_ip, Addr ret)
{
   if (st->n == st->cap) {
      st->cap = st->cap ? 2 * st->cap : 16;
      st->f = VG_(realloc)("ag.spec.frames", st->f, st->cap * sizeof *st->f);
   }
   st->f[st->n++] = (ag_sp_frame){ slot, fn, begin_ip, ret };
   ag_sp_open++;
}

static void ag_sp_remove(ag_sp_stack *st, UInt i)
{
   for (; i + 1 < st->n; i++) st->f[i] = st->f[i + 1];
   st->n--;
   ag_sp_open--;
}

/* Can the tool read the client's word at a (a slot found by unwinding, or
   one on a stack that may have been unmapped since)? */
static Bool ag_sp_readable(Addr a)
{
   return VG_(am_is_valid_for_client)(a, sizeof(Addr), VKI_PROT_READ);
}

/* ---- function entry ------------------------------------------------ */

/* Is the call whose return address sits at slot the start routine of a
   thread (called by glibc's start_thread, or by our pthread_create
   wrapper's trampoline)? */
static Bool ag_sp_called_by_start_thread(ag_sp_stack *st, Addr slot)
{
   const HChar *name;
   Addr ret = *(Addr *)slot;
   if (ret != st->last_ret) {    /* one symbol lookup per new call site */
      st->last_ret = ret;
      st->last_start = VG_(get_fnname)(VG_(current_DiEpoch)(), ret - 1, &name)
         && (VG_STREQ(name, "start_thread") || VG_STREQ(name, "ag_thread_start"));
   }
   return st->last_start;
}


/* The first instruction of an atomic function: sp is SP there. */
static VG_REGPARM(2) void ag_h_enter(UWord fn, Addr sp)
{
   ThreadId vgtid = VG_(get_running_tid)();
   ag_thread *th = ag_thread_of(vgtid);
   ag_sp_stack *st = &ag_sp_threads[vgtid];
   if (!th->valid || !ag_fnspec_atomic((Int)fn)) return;
   /* the same frame: a tail call, or a loop back to the entry */
   if (st->n > 0 && st->f[st->n - 1].slot == sp) return;
   /* a thread's start routine holds the whole thread: not unless named */
   if (st->n == 0 && vgtid != 1 && !ag_fnspec_explicit((Int)fn)
       && ag_sp_called_by_start_thread(st, sp)) {
      ag_fnspec_start_routine((Int)fn);
      return;
   }
   /* a nested call counts as entered too: were its caller dropped, the
      refined spec must still make it atomic */
   ag_fnspec_entered((Int)fn, ag_an_begin(th->tid, vgtid));
   ag_sp_push(st, sp, (Int)fn, 0, 0);
   /* may preempt it at the next superblock */
   ag_sched_region_enter(vgtid, (Addr)fn, th->ignore == 0);
}

/* Add a helper call that reads SP (passed as an argument too): SP must be
   exact in the guest state there, for its stack traces. */
static void ag_sp_add_call(IRSB *out, IRDirty *di, Int offset_SP)
{
   di->nFxState = 1;
   di->fxState[0].fx = Ifx_Read;
   di->fxState[0].offset = offset_SP;
   di->fxState[0].size = sizeof(Addr);
   di->fxState[0].nRepeats = 0;
   di->fxState[0].repeatLen = 0;
   addStmtToIRSB(out, IRStmt_Dirty(di));
}

Bool ag_spec_instrument_entry(IRSB *out, Addr a, Int offset_SP)
{
   Int fn = ag_fnspec_match(a);
   if (fn == AG_NO_FN) return False;
   IRTemp sp = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(sp, IRExpr_Get(offset_SP, Ity_I64)));
   IRExpr **args = mkIRExprVec_2(mkIRExpr_HWord((HWord)fn), IRExpr_RdTmp(sp));
   IRDirty *di = unsafeIRDirty_0_N(2, "ag_h_enter", VG_(fnptr_to_fnentry)(ag_h_enter), args);
   ag_sp_add_call(out, di, offset_SP);
   return True;
}


/* ---- frames end ---------------------------------------------------- */

static void ag_sp_close(ThreadId vgtid, const ag_sp_frame *f, Bool returned)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   if (f->fn != AG_NO_FN) {
      ag_sched_region_leave(vgtid);
      ag_an_end(th->tid, vgtid);
   } else if (!returned) {
      ag_error_misuse(vgtid, "Atomic region abandoned by a longjmp or an exception "
                      "(closed here); it began at %s",
                      VG_(describe_IP)(VG_(current_DiEpoch)(), f->begin_ip, NULL));
      ag_an_end(th->tid, vgtid);
   }
}

/* SP rose from old_sp to new_sp: every frame whose slot lies below new_sp
   is gone.  A slot far below (more than --max-stackframe) belongs to
   another stack -- a signal handler running on an alternate stack above
   this one -- and stays. */
static void ag_sp_rise(Addr old_sp, Addr new_sp)
{
   ThreadId vgtid = VG_(get_running_tid)();
   ag_sp_stack *st = &ag_sp_threads[vgtid];
   while (st->n > 0) {
      ag_sp_frame f = st->f[st->n - 1];
      if (f.slot >= new_sp || new_sp - f.slot > (Addr)VG_(clo_max_stackframe)) break;
      st->n--;
      ag_sp_open--;
      /* returned: SP stepped off the slot, and the slot still holds the
         return address (C++ unwinding ends with a ret too, but through a
         slot it rewrote to the landing pad) */
      ag_sp_close(vgtid, &f, f.slot == old_sp
                  && (f.fn != AG_NO_FN || (ag_sp_readable(f.slot) && *(Addr *)f.slot == f.ret)));
   }
}

/* --check-stack-var=yes forgets dead stack memory, which needs the core's
   die_mem_stack anyway: its handler also ends the frames. */
static void ag_sp_die_forget(Addr a, SizeT len)
{
   ag_an_forget(a, len);
   if (ag_sp_open != 0) ag_sp_rise(a, a + len);
}

static ULong ag_sp_rises;             /* ag_h_sp_rise's calls, for --stats */

static VG_REGPARM(2) void ag_h_sp_rise(Addr old_sp, Addr new_sp)
{
   ag_sp_rises++;
   ag_sp_rise(old_sp, new_sp);
}

Bool ag_spec_tracks_sp(void)
{
   return ag_sp_tracking && !ag_clo_check_stack_var;
}

/* Before a write of SP (new_sp, an atom) that rises, or may (rises=False:
   not known): call ag_h_sp_rise if a frame is tracked and SP rises, with
   SP still the old one (as the core's SP pass does).  While no frame is
   tracked a rise costs a load and a compare. */
static void ag_sp_emit_rise(IRSB *out, IRExpr *new_sp, Int offset_SP, Bool rises)
{
   IRTemp old = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(old, IRExpr_Get(offset_SP, Ity_I64)));
   IRTemp open = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(open, IRExpr_Load(Iend_LE, Ity_I32,
                                                     mkIRExpr_HWord((HWord)&ag_sp_open))));
   IRTemp any = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(any, IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(open),
                                                     IRExpr_Const(IRConst_U32(0)))));
   IRTemp guard = any;
   if (!rises) {
      IRTemp up = newIRTemp(out->tyenv, Ity_I1);
      addStmtToIRSB(out, IRStmt_WrTmp(up, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(old), new_sp)));
      guard = newIRTemp(out->tyenv, Ity_I1);
      addStmtToIRSB(out, IRStmt_WrTmp(guard, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(any),
                                                          IRExpr_RdTmp(up))));
   }
   IRDirty *di = unsafeIRDirty_0_N(2, "ag_h_sp_rise", VG_(fnptr_to_fnentry)(ag_h_sp_rise),
                                   mkIRExprVec_2(IRExpr_RdTmp(old), new_sp));
   di->guard = IRExpr_RdTmp(guard);
   ag_sp_add_call(out, di, offset_SP);
}

static void ag_sp_alias(ag_spec_sp *v, IRTemp t, Long d)
{
   v->a[v->next].t = t;
   v->a[v->next].d = d;
   v->next = (v->next + 1) % AG_SPEC_SP_ALIASES;
}

static Bool ag_sp_known(const ag_spec_sp *v, const IRExpr *e, Long *d)
{
   if (e->tag != Iex_RdTmp) return False;
   for (UInt i = 0; i < AG_SPEC_SP_ALIASES; i++)
      if (v->a[i].t == e->Iex.RdTmp.tmp) {
         *d = v->a[i].d;
         return True;
      }
   return False;
}

void ag_spec_sp_reset(ag_spec_sp *v)
{
   for (UInt i = 0; i < AG_SPEC_SP_ALIASES; i++) v->a[i].t = IRTemp_INVALID;
   v->next = 0;
   v->cur = 0;
}

/* Follow SP's values through st, and before a write of SP that may rise,
   emit the test.  Falls (pushes, calls) need none. */
void ag_spec_instrument_sp(IRSB *out, ag_spec_sp *v, const IRStmt *st, Int offset_SP)
{
   Long d;
   if (!st || !ag_spec_tracks_sp()) return;
   if (st->tag == Ist_WrTmp) {
      const IRExpr *e = st->Ist.WrTmp.data;
      if (e->tag == Iex_Get && e->Iex.Get.offset == offset_SP && e->Iex.Get.ty == Ity_I64)
         ag_sp_alias(v, st->Ist.WrTmp.tmp, v->cur);
      else if (e->tag == Iex_Binop && (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Sub64)
               && e->Iex.Binop.arg2->tag == Iex_Const && ag_sp_known(v, e->Iex.Binop.arg1, &d)) {
         Long c = (Long)e->Iex.Binop.arg2->Iex.Const.con->Ico.U64;
         ag_sp_alias(v, st->Ist.WrTmp.tmp, e->Iex.Binop.op == Iop_Add64 ? d + c : d - c);
      }
   } else if (st->tag == Ist_Put && st->Ist.Put.offset == offset_SP
              && typeOfIRExpr(out->tyenv, st->Ist.Put.data) == Ity_I64) {
      if (ag_sp_known(v, st->Ist.Put.data, &d)) {
         if (d > v->cur) ag_sp_emit_rise(out, st->Ist.Put.data, offset_SP, True);
         v->cur = d;
      } else {
         ag_sp_emit_rise(out, st->Ist.Put.data, offset_SP, False);
         ag_spec_sp_reset(v);   /* d from here on is relative to this value */
         if (st->Ist.Put.data->tag == Iex_RdTmp) ag_sp_alias(v, st->Ist.Put.data->Iex.RdTmp.tmp, 0);
      }
   }
}

/* ---- source markers ------------------------------------------------ */

void ag_spec_marker_begin(ThreadId vgtid)
{
   Addr ips[2], sps[2];
   if (!ag_sp_tracking) return;
   /* sps[1]: SP in the caller once the marker's function has returned */
   if (VG_(get_StackTrace)(vgtid, ips, 2, sps, NULL, 0) < 2) return;
   Addr slot = sps[1] - sizeof(Addr);
   if (sps[1] <= sps[0] || !ag_sp_readable(slot)) return;   /* no usable unwind info */
   ag_sp_push(&ag_sp_threads[vgtid], slot, AG_NO_FN, ips[0], *(Addr *)slot);
}

/* The innermost marker frame is the one this END closes. */
void ag_spec_marker_end(ThreadId vgtid)
{
   if (!ag_sp_tracking) return;
   ag_sp_stack *st = &ag_sp_threads[vgtid];
   for (UInt i = st->n; i-- > 0;)
      if (st->f[i].fn == AG_NO_FN) {
         ag_sp_remove(st, i);
         return;
      }
}

/* A thread's end ends its function regions; a marked region still open
   is the misuse ag_an_thread_exit reports. */
void ag_spec_thread_exit(ThreadId vgtid)
{
   if (!ag_sp_threads) return;
   ag_sp_stack *st = &ag_sp_threads[vgtid];
   while (st->n > 0 && st->f[st->n - 1].fn != AG_NO_FN) {
      ag_sp_frame f = st->f[--st->n];
      ag_sp_open--;
      ag_sp_close(vgtid, &f, True);
   }
   ag_sp_open -= st->n;
   st->n = 0;
   st->last_ret = 0;
}

/* ---- setup --------------------------------------------------------- */

void ag_spec_init(void)
{
   ag_fnspec_init();
   ag_sp_tracking = ag_clo_track_frames == AG_FRAMES_YES
                 || (ag_clo_track_frames == AG_FRAMES_AUTO
                     && (ag_fnspec_given() || (ag_clo_check & AG_CHECK_ATOMICITY)));
   ag_sp_threads = VG_(calloc)("ag.spec.threads", VG_N_THREADS, sizeof(ag_sp_stack));
   if (ag_fnspec_given()) {
      /* entries are recognised at the start of a block: a call must not
         be chased into its callee's block (callgrind does the same) */
      VG_(clo_vex_control).guest_chase = False;
   }
   /* --check-stack-var=yes forgets dead stack, with the core's
      die_mem_stack; otherwise ag_instrument has SP's rises tested in
      the IR (ag_spec_instrument_sp) */
   if (ag_clo_check_stack_var)
      VG_(track_die_mem_stack)(ag_sp_tracking ? ag_sp_die_forget : ag_an_forget);
}

void ag_spec_fini(void)
{
   if (VG_(clo_stats) && ag_spec_tracks_sp())
      VG_(umsg)("atomgrind: frames: %llu rises of SP checked against open frames\n",
                ag_sp_rises);
   ag_fnspec_fini();
}
