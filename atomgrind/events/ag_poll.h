/* ag_poll.h -- polling loops that wait by sleeping or yielding
 * (ag_poll.c): their loads are acquire loads in race mode. */
#ifndef AG_POLL_H
#define AG_POLL_H

#include "pub_tool_basics.h"

/* Threads whose window is open: while 0, ag_poll_access need not be
   asked (the hot path's test). */
extern UInt ag_poll_open;

/* A system call returned (args: its arguments): a sleep or a yield
   opens vgtid's window. */
void ag_poll_post_syscall(ThreadId vgtid, UInt sysno, const UWord *args);
/* An access of vgtid at ip (AG_* flags, ag_engine.h): AG_SPIN if it is
   the load of a polling loop, else 0. */
UInt ag_poll_access(ThreadId vgtid, Addr a, UInt flags, Addr ip);
/* vgtid acquired a lock, was woken, joined: its window closes (a loop
   that sleeps and then works under a lock polls nothing). */
void ag_poll_acquired(ThreadId vgtid);
/* vgtid is gone: its window closes (its ThreadId may be reused). */
void ag_poll_thread_exit(ThreadId vgtid);

#endif
