/* ag_ltonames.h -- names for the inlined frames Valgrind 3.19 calls
 * "UnknownInlinedFun": under link-time optimisation the name is in another
 * compilation unit, which its DWARF reader does not follow.  The
 * atomgrind-inlines helper (installed beside the tool, built with elfutils)
 * reads them, once per object that has such a frame (ag_ltonames.c). */
#ifndef AG_LTONAMES_H
#define AG_LTONAMES_H

#include "pub_tool_basics.h"     /* Addr, Int, HChar, Bool */

#define AG_LTO_UNKNOWN "UnknownInlinedFun"   /* Valgrind's name for them */

/* The name of the inlined instance at ip that has depth instances around
   it in its function (0: inlined straight into it) and was called from
   line call_line (0: do not check), or NULL when not known. */
const HChar *ag_lto_name(Addr ip, Int depth, Int call_line);

/* Why some object's names could not be read ("" when none failed): a
   clause for the exit's explanation, valid for the run. */
const HChar *ag_lto_failure(void);

void ag_lto_fini(void);          /* --stats */

#endif
