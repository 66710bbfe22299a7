/* ag_history.c -- a ring of recent access stacks per thread. */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_libcbase.h"
#include "ag_history.h"

/* The engines keep the last 64 accesses per thread (atomsanitizer's ring):
   as many stacks suffice to name any access they can report. */
#define AG_HISTORY_RING 64

typedef struct { ULong event; ExeContext *ec; } ag_hist_entry;
typedef struct { UInt next; ag_hist_entry e[AG_HISTORY_RING]; } ag_hist_ring;

static ag_hist_ring **ag_hist;       /* by thread, allocated on first note */
static UInt ag_hist_cap;

static ag_hist_ring *ag_hist_of(ag_tid t)
{
   if (t >= ag_hist_cap) {
      UInt ncap = ag_hist_cap ? ag_hist_cap : 16;
      while (ncap <= t) ncap *= 2;
      ag_hist = VG_(realloc)("ag.history", ag_hist, ncap * sizeof *ag_hist);
      VG_(memset)(ag_hist + ag_hist_cap, 0, (ncap - ag_hist_cap) * sizeof *ag_hist);
      ag_hist_cap = ncap;
   }
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
