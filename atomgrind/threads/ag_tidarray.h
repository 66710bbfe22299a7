/* ag_tidarray.h -- arrays indexed by thread id that grow on demand (ag_tidarray.c). */
#ifndef AG_TIDARRAY_H
#define AG_TIDARRAY_H

#include "pub_tool_basics.h"

/* Make arr (of *cap elements of elem bytes) hold index t: doubled from 16
   until it does, the new elements zeroed.  Returns the array; *cap is the
   new capacity.  Nothing is done while t < *cap. */
void *ag_tidarray_grow(const HChar *cc, void *arr, UInt *cap, UInt t, SizeT elem);

#endif
