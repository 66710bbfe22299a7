/* ag_provenance.h -- where an instruction comes from, as far as the debug
 * information says (ag_provenance.c): the standard library's atomic
 * operations, or its reference counts. */
#ifndef AG_PROVENANCE_H
#define AG_PROVENANCE_H

#include "pub_tool_basics.h"     /* Addr, UInt */

#define AG_PROV_NONE     0
#define AG_PROV_ATOMIC   1   /* std::atomic's (and atomic_flag's, atomic_ref's)
                                own code: a load or store there is atomic */
#define AG_PROV_REFCOUNT 2   /* a reference count's update: shared_ptr's and
                                weak_ptr's control block, locales, facets */
#define AG_PROV_LIBC     3   /* libc's own code (its inline stdio locks:
                                ag_stdio.h) */

/* The class of the instruction at ip (rmw: it is a LOCK-prefixed
   read-modify-write).  Made at instrumentation time, from the source file
   of ip's line and the chain of functions inlined there (ag_inline.h). */
UInt ag_prov_of(Addr ip, Bool rmw);

/* v points into a C++ vtable (a data symbol _ZTV...): a constant stored
   there is an object's vtable pointer. */
Bool ag_prov_vtable(Addr v);

#endif
