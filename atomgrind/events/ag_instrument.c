/* ag_instrument.c -- VEX IR instrumentation: every memory access of the
 * program becomes a call to ag_h_access, guarded inline by ag_an_gate so
 * that no helper is called at all between RPT windows, or while no region
 * is open when only atomicity is checked. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"   /* VG_(tool_panic) */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc): the SP temps' buffer */
#include "pub_tool_machine.h"      /* VG_(fnptr_to_fnentry) */
#include "pub_tool_threadstate.h"  /* VG_(get_running_tid) */
#include "pub_tool_tooliface.h"    /* IR, VG_STACK_REDZONE_SZB */
#include "ag_analysis.h"           /* ag_an_access, the gate, the RPT clock */
#include "ag_deadload.h"           /* loads VEX deleted */
#include "ag_instrument.h"
#include "ag_objects.h"            /* ag_object_skipped, ag_object_system */
#include "ag_options.h"            /* --check-stack-var, --sample, --sched */
#include "ag_provenance.h"         /* std::atomic's code, reference counts */
#include "ag_atomictypes.h"        /* C11 _Atomic variables */
#include "ag_regions.h"            /* accesses in an inline gap */
#include "ag_sched.h"              /* preemption after an access */
#include "ag_shared.h"             /* shared accesses: scheduling points */
#include "ag_handoff.h"            /* ag_ho_word: the running thread's stamp */
#include "ag_hbtags.h"             /* another thread's tag */
#include "ag_ltonames.h"           /* ag_lto_gcc_only: plain RMWs */
#include "ag_spec.h"               /* atomic functions' entries, SP's rises */
#include "ag_poll.h"               /* polling loops' loads, as they run */
#include "ag_spin.h"               /* ag_spin_classify, ag_spin_yield */
#include "ag_stdio.h"              /* AG_IN_LIBC: libc's code */
#include "ag_threads.h"            /* ag_cur: the running thread; whose stack */

/* An access the analysis takes (both helpers below): a polling loop's
   load is marked (ag_poll.c), then the engines and the scheduler see it.
   szfl packs the size (low 16 bits) and AG_* flags. */
static inline void ag_h_analyse(const ag_thread *th, Addr a, UWord szfl, Addr ip)
{
   UInt flags = (UInt)(szfl >> 16);
   if (UNLIKELY(ag_poll_open)) flags |= ag_poll_access(VG_(get_running_tid)(), a, flags, ip);
   ag_an_access(th->tid, a, (UInt)(szfl & 0xffff), flags, ip);
   if (ag_clo_sched != AG_SCHED_NATIVE) ag_sched_access(VG_(get_running_tid)());
}

/* The hot path.  The thread's own stack was already filtered out inline
   (ag_emit), except with RPT (below). */
static VG_REGPARM(3) void ag_h_access(Addr a, UWord szfl, Addr ip)
{
   ag_thread *th = ag_cur;
   if (UNLIKELY(th->ignore)) {
      if (th->inl_gap) ag_rg_gap_access(a, szfl, ip);   /* ag_regions.c */
      return;
   }
   if (!ag_an_gate) return;
   ag_h_analyse(th, a, szfl, ip);
}

/* On the running thread's own stack or in the red zone below SP.  SP is
   exact at a helper call before an access, as the unwind registers are. */
static inline Bool ag_on_stack(const ag_thread *th, Addr a, Addr sp)
{
   return a <= th->stack_max && sp <= a + VG_STACK_REDZONE_SZB;
}

/* ... and --check-stack-var=no: the test ag_emit makes inline. */
static inline Bool ag_own_stack_sp(const ag_thread *th, Addr a, Addr sp)
{
   return !ag_clo_check_stack_var && ag_on_stack(th, a, sp);
}

static inline Bool ag_own_stack(const ag_thread *th, Addr a)
{
   return ag_own_stack_sp(th, a, VG_(get_SP)(VG_(get_running_tid)()));
}

/* With --sample=rpt the gate is shut most of the time (between windows),
   so the stack test is made here instead of inline: a shut gate then
   costs the guarded call alone.  The IR passes SP (asking the core for
   it was a tenth of this helper's time). */
static void ag_h_access_rpt(Addr a, UWord szfl, Addr ip, Addr sp)
{
   ag_thread *th = ag_cur;
   if (th->ignore || !ag_an_gate || ag_own_stack_sp(th, a, sp)) return;
   ag_h_analyse(th, a, szfl, ip);
}

/* For the owner table: the tag of the thread on whose live stack a lies,
   0 if none.  Another thread's is looked for only where the slot is
   untouched (ag_shared_access says why): that is rare, and the look-up
   goes over the threads. */
static UChar ag_stack_tag(const ag_thread *th, ThreadId vgtid, Addr a, Addr sp)
{
   if (ag_on_stack(th, a, sp)) return (UChar)ag_ho_word;
   if (ag_shared_state(a) != 0) return 0;
   ag_tid o = ag_threads_stack_owner(a, vgtid);
   return o == AG_NO_TID ? 0 : (UChar)ag_hbt_tag(o);
}

/* An access whose slot is not the running thread's own (ag_emit_shared).
   With AG_H_EXIT (an exit follows, before the instruction's first access):
   1 if the thread is to stop there, noted as the stop exit (ag_sched.h);
   anything else goes on. */
#define AG_H_EXIT 0x10000u
#define AG_H_SIZE_SHIFT 24      /* an access of more than 8 bytes: its size */
static VG_REGPARM(3) UWord ag_h_shared(Addr a, UWord flags, Addr ip, ag_shared_sb *b)
{
   ag_thread *th = ag_cur;
   if (!th->ignore) {
      ThreadId vgtid = VG_(get_running_tid)();
      Addr sp = VG_(get_SP)(vgtid);
      UWord size = flags >> AG_H_SIZE_SHIFT;
      Addr end = a + (size > 0 ? size : 1);
      /* each 8-byte slot the access spans (one, but for a vector's) */
      for (Addr p = a; p < end; p = (p & ~(Addr)7) + 8)
         ag_shared_access(vgtid, p, (UInt)flags & 0xffff, ip, ag_stack_tag(th, vgtid, p, sp), b);
   }
   if (!(flags & AG_H_EXIT) || !ag_sched_stop) return 0;
   ag_sched_stop_exit();
   return 1;
}

/* An atomic access when races are checked with --sample=rpt: called
   whatever the gate, since the race engine must know atomic objects made
   between its windows (a later plain load or store of one is atomic). */
static VG_REGPARM(3) void ag_h_atomic(Addr a, UWord szfl, Addr ip)
{
   ag_thread *th = ag_cur;
   if (th->ignore || ag_own_stack(th, a)) return;
   if (ag_an_gate) ag_an_access(th->tid, a, (UInt)(szfl & 0xffff), (UInt)(szfl >> 16), ip);
   else ag_an_atomic_seen(a, (UInt)(szfl & 0xffff));
}

typedef struct {
   IRSB *out;
   IRTemp gate;          /* ag_an_gate != 0, read once per superblock */
   IRTemp stack_max;     /* the running thread's stack top, ditto; or
                            IRTemp_INVALID with --check-stack-var=yes */
   Int offset_SP;
   Int offset_IP;
   Addr ip;              /* current guest instruction */
   UInt len;             /* ... its length */
   Bool touched;         /* ... has a memory access left in the IR (ag_emit) */
   Bool accesses;        /* accesses are instrumented (not the floor, or the
                            block holds code of an inlined atomic function) */
   IRTemp tag;           /* ag_ho_word, read once per superblock */
   Bool may_exit;        /* the IR may leave before the next access, to
                            resume at ip (ag_exit_safe) */
   Bool shared;          /* accesses are tested for points (ag_emit_shared) */
   UChar *sp_rel;        /* per temp of the input: it holds SP plus a constant */
   Int ntemps;           /* ... the input's temps */
   ag_shared_sb *sb;     /* the superblock's record, with shared */
} ag_ir;

static IRTemp ag_tmp(ag_ir *ir, IRType ty, IRExpr *e)
{
   IRTemp t = newIRTemp(ir->out->tyenv, ty);
   addStmtToIRSB(ir->out, IRStmt_WrTmp(t, e));
   return t;
}

static IRExpr *ag_and(ag_ir *ir, IRExpr *a, IRExpr *b)
{
   return IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_And1, a, b)));
}

static void ag_emit_yield(IRSB *out, IRTemp stopping, IRTemp leave, Int offset_IP, Addr here);
static IRTemp ag_nonzero(IRSB *out, volatile void *addr);

/* Addr's slot in the owner table is not the running thread's stamp (nor
   read-shared, for a load). */
static IRExpr *ag_slot_not_mine(ag_ir *ir, IRExpr *addr, UInt flags)
{
   /* flat IR: one operation per temporary */
   /* ag_shared_slot(addr) */
   IRTemp word = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, IRExpr_Const(IRConst_U8(3))));
   IRTemp high = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Shr64, addr,
                                                  IRExpr_Const(IRConst_U8(AG_SHARED_FOLD))));
   IRTemp mix = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(word), IRExpr_RdTmp(high)));
   IRTemp idx = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(mix),
                                                 IRExpr_Const(IRConst_U64(AG_SHARED_MASK))));
   IRTemp off = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(idx),
                                                 IRExpr_Const(IRConst_U8(1))));   /* 2 bytes each */
   IRTemp slot = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(off),
                                                  mkIRExpr_HWord((HWord)ag_shared_owner)));
   IRTemp half = ag_tmp(ir, Ity_I16, IRExpr_Load(Iend_LE, Ity_I16, IRExpr_RdTmp(slot)));
   IRTemp own = ag_tmp(ir, Ity_I64, IRExpr_Unop(Iop_16Uto64, IRExpr_RdTmp(half)));
   IRExpr *cond = IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_CmpNE64,
                               IRExpr_RdTmp(own), IRExpr_RdTmp(ir->tag))));
   if (!(flags & AG_WRITE))
      cond = ag_and(ir, cond, IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_CmpNE64,
                    IRExpr_RdTmp(own), IRExpr_Const(IRConst_U64(AG_SHARED_READ))))));
   return cond;
}

/* The scheduler's test of one access (ag_shared.c): call ag_h_shared if
   the slot of the access's first byte, or of its last for an access of
   more than 8 bytes (a vector's), is not the running thread's (nor
   read-shared, for a load) and its guard holds; the helper looks at each
   slot the access spans, and at whether it is on the thread's own stack.
   Then, before the
   instruction's first access, leave to the scheduler if it asked for a
   stop: the instruction runs again, from its start, once the thread has
   the turn back -- a preemption between two accesses of one superblock. */
static void ag_emit_shared(ag_ir *ir, IRExpr *addr, UInt size, UInt flags, IRExpr *guard)
{
   IRExpr *cond = ag_slot_not_mine(ir, addr, flags);
   if (size > 8) {
      IRTemp last = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Add64, addr, mkIRExpr_HWord(size - 1)));
      cond = IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_Or1, cond,
                         ag_slot_not_mine(ir, IRExpr_RdTmp(last), flags))));
   }
   if (guard) cond = ag_and(ir, cond, guard);
   IRTemp ret = newIRTemp(ir->out->tyenv, Ity_I64);
   IRDirty *di = unsafeIRDirty_1_N(ret, 3, "ag_h_shared", VG_(fnptr_to_fnentry)(ag_h_shared),
                                   mkIRExprVec_4(addr,
                                                 mkIRExpr_HWord(flags | (ir->may_exit ? AG_H_EXIT : 0)
                                                                | (size > 8 ? size : 0) << AG_H_SIZE_SHIFT),
                                                 mkIRExpr_HWord(ir->ip), mkIRExpr_HWord((HWord)ir->sb)));
   di->guard = cond;
   addStmtToIRSB(ir->out, IRStmt_Dirty(di));
   if (ir->may_exit) {
      /* the helper said so (not called: 0x55..55, not 1); it noted the
         stop exit itself, so no guarded store here: a compare per
         instruction is all a shared-tested access pays */
      IRTemp stop = ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(ret),
                                                    IRExpr_Const(IRConst_U64(1))));
      addStmtToIRSB(ir->out, IRStmt_Exit(IRExpr_RdTmp(stop), Ijk_Yield,
                                         IRConst_U64(ir->ip), ir->offset_IP));
      ir->may_exit = False;
   }
}

/* The temps of the input that hold SP plus a constant (ag_sp_note): an
   access there is to the running thread's own stack.  One buffer, grown:
   translations are made one at a time. */
static UChar *ag_sp_rel_buf;
static Int ag_sp_rel_cap;

static void ag_sp_rel_reset(ag_ir *ir, Int ntemps)
{
   if (ntemps > ag_sp_rel_cap) {
      ag_sp_rel_cap = ntemps + 256;
      ag_sp_rel_buf = VG_(realloc)("ag.sp_rel", ag_sp_rel_buf, ag_sp_rel_cap);
   }
   VG_(memset)(ag_sp_rel_buf, 0, ntemps);
   ir->sp_rel = ag_sp_rel_buf;
   ir->ntemps = ntemps;
}

static Bool ag_sp_rel(const ag_ir *ir, const IRExpr *e)
{
   return e->tag == Iex_RdTmp && e->Iex.RdTmp.tmp < (IRTemp)ir->ntemps
          && ir->sp_rel[e->Iex.RdTmp.tmp];
}

/* t = GET(SP), or t = u, or t = u +/- a constant, where u holds SP plus
   one (VEX's unrolled loops copy temps). */
static void ag_sp_note(ag_ir *ir, const IRStmt *st)
{
   if (st->tag != Ist_WrTmp || st->Ist.WrTmp.tmp >= (IRTemp)ir->ntemps) return;
   const IRExpr *e = st->Ist.WrTmp.data;
   if ((e->tag == Iex_Get && e->Iex.Get.offset == ir->offset_SP && e->Iex.Get.ty == Ity_I64)
       || ag_sp_rel(ir, e)
       || (e->tag == Iex_Binop && (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Sub64)
           && e->Iex.Binop.arg2->tag == Iex_Const && ag_sp_rel(ir, e->Iex.Binop.arg1)))
      ir->sp_rel[st->Ist.WrTmp.tmp] = 1;
}

/* Not on the running thread's own stack or in the red zone below SP
   (ir->stack_max read at the superblock's start), or NULL if not tested. */
static IRExpr *ag_off_stack(ag_ir *ir, IRExpr *addr)
{
   if (ir->stack_max == IRTemp_INVALID) return NULL;
   IRTemp sp = ag_tmp(ir, Ity_I64, IRExpr_Get(ir->offset_SP, Ity_I64));
   IRTemp lim = ag_tmp(ir, Ity_I64,
      IRExpr_Binop(Iop_Add64, addr, mkIRExpr_HWord(VG_STACK_REDZONE_SZB)));
   IRTemp above_sp = ag_tmp(ir, Ity_I1,
      IRExpr_Binop(Iop_CmpLE64U, IRExpr_RdTmp(sp), IRExpr_RdTmp(lim)));
   IRTemp below_top = ag_tmp(ir, Ity_I1,
      IRExpr_Binop(Iop_CmpLE64U, addr, IRExpr_RdTmp(ir->stack_max)));
   IRTemp on_stack = ag_tmp(ir, Ity_I1,
      IRExpr_Binop(Iop_And1, IRExpr_RdTmp(above_sp), IRExpr_RdTmp(below_top)));
   return IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(on_stack))));
}

/* One access: call ag_h_access(addr, size|flags, ip) if the gate is open,
   the guard of a guarded load/store holds, and -- unless
   --check-stack-var=yes -- addr is not on the running thread's own stack
   or in the red zone below SP, i.e. unless
   SP <= addr + redzone && addr <= stack_max.
   Stack accesses are most of some programs' accesses: testing them inline
   saves the helper call (as DRD does). */
static void ag_emit(ag_ir *ir, IRExpr *addr, UInt size, UInt flags, IRExpr *guard)
{
   ir->touched = True;
   if (!ir->accesses && !ir->shared) return;   /* the floor (ag_analysis.c) */
   IRExpr *off_stack = ag_off_stack(ir, addr);
   /* an address SP plus a constant is the thread's own stack: no point
      (ag_shared.c meets such words from other threads as the owner's),
      and no test -- at -O2 most stack accesses are so.  Nor is there an
      exit later in the instruction: this access may be a pop's */
   if (ir->shared && ag_sp_rel(ir, addr)) ir->may_exit = False;
   else if (ir->shared) ag_emit_shared(ir, addr, size, flags, guard);
   if (!ir->accesses) return;
   Bool ungated = (flags & (AG_ATOMIC | AG_SPIN | AG_ATOMIC_LS)) && ag_clo_sample_rpt
                  && (ag_clo_check & AG_CHECK_RACES);
   IRExpr *cond = ungated ? IRExpr_Const(IRConst_U1(True)) : IRExpr_RdTmp(ir->gate);
   if (off_stack && !ag_clo_sample_rpt) cond = ag_and(ir, cond, off_stack);
   if (guard)
      cond = IRExpr_RdTmp(ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_And1, cond, guard)));
   IRExpr **args = mkIRExprVec_3(addr, mkIRExpr_HWord(size | (flags << 16)),
                                 mkIRExpr_HWord(ir->ip));
   IRDirty *di;
   if (ungated)
      di = unsafeIRDirty_0_N(3, "ag_h_atomic", VG_(fnptr_to_fnentry)(ag_h_atomic), args);
   else if (ag_clo_sample_rpt)
      di = unsafeIRDirty_0_N(0, "ag_h_access_rpt", VG_(fnptr_to_fnentry)(ag_h_access_rpt),
                             mkIRExprVec_4(args[0], args[1], args[2], IRExpr_RdTmp(
                                ag_tmp(ir, Ity_I64, IRExpr_Get(ir->offset_SP, Ity_I64)))));
   else
      di = unsafeIRDirty_0_N(3, "ag_h_access", VG_(fnptr_to_fnentry)(ag_h_access), args);
   di->guard = cond;
   addStmtToIRSB(ir->out, IRStmt_Dirty(di));
}

/* A C++ object's vtable pointer written with the value it holds (a
   derived class's destructor starts by storing its own vtable, which the
   object already has) changes nothing another thread can see: such a
   store is a read.  Told at run time by a load of the old value: the
   store's constant points into a vtable (ag_provenance.c), and the load
   faults where the store would. */
static Bool ag_vptr_store(IRSB *bb, IRExpr *data, UInt size)
{
   if (size != 8) return False;
   if (data->tag == Iex_RdTmp) {          /* the flat input: t = constant earlier
                                             (a scan, at translation only) */
      IRTemp t = data->Iex.RdTmp.tmp;
      data = NULL;
      for (Int i = 0; i < bb->stmts_used && !data; i++) {
         IRStmt *st = bb->stmts[i];
         if (st && st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == t) data = st->Ist.WrTmp.data;
      }
      if (!data) return False;
   }
   return data->tag == Iex_Const && data->Iex.Const.con->tag == Ico_U64
          && ag_prov_vtable((Addr)data->Iex.Const.con->Ico.U64);
}

static void ag_emit_vptr_store(ag_ir *ir, IRExpr *addr, IRExpr *data, UInt flags)
{
   IRTemp old = ag_tmp(ir, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, addr));
   IRTemp same = ag_tmp(ir, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(old), data));
   IRTemp differs = ag_tmp(ir, Ity_I1, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(same)));
   ag_emit(ir, addr, 8, flags & ~AG_WRITE, IRExpr_RdTmp(same));
   ag_emit(ir, addr, 8, flags, IRExpr_RdTmp(differs));
}

static IRTemp ag_load64(IRSB *out, void *addr)
{
   IRTemp t = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)addr))));
   return t;
}

/* A new I1 temp: the 64-bit word at addr is not 0. */
static IRTemp ag_nonzero(IRSB *out, volatile void *addr)
{
   IRTemp w = ag_load64(out, (void *)addr);
   IRTemp nz = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(nz, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(w),
                                                     IRExpr_Const(IRConst_U64(0)))));
   return nz;
}

/* ir->gate := (ag_an_gate != 0), once per superblock: the gate only
   changes at client requests (which end a superblock) or in ag_an_tick,
   and a stale value for the rest of one superblock only moves a window
   edge by a few accesses. */
static void ag_emit_gate(ag_ir *ir)
{
   ir->gate = ag_nonzero(ir->out, &ag_an_gate);
}

/* ir->stack_max := ag_cur->stack_max, once per superblock: threads switch
   only between superblocks, and a thread's stack top does not change. */
static void ag_emit_stack_max(ag_ir *ir)
{
   IRTemp th = ag_load64(ir->out, (void *)&ag_cur);
   IRTemp pmax = ag_tmp(ir, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(th),
                                     mkIRExpr_HWord(offsetof(ag_thread, stack_max))));
   ir->stack_max = ag_tmp(ir, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(pmax)));
}

/* If `stopping`, note for the scheduler that this is its stop exit
   (ag_sched_stopped preempts the thread there); if `leave`, leave to the
   scheduler (a yield exit) to resume at this very block, `here`. */
static void ag_emit_yield(IRSB *out, IRTemp stopping, IRTemp leave, Int offset_IP, Addr here)
{
   addStmtToIRSB(out, IRStmt_StoreG(Iend_LE, mkIRExpr_HWord((HWord)&ag_sched_stopping),
                                    IRExpr_Const(IRConst_U64(1)), IRExpr_RdTmp(stopping)));
   addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(leave), Ijk_Yield, IRConst_U64(here), offset_IP));
}

/* The scheduler's budget ends at Valgrind's own event checks, which
   count loops' rounds and returns (ag_sched.c): nothing per block.  A
   stop asked for after an access inside a region (ag_sched_access) or at
   an atomic function's entry (ag_sched_region_enter, called at this
   block's start) is taken at the start of the next block, before its
   body: the event check may come blocks later, past the region's next
   accesses.  So code whose accesses are analysed (regions are checked)
   tests for it here: if ag_sched_stop is set (only the running thread
   sets it, and every return to the scheduler clears it), note that the
   stop exit was taken and leave to the scheduler to resume at this very
   block once the thread gets the turn back.  A load, a compare, a guarded
   store and an exit; code with no access analysed (the shared points
   alone) takes its stops at the next event check. */
static void ag_emit_stop(IRSB *out, Int offset_IP, Addr here)
{
   IRTemp set = ag_nonzero(out, &ag_sched_stop);
   ag_emit_yield(out, set, set, offset_IP, here);
}

/* A superblock's run, counted down towards the verdict on its quiet
   (ag_shared.c): a load, a store and a compare; the helper at zero. */
static VG_REGPARM(1) void ag_h_quiet(ag_shared_sb *b)
{
   ag_shared_sb_expired(b);
}

static void ag_emit_quiet_count(IRSB *out, ag_shared_sb *b)
{
   IRExpr *at = mkIRExpr_HWord((HWord)&b->left);
   IRTemp left = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(left, IRExpr_Load(Iend_LE, Ity_I32, at)));
   IRTemp now = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(now, IRExpr_Binop(Iop_Sub32, IRExpr_RdTmp(left),
                                                      IRExpr_Const(IRConst_U32(1)))));
   addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(now)));
   IRTemp zero = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(zero, IRExpr_Binop(Iop_CmpEQ32, IRExpr_RdTmp(now),
                                                       IRExpr_Const(IRConst_U32(0)))));
   IRDirty *di = unsafeIRDirty_0_N(1, "ag_h_quiet", VG_(fnptr_to_fnentry)(ag_h_quiet),
                                   mkIRExprVec_1(mkIRExpr_HWord((HWord)b)));
   di->guard = IRExpr_RdTmp(zero);
   addStmtToIRSB(out, IRStmt_Dirty(di));
}

/* An atomic function's entry in code translated without accesses (the
   floor): if the region it opened made the tool instrument accesses
   (ag_an_leave, ag_analysis.c), leave to the scheduler at once, to run
   this very block again once retranslated.  Nothing of it has run.  A
   preemption the entry asked for (ag_sched_region_enter) is taken there,
   as ag_emit_stop would take it at the next block. */
static void ag_emit_leave(IRSB *out, Int offset_IP, Addr here)
{
   IRTemp set = ag_nonzero(out, &ag_an_leave);
   IRTemp asked = ag_nonzero(out, &ag_sched_stop);
   IRTemp stop = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(stop, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(set),
                                                       IRExpr_RdTmp(asked))));
   ag_emit_yield(out, stop, set, offset_IP, here);
}

static void ag_h_tick(void) { ag_an_tick(); }

/* RPT time: ag_an_clock += n inline; call ag_h_tick only when the clock
   reaches ag_an_next (a window edge or slot boundary). */
static void ag_emit_clock(IRSB *out, UInt n)
{
   if (n == 0) return;
   IRTemp c = ag_load64(out, &ag_an_clock);
   IRTemp c2 = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(c2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(c),
                                                       IRExpr_Const(IRConst_U64(n)))));
   addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&ag_an_clock), IRExpr_RdTmp(c2)));
   IRTemp next = ag_load64(out, &ag_an_next);
   IRTemp due = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(due, IRExpr_Binop(Iop_CmpLE64U, IRExpr_RdTmp(next),
                                                        IRExpr_RdTmp(c2))));
   IRDirty *di = unsafeIRDirty_0_N(0, "ag_h_tick", VG_(fnptr_to_fnentry)(ag_h_tick),
                                   mkIRExprVec_0());
   di->guard = IRExpr_RdTmp(due);
   addStmtToIRSB(out, IRStmt_Dirty(di));
}

/* The instruction just finished has no memory access left in the IR: if
   its machine code is a load from a global, VEX deleted the load because
   the value is unused.  The program still reads that memory (a `(void)y`
   of a volatile, a load kept for its ordering): emit the read it made. */
static void ag_emit_dead_load(ag_ir *ir)
{
   Addr a;
   UInt size;
   ir->may_exit = False;                 /* the instruction has run */
   if (ir->ip && !ir->touched && ag_deadload_decode(ir->ip, ir->len, &a, &size))
      ag_emit(ir, mkIRExpr_HWord(a), size, 0, NULL);
}

/* How many memory accesses the superblock makes (if it runs to the end). */
static UInt ag_count_accesses(IRSB *bb)
{
   UInt n = 0;
   for (Int i = 0; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      switch (st->tag) {
      case Ist_WrTmp: n += st->Ist.WrTmp.data->tag == Iex_Load; break;
      case Ist_Store: case Ist_StoreG: case Ist_LoadG: case Ist_CAS: case Ist_LLSC: n++; break;
      case Ist_Dirty: n += st->Ist.Dirty.details->mFx != Ifx_None; break;
      default: break;
      }
   }
   return n;
}

/* Does the guest instruction starting at statement i contain a CAS?  Loads
   in it are then the read half of an atomic read-modify-write. */
static Bool ag_insn_has_cas(IRSB *bb, Int i)
{
   for (i++; i < bb->stmts_used && bb->stmts[i]->tag != Ist_IMark; i++)
      if (bb->stmts[i]->tag == Ist_CAS || bb->stmts[i]->tag == Ist_LLSC) return True;
   return False;
}

/* Two address expressions of one instruction that name one address (VEX
   computes an operand's address once, into a temporary, or folds it to a
   constant). */
static Bool ag_same_addr(IRExpr *a, IRExpr *b)
{
   if (a->tag != b->tag) return False;
   if (a->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
   return a->tag == Iex_Const && a->Iex.Const.con->tag == Ico_U64
          && b->Iex.Const.con->tag == Ico_U64
          && a->Iex.Const.con->Ico.U64 == b->Iex.Const.con->Ico.U64;
}

/* The address that the guest instruction starting at statement i (an
   IMark, the instruction at ip) both loads and stores, of one size, with
   no CAS: an add, inc, or ... to memory without a LOCK prefix, in race
   mode and in code GCC alone compiled (AG_PLAIN_RMW); else NULL. */
static IRExpr *ag_plain_rmw(IRSB *bb, Int i, Addr ip)
{
   if (!(ag_clo_check & AG_CHECK_RACES)) return NULL;
   IRExpr *load = NULL;
   UInt size = 0;
   for (i++; i < bb->stmts_used && bb->stmts[i]->tag != Ist_IMark; i++) {
      IRStmt *st = bb->stmts[i];
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load && !load) {
         load = st->Ist.WrTmp.data->Iex.Load.addr;
         size = sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty);
      } else if (st->tag == Ist_Store && load && ag_same_addr(load, st->Ist.Store.addr)
                 && sizeofIRType(typeOfIRExpr(bb->tyenv, st->Ist.Store.data)) == size) {
         return ag_lto_gcc_only(ip) ? load : NULL;
      }
   }
   return NULL;
}

/* The AG_PLAIN_RMW of an access at addr of the instruction whose plain
   read-modify-write address is rmw (ag_plain_rmw), unless the access is
   known atomic by where its code comes from or by its type. */
static inline UInt ag_rmw_flag(IRExpr *rmw, IRExpr *addr, UInt flags)
{
   return rmw && !(flags & (AG_ATOMIC_LS | AG_COMMUTE)) && ag_same_addr(rmw, addr)
          ? AG_PLAIN_RMW : 0;
}

/* What the instruction at ip is by where it comes from (ag_provenance.h):
   a std::atomic operation is atomic, even a plain mov; a
   reference count's RMW commutes with the others (engine/ag_engine.h). */
static UInt ag_idiom(Addr ip, Bool rmw)
{
   switch (ag_prov_of(ip, rmw)) {
   case AG_PROV_ATOMIC:   return AG_ATOMIC_LS;
   case AG_PROV_REFCOUNT: return rmw ? AG_COMMUTE : 0;
   case AG_PROV_LIBC:     return AG_IN_LIBC;
   default:               return 0;
   }
}

/* A race-mode load or store at a fixed address inside a C11 _Atomic or
   C++ std::atomic variable is atomic by its type (ag_atomictypes.h). */
static UInt ag_typed(IRExpr *addr, UInt size)
{
   if (!(ag_clo_check & AG_CHECK_RACES) || addr->tag != Iex_Const
       || addr->Iex.Const.con->tag != Ico_U64) return 0;
   return ag_at_is_atomic((Addr)addr->Iex.Const.con->Ico.U64, size) ? AG_ATOMIC_LS : 0;
}

/* ag_idiom once per instruction, at its first access (most have none),
   and not in code translated without accesses (the floor, unless an
   inlined instance's region opens in the block). */
static inline UInt ag_idiom_at(Int *known, Bool accesses, Addr ip, Bool rmw)
{
   if (*known < 0) *known = accesses ? (Int)ag_idiom(ip, rmw) : 0;
   return (UInt)*known;
}

/* The inline chain of each instruction of bb (ag_spec.c), in chains[] (up
   to max); whether any is not empty.  A block that opens an instance's
   region has its accesses instrumented even under the floor: they come
   after the region opens, in the same block. */
#define AG_SB_INSNS 128
static Bool ag_inline_prescan(IRSB *bb, UInt *chains, UInt max, UInt *n)
{
   Bool any = False;
   *n = 0;
   for (Int i = 0; i < bb->stmts_used && *n < max; i++)
      if (bb->stmts[i] && bb->stmts[i]->tag == Ist_IMark) {
         chains[*n] = ag_spec_inline_at((Addr)bb->stmts[i]->Ist.IMark.addr);
         any |= chains[(*n)++] != 0;
      }
   return any;
}

/* The next instruction, at ip, of a block whose previous one was in chain
   *chain: where the chain changes, a region of an inlined instance opens or
   closes there (ag_spec.c), and the gate is read again.  Code translated
   without accesses (the floor) misses the accesses left in this block
   after the first region opened; the next block is translated with them
   (ag_emit_leave at its start). */
static void ag_inline_step(ag_ir *ir, UInt *chain, UInt c, Addr ip, Int offset_IP)
{
   if (c == *chain) return;
   *chain = c;
   ag_spec_instrument_inline(ir->out, c, False, ip, ir->offset_SP, offset_IP);
   if (ir->gate != IRTemp_INVALID) ag_emit_gate(ir);
}

/* May generated code leave right before the first access of the guest
   instruction whose IMark is statement i, to run the instruction again
   later?  Only if nothing before that access in the instruction changed
   the guest state (a PUT, a dirty call): all registers are up to date at
   a memory access (ag_sched_init), so the state there is the state at
   the instruction's start. */
static Bool ag_exit_safe(IRSB *bb, Int i)
{
   for (i++; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      switch (st->tag) {
      case Ist_IMark: case Ist_Put: case Ist_PutI: return False;
      case Ist_WrTmp: if (st->Ist.WrTmp.data->tag == Iex_Load) return True; break;
      case Ist_Store: case Ist_StoreG: case Ist_LoadG: case Ist_CAS: case Ist_LLSC:
         return True;
      case Ist_Dirty: return st->Ist.Dirty.details->mFx != Ifx_None;
      default: break;
      }
   }
   return False;
}

/* Code that is not the program (ag_objects.c): SP's rises only, as a
   longjmp or an unwinder there may end the program's frames. */
static IRSB *ag_instrument_sp_only(IRSB *bb, Int offset_SP)
{
   if (!ag_spec_tracks_sp()) return bb;
   IRSB *out = deepCopyIRSBExceptStmts(bb);
   ag_spec_sp v;
   ag_spec_sp_reset(&v);
   for (Int i = 0; i < bb->stmts_used; i++) {
      ag_spec_instrument_sp(out, &v, bb->stmts[i], offset_SP);
      if (bb->stmts[i]) addStmtToIRSB(out, bb->stmts[i]);
   }
   return out;
}

IRSB *ag_instrument(VgCallbackClosure *closure, IRSB *bb,
                    const VexGuestLayout *layout, const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy)
{
   (void)closure; (void)archinfo_host; (void)hWordTy;
   if (gWordTy != Ity_I64) VG_(tool_panic)("atomgrind supports 64-bit guests only");
   if (ag_object_skipped((Addr)vge->base[0])) return ag_instrument_sp_only(bb, layout->offset_SP);

   ag_ir ir;
   ir.out = deepCopyIRSBExceptStmts(bb);
   ir.offset_SP = layout->offset_SP;
   ir.offset_IP = layout->offset_IP;
   ir.tag = IRTemp_INVALID;
   ir.may_exit = False;
   /* the program's code tests its accesses for points unless it is quiet */
   Bool program = ag_shared_on && !ag_object_system((Addr)vge->base[0]);
   ir.sb = program ? ag_shared_sb_of((Addr)vge->base[0], vge->len[0]) : NULL;
   ir.shared = program && !ir.sb->quiet;
   ir.sp_rel = NULL;
   ir.ntemps = 0;
   if (ir.shared) ag_sp_rel_reset(&ir, bb->tyenv->types_used);
   ir.ip = 0;
   ir.len = 0;
   ir.touched = False;
   ir.gate = IRTemp_INVALID;            /* ag_emit_gate, before any access */
   ir.stack_max = IRTemp_INVALID;
   Bool gate_done = False;
   ag_spec_sp sp;                       /* SP's known values (ag_spec.c) */
   ag_spec_sp_reset(&sp);
   Bool atomic_insn = False;
   IRExpr *rmw = NULL;                  /* the instruction's plain RMW address */
   Int idiom = -1;                      /* the instruction's AG_ATOMIC_LS, AG_COMMUTE
                                           (-1: not looked up yet: ag_idiom_at) */
   /* the inline chain of the instruction (ag_spec.c): regions of inlined
      atomic functions open and close where it changes */
   Bool inl = ag_spec_inlines();
   UInt chain = 0, chains[AG_SB_INSNS], ninsn = 0, insn = 0;
   ir.accesses = ag_an_instrument_accesses
                 || (inl && ag_inline_prescan(bb, chains, AG_SB_INSNS, &ninsn));
   /* race mode: the loads of a spin loop are acquire loads; at
      Valgrind's own pace (atomgrind's scheduler has turns of its own) a
      loop that waits ends the thread's timeslice soon */
   Bool races = (ag_clo_check & AG_CHECK_RACES) != 0, native = ag_clo_sched == AG_SCHED_NATIVE;
   ag_spin_kind kind = races || native ? ag_spin_classify(bb, vge) : AG_SPIN_NONE;
   UInt spin = races && kind != AG_SPIN_NONE ? AG_SPIN : 0;
   Bool waits = native && kind == AG_SPIN_WAITS;
   Int i = 0;

   /* keep the preamble (statements before the first IMark) as it is */
   while (i < bb->stmts_used && bb->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(ir.out, bb->stmts[i++]);

   for (; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      if (!st || st->tag == Ist_NoOp) continue;
      if (!gate_done) {
         /* first, so that the gate read below sees the region open */
         if (st->tag == Ist_IMark) {
            Addr a0 = (Addr)st->Ist.IMark.addr;
            Bool opens = ag_spec_instrument_entry(ir.out, a0, ir.offset_SP);
            if (inl) {      /* the block may be entered from another chain */
               chain = ninsn > 0 ? chains[0] : ag_spec_inline_at(a0);
               ag_spec_instrument_inline(ir.out, chain, True, a0, ir.offset_SP,
                                         layout->offset_IP);
               opens = True;
            }
            if (opens && !ag_an_instrument_accesses)
               ag_emit_leave(ir.out, layout->offset_IP, (Addr)vge->base[0]);
         }
         if (ag_clo_sched != AG_SCHED_NATIVE && ag_an_instrument_accesses)
            ag_emit_stop(ir.out, layout->offset_IP, (Addr)vge->base[0]);
         if (ir.shared) ag_emit_quiet_count(ir.out, ir.sb);
         if (ag_clo_sample_rpt) ag_emit_clock(ir.out, ag_count_accesses(bb));
         if (ir.accesses) ag_emit_gate(&ir);
         /* the stack test inline, except with RPT (ag_h_access_rpt) */
         if (!ag_clo_check_stack_var
             && ((ir.accesses && !ag_clo_sample_rpt) || ir.shared))
            ag_emit_stack_max(&ir);
         if (ir.shared) ir.tag = ag_load64(ir.out, (void *)&ag_ho_word);
         gate_done = True;
      }
      ag_spec_instrument_sp(ir.out, &sp, st, ir.offset_SP);
      if (ir.shared) ag_sp_note(&ir, st);
      switch (st->tag) {
      case Ist_IMark:
         ag_emit_dead_load(&ir);
         if (inl && ir.ip != 0) {
            Addr a = (Addr)st->Ist.IMark.addr;
            ag_inline_step(&ir, &chain, insn < ninsn ? chains[insn] : ag_spec_inline_at(a),
                           a, layout->offset_IP);
         }
         insn++;
         ir.ip = (Addr)st->Ist.IMark.addr;
         ir.len = st->Ist.IMark.len;
         ir.touched = False;
         ir.may_exit = ir.shared && ag_sched_exits && ag_exit_safe(bb, i);
         atomic_insn = ag_insn_has_cas(bb, i);
         rmw = atomic_insn || !ir.accesses ? NULL : ag_plain_rmw(bb, i, ir.ip);
         idiom = -1;
         break;
      case Ist_WrTmp: {
         IRExpr *e = st->Ist.WrTmp.data;
         if (e->tag == Iex_Load) {
            UInt fl = (atomic_insn ? AG_ATOMIC : spin) | ag_idiom_at(&idiom, ir.accesses, ir.ip, atomic_insn)
                      | ag_typed(e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty));
            ag_emit(&ir, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty),
                    fl | ag_rmw_flag(rmw, e->Iex.Load.addr, fl), NULL);
         }
         break;
      }
      case Ist_Store: {
         UInt sz = sizeofIRType(typeOfIRExpr(bb->tyenv, st->Ist.Store.data));
         UInt fl = AG_WRITE | (atomic_insn ? AG_ATOMIC : 0) | ag_idiom_at(&idiom, ir.accesses, ir.ip, atomic_insn)
                   | ag_typed(st->Ist.Store.addr, sz);
         fl |= ag_rmw_flag(rmw, st->Ist.Store.addr, fl);
         if (ag_vptr_store(bb, st->Ist.Store.data, sz))
            ag_emit_vptr_store(&ir, st->Ist.Store.addr, st->Ist.Store.data, fl);
         else
            ag_emit(&ir, st->Ist.Store.addr, sz, fl, NULL);
         break;
      }
      case Ist_StoreG: {
         IRStoreG *sg = st->Ist.StoreG.details;
         ag_emit(&ir, sg->addr, sizeofIRType(typeOfIRExpr(bb->tyenv, sg->data)),
                 AG_WRITE, sg->guard);
         break;
      }
      case Ist_LoadG: {
         IRLoadG *lg = st->Ist.LoadG.details;
         IRType ty = Ity_INVALID, wide = Ity_INVALID;
         typeOfIRLoadGOp(lg->cvt, &wide, &ty);
         ag_emit(&ir, lg->addr, sizeofIRType(ty), 0, lg->guard);
         break;
      }
      case Ist_CAS: {
         IRCAS *cas = st->Ist.CAS.details;
         UInt sz = sizeofIRType(typeOfIRExpr(bb->tyenv, cas->dataLo));
         if (cas->dataHi) sz *= 2;
         ag_emit(&ir, cas->addr, sz, AG_WRITE | AG_ATOMIC | ag_idiom_at(&idiom, ir.accesses, ir.ip, True), NULL);
         break;
      }
      case Ist_LLSC: {
         IRType ty;
         if (st->Ist.LLSC.storedata == NULL) {
            ty = typeOfIRTemp(bb->tyenv, st->Ist.LLSC.result);
            ag_emit(&ir, st->Ist.LLSC.addr, sizeofIRType(ty), AG_ATOMIC, NULL);
         } else {
            ty = typeOfIRExpr(bb->tyenv, st->Ist.LLSC.storedata);
            ag_emit(&ir, st->Ist.LLSC.addr, sizeofIRType(ty), AG_WRITE | AG_ATOMIC, NULL);
         }
         break;
      }
      case Ist_Dirty: {
         IRDirty *d = st->Ist.Dirty.details;
         if (d->mFx != Ifx_None && d->mAddr && d->mSize > 0) {
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
               ag_emit(&ir, d->mAddr, d->mSize, 0, d->guard);
            if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
               ag_emit(&ir, d->mAddr, d->mSize, AG_WRITE, d->guard);
         }
         break;
      }
      default:
         break;
      }
      addStmtToIRSB(ir.out, st);
   }
   ag_emit_dead_load(&ir);
   if (chain != 0 && bb->jumpkind == Ijk_Call) ag_spec_instrument_call_out(ir.out, ir.offset_SP);
   if (waits) return ag_spin_yield(ir.out, (Addr)vge->base[0]);
   return ir.out;
}
