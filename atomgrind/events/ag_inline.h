/* ag_inline.h -- the functions whose code is at an address: the inlined
 * instances the compiler folded in there, innermost first, then the function
 * they were inlined into (ag_inline.c).  Read from the debug information's
 * inline records (--read-inline-info, on by default for atomgrind). */
#ifndef AG_INLINE_H
#define AG_INLINE_H

#include "pub_tool_basics.h"     /* Addr, Int, HChar */

#define AG_INLINE_MAX 16         /* deeper chains are cut at the outer end */

/* The chain at ip: names[0] is the innermost function (an inlined instance,
   or the real function when nothing was inlined there), names[n-1] the
   function that holds the code.  Returns n, 0 when ip has no name at all.
   The names are valid until the next call; copy what you keep. */
Int ag_inline_chain(Addr ip, const HChar **names, Int max);

/* The same, with each frame's location in wheres[i]: for names[0] the
   line of ip, for the others the line of the call that was inlined
   ("(file:line)"; "" when unknown).  Valid until the next call. */
Int ag_inline_frames(Addr ip, const HChar **names, const HChar **wheres, Int max);

/* The line number in a location of wheres[] ("(file:line)"), 0 when none. */
Int ag_inline_line(const HChar *where);

#endif
