/* ag_stdio.h -- glibc's stdio locks as locks (ag_stdio.c): the recursive
 * lock each FILE carries (_IO_lock_t: lock word, count, owner), which
 * libc takes inline, recognised from libc's own accesses, its lock word's
 * changes fed as acquires and releases, and its three words kept from the
 * engines as a mutex's internals are. */
#ifndef AG_STDIO_H
#define AG_STDIO_H

#include "pub_tool_basics.h"     /* Addr, UInt, Bool */
#include "ag_engine.h"           /* ag_tid */

/* The access flag (beside engine/ag_engine.h's AG_*, never given to an
   engine) of an instruction in libc's own code (ag_provenance.c). */
#define AG_IN_LIBC 0x4000u

/* What ag_stdio needs of analysis, which calls it (layers: it is below). */
typedef struct {
   void (*acquire)(ag_tid t, Addr lock);
   void (*release)(ag_tid t, Addr lock);
   void (*forget)(Addr a, SizeT len);      /* the engines drop what they know */
} ag_stdio_ops;
void ag_stdio_init(const ag_stdio_ops *ops);

/* An access by libc's code (flags has AG_IN_LIBC), before it is fed:
   True if it is the lock's own (an acquire or release is fed for it
   here, or nothing), and the engines must not see it. */
Bool ag_stdio_access(ag_tid t, Addr a, UInt size, UInt flags);
/* f is a FILE (the preload library's stdin, stdout, stderr): known from
   now on, with its lock, if it has glibc's layout. */
void ag_stdio_file(Addr f);
/* Does [a, a+size) lie in a known lock (a futex call's word)? */
Bool ag_stdio_lock_word(Addr a, UInt size);
/* [a, a+len) is freed or unmapped: locks there are forgotten. */
void ag_stdio_forget(Addr a, SizeT len);
void ag_stdio_fini(void);               /* -v: what the model did */

#endif
