/* ag_threadinfo.c -- creation stacks and announcement flags, by thread. */
#include "pub_tool_basics.h"
#include "ag_threadinfo.h"
#include "ag_tidarray.h"           /* the array by thread id */

typedef struct { ExeContext *created; Bool announced; } ag_ti;

static ag_ti *ag_ti_all;           /* by thread id */
static UInt ag_ti_cap;

static ag_ti *ag_ti_of(ag_tid t)
{
   ag_ti_all = ag_tidarray_grow("ag.threadinfo", ag_ti_all, &ag_ti_cap, t, sizeof *ag_ti_all);
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
