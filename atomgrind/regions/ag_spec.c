/* ag_spec.c -- the frame tracker: where, in the program's code, atomic
 * regions that last as long as a stack frame begin and end.  It finds them
 * at translation time and has generated code tell ag_regions.c, which owns
 * the regions and their frames:
 *   - the entry of a function named by --atomic-fns/--atomic-spec;
 *   - SP's rises, which end frames (a return, a longjmp, C++ unwinding);
 *   - code of an inlined instance of such a function entered from outside
 *     or left (ag_spec_instrument_inline), and calls out of it.
 *
 * Frames are tracked when a spec is given or atomicity is checked (so a
 * C++ throw out of a marked region is caught with no option), or with
 * --track-frames=yes.  SP's rises are found in the IR (ag_spec_instrument_sp),
 * not by the core's die_mem_stack: that calls a helper at every rise of SP,
 * even while no frame is open (7% of a call-heavy run). */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_machine.h"      /* VG_(fnptr_to_fnentry) */
#include "pub_tool_options.h"      /* VG_(clo_vex_control), VG_(clo_stats) */
#include "pub_tool_threadstate.h"  /* VG_(get_running_tid) */
#include "pub_tool_tooliface.h"    /* VG_(track_*), IR */
#include "ag_analysis.h"           /* ag_an_forget */
#include "ag_fnspec.h"             /* which functions are atomic */
#include "ag_instances.h"          /* inlined instances at an address */
#include "ag_options.h"            /* --track-frames */
#include "ag_regions.h"            /* where regions open and close */
#include "ag_spec.h"
#include "ag_threads.h"            /* ag_cur: the running thread's chain */

static Bool ag_sp_tracking;

/* The first instruction of an atomic function: sp is SP there. */
static VG_REGPARM(2) void ag_h_enter(UWord fn, Addr sp)
{
   ag_rg_fn_enter(VG_(get_running_tid)(), (Int)fn, sp);
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


/* ---- inlined instances --------------------------------------------- */

#define AG_SP_BLOCK_START (1UL << 31)     /* in ag_h_inline's argument */

static VG_REGPARM(1) void ag_h_inline(UWord arg)
{
   ThreadId vgtid = VG_(get_running_tid)();
   ag_rg_inline_switch(vgtid, (UInt)(arg & ~AG_SP_BLOCK_START),
                       (arg & AG_SP_BLOCK_START) != 0, VG_(get_IP)(vgtid));
}

static VG_REGPARM(1) void ag_h_inline_call(Addr slot)
{
   ag_rg_inline_call(VG_(get_running_tid)(), slot);
}

Bool ag_spec_inlines(void) { return ag_instances_on(); }

UInt ag_spec_inline_at(Addr ip) { return ag_instances_on() ? ag_inst_at(ip) : 0; }

/* Before the instruction at ip, whose code is in `chain`: unless the
   running thread's code is in that chain already (ag_cur->inl, read
   inline: a load and a compare when nothing changes), call ag_h_inline.
   IP is made exact first: an opening region's begin site is its stack. */
void ag_spec_instrument_inline(IRSB *out, UInt chain, Bool block_start, Addr ip,
                               Int offset_SP, Int offset_IP)
{
   IRTemp th = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(th, IRExpr_Load(Iend_LE, Ity_I64,
                                                   mkIRExpr_HWord((HWord)&ag_cur))));
   IRTemp at = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(at, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(th),
                                                    mkIRExpr_HWord(offsetof(ag_thread, inl)))));
   IRTemp cur = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(cur, IRExpr_Load(Iend_LE, Ity_I32, IRExpr_RdTmp(at))));
   IRTemp moved = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(moved, IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(cur),
                                                       IRExpr_Const(IRConst_U32(chain)))));
   addStmtToIRSB(out, IRStmt_Put(offset_IP, mkIRExpr_HWord(ip)));
   IRDirty *di = unsafeIRDirty_0_N(1, "ag_h_inline", VG_(fnptr_to_fnentry)(ag_h_inline),
                                   mkIRExprVec_1(mkIRExpr_HWord(
                                      chain | (block_start ? AG_SP_BLOCK_START : 0))));
   di->guard = IRExpr_RdTmp(moved);
   di->nFxState = 2;
   for (Int i = 0; i < 2; i++) {
      di->fxState[i].fx = Ifx_Read;
      di->fxState[i].offset = i == 0 ? offset_SP : offset_IP;
      di->fxState[i].size = sizeof(Addr);
      di->fxState[i].nRepeats = 0;
      di->fxState[i].repeatLen = 0;
   }
   addStmtToIRSB(out, IRStmt_Dirty(di));
}

/* At the end of a block of an inline chain that ends in a call: SP is at
   the return address then. */
void ag_spec_instrument_call_out(IRSB *out, Int offset_SP)
{
   IRTemp sp = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(sp, IRExpr_Get(offset_SP, Ity_I64)));
   IRDirty *di = unsafeIRDirty_0_N(1, "ag_h_inline_call", VG_(fnptr_to_fnentry)(ag_h_inline_call),
                                   mkIRExprVec_1(IRExpr_RdTmp(sp)));
   ag_sp_add_call(out, di, offset_SP);
}

/* ---- frames end ---------------------------------------------------- */

/* --check-stack-var=yes forgets dead stack memory, which needs the core's
   die_mem_stack anyway: its handler also ends the frames. */
static void ag_sp_die_forget(Addr a, SizeT len)
{
   ag_an_forget(a, len);
   if (ag_rg_open_frames != 0) ag_rg_sp_rise(VG_(get_running_tid)(), a, a + len);
}

static ULong ag_sp_rises;             /* ag_h_sp_rise's calls, for --stats */

static VG_REGPARM(2) void ag_h_sp_rise(Addr old_sp, Addr new_sp)
{
   ag_sp_rises++;
   ag_rg_sp_rise(VG_(get_running_tid)(), old_sp, new_sp);
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
                                                     mkIRExpr_HWord((HWord)&ag_rg_open_frames))));
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

/* ---- setup --------------------------------------------------------- */

void ag_spec_init(void)
{
   ag_fnspec_init();
   ag_sp_tracking = ag_clo_track_frames == AG_FRAMES_YES
                 || (ag_clo_track_frames == AG_FRAMES_AUTO
                     && (ag_fnspec_given() || (ag_clo_check & AG_CHECK_ATOMICITY)));
   ag_regions_init(ag_sp_tracking);
   ag_instances_init(ag_fnspec_given() && ag_clo_inline_regions);
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
   ag_instances_fini();
   ag_regions_fini();
   ag_fnspec_fini();
}
