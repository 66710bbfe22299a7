/* ag_fd.c -- what system calls mean for races: ordering through file
 * descriptors, as ThreadSanitizer's tsan_fd models it, and the memory the
 * kernel reads and writes for the calling thread (end of the file).
 *
 * Each descriptor stands for a synchronisation object (a key, an address
 * no program can map): a write or send releases it before the call, a
 * read or receive that succeeds acquires it after.  Both ends of a pipe
 * or socketpair share one; every socket shares one, as do all regular
 * files (the kernel's file data is one shared store; TSan's choice);
 * epoll_ctl releases the epoll descriptor and an epoll_wait that returns
 * events acquires it; connect releases, and accept acquires, one object
 * for every connection.  Each descriptor also has a byte of its own
 * (ag_fd.h): a use reads it and close, or dup2 onto it, writes it, so
 * closing a descriptor that another thread is using is a race.  A new
 * descriptor starts with a fresh byte (the kernel ordered its creation
 * after the close that freed its number). */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"    /* VG_(track_*_mem_*), CorePart */
#include "pub_tool_libcbase.h"     /* VG_(strlen), VG_(strcmp) */
#include "pub_tool_machine.h"      /* VG_(get_SP): the caller's own stack */
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "pub_tool_threadstate.h"  /* VG_N_THREADS */
#include "pub_tool_vki.h"          /* VKI_F_DUPFD */
#include "pub_tool_vkiscnums.h"    /* __NR_* */
#include "ag_analysis.h"           /* ag_an_order, ag_an_world_access */
#include "ag_callsite.h"           /* the program's frame of the call */
#include "ag_fd.h"
#include "ag_map.h"                /* descriptor -> key, key -> references */
#include "ag_options.h"            /* --check */
#include "ag_shared.h"             /* a buffer a call filled: the thread's */
#include "ag_threads.h"            /* the calling thread's engine id */

/* Keys: three shared objects, then one per pipe, epoll instance, ... */
#define AG_FD_KEY_FILES   0xFFFFD00000000000ULL
#define AG_FD_KEY_SOCKETS (AG_FD_KEY_FILES + 8)
#define AG_FD_KEY_CONNECT (AG_FD_KEY_FILES + 16)
#define AG_FD_KEY_FRESH   (AG_FD_KEY_FILES + 64)
/* one per signal number, below the descriptors' keys */
#define AG_FD_KEY_SIGNAL(s) (0xFFFFCF0000000000ULL + 8 * (Addr)((s) & 0xff))

static Bool ag_fd_on;               /* races are checked */
static ag_map *ag_fd_keys;          /* descriptor -> Addr key */
static ag_map *ag_fd_refs;          /* fresh key -> descriptors using it */
static Addr ag_fd_next = AG_FD_KEY_FRESH;

/* The calling thread; NULL inside a synchronisation call (its
   internals), or when races are not checked. */
static ag_thread *ag_fd_thread(ThreadId vgtid)
{
   if (!ag_fd_on) return NULL;
   ag_thread *th = ag_thread_of(vgtid);
   return th->valid && th->ignore == 0 ? th : NULL;
}

/* ---- keys -------------------------------------------------------------- */

static void ag_fd_unref(Addr key)
{
   if (key < AG_FD_KEY_FRESH) return;
   UInt *n = ag_map_get(ag_fd_refs, key);
   if (n && *n > 0 && --*n == 0) {
      ag_an_forget(key, 1);          /* the engines drop its clock */
   }
}

static void ag_fd_set(Int fd, Addr key)
{
   if (fd < 0) return;
   Addr *k = ag_map_lookup(ag_fd_keys, (ULong)fd, NULL);
   if (*k) ag_fd_unref(*k);
   *k = key;
   if (key >= AG_FD_KEY_FRESH) (*(UInt *)ag_map_lookup(ag_fd_refs, key, NULL))++;
   ag_an_forget(AG_FD_LOC_BASE + 8 * (Addr)fd, 8);     /* a new descriptor */
}

static Addr ag_fd_fresh(void)
{
   Addr k = ag_fd_next;
   ag_fd_next += 8;
   return k;
}

/* A descriptor not seen made (inherited, or made by a call not modelled)
   gets an object of its own. */
static Addr ag_fd_key(Int fd)
{
   Addr *k = ag_map_get(ag_fd_keys, (ULong)fd);
   if (k && *k) return *k;
   Addr key = ag_fd_fresh();
   Addr *n = ag_map_lookup(ag_fd_keys, (ULong)fd, NULL);
   *n = key;
   (*(UInt *)ag_map_lookup(ag_fd_refs, key, NULL))++;
   return key;
}

static Bool ag_fd_open(Int fd)
{
   Addr *k = ag_map_get(ag_fd_keys, (ULong)fd);
   return k && *k;
}

static void ag_fd_drop(Int fd)
{
   Addr *k = ag_map_get(ag_fd_keys, (ULong)fd);
   if (!k || !*k) return;
   ag_fd_unref(*k);
   *k = 0;                           /* (0: no descriptor) */
}

/* ---- events ------------------------------------------------------------ */

/* A use (a read of its byte) or a close (a write), at the program's frame. */
static void ag_fd_touch(ThreadId vgtid, ag_tid t, Int fd, Bool close)
{
   if (fd < 0 || AG_FD_LOC_BASE + 8 * (Addr)fd >= AG_FD_LOC_LIMIT) return;
   ag_an_world_access(t, AG_FD_LOC_BASE + 8 * (Addr)fd, 1, close, ag_callsite(vgtid));
}

static void ag_fd_release(ag_tid t, Int fd) { if (fd >= 0) ag_an_order(t, ag_fd_key(fd), True); }
static void ag_fd_acquire(ag_tid t, Int fd) { if (fd >= 0) ag_an_order(t, ag_fd_key(fd), False); }

/* The two descriptors a pipe or socketpair wrote to the program's array. */
static void ag_fd_pair(const Int *fds)
{
   Addr key = ag_fd_fresh();
   ag_fd_set(fds[0], key);
   ag_fd_set(fds[1], key);
}

/* Before the call: uses, closes, releases. */
static void ag_fd_before(ThreadId vgtid, ag_tid t, UInt sysno, const UWord *args)
{
   Int fd = (Int)args[0];
   switch (sysno) {
   case __NR_write: case __NR_pwrite64: case __NR_writev: case __NR_pwritev:
   case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
   case __NR_epoll_ctl:
      ag_fd_touch(vgtid, t, fd, False);
      ag_fd_release(t, fd);
      break;
   case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv:
   case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
   case __NR_epoll_wait: case __NR_epoll_pwait:
   case __NR_accept: case __NR_accept4:
      ag_fd_touch(vgtid, t, fd, False);
      break;
   case __NR_connect:
      ag_fd_touch(vgtid, t, fd, False);
      ag_an_order(t, AG_FD_KEY_CONNECT, True);
      break;
   case __NR_close:
      ag_fd_touch(vgtid, t, fd, True);
      ag_fd_drop(fd);
      break;
   case __NR_dup2: case __NR_dup3:
      /* onto an open descriptor: a use of it, as in ThreadSanitizer (the
         kernel replaces it at once, and programs dup /dev/null or a closed
         pipe onto descriptors other threads use, on purpose) */
      ag_fd_touch(vgtid, t, fd, False);
      if ((Int)args[1] != fd && ag_fd_open((Int)args[1]))
         ag_fd_touch(vgtid, t, (Int)args[1], False);
      break;
   default:
      break;
   }
}

/* After a call that succeeded with result r: acquires, new descriptors. */
static void ag_fd_after(ThreadId vgtid, ag_tid t, UInt sysno, const UWord *args, UWord r)
{
   Int fd = (Int)args[0];
   switch (sysno) {
   case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv:
   case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
      ag_fd_acquire(t, fd);
      break;
   case __NR_epoll_wait: case __NR_epoll_pwait:
      if (r > 0) ag_fd_acquire(t, fd);
      break;
   case __NR_accept: case __NR_accept4:
      ag_an_order(t, AG_FD_KEY_CONNECT, False);
      ag_fd_set((Int)r, AG_FD_KEY_SOCKETS);
      break;
   case __NR_socket: ag_fd_set((Int)r, AG_FD_KEY_SOCKETS); break;
   case __NR_connect: ag_fd_set(fd, AG_FD_KEY_SOCKETS); break;
   case __NR_open: case __NR_openat: case __NR_creat:
      ag_fd_set((Int)r, AG_FD_KEY_FILES);
      break;
   case __NR_pipe: case __NR_pipe2: ag_fd_pair((const Int *)args[0]); break;
   case __NR_socketpair: ag_fd_pair((const Int *)args[3]); break;
   case __NR_epoll_create: case __NR_epoll_create1: case __NR_eventfd:
   case __NR_eventfd2: case __NR_signalfd: case __NR_signalfd4:
   case __NR_timerfd_create: case __NR_inotify_init: case __NR_inotify_init1:
      ag_fd_set((Int)r, ag_fd_fresh());
      break;
   case __NR_dup: case __NR_dup2: case __NR_dup3:
      if ((Int)r != fd) ag_fd_set((Int)r, ag_fd_key(fd));
      /* the new descriptor's use stays: a close unordered with the dup
         races with it */
      if (sysno != __NR_dup && (Int)r != fd) ag_fd_touch(vgtid, t, (Int)r, False);
      break;
   case __NR_fcntl:
      if (args[1] == VKI_F_DUPFD || args[1] == VKI_F_DUPFD_CLOEXEC)
         ag_fd_set((Int)r, ag_fd_key(fd));
      break;
   default:
      break;
   }
}

/* ---- memory that system calls read and write --------------------------- */

/* The system call each thread is in (0: none), for the callbacks below,
   which are not told.  A futex call's accesses to its word (the core's
   PRE and POST(sys_futex) read and "write" it) are none of the program's:
   the kernel only reads the word, atomically, and it is a lock's or an
   atomic wait's (std::counting_semaphore, atomic<T>::wait), which the
   program updates atomically too. */
static UInt *ag_fd_sysno;

/* The kernel reads a write()'s buffer and fills a read()'s for the
   calling thread: those are its accesses, at the call.  The core tells
   tools (the same callbacks Memcheck checks definedness with); a
   buffer on the caller's own stack is its own, as for instructions. */
static void ag_fd_mem(ThreadId vgtid, Addr a, SizeT len, Bool write)
{
   ag_thread *th = ag_fd_thread(vgtid);
   if (!th || len == 0) return;
   if (!ag_clo_check_stack_var && a <= th->stack_max
       && VG_(get_SP)(vgtid) <= a + VG_STACK_REDZONE_SZB) return;
   ag_an_running(vgtid);
   ag_an_world_access(th->tid, a, len, write, ag_callsite(vgtid));
}

/* exit() writes out every stdio buffer without taking the FILE locks
   (glibc's _IO_cleanup), so the kernel's read of a buffer there is
   unordered with threads still printing into it: like the rest of that
   flush (atomgrind.supp), not the program's race. */
static void ag_fd_pre_mem_read(CorePart part, ThreadId vgtid, const HChar *what,
                               Addr a, SizeT len)
{
   (void)what;
   if (part != Vg_CoreSysCall || !ag_fd_thread(vgtid)) return;
   if (VG_(strcmp)(what, "write(buf)") == 0 && ag_callsite_under(vgtid, "_IO_cleanup")) return;
   if (ag_fd_sysno[vgtid] == __NR_futex) return;
   ag_fd_mem(vgtid, a, len, False);
}

static void ag_fd_pre_mem_read_asciiz(CorePart part, ThreadId vgtid, const HChar *what,
                                      Addr a)
{
   (void)what;
   if (part == Vg_CoreSysCall && ag_fd_thread(vgtid))
      ag_fd_mem(vgtid, a, VG_(strlen)((const HChar *)a) + 1, False);
}

static void ag_fd_post_mem_write(CorePart part, ThreadId vgtid, Addr a, SizeT len)
{
   if (part != Vg_CoreSysCall || ag_fd_sysno[vgtid] == __NR_futex) return;
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid || th->ignore > 0) return;
   ag_shared_written(th->tid, a, len);     /* the scheduler's owner table */
   if (ag_fd_on) ag_fd_mem(vgtid, a, len, True);
}

/* ---- the core's system-call callbacks (through ag_main.c) ------------- */

/* ---- signals ----------------------------------------------------------- */

/* Installing a handler, and sending a signal, happen before the handler
   runs for it (as in ThreadSanitizer): glibc's setxid broadcast writes
   its command before the tgkill whose handler reads it; a program sets
   what its handler reads before sigaction.  Also inside a pthread call
   (pthread_kill is one). */
static Int ag_fd_signo(UInt sysno, const UWord *args)
{
   switch (sysno) {
   case __NR_rt_sigaction: return args[1] ? (Int)args[0] : -1;
   case __NR_kill: case __NR_tkill: case __NR_rt_sigqueueinfo: return (Int)args[1];
   case __NR_tgkill: case __NR_rt_tgsigqueueinfo: return (Int)args[2];
   default: return -1;
   }
}

static void ag_fd_signal_sent(ThreadId vgtid, UInt sysno, const UWord *args)
{
   Int sig = ag_fd_signo(sysno, args);
   if (sig <= 0 || sig > 64 || !ag_fd_on) return;
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_an_running(vgtid);
   ag_an_order(th->tid, AG_FD_KEY_SIGNAL(sig), True);
}

/* glibc's SIGSETXID (SIGRTMIN + 1): its handler is glibc's own, which
   no program can replace; it works on the command in the setuid() caller's
   frame and wakes it with a futex, a protocol whose waiting side reads a
   plain word (the count its handlers decrement).  Its accesses are glibc's
   internals, as a pthread call's are (without this, the caller's later
   frames there raced with the handler's last accesses: race_signal
   setuid, in a quarter of runs). */
#define AG_FD_SIGSETXID 33

static void ag_fd_pre_deliver_signal(ThreadId vgtid, Int sig, Bool alt_stack)
{
   (void)alt_stack;
   if (sig <= 0 || sig > 64) return;
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_an_running(vgtid);
   ag_an_order(th->tid, AG_FD_KEY_SIGNAL(sig), False);
   if (sig == AG_FD_SIGSETXID) th->ignore++;
}

static void ag_fd_post_deliver_signal(ThreadId vgtid, Int sig)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (sig == AG_FD_SIGSETXID && th->valid && th->ignore > 0) th->ignore--;
}

void ag_fd_pre_syscall(ThreadId vgtid, UInt sysno, UWord *args)
{
   ag_fd_sysno[vgtid] = sysno;
   ag_fd_signal_sent(vgtid, sysno, args);
   ag_thread *th = ag_fd_thread(vgtid);
   if (!th) return;
   ag_an_running(vgtid);
   ag_fd_before(vgtid, th->tid, sysno, args);
}

void ag_fd_post_syscall(ThreadId vgtid, UInt sysno, UWord *args, SysRes res)
{
   ag_fd_sysno[vgtid] = 0;
   ag_thread *th = ag_fd_thread(vgtid);
   if (!th || sr_isError(res)) return;
   ag_an_running(vgtid);
   ag_fd_after(vgtid, th->tid, sysno, args, sr_Res(res));
}

void ag_fd_init(void)
{
   ag_fd_on = (ag_clo_check & AG_CHECK_RACES) != 0;
   ag_fd_keys = ag_map_new(sizeof(Addr));
   ag_fd_refs = ag_map_new(sizeof(UInt));
   ag_fd_sysno = VG_(calloc)("ag.fd.sysno", VG_N_THREADS, sizeof(UInt));
   VG_(track_post_mem_write)(ag_fd_post_mem_write);
   if (!ag_fd_on) return;
   VG_(track_pre_mem_read)(ag_fd_pre_mem_read);
   VG_(track_pre_mem_read_asciiz)(ag_fd_pre_mem_read_asciiz);
   VG_(track_pre_deliver_signal)(ag_fd_pre_deliver_signal);
   VG_(track_post_deliver_signal)(ag_fd_post_deliver_signal);
}
