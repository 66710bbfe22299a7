/* ag_history.c -- a ring of recent access stacks per thread. */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "ag_history.h"
#include "ag_tidarray.h"           /* the rings by thread id */

/* The engines keep the last 64 accesses per thread (atomsanitizer's ring):
   as many stacks suffice to name any access they can report. */
#define AG_HISTORY_RING 64

typedef struct { ULong event; ExeContext *ec; } ag_hist_entry;
typedef struct { UInt next; ag_hist_entry e[AG_HISTORY_RING]; } ag_hist_ring;

static ag_hist_ring **ag_hist;       /* by thread, allocated on first note */
static UInt ag_hist_cap;

static ag_hist_ring *ag_hist_of(ag_tid t)
{
   ag_hist = ag_tidarray_grow("ag.history", ag_hist, &ag_hist_cap, t, sizeof *ag_hist);
   if (!ag_hist[t]) ag_hist[t] = VG_(calloc)("ag.history", 1, sizeof(ag_hist_ring));
   return ag_hist[t];
}

void ag_history_note(ag_tid t, ULong event, ExeContext *ec)
{
   ag_hist_ring *r = ag_hist_of(t);
   r->e[r->next] = (ag_hist_entry){ event, ec };
   r->next = (r->next + 1) % AG_HISTORY_RING;
}

ExeContext *ag_history_stack(ag_tid t, ULong event)
{
   if (t >= ag_hist_cap || !ag_hist[t] || event == 0) return NULL;
   for (UInt i = 0; i < AG_HISTORY_RING; i++)
      if (ag_hist[t]->e[i].event == event) return ag_hist[t]->e[i].ec;
   return NULL;
}
