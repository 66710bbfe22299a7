/* ag_fd.h -- ordering through file descriptors, and the memory system
 * calls read and write, for the race engine (ag_fd.c).  After
 * ThreadSanitizer's tsan_fd: bytes written to a pipe or socket happen
 * before the read that gets them; closing a descriptor races with its
 * use by another thread. */
#ifndef AG_FD_H
#define AG_FD_H

#include "pub_tool_basics.h"     /* Addr, Int */

/* Each descriptor's use and close are a read and a write of one byte at
   a made-up address, outside any address a program can map (the race
   reports say which descriptor it stands for). */
#define AG_FD_LOC_BASE  0xFFFFE00000000000ULL
#define AG_FD_LOC_LIMIT 0xFFFFE00010000000ULL

/* The descriptor whose use a race report's address stands for, or -1. */
static inline Int ag_fd_of_loc(Addr a)
{
   if (a < AG_FD_LOC_BASE || a >= AG_FD_LOC_LIMIT) return -1;
   return (Int)((a - AG_FD_LOC_BASE) / 8);
}

/* The core's system-call callbacks (ag_main.c calls these around the
   scheduler's): a descriptor's release before the call, its acquire after
   a call that succeeded. */
void ag_fd_pre_syscall(ThreadId vgtid, UInt sysno, UWord *args);
void ag_fd_post_syscall(ThreadId vgtid, UInt sysno, UWord *args, SysRes res);
/* Memory touched by system calls; nothing unless races are checked. */
void ag_fd_init(void);

#endif
