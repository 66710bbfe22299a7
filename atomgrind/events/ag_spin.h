/* ag_spin.h -- recognising spin loops in VEX IR (ag_spin.c). */
#ifndef AG_SPIN_H
#define AG_SPIN_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"   /* IRSB, VexGuestExtents */

typedef enum {
   AG_SPIN_NONE,
   /* A spin loop: one guest range that only reads memory (no store, CAS
      or dirty memory effect), at loop-invariant addresses, and jumps back
      to its own start.  Its loads then wait for a value another thread
      writes (Jannesari & Tichy, IPDPS 2010). */
   AG_SPIN_LOOP,
   /* A spin loop that goes round only while it waits for another thread:
      its exits are decided by what it loads alone (not a counted loop
      that reads a volatile). */
   AG_SPIN_WAITS
} ag_spin_kind;

/* Which of these the superblock is. */
ag_spin_kind ag_spin_classify(IRSB *bb, const VexGuestExtents *vge);

/* The waiting loop bb (starting at base), made to end the thread's timeslice
   soon after each jump back to its start, so that the thread it waits for
   gets the CPU (ag_spin.c says how). */
IRSB *ag_spin_yield(IRSB *bb, Addr base);

#endif
