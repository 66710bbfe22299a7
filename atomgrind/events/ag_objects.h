/* ag_objects.h -- which loaded objects are atomgrind's own, Valgrind's
 * preloads or the dynamic linker (ag_objects.c). */
#ifndef AG_OBJECTS_H
#define AG_OBJECTS_H

#include "pub_tool_basics.h"     /* Addr, Bool */

Bool ag_preload_present(void);   /* our pthread wrappers are mapped */
Bool ag_object_skipped(Addr a);  /* code at a is not the program's */
Bool ag_object_system(Addr a);   /* code at a is the C runtime's */
Bool ag_object_runtime(Addr a);  /* ... or the dynamic linker's */
Bool ag_object_block_fn(Addr a); /* ... in memcpy, memmove, memset & co. */

#endif
