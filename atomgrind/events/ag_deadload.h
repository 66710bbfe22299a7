/* ag_deadload.h -- loads VEX deleted before instrumentation (ag_deadload.c). */
#ifndef AG_DEADLOAD_H
#define AG_DEADLOAD_H

#include "pub_tool_basics.h"

/* Is the amd64 instruction at ip (len bytes) a plain load into a register
   from a RIP-relative address: mov, movzx, movsx, movsxd?  Then *addr and
   *size say what it reads.  Used for an instruction whose IR has no load
   left: VEX's optimiser deletes a load whose value is never used (a
   `(void)y` of a volatile global) before any tool sees the block. */
Bool ag_deadload_decode(Addr ip, UInt len, Addr *addr, UInt *size);

#endif
