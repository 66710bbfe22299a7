/* ag_handoff.c -- happens-before for the owner table's hand-overs: the
 * clocks of engine/ag_hbtags.c over the scheduler's thread tags, fed the
 * ordering events the analysis sees (locks, stdio's, atomics as
 * synchronisation, descriptors, barriers, once, join).  The creation of a
 * thread is none: what its creator set up before is the threads' shared
 * state to be, and a thread that runs alone through it first finds its
 * points there (a writer's window for PCT, tests/progs/pct_window.c), as
 * it did when every slot another thread had touched was shared. */
#include "pub_tool_basics.h"
#include "ag_hbtags.h"             /* the clocks */
#include "ag_handoff.h"

volatile UWord ag_ho_word;
static ag_hbt *ag_ho;
static UInt ag_ho_tag;               /* the running thread's */
static UInt ag_ho_held[AG_HBT_TAGS + 1];   /* locks held, per tag */

void ag_ho_init(void) { ag_ho = ag_hbt_new(); }

void ag_ho_fini(void)
{
   ag_hbt_delete(ag_ho);
   ag_ho = NULL;
}

/* The stamp of the thread tagged tag: the tag, and its clock's low byte. */
static UWord ag_ho_stamp_of(UInt tag)
{
   return ag_ho ? (UWord)(ag_hbt_clock(ag_ho, tag) & 0xff) << 8 | tag : tag;
}

static void ag_ho_stamp(void) { ag_ho_word = ag_ho_stamp_of(ag_ho_tag); }

UWord ag_ho_word_of(ag_tid t) { return ag_ho_stamp_of(ag_hbt_tag(t)); }

void ag_ho_running(ag_tid t)
{
   ag_ho_tag = ag_hbt_tag(t);
   ag_ho_stamp();
}

void ag_ho_acquire(ag_tid t, Addr obj)
{
   if (ag_ho) ag_hbt_acquire(ag_ho, ag_hbt_tag(t), obj);
}

void ag_ho_release(ag_tid t, Addr obj)
{
   if (!ag_ho) return;
   ag_hbt_release(ag_ho, ag_hbt_tag(t), obj);
   ag_ho_stamp();
}

void ag_ho_thread_new(ag_tid t)
{
   if (ag_ho) ag_hbt_start(ag_ho, ag_hbt_tag(t));
}

void ag_ho_join(ag_tid joiner, ag_tid child)
{
   if (ag_ho) ag_hbt_join(ag_ho, ag_hbt_tag(joiner), ag_hbt_tag(child));
}

void ag_ho_lock(ag_tid t, Bool acquired)
{
   UInt *n = &ag_ho_held[ag_hbt_tag(t)];
   if (acquired) (*n)++;
   else if (*n > 0) (*n)--;
}

Bool ag_ho_holding(void) { return ag_ho_held[ag_ho_tag] > 0; }

Bool ag_ho_ordered(UWord stamp)
{
   return ag_ho && ag_hbt_ordered(ag_ho, ag_ho_tag, stamp & 0x7f, (UChar)(stamp >> 8));
}
