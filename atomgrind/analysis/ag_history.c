/* ag_history.c -- a ring of recent access stacks per thread: the history
 * part of its record (ag_threadrec.h). */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "ag_history.h"
#include "ag_threadrec.h"          /* the rings by thread id */

/* The engines keep the last 64 accesses per thread (atomsanitizer's ring):
   as many stacks suffice to name any access they can report. */
#define AG_HISTORY_RING 64

typedef struct { ULong event; ExeContext *ec; } ag_hist_entry;
struct ag_hist_ring { UInt next; ag_hist_entry e[AG_HISTORY_RING]; };

static ag_hist_ring *ag_hist_of(ag_tid t)
{
   ag_tr_history *h = &ag_rec_of(t)->history;
   if (!h->ring) h->ring = VG_(calloc)("ag.history", 1, sizeof(ag_hist_ring));
   return h->ring;
}

void ag_history_note(ag_tid t, ULong event, ExeContext *ec)
{
   ag_hist_ring *r = ag_hist_of(t);
   r->e[r->next] = (ag_hist_entry){ event, ec };
   r->next = (r->next + 1) % AG_HISTORY_RING;
}

ExeContext *ag_history_stack(ag_tid t, ULong event)
{
   const ag_threadrec *rec = ag_rec_find(t);
   const ag_hist_ring *r = rec ? rec->history.ring : NULL;
   if (!r || event == 0) return NULL;
   for (UInt i = 0; i < AG_HISTORY_RING; i++)
      if (r->e[i].event == event) return r->e[i].ec;
   return NULL;
}
