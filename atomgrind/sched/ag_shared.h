/* ag_shared.h -- which accesses are scheduling points: those to a location
 * that more than one thread has touched and some thread writes
 * (ag_shared.c).  Read inline by the instrumentation; calls the scheduler. */
#ifndef AG_SHARED_H
#define AG_SHARED_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, UChar */
#include "ag_engine.h"           /* ag_tid */
#include "ag_schedpol.h"         /* the slot values */

/* The owner table: two bytes per 8-byte slot of the address space,
   hashed (ag_shared_slot).  The low byte is the state: 0 untouched; a
   thread's tag T (1..AG_SHARED_TAGS): private to T; T | AG_SHARED_TRY:
   T's as far as seen, but touched while another thread was waiting to
   run, so it may be the other's next; AG_SHARED_READ: read by several
   threads, not written since; AG_SHARED_BOTH: touched by several with no
   happens-before between them, written.  With a tag, the high byte is
   T's clock when it last touched the slot (analysis/ag_handoff.h's
   stamp): another thread whose present that access happened before takes
   the slot over with no point.  Instrumented code calls ag_shared_access
   only when the slot is not the running thread's stamp (ag_ho_word) nor
   AG_SHARED_READ for a load: private and read-only data cost the test
   alone, and a thread's own slots one call each after its release.
   Slots that collide only make more calls. */
#define AG_SHARED_BITS  23
#define AG_SHARED_MASK  ((1UL << AG_SHARED_BITS) - 1)
#define AG_SHARED_TAGS  AG_SP_TAGS
#define AG_SHARED_READ  AG_SP_READ
#define AG_SHARED_TRY   AG_SP_TRY
#define AG_SHARED_BOTH  AG_SP_BOTH

/* The slot of address a: bits above the table's reach folded in, so that
   glibc's per-thread arenas (64 MB apart) do not collide slot for slot. */
#define AG_SHARED_FOLD  23
static inline UWord ag_shared_slot(Addr a)
{
   return ((a >> 3) ^ (a >> AG_SHARED_FOLD)) & AG_SHARED_MASK;
}

extern UShort *ag_shared_owner;         /* the table (fixed once allocated) */
extern Bool ag_shared_on;               /* accesses are points (read at translation) */

/* A superblock's record, for quiet code (ag_shared.c): the shared tests of
   a superblock are dropped once it has run AG_SHARED_QUIET times with
   fewer than one point in AG_SHARED_RARE runs, while other threads could
   run.  At a fixed address (translations hold it) from its first
   translation to the end. */
#define AG_SHARED_QUIET 4096
#define AG_SHARED_RARE  256
typedef struct {
   Addr base;             /* the superblock's first guest byte ... */
   UInt len;              /* ... and its first extent's length */
   volatile UInt left;    /* runs left before the verdict (counted down inline) */
   UInt points;           /* its accesses that were points, in these runs */
   Bool quiet;            /* translated without shared tests from now on */
} ag_shared_sb;

void ag_shared_init(void);              /* after the options are known */
ag_shared_sb *ag_shared_sb_of(Addr base, UInt len);  /* at translation */
void ag_shared_sb_expired(ag_shared_sb *b);          /* its count reached 0 */
void ag_shared_fini(void);              /* --stats */
void ag_shared_stopped(ThreadId vgtid); /* between runs: quiet code translated again */
void ag_shared_fresh(Addr a, SizeT len);  /* [a, a+len) is new memory: nobody's */
/* Thread t's system call wrote [a, a+len): its slots that nobody else
   touched become t's own (ag_shared_written). */
void ag_shared_written(ag_tid t, Addr a, SizeT len);
/* The running thread vgtid accesses a (flags: AG_WRITE ...) at ip and the
   inline test found its slot not the thread's own; stack_tag: the tag of
   the thread on whose live stack a lies (between its SP, less the red
   zone, and its top), 0 if none. */
void ag_shared_access(ThreadId vgtid, Addr a, UInt flags, Addr ip, UChar stack_tag,
                      ag_shared_sb *b);
/* The state byte of a's slot (0: untouched). */
static inline UChar ag_shared_state(Addr a)
{
   return (UChar)ag_shared_owner[ag_shared_slot(a)];
}

#endif
