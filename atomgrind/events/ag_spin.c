/* ag_spin.c -- recognising spin loops in VEX IR: a superblock that only
 * loads from addresses it does not change, and jumps back to its own
 * start.  Such loads are a wait for another thread's write; race mode
 * treats them as acquire loads (AG_SPIN), and at Valgrind's own pace the
 * loop ends the thread's timeslice soon (ag_spin_yield).  See ag_spin.h. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_guest.h"         /* VexGuestArchState: the event counter */
#include "ag_spin.h"

#define AG_SPIN_MAX_PUTS 32

typedef struct {
   IRSB *bb;
   Int puts[AG_SPIN_MAX_PUTS][2];   /* guest state [offset, offset+size) written */
   Int nputs;
} ag_spin_ctx;

static Bool ag_spin_put_overlaps(const ag_spin_ctx *c, Int off, Int size)
{
   for (Int i = 0; i < c->nputs; i++)
      if (off < c->puts[i][1] && c->puts[i][0] < off + size) return True;
   return False;
}

/* The temp's defining expression (the IR is flat: each temp is written
   once), or NULL. */
static IRExpr *ag_spin_def(const ag_spin_ctx *c, IRTemp t)
{
   for (Int i = 0; i < c->bb->stmts_used; i++) {
      IRStmt *st = c->bb->stmts[i];
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == t) return st->Ist.WrTmp.data;
   }
   return NULL;
}

/* Is e built from constants and guest registers the loop does not write,
   and with loads, from the loop's loads too?  Without: e has the same
   value on every iteration (an address; pointer chasing has not).  With:
   a guard of e changes only when another thread writes (a counted loop's
   guard reads the register it counts in; -O0's `cmp` and `jne` make a
   guard some 20 copies and widenings away from its load). */
static Bool ag_spin_built(const ag_spin_ctx *c, IRExpr *e, Bool loads, Int depth)
{
   if (depth > (loads ? 64 : 16)) return False;
   switch (e->tag) {
   case Iex_Const: return True;
   case Iex_Load: return loads;
   case Iex_Get:
      return !ag_spin_put_overlaps(c, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty));
   case Iex_RdTmp: {
      IRExpr *d = ag_spin_def(c, e->Iex.RdTmp.tmp);
      return d && ag_spin_built(c, d, loads, depth + 1);
   }
   case Iex_Unop: return ag_spin_built(c, e->Iex.Unop.arg, loads, depth + 1);
   case Iex_Binop:
      return ag_spin_built(c, e->Iex.Binop.arg1, loads, depth + 1)
          && ag_spin_built(c, e->Iex.Binop.arg2, loads, depth + 1);
   case Iex_ITE:
      return loads && ag_spin_built(c, e->Iex.ITE.cond, loads, depth + 1)
          && ag_spin_built(c, e->Iex.ITE.iftrue, loads, depth + 1)
          && ag_spin_built(c, e->Iex.ITE.iffalse, loads, depth + 1);
   case Iex_CCall:
      if (!loads) return False;
      for (Int i = 0; e->Iex.CCall.args[i]; i++)
         if (!ag_spin_built(c, e->Iex.CCall.args[i], loads, depth + 1)) return False;
      return True;
   default: return False;       /* calls, ... */
   }
}

static Bool ag_spin_is_start(IRConst *dst, Addr base)
{
   return dst && dst->tag == Ico_U64 && (Addr)dst->Ico.U64 == base;
}

/* Does the exit st, or the block's end, jump back to its start (base)? */
static Bool ag_spin_back_exit(const IRStmt *st, Addr base)
{
   return st->tag == Ist_Exit && st->Ist.Exit.jk == Ijk_Boring
          && ag_spin_is_start(st->Ist.Exit.dst, base);
}

static Bool ag_spin_back_end(const IRSB *bb, Addr base)
{
   return bb->next->tag == Iex_Const && bb->jumpkind == Ijk_Boring
          && ag_spin_is_start(bb->next->Iex.Const.con, base);
}

ag_spin_kind ag_spin_classify(IRSB *bb, const VexGuestExtents *vge)
{
   if (vge->n_used != 1) return AG_SPIN_NONE;
   Addr base = (Addr)vge->base[0];
   ag_spin_ctx c = { bb, {{0}}, 0 };
   Bool back = ag_spin_back_end(bb, base);
   Int loads = 0;
   for (Int i = 0; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      switch (st->tag) {
      case Ist_Store: case Ist_StoreG: case Ist_LoadG: case Ist_CAS:
      case Ist_LLSC: case Ist_PutI: case Ist_MBE:
         return AG_SPIN_NONE;
      case Ist_Dirty:
         if (st->Ist.Dirty.details->mFx != Ifx_None) return AG_SPIN_NONE;
         break;
      case Ist_Put:
         if (c.nputs == AG_SPIN_MAX_PUTS) return AG_SPIN_NONE;
         c.puts[c.nputs][0] = st->Ist.Put.offset;
         c.puts[c.nputs][1] = st->Ist.Put.offset
                              + sizeofIRType(typeOfIRExpr(bb->tyenv, st->Ist.Put.data));
         c.nputs++;
         break;
      case Ist_Exit:
         if (ag_spin_back_exit(st, base)) back = True;
         break;
      case Ist_WrTmp:
         loads += st->Ist.WrTmp.data->tag == Iex_Load;
         break;
      default:
         break;
      }
   }
   if (!back || loads == 0) return AG_SPIN_NONE;
   ag_spin_kind kind = AG_SPIN_WAITS;
   for (Int i = 0; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load
          && !ag_spin_built(&c, st->Ist.WrTmp.data->Iex.Load.addr, False, 0))
         return AG_SPIN_NONE;
      if (st->tag == Ist_Exit && !ag_spin_built(&c, st->Ist.Exit.guard, True, 0))
         kind = AG_SPIN_LOOP;
   }
   return kind;
}

/* Under Valgrind one thread runs at a time, for a timeslice of 100,000
   superblocks: a thread spinning on a flag that another thread is to set
   keeps that thread off the CPU for the whole slice, one iteration per
   superblock.  Two threads handing a flag back and forth then take two
   slices (10-20 ms) per hand-off, in --tool=none as in any tool.  A spin
   loop's jump back to its start therefore cuts what is left of the slice
   to AG_SPIN_SLICE superblocks, through the core's event counter (the
   guest state's host_EvC_COUNTER, which each superblock decrements and
   the core reads back after the run, ending the slice at zero).  A yield
   (Ijk_Yield, as `pause` makes) would run 300 more superblocks, each
   returning to the core; this stays in chained code until the cut.
   (The core counts the superblocks cut as run: its --stats count of
   event checks grows by them, and nothing else reads it that would
   mind.) */
#define AG_SPIN_SLICE 32

static void ag_spin_cap(IRSB *out, IRExpr *guard)
{
   Int off = offsetof(VexGuestArchState, host_EvC_COUNTER);
   IRTemp ctr = newIRTemp(out->tyenv, Ity_I32), cut = newIRTemp(out->tyenv, Ity_I1);
   IRExpr *k = IRExpr_Const(IRConst_U32(AG_SPIN_SLICE));
   addStmtToIRSB(out, IRStmt_WrTmp(ctr, IRExpr_Get(off, Ity_I32)));
   addStmtToIRSB(out, IRStmt_WrTmp(cut, IRExpr_Binop(Iop_CmpLT32U, k, IRExpr_RdTmp(ctr))));
   if (guard) {
      IRTemp both = newIRTemp(out->tyenv, Ity_I1);
      addStmtToIRSB(out, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(cut), guard)));
      cut = both;
   }
   IRTemp left = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(left, IRExpr_ITE(IRExpr_RdTmp(cut), k, IRExpr_RdTmp(ctr))));
   addStmtToIRSB(out, IRStmt_Put(off, IRExpr_RdTmp(left)));
}

IRSB *ag_spin_yield(IRSB *bb, Addr base)
{
   IRSB *out = deepCopyIRSBExceptStmts(bb);
   for (Int i = 0; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      if (ag_spin_back_exit(st, base)) ag_spin_cap(out, st->Ist.Exit.guard);
      addStmtToIRSB(out, st);
   }
   if (ag_spin_back_end(bb, base)) ag_spin_cap(out, NULL);
   return out;
}
