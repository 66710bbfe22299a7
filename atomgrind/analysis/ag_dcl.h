/* ag_dcl.h -- check-lock-recheck (double-checked locking) for the
 * atomicity engines (ag_dcl.c): an atomic load that finds a location zero
 * outside any lock, inside an atomic region, is held back until the
 * thread's next access to that location shows whether it was the first
 * check of a DCL (a re-read of it under a lock the writers held). */
#ifndef AG_DCL_H
#define AG_DCL_H

#include "pub_tool_basics.h"     /* Addr, UInt, Bool */
#include "ag_engine.h"           /* ag_tid */

/* What ag_dcl needs of analysis, which calls it (layers: it is below). */
typedef struct {
   void (*feed)(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);  /* to the engines */
   void (*report)(ag_violation *v);
   ULong (*events)(void);                  /* events the engine counted */
} ag_dcl_ops;
void ag_dcl_init(const ag_dcl_ops *ops);

/* Non-zero while some thread has a load held back, or some access may
   start holding one: ag_an_access calls ag_dcl_access only then. */
extern UInt ag_dcl_nheld;

/* Called by analysis before it feeds the access; True: the access is
   held back (ag_dcl feeds it later, or drops it as a DCL's first check). */
Bool ag_dcl_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);
/* The thread's outermost region begins (site: its begin) or ends, it exits, it takes or lets go a
   lock: before the event is fed. */
void ag_dcl_begin(ag_tid t, ULong site);
void ag_dcl_end(ag_tid t);
void ag_dcl_lock(ag_tid t, Addr lock, Bool acquire);
/* Whether a std::atomic load may be held (atomicity checked, races not). */
extern Bool ag_dcl_on;
void ag_dcl_fini(void);                 /* -v: what the rule did */

#endif
