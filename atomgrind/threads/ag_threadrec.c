/* ag_threadrec.c -- the per-thread records, made in one place. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"   /* tl_assert */
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
