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

#ifdef __cplusplus
/* C++: a region that ends with the enclosing scope, however the scope is
   left -- the end of the block, return, or an exception passing through:

      { ATOMGRIND_ATOMIC_SCOPE(); ... }

   (Without it, an exception thrown between BEGIN and END leaves the region
   open; atomgrind reports that as a misuse when it tracks frames.)  The
   constructor is always inlined, so that the region belongs to the
   caller's frame even at -O0. */
#if defined(__GNUC__)
#define ATOMGRIND_INLINE_ inline __attribute__((always_inline))
#else
#define ATOMGRIND_INLINE_ inline
#endif
class AtomgrindAtomicScope {
public:
   ATOMGRIND_INLINE_ AtomgrindAtomicScope() { ATOMGRIND_ATOMIC_BEGIN(); }
   ATOMGRIND_INLINE_ ~AtomgrindAtomicScope() { ATOMGRIND_ATOMIC_END(); }
private:
   AtomgrindAtomicScope(const AtomgrindAtomicScope &);
   AtomgrindAtomicScope &operator=(const AtomgrindAtomicScope &);
};
#define ATOMGRIND_CAT2_(a, b) a##b
#define ATOMGRIND_CAT_(a, b) ATOMGRIND_CAT2_(a, b)
#define ATOMGRIND_ATOMIC_SCOPE() \
   AtomgrindAtomicScope ATOMGRIND_CAT_(atomgrind_scope_, __LINE__)
#endif

#endif
