/* ag_threadinfo.c -- creation stacks and announcement flags, by thread:
 * the info part of its record (ag_threadrec.h). */
#include "pub_tool_basics.h"
#include "ag_threadinfo.h"
#include "ag_threadrec.h"          /* the records by thread id */

void ag_threadinfo_created(ag_tid t, ExeContext *ec)
{
   ag_rec_of(t)->info.created = ec;
}

ExeContext *ag_threadinfo_creation(ag_tid t)
{
   const ag_threadrec *r = ag_rec_find(t);
   return r ? r->info.created : NULL;
}

Bool ag_threadinfo_announce(ag_tid t)
{
   if (t == AG_NO_TID) return False;
   ag_tr_info *ti = &ag_rec_of(t)->info;
   if (ti->announced) return False;
   ti->announced = True;
   return True;
}
