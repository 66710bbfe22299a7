/* ag_threadinfo.c -- creation stacks and announcement flags, by thread. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc) */
#include "ag_threadinfo.h"

typedef struct { ExeContext *created; Bool announced; } ag_ti;

static ag_ti *ag_ti_all;           /* by thread id */
static UInt ag_ti_cap;

static ag_ti *ag_ti_of(ag_tid t)
{
   if (t >= ag_ti_cap) {
      UInt n = ag_ti_cap ? ag_ti_cap : 16;
      while (n <= t) n *= 2;
      ag_ti_all = VG_(realloc)("ag.threadinfo", ag_ti_all, n * sizeof *ag_ti_all);
      VG_(memset)(ag_ti_all + ag_ti_cap, 0, (n - ag_ti_cap) * sizeof *ag_ti_all);
      ag_ti_cap = n;
   }
   return &ag_ti_all[t];
}

void ag_threadinfo_created(ag_tid t, ExeContext *ec)
{
   ag_ti_of(t)->created = ec;
}

ExeContext *ag_threadinfo_creation(ag_tid t)
{
   return t < ag_ti_cap ? ag_ti_all[t].created : NULL;
}

Bool ag_threadinfo_announce(ag_tid t)
{
   if (t == AG_NO_TID) return False;
   ag_ti *ti = ag_ti_of(t);
   if (ti->announced) return False;
   ti->announced = True;
   return True;
}
