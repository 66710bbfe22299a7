/*
   atomgrind.h -- client requests for atomgrind, a Valgrind tool that checks
   that code regions meant to run as one unit ran atomically
   (conflict-serializably) in the observed execution.

   Installed as <valgrind/atomgrind.h>.  Mark a region:

      ATOMGRIND_ATOMIC_BEGIN();
      ... code that must not be interleaved with conflicting work ...
      ATOMGRIND_ATOMIC_END();

   Regions nest; only the outermost pair counts.  When the program is not
   running under Valgrind each macro is a few instructions and does nothing.
*/
#ifndef __ATOMGRIND_H
#define __ATOMGRIND_H

#include <valgrind/valgrind.h>

typedef enum {
   VG_USERREQ__ATOMGRIND_ATOMIC_BEGIN = VG_USERREQ_TOOL_BASE('A', 'G'),
   VG_USERREQ__ATOMGRIND_ATOMIC_END,
   /* Requests from atomgrind's own preload library start here. */
   VG_USERREQ__ATOMGRIND_INTERNAL = VG_USERREQ_TOOL_BASE('A', 'G') + 0x100
} Vg_AtomgrindClientRequest;

/* Begin an atomic region in the calling thread. */
#define ATOMGRIND_ATOMIC_BEGIN()                                           \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__ATOMGRIND_ATOMIC_BEGIN,     \
                                   0, 0, 0, 0, 0)

/* End the innermost open atomic region of the calling thread. */
#define ATOMGRIND_ATOMIC_END()                                             \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__ATOMGRIND_ATOMIC_END,       \
                                   0, 0, 0, 0, 0)

#endif
