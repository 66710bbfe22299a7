/* ag_instrument.h -- VEX IR instrumentation of the program's memory
 * accesses (ag_instrument.c). */
#ifndef AG_INSTRUMENT_H
#define AG_INSTRUMENT_H

#include "pub_tool_basics.h"     /* IRType */
#include "pub_tool_tooliface.h"  /* IRSB, VgCallbackClosure, Vex* */

IRSB *ag_instrument(VgCallbackClosure *closure, IRSB *bb,
                    const VexGuestLayout *layout, const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
