/* ag_atomictypes.h -- C11 _Atomic objects and C++ std::atomic ones at
 * fixed addresses, from the debug information's types (ag_atomictypes.c):
 * a plain load or store of one is an atomic access (x86 compiles relaxed,
 * acquire and release loads and stores of them, and seq_cst loads, to
 * plain movs). */
#ifndef AG_ATOMICTYPES_H
#define AG_ATOMICTYPES_H

#include "pub_tool_basics.h"     /* Addr, UInt, Bool */

/* Is [a, a+size) inside a variable whose type is _Atomic or std::atomic?  For
   instrumentation time only: reads the object's debug information the
   first time one of its addresses is asked about. */
Bool ag_at_is_atomic(Addr a, UInt size);

#endif
