/* ag_poll.c -- polling loops that wait by sleeping or yielding:
 *
 *    while (!ready) usleep(100);        while (!__atomic_load_n(&f, ...))
 *                                           sched_yield();
 *
 * ag_spin.c sees a spin loop only when it is one superblock; a loop that
 * calls sleep or yield is several, and the call's code is libc's.  So it
 * is recognised as it runs: after each sleep or yield (ag_poll_waits)
 * the thread's next AG_POLL_WINDOW accesses
 * outside libc are watched, up to its next acquire (a lock, a wakeup, a
 * join: what it reads after one is ordered by it), and a load at the same
 * instruction and address as one watched after an earlier wait, with no
 * store of the thread to that address watched in between, is a poll: it
 * waits for another thread's write, as a spin loop's load does, and race
 * mode takes it as an acquire load (AG_SPIN).  The location then becomes
 * an atomic object (ag_fasttrack.c), its earlier loads in the loop
 * included.  Only race mode asks; the cost outside windows is one test of
 * ag_poll_open. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"     /* VG_(DebugInfo_sect_kind): the GOT */
#include "pub_tool_libcbase.h"      /* VG_(memset) */
#include "pub_tool_libcproc.h"      /* VG_(atfork) */
#include "pub_tool_mallocfree.h"    /* VG_(calloc) */
#include "pub_tool_threadstate.h"   /* VG_N_THREADS */
#include "pub_tool_vkiscnums.h"     /* __NR_nanosleep & co. */
#include "ag_engine.h"              /* AG_WRITE, AG_ATOMIC, AG_SPIN */
#include "ag_options.h"             /* ag_clo_check: race mode */
#include "ag_stdio.h"               /* AG_IN_LIBC: libc's code */
#include "ag_poll.h"

#define AG_POLL_WINDOW 16    /* accesses watched after a wait */
#define AG_POLL_CANDS  16    /* loads remembered per thread */

typedef struct {
   Addr ip, a;               /* a load watched (0: none) ... */
   UInt wait;                /* ... after this wait of the thread */
} ag_poll_cand;

typedef struct {
   UInt window;              /* accesses still watched */
   UInt waits;               /* sleeps and yields so far */
   UInt next;                /* the candidate replaced next */
   ag_poll_cand c[AG_POLL_CANDS];
} ag_poll_thread;

UInt ag_poll_open;
static ag_poll_thread *ag_poll_th;

static void ag_poll_close(ag_poll_thread *p)
{
   if (p->window == 0) return;
   p->window = 0;
   ag_poll_open--;
}

/* A fork's child has the forking thread alone: the others' windows
   would stay open, and every access would ask. */
static void ag_poll_fork_child(ThreadId vgtid)
{
   (void)vgtid;
   VG_(memset)(ag_poll_th, 0, VG_N_THREADS * sizeof(ag_poll_thread));
   ag_poll_open = 0;
}

/* A sleep or a yield: nanosleep, clock_nanosleep, sched_yield, and
   select, pselect, poll or ppoll on no descriptor (a timeout alone: the
   portable sleep of older code). */
static Bool ag_poll_waits(UInt sysno, const UWord *args)
{
   switch (sysno) {
   case __NR_nanosleep: case __NR_clock_nanosleep: case __NR_sched_yield:
      return True;
#if defined(__NR_select)
   case __NR_select:
#endif
   case __NR_pselect6:
      return args[0] == 0;
#if defined(__NR_poll)
   case __NR_poll:
#endif
   case __NR_ppoll:
      return args[1] == 0;
   default:
      return False;
   }
}

void ag_poll_post_syscall(ThreadId vgtid, UInt sysno, const UWord *args)
{
   if (!(ag_clo_check & AG_CHECK_RACES) || vgtid >= VG_N_THREADS || !ag_poll_waits(sysno, args))
      return;
   if (!ag_poll_th) {
      ag_poll_th = VG_(calloc)("ag.poll", VG_N_THREADS, sizeof(ag_poll_thread));
      VG_(atfork)(NULL, NULL, ag_poll_fork_child);
   }
   ag_poll_thread *p = &ag_poll_th[vgtid];
   if (p->window == 0) ag_poll_open++;
   p->window = AG_POLL_WINDOW;
   p->waits++;
}

/* A PLT stub's load of its GOT entry, at every call of a library
   function: the same load after each wait, but no poll. */
static Bool ag_poll_got(Addr a)
{
   VgSectKind k = VG_(DebugInfo_sect_kind)(NULL, a);
   return k == Vg_SectGOT || k == Vg_SectGOTPLT;
}

UInt ag_poll_access(ThreadId vgtid, Addr a, UInt flags, Addr ip)
{
   if (vgtid >= VG_N_THREADS || !ag_poll_th) return 0;
   ag_poll_thread *p = &ag_poll_th[vgtid];
   /* libc's own (the sleep's return, a cancellation check) are no poll */
   if (p->window == 0 || (flags & AG_IN_LIBC)) return 0;
   if (--p->window == 0) ag_poll_open--;
   if (flags & AG_ATOMIC) return 0;
   ag_poll_cand *next = &p->c[p->next];
   for (UInt i = 0; i < AG_POLL_CANDS; i++) {
      ag_poll_cand *c = &p->c[i];
      if (c->a != a) continue;
      if (flags & AG_WRITE) {          /* its own store: no wait for others */
         c->ip = c->a = 0;
         continue;
      }
      if (c->ip == ip) return c->wait != p->waits ? AG_SPIN : 0;
   }
   if ((flags & AG_WRITE) || ag_poll_got(a)) return 0;
   *next = (ag_poll_cand){ ip, a, p->waits };
   p->next = (p->next + 1) % AG_POLL_CANDS;
   return 0;
}

void ag_poll_acquired(ThreadId vgtid)
{
   if (ag_poll_th && vgtid < VG_N_THREADS) ag_poll_close(&ag_poll_th[vgtid]);
}

void ag_poll_thread_exit(ThreadId vgtid)
{
   if (ag_poll_th && vgtid < VG_N_THREADS) {
      ag_poll_close(&ag_poll_th[vgtid]);
      VG_(memset)(&ag_poll_th[vgtid], 0, sizeof(ag_poll_thread));
   }
}
