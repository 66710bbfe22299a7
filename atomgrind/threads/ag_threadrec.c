/* ag_threadrec.c -- the per-thread records, by engine thread id and by
 * Valgrind ThreadId, made in one place. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"   /* tl_assert */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS */
#include "pub_tool_mallocfree.h"   /* VG_(realloc), VG_(calloc) */
#include "ag_threadrec.h"

ag_threadrec **ag_recs;
UInt ag_nrecs;
static UInt ag_tr_cap;             /* room in ag_recs */

ag_threadrec *ag_rec_of(ag_tid t)
{
   if (t < ag_nrecs) return ag_recs[t];
   tl_assert(t != AG_NO_TID);
   if (t >= ag_tr_cap) {
      UInt n = ag_tr_cap ? ag_tr_cap : 16;
      while (n <= t) n *= 2;
      ag_recs = VG_(realloc)("ag.threadrec", ag_recs, n * sizeof *ag_recs);
      ag_tr_cap = n;
   }
   /* each record on its own, so that it never moves */
   for (; ag_nrecs <= t; ag_nrecs++)
      ag_recs[ag_nrecs] = VG_(calloc)("ag.threadrec", 1, sizeof(ag_threadrec));
   return ag_recs[t];
}

static ag_threadslot *ag_tr_slots;  /* by ThreadId, all VG_N_THREADS of them */

ag_threadslot *ag_slot_of(ThreadId t)
{
   tl_assert(t < VG_N_THREADS);
   if (!ag_tr_slots) ag_tr_slots = VG_(calloc)("ag.threadslot", VG_N_THREADS, sizeof *ag_tr_slots);
   return &ag_tr_slots[t];
}

void ag_slot_new(ThreadId t)
{
   ag_threadslot *s = ag_slot_of(t);
   VG_(memset)(s, 0, sizeof *s);
}
