/* ag_callsite.h -- the program's own frame of a call into libc or
 * atomgrind's preload library (ag_callsite.c). */
#ifndef AG_CALLSITE_H
#define AG_CALLSITE_H

#include "pub_tool_basics.h"     /* ThreadId, Addr */

/* The code address of the innermost frame of vgtid's stack outside libc,
   the dynamic loader and the preload library: where the program called
   the system call or pthread function that is running.  Accesses that
   no instruction makes are known by it (a race report names their
   earlier access by one code address). */
Addr ag_callsite(ThreadId vgtid);
/* The same within the first `frames` frames (fewer to unwind: a pthread
   call's wrapper is one frame deep). */
Addr ag_callsite_within(ThreadId vgtid, UInt frames);
/* The stack pointer in that frame (0 if none was found): the program's
   frames live at and above it. */
Addr ag_callsite_sp(ThreadId vgtid);

/* Whether a function called `name` is on vgtid's stack (its innermost
   16 frames). */
Bool ag_callsite_under(ThreadId vgtid, const HChar *name);

#endif
