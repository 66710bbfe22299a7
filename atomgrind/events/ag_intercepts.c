/* ag_intercepts.c -- the preload library's pthread wrappers.
 *
 * Built into vgpreload_atomgrind-amd64-linux.so, which runs on the
 * simulated CPU inside the client.  Each wrapper calls the real function
 * between AG_CR_IGNORE_PUSH and AG_CR_IGNORE_POP, so the memory accesses
 * the library makes to lock words, condvars, semaphores ... are not taken
 * for program accesses, and reports what happened with the requests of
 * ag_requests.h (where each request says whether it goes before or after
 * the real call).
 *
 * Names.  glibc 2.34 and later keep the pthread functions in libc.so.6;
 * libpthread.so.0 is an empty stub kept for old binaries.  We wrap both
 * sonames.  Valgrind matches a wrapper against every name a symbol has:
 * the plain name from .dynsym and, when libc's debug info is installed
 * (libc6-dbg), the versioned names of .symtab such as
 * "pthread_cond_wait@@GLIBC_2.3.2" and "pthread_cond_wait@GLIBC_2.2.5";
 * hence each function is also wrapped as name@*.  (Not as name$*, the
 * form Darwin uses: every wrapper name is matched against every symbol
 * of libc at start-up, and a third name cost 0.015 s a run.)  One
 * address often carries several of these names; every wrapper of one
 * function carries the same behavioural-equivalence tag, so the
 * redirector treats the extra bindings as duplicates instead of warning
 * about conflicts.
 *
 * Two glibc facts shape the code below (checked on Debian 12, glibc 2.36):
 *
 *  - pthread_cond_{wait,timedwait,signal,broadcast}@GLIBC_2.2.5, the
 *    compatibility versions for binaries older than glibc 2.3.2, take a
 *    pointer-sized cond, allocate the real one on first use and tail-call
 *    the @@GLIBC_2.3.2 version.  Valgrind redirects by address, so such a
 *    call runs two of our wrappers, one inside the other.  The outer one
 *    reports (with the address the program knows); a per-thread nesting
 *    count keeps the inner one quiet.  Both still bracket with IGNORE.
 *
 *  - pthread_spin_init and pthread_spin_unlock are one function on x86-64
 *    (both store "unlocked" into the word), so they have one address and
 *    one wrapper runs for both, unable to tell which the program called.
 *    It sends AG_CR_SPIN_INIT_OR_UNLOCK and the tool decides: a release
 *    if the calling thread holds the lock, else an init.
 *
 * pthread_once is not bracketed as a whole: the init routine's accesses
 * are program accesses.  The wrapper brackets the real call but passes a
 * trampoline as the init routine, which pops the bracket around the
 * user's routine, so only pthread_once's own work on the control word is
 * ignored.
 *
 * Families of wrappers that differ only in their arguments (lock, trylock,
 * timedlock, clocklock; the joins; the condvar and semaphore waits ...)
 * are generated from one shape each (see "Shapes"), as DRD's PTH_FUNCS.
 *
 * A call that may wait forever for another thread (an untimed lock, join,
 * condvar, semaphore or barrier wait) is announced to the tool first; the
 * tool answers with an exit status when the program is deadlocked, and the
 * wrapper ends the run with it (ag_deadlock.c).  A plain join waits in
 * slices, asking again after each.  Signal-handler installation is
 * reported: a handler may post a semaphore.
 *
 * Threads start in ag_thread_start, which runs the program's start routine
 * unbracketed and brackets glibc's thread teardown after it (see there).
 * A thread cancelled inside a wrapped wait unwinds through a cleanup that
 * closes the wrapper's bracket (see "Cancellation").  pthread_cancel is
 * bracketed too.
 *
 * Besides the client requests, the library calls malloc, free and glibc's
 * cancellation-buffer functions (__sigsetjmp, __pthread_register_cancel,
 * ...); linked with -nodefaultlibs, these resolve against the client's
 * libc at run time.
 *
 * Build with -DAG_TRACE_INTERCEPTS=1 to have every wrapper print, through
 * the core (VALGRIND_PRINTF, so under any tool), its name, the address of
 * the function it wraps, its arguments and the result: the way to check
 * that each wrapper is hit (tests/progs/sync_zoo.c exercises them all).
 */

#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>              /* stdin, stdout, stderr: AG_CR_STDIO_FILES */
#include <semaphore.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <valgrind/valgrind.h>
#include "ag_requests.h"

#ifndef AG_TRACE_INTERCEPTS
#define AG_TRACE_INTERCEPTS 0
#endif

/* ------------------------------------------------------------------ */
/* Wrapper names                                                        */
/* ------------------------------------------------------------------ */

/* Z-encoded sonames: "libc.so*" and "libpthread.so.0". */
#define AG_SO_LIBC        libcZdsoZa
#define AG_SO_LIBPTHREAD  libpthreadZdsoZd0

/* _vgw<tag>ZZ_<soname>_<fnname>: a wrapper with a behavioural-equivalence
   tag (4-digit class + 1-digit priority, see pub_tool_redir.h).  An extra
   level of macros so that the arguments are expanded before pasting. */
#define AG_CAT6(a, b, c, d, e, f)  a##b##c##d##e##f
#define AG_WRAP_NAME(tag, so, zfn) AG_CAT6(_vgw, tag, ZZ_, so, _, zfn)

#define AG_WRAP_ONE(tag, so, zfn, rt, impl, params, args)   \
   rt AG_WRAP_NAME(tag, so, zfn) params;                    \
   rt AG_WRAP_NAME(tag, so, zfn) params { return impl args; }

/* name and name@* in one soname ("@" is ZA, "*" Za) */
#define AG_WRAP_SO(tag, so, zfn, rt, impl, params, args)     \
   AG_WRAP_ONE(tag, so, zfn, rt, impl, params, args)         \
   AG_WRAP_ONE(tag, so, zfn##ZAZa, rt, impl, params, args)

/* AG_WRAP(tag, zfn, rt, impl, params, args): wrap the function whose
   Z-encoded name is zfn in libc and libpthread.  impl is an always-inline
   function doing the work (VALGRIND_GET_ORIG_FN must run in the wrapper
   itself, before any other call). */
#define AG_WRAP(tag, zfn, rt, impl, params, args)                       \
   AG_WRAP_SO(tag, AG_SO_LIBC, zfn, rt, impl, params, args)             \
   AG_WRAP_SO(tag, AG_SO_LIBPTHREAD, zfn, rt, impl, params, args)

#define AG_INLINE static __inline__ __attribute__((always_inline))

/* ------------------------------------------------------------------ */
/* Requests                                                             */
/* ------------------------------------------------------------------ */

#if !AG_TRACE_INTERCEPTS

#define AG_REQ(code, a1, a2, a3)                                         \
   VALGRIND_DO_CLIENT_REQUEST_STMT((code), (a1), (a2), (a3), 0, 0)
/* a request whose result is used (0 when not under the tool) */
#define AG_REQ_RES(code, a1, a2, a3)                                     \
   VALGRIND_DO_CLIENT_REQUEST_EXPR(0, (code), (a1), (a2), (a3), 0, 0)
#define AG_TRACE(fn, name, a1, a2, rc) do { } while (0)

#else /* AG_TRACE_INTERCEPTS: print every request and every wrapped call */

/* pthread_self() of the calling thread: glibc keeps it at %fs:0x10 */
static __inline__ unsigned long ag_trace_self(void)
{
   unsigned long self;
   __asm__ __volatile__("movq %%fs:0x10, %0" : "=r"(self));
   return self;
}

static const char *ag_trace_req_name(unsigned long code)
{
   static const char *const names[] = {
      "IGNORE_PUSH", "IGNORE_POP", "THREAD_CREATED", "THREAD_JOINED",
      "LOCK_ACQUIRED", "LOCK_RELEASE", "COND_WAIT_PRE", "COND_WAIT_POST",
      "COND_SIGNAL", "SEM_POST", "SEM_WAITED", "BARRIER_PRE",
      "BARRIER_POST", "ONCE_POST", "LOCK_DESTROY", "THREAD_DETACHED",
      "SPIN_INIT_OR_UNLOCK", "WAIT", "WAIT_DONE", "WAIT_CHECK",
      "BARRIER_COUNT", "SEM_INIT", "SIGNAL_HANDLER", "COND_SIGNALLED",
      "CANCEL", "STDIO_FILES", "BARRIER_INIT_PRE", "BARRIER_DESTROY_PRE",
      "COND_SLICE", "COND_SLICEABLE", "EXIT"
   };
   unsigned long i = code - AG_CR_IGNORE_PUSH;
   return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

#define AG_REQ(code, a1, a2, a3)                                         \
   do {                                                                  \
      VALGRIND_PRINTF("ag-req: t=%#lx %s %#lx %#lx %#lx\n",              \
                      ag_trace_self(), ag_trace_req_name(code),          \
                      (unsigned long)(a1), (unsigned long)(a2),          \
                      (unsigned long)(a3));                              \
      VALGRIND_DO_CLIENT_REQUEST_STMT((code), (a1), (a2), (a3), 0, 0);   \
   } while (0)

#define AG_REQ_RES(code, a1, a2, a3)                                     \
   (VALGRIND_PRINTF("ag-req: t=%#lx %s %#lx %#lx %#lx\n",                \
                    ag_trace_self(), ag_trace_req_name(code),            \
                    (unsigned long)(a1), (unsigned long)(a2),            \
                    (unsigned long)(a3)),                                \
    VALGRIND_DO_CLIENT_REQUEST_EXPR(0, (code), (a1), (a2), (a3), 0, 0))

#define AG_TRACE(fn, name, a1, a2, rc)                                   \
   VALGRIND_PRINTF("ag-intercept: t=%#lx %s orig=%#lx a1=%#lx a2=%#lx "  \
                   "rc=%ld\n", ag_trace_self(), (name),                  \
                   (unsigned long)(fn).nraddr, (unsigned long)(a1),      \
                   (unsigned long)(a2), (long)(rc))

#endif /* AG_TRACE_INTERCEPTS */

#define AG_PUSH() AG_REQ(AG_CR_IGNORE_PUSH, 0, 0, 0)
#define AG_POP()  AG_REQ(AG_CR_IGNORE_POP, 0, 0, 0)

/* Per-thread state of the library.  Initial-exec TLS: the library is
   loaded at start-up (LD_PRELOAD), so its TLS is in the static block and
   is reached through %fs without a call into ld.so. */
#define AG_TLS __thread __attribute__((tls_model("initial-exec")))

/* condition-variable wrappers active in this thread (see the header) */
static AG_TLS unsigned ag_cond_nest;
/* the init routine of the pthread_once running in this thread, and its
   control word */
static AG_TLS void (*ag_once_routine)(void);
static AG_TLS pthread_once_t *ag_once_control;

/* Results that mean "the lock is now held": a robust mutex whose owner
   died is handed over with EOWNERDEAD. */
AG_INLINE int ag_lock_taken(int rc)
{
   return rc == 0 || rc == EOWNERDEAD;
}

/* ------------------------------------------------------------------ */
/* Cancellation                                                         */
/* ------------------------------------------------------------------ */

/* A thread cancelled (or calling pthread_exit from a cleanup handler)
   inside a wrapped cancellation point -- a condvar or semaphore wait, a
   join -- unwinds out of the real function and never comes back to the
   wrapper's code after the call.  The wrappers of those functions make
   the call through ag_call_cancellable, which registers a glibc
   cancellation cleanup that does what the wrapper would have done: pop
   the IGNORE bracket and, for a condvar wait, report the mutex re-held
   (glibc re-acquires it before running cleanup handlers), so that the
   program's own handlers -- typically "unlock the mutex" -- run as
   program code with a consistent lock state.

   This uses glibc's C cancellation buffers (setjmp based, what
   pthread_cleanup_push expands to without -fexceptions); the C++ form
   would need an exception personality routine, which this library does
   not link. */
#ifdef __EXCEPTIONS
#error "build ag_intercepts.c without -fexceptions"
#endif

/* Calls fn with up to four word arguments (extra ones are ignored by the
   callee on amd64) with `cleanup(carg)` registered for cancellation.  Not
   inlined: setjmp cannot be. */
static __attribute__((noinline))
long ag_call_cancellable(OrigFn fn, void (*cleanup)(void *), void *carg,
                         unsigned long a1, unsigned long a2,
                         unsigned long a3, unsigned long a4)
{
   long ret;
   pthread_cleanup_push(cleanup, carg);
   CALL_FN_W_WWWW(ret, fn, a1, a2, a3, a4);
   pthread_cleanup_pop(0);
   return ret;
}

/* cleanup of a join or semaphore wait: close the bracket */
static void ag_cancelled_pop(void *unused)
{
   (void)unused;
   AG_POP();
}

/* ------------------------------------------------------------------ */
/* Shapes                                                               */
/* ------------------------------------------------------------------ */

/* Most wrappers come in families whose members differ only in their
   arguments (a timeout, a clock) and in what the call means (blocking,
   try, timed): as in DRD's PTH_FUNCS, each family is written once, as a
   shape below, and its members are generated from it.  A shape takes the
   wrapper's parameter list, the argument list it passes on, and the
   arguments of the real call as unsigned longs (the cancellable calls go
   through ag_call_cancellable, which takes four words). */

extern void _exit(int) __attribute__((noreturn));

/* A call of one argument that the tool is told of first (code, with the
   argument), then made with its internals ignored.  A shape, as the
   families below are: a helper function would show as a frame of its
   own in reports. */
#define AG_TOLD_FIRST(tag, zfn, cname, T, code)                           \
   AG_INLINE int ag_##cname(T arg)                                        \
   {                                                                      \
      int ret;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      AG_REQ(code, arg, 0, 0);                                            \
      AG_PUSH();                                                          \
      CALL_FN_W_W(ret, fn, arg);                                          \
      AG_POP();                                                           \
      AG_TRACE(fn, #cname, arg, 0, ret);                                  \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname, (T arg), (arg))

/* A call that may block until another thread acts is announced first.
   The tool answers 0, or -- when every thread it depends on is itself
   blocked for good: a deadlock, reported already -- the exit status with
   which this thread ends the run (a hung run would never report). */
AG_INLINE void ag_announce_wait(unsigned long what, const volatile void *obj,
                                unsigned long kind)
{
   int status = (int)AG_REQ_RES(AG_CR_WAIT, what, obj, kind);
   if (status != 0)
      _exit(status);
}

AG_INLINE int ag_ok(int rc)
{
   return rc == 0;
}

/* The three argument lists of the acquiring, waiting and joining calls:
   (x), (x, abstime) and (x, clock, abstime), after the object x (and the
   extra argument of joins and condvar waits). */
#define AG_ARGS_0
#define AG_ARGS_T    , const struct timespec *abstime
#define AG_ARGS_CT   , clockid_t clock, const struct timespec *abstime
#define AG_PASS_0
#define AG_PASS_T    , abstime
#define AG_PASS_CT   , clock, abstime
#define AG_WORDS_0   0, 0
#define AG_WORDS_T   (unsigned long)abstime, 0
#define AG_WORDS_CT  (unsigned long)clock, (unsigned long)abstime

/* Init and destroy of a lock, rwlock or spinlock: whatever comes next at
   the address is a new object. */
#define AG_LIFE(tag, zfn, cname, T, params, args, call)                   \
   AG_INLINE int ag_##cname params                                        \
   {                                                                      \
      int ret;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      AG_PUSH();                                                          \
      call;                                                               \
      AG_POP();                                                           \
      if (ret == 0)                                                       \
         AG_REQ(AG_CR_LOCK_DESTROY, o, 0, 0);                             \
      AG_TRACE(fn, #cname, o, 0, ret);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname, params, args)
#define AG_INIT(tag, zfn, cname, T, A)                                    \
   AG_LIFE(tag, zfn, cname, T, (T *o, const A *attr), (o, attr),          \
           CALL_FN_W_WW(ret, fn, o, attr))
#define AG_DESTROY(tag, zfn, cname, T)                                    \
   AG_LIFE(tag, zfn, cname, T, (T *o), (o), CALL_FN_W_W(ret, fn, o))

/* An acquiring call: lock, trylock, timedlock, clocklock of mutexes,
   spinlocks and both sides of rwlocks.  how (AG_ACQ_*) says whether it
   can wait forever; taken() which results mean the lock is now held. */
#define AG_ACQUIRE(tag, zfn, cname, T, kind, how, taken, A)               \
   AG_INLINE int ag_##cname(T *o AG_ARGS_##A)                             \
   {                                                                      \
      int ret;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      if ((how) == AG_ACQ_BLOCK)                                          \
         ag_announce_wait(AG_WT_LOCK, o, kind);                           \
      AG_PUSH();                                                          \
      AG_CALL_##A(ret, fn, o);                                            \
      AG_POP();                                                           \
      if (taken(ret))                                                     \
         AG_REQ(AG_CR_LOCK_ACQUIRED, o, kind, how);                       \
      else if ((how) == AG_ACQ_BLOCK)                                     \
         AG_REQ(AG_CR_WAIT_DONE, o, 0, 0);                                \
      AG_TRACE(fn, #cname, o, 0, ret);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname, (T *o AG_ARGS_##A), (o AG_PASS_##A))
#define AG_CALL_0(ret, fn, o)   CALL_FN_W_W(ret, fn, o)
#define AG_CALL_T(ret, fn, o)   CALL_FN_W_WW(ret, fn, o, abstime)
#define AG_CALL_CT(ret, fn, o)  CALL_FN_W_WWW(ret, fn, o, clock, abstime)

/* A releasing call.  The release goes first: once the real unlock
   returns, another thread may take the lock before this one runs again. */
#define AG_RELEASE(tag, zfn, cname, T)                                    \
   AG_TOLD_FIRST(tag, zfn, cname, T *, AG_CR_LOCK_RELEASE)

/* ------------------------------------------------------------------ */
/* Threads                                                              */
/* ------------------------------------------------------------------ */

/* The tool sees the fork through Valgrind's thread-creation hook, which
   runs in the parent inside the real call; afterwards the parent tells it
   the child's pthread_t.

   The child runs ag_thread_start, which calls the program's start routine
   outside any bracket and pushes one when the routine is over -- returned,
   or left by pthread_exit or cancellation, after the program's own cleanup
   handlers have run.  What follows in the child is glibc's thread teardown
   (TSD and thread_local destructors, __libc_thread_freeres, the stack
   cache): shared glibc data under glibc's own locks, which would otherwise
   read as races between exiting threads.  The bracket is never popped; the
   thread ends inside it.  The start routine and its argument travel in a
   malloc'd block that the child frees. */
typedef struct {
   void *(*start)(void *);
   void *arg;
} ag_start_args;

extern void *malloc(size_t);
extern void free(void *);

static void ag_thread_end(void *unused)
{
   (void)unused;
#if AG_TRACE_INTERCEPTS
   VALGRIND_PRINTF("ag-intercept: t=%#lx thread-end orig=0 a1=0 a2=0 rc=0\n",
                   ag_trace_self());
#endif
   AG_PUSH();                 /* glibc's thread teardown from here on */
}

static void *ag_thread_start(void *p)
{
   ag_start_args *a = p;
   void *(*start)(void *);
   void *arg, *ret;
   AG_PUSH();
   start = a->start;
   arg = a->arg;
   free(a);
   pthread_cleanup_push(ag_thread_end, NULL);   /* writes the TCB: bracketed */
   AG_POP();
   ret = start(arg);
   ag_thread_end(NULL);
   pthread_cleanup_pop(0);
   return ret;
}

AG_INLINE int ag_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                void *(*start)(void *), void *arg)
{
   int ret;
   OrigFn fn;
   ag_start_args *a;
   static int told;
   VALGRIND_GET_ORIG_FN(fn);
   if (!told) {         /* before any thread can use them */
      told = 1;
      AG_REQ(AG_CR_STDIO_FILES, stdin, stdout, stderr);
   }
   AG_PUSH();
   a = malloc(sizeof *a);
   if (a) {
      a->start = start;
      a->arg = arg;
      CALL_FN_W_WWWW(ret, fn, thread, attr, ag_thread_start, a);
      if (ret != 0)
         free(a);
   } else {
      CALL_FN_W_WWWW(ret, fn, thread, attr, start, arg);
   }
   AG_POP();
   if (ret == 0)
      AG_REQ(AG_CR_THREAD_CREATED, *thread, 0, 0);
   AG_TRACE(fn, "pthread_create", thread, start, ret);
   return ret;
}
AG_WRAP(70010, pthreadZucreate, int, ag_pthread_create,
        (pthread_t *thread, const pthread_attr_t *attr,
         void *(*start)(void *), void *arg),
        (thread, attr, start, arg))

/* pthread_cancel: no event for the analysis (a cancelled thread is still
   joined), but its internals -- the target's cancel bits, loading
   libgcc_s for unwinding -- are glibc's.  The tool is told first: the
   target may leave a wait because of it, so it is not blocked for good. */
AG_TOLD_FIRST(70090, pthreadZucancel, pthread_cancel, pthread_t, AG_CR_CANCEL)

/* cleanup of a cancelled join or semaphore wait: close the bracket; the
   announced wait is over */
static void ag_wait_cancelled(void *unused)
{
   (void)unused;
   AG_POP();
   AG_REQ(AG_CR_WAIT_DONE, 0, 0, 0);
}

/* The blocking waits that cannot be announced once for all (the thread
   that could end them may end instead) wait in slices: the end of a slice
   of a second on clock, and, when one ran out, the tool's check (a
   deadlock ends the run here). */
#define AG_SLICE_END(ts, clock)                                          \
   do {                                                                  \
      clock_gettime((clock), &(ts));                                     \
      (ts).tv_sec += 1;                                                  \
   } while (0)
#define AG_SLICE_CHECK()                                                 \
   do {                                                                  \
      int status_ = (int)AG_REQ_RES(AG_CR_WAIT_CHECK, 0, 0, 0);          \
      if (status_ != 0)                                                  \
         _exit(status_);                                                 \
   } while (0)

/* A plain join waits in slices of a second (the real timed join, called
   without redirection), asking the tool after each whether the program
   is deadlocked: the last thread that could run may end rather than block
   -- the joined thread waits for a signal that thread never sent -- and
   then no announcement is left to find it (ag_deadlock.c). */
extern int pthread_timedjoin_np(pthread_t, void **, const struct timespec *);
extern int clock_gettime(clockid_t, struct timespec *);

static long ag_join_sliced(pthread_t thread, void **retval)
{
   OrigFn timed;
   long ret;
   timed.nraddr = (unsigned long)pthread_timedjoin_np;
   for (;;) {
      struct timespec slice;
      AG_SLICE_END(slice, CLOCK_REALTIME);
      ret = ag_call_cancellable(timed, ag_wait_cancelled, NULL, thread,
                                (unsigned long)retval,
                                (unsigned long)&slice, 0);
      if (ret != ETIMEDOUT)
         return ret;
      AG_SLICE_CHECK();
   }
}

/* join, tryjoin, timedjoin and clockjoin; only the plain join can wait
   forever.  (tryjoin is no cancellation point: its cleanup never runs.) */
#define AG_JOIN(tag, zfn, cname, how, A)                                  \
   AG_INLINE int ag_##cname(pthread_t thread, void **retval AG_ARGS_##A)  \
   {                                                                      \
      int ret;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      if ((how) == AG_ACQ_BLOCK)                                          \
         ag_announce_wait(AG_WT_JOIN, (void *)thread, 0);                 \
      AG_PUSH();                                                          \
      if ((how) == AG_ACQ_BLOCK && RUNNING_ON_VALGRIND)                   \
         ret = (int)ag_join_sliced(thread, retval);                       \
      else                                                                \
         ret = (int)ag_call_cancellable(fn, ag_cancelled_pop, NULL,       \
                                        thread, (unsigned long)retval,    \
                                        AG_WORDS_##A);                    \
      AG_POP();                                                           \
      if (ret == 0)                                                       \
         AG_REQ(AG_CR_THREAD_JOINED, thread, 0, 0);                       \
      else if ((how) == AG_ACQ_BLOCK)                                     \
         AG_REQ(AG_CR_WAIT_DONE, 0, 0, 0);                                \
      AG_TRACE(fn, #cname, thread, retval, ret);                          \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname,                                     \
           (pthread_t thread, void **retval AG_ARGS_##A),                 \
           (thread, retval AG_PASS_##A))

AG_JOIN(70020, pthreadZujoin, pthread_join, AG_ACQ_BLOCK, 0)
AG_JOIN(70030, pthreadZutryjoinZunp, pthread_tryjoin_np, AG_ACQ_TRY, 0)
AG_JOIN(70040, pthreadZutimedjoinZunp, pthread_timedjoin_np, AG_ACQ_TIMED, T)
AG_JOIN(70050, pthreadZuclockjoinZunp, pthread_clockjoin_np, AG_ACQ_TIMED, CT)

/* Reported before the real call: once detached, a thread that has already
   ended is freed by the call and its pthread_t may be reused at once. */
AG_TOLD_FIRST(70060, pthreadZudetach, pthread_detach, pthread_t, AG_CR_THREAD_DETACHED)

/* ------------------------------------------------------------------ */
/* pthread_once                                                         */
/* ------------------------------------------------------------------ */

/* Runs the user's init routine with the wrapper's bracket popped, so the
   routine's accesses count at the caller's ignore level; pushes it again
   for the rest of the real pthread_once.  (If the routine is cancelled,
   the thread unwinds out of pthread_once with the bracket already popped:
   still balanced.) */
static void ag_once_trampoline(void)
{
   void (*routine)(void) = ag_once_routine;
   AG_POP();
   routine();
   /* Order the routine before every other caller's return: this thread
      may be descheduled between glibc publishing "done" (which lets the
      waiters return) and its own ONCE_POST after the real call. */
   AG_REQ(AG_CR_ONCE_POST, ag_once_control, 1, 0);     /* 1: the initialising call */
   AG_PUSH();
}

AG_INLINE int ag_pthread_once(pthread_once_t *once, void (*routine)(void))
{
   int ret;
   OrigFn fn;
   void (*saved)(void);
   pthread_once_t *saved_control;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   saved = ag_once_routine;          /* an init routine may call pthread_once */
   saved_control = ag_once_control;
   ag_once_routine = routine;
   ag_once_control = once;
   CALL_FN_W_WW(ret, fn, once, ag_once_trampoline);
   ag_once_routine = saved;
   ag_once_control = saved_control;
   AG_POP();
   AG_REQ(AG_CR_ONCE_POST, once, 0, 0);
   AG_TRACE(fn, "pthread_once", once, routine, ret);
   return ret;
}
AG_WRAP(70070, pthreadZuonce, int, ag_pthread_once,
        (pthread_once_t *once, void (*routine)(void)), (once, routine))

/* ------------------------------------------------------------------ */
/* Mutexes                                                              */
/* ------------------------------------------------------------------ */

AG_INIT(70110, pthreadZumutexZuinit, pthread_mutex_init, pthread_mutex_t,
        pthread_mutexattr_t)
AG_DESTROY(70120, pthreadZumutexZudestroy, pthread_mutex_destroy,
           pthread_mutex_t)
AG_ACQUIRE(70130, pthreadZumutexZulock, pthread_mutex_lock, pthread_mutex_t,
           AG_LK_MUTEX, AG_ACQ_BLOCK, ag_lock_taken, 0)
AG_ACQUIRE(70140, pthreadZumutexZutrylock, pthread_mutex_trylock,
           pthread_mutex_t, AG_LK_MUTEX, AG_ACQ_TRY, ag_lock_taken, 0)
AG_ACQUIRE(70150, pthreadZumutexZutimedlock, pthread_mutex_timedlock,
           pthread_mutex_t, AG_LK_MUTEX, AG_ACQ_TIMED, ag_lock_taken, T)
AG_ACQUIRE(70160, pthreadZumutexZuclocklock, pthread_mutex_clocklock,
           pthread_mutex_t, AG_LK_MUTEX, AG_ACQ_TIMED, ag_lock_taken, CT)
AG_RELEASE(70170, pthreadZumutexZuunlock, pthread_mutex_unlock,
           pthread_mutex_t)

/* ------------------------------------------------------------------ */
/* Spin locks                                                           */
/* ------------------------------------------------------------------ */

/* pthread_spin_init and pthread_spin_unlock share an address on x86-64
   glibc: both wrappers carry one tag (70210) and do the same thing, so
   whichever the redirector keeps is right. */
#define AG_SPIN_IU_NAME "pthread_spin_init/pthread_spin_unlock"
AG_INLINE int ag_pthread_spin_init_or_unlock(pthread_spinlock_t *s,
                                             long pshared_or_junk,
                                             const char *name)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_REQ(AG_CR_SPIN_INIT_OR_UNLOCK, s, 0, 0);
   AG_PUSH();
   CALL_FN_W_WW(ret, fn, s, pshared_or_junk);
   AG_POP();
   AG_TRACE(fn, name, s, 0, ret);
   (void)name;
   return ret;
}
AG_INLINE int ag_pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
   return ag_pthread_spin_init_or_unlock(s, pshared, AG_SPIN_IU_NAME);
}
/* For unlock the second argument register holds whatever the caller left
   there; the real function ignores it, and so do we. */
AG_INLINE int ag_pthread_spin_unlock(pthread_spinlock_t *s)
{
   return ag_pthread_spin_init_or_unlock(s, 0, AG_SPIN_IU_NAME);
}
AG_WRAP(70210, pthreadZuspinZuinit, int, ag_pthread_spin_init,
        (pthread_spinlock_t *s, int pshared), (s, pshared))
AG_WRAP(70210, pthreadZuspinZuunlock, int, ag_pthread_spin_unlock,
        (pthread_spinlock_t *s), (s))

AG_DESTROY(70220, pthreadZuspinZudestroy, pthread_spin_destroy,
           pthread_spinlock_t)
AG_ACQUIRE(70230, pthreadZuspinZulock, pthread_spin_lock, pthread_spinlock_t,
           AG_LK_SPIN, AG_ACQ_BLOCK, ag_ok, 0)
AG_ACQUIRE(70240, pthreadZuspinZutrylock, pthread_spin_trylock,
           pthread_spinlock_t, AG_LK_SPIN, AG_ACQ_TRY, ag_ok, 0)

/* ------------------------------------------------------------------ */
/* Reader-writer locks                                                  */
/* ------------------------------------------------------------------ */

AG_INIT(70310, pthreadZurwlockZuinit, pthread_rwlock_init, pthread_rwlock_t,
        pthread_rwlockattr_t)
AG_DESTROY(70320, pthreadZurwlockZudestroy, pthread_rwlock_destroy,
           pthread_rwlock_t)
AG_ACQUIRE(70330, pthreadZurwlockZurdlock, pthread_rwlock_rdlock,
           pthread_rwlock_t, AG_LK_RWLOCK_RD, AG_ACQ_BLOCK, ag_ok, 0)
AG_ACQUIRE(70340, pthreadZurwlockZutryrdlock, pthread_rwlock_tryrdlock,
           pthread_rwlock_t, AG_LK_RWLOCK_RD, AG_ACQ_TRY, ag_ok, 0)
AG_ACQUIRE(70350, pthreadZurwlockZutimedrdlock, pthread_rwlock_timedrdlock,
           pthread_rwlock_t, AG_LK_RWLOCK_RD, AG_ACQ_TIMED, ag_ok, T)
AG_ACQUIRE(70360, pthreadZurwlockZuclockrdlock, pthread_rwlock_clockrdlock,
           pthread_rwlock_t, AG_LK_RWLOCK_RD, AG_ACQ_TIMED, ag_ok, CT)
AG_ACQUIRE(70370, pthreadZurwlockZuwrlock, pthread_rwlock_wrlock,
           pthread_rwlock_t, AG_LK_RWLOCK_WR, AG_ACQ_BLOCK, ag_ok, 0)
AG_ACQUIRE(70380, pthreadZurwlockZutrywrlock, pthread_rwlock_trywrlock,
           pthread_rwlock_t, AG_LK_RWLOCK_WR, AG_ACQ_TRY, ag_ok, 0)
AG_ACQUIRE(70390, pthreadZurwlockZutimedwrlock, pthread_rwlock_timedwrlock,
           pthread_rwlock_t, AG_LK_RWLOCK_WR, AG_ACQ_TIMED, ag_ok, T)
AG_ACQUIRE(70400, pthreadZurwlockZuclockwrlock, pthread_rwlock_clockwrlock,
           pthread_rwlock_t, AG_LK_RWLOCK_WR, AG_ACQ_TIMED, ag_ok, CT)
AG_RELEASE(70410, pthreadZurwlockZuunlock, pthread_rwlock_unlock,
           pthread_rwlock_t)

/* ------------------------------------------------------------------ */
/* Condition variables                                                  */
/* ------------------------------------------------------------------ */

/* Only the outermost condvar wrapper of a thread reports: a call to a
   GLIBC_2.2.5 compatibility version reaches the current version's wrapper
   too (see the header comment).  The count lives in TLS and is touched
   only inside the IGNORE bracket, so the tool never sees these accesses. */
AG_INLINE int ag_cond_enter(void)
{
   return ag_cond_nest++ == 0;
}
AG_INLINE void ag_cond_leave(void)
{
   ag_cond_nest--;
}

AG_INLINE int ag_pthread_cond_init(pthread_cond_t *c,
                                   const pthread_condattr_t *attr)
{
   int ret, outer;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   outer = ag_cond_enter();
   CALL_FN_W_WW(ret, fn, c, attr);
   ag_cond_leave();
   AG_POP();
   if (outer && ret == 0)
      AG_REQ(AG_CR_LOCK_DESTROY, c, 0, 0);
   AG_TRACE(fn, "pthread_cond_init", c, attr, ret);
   return ret;
}
AG_WRAP(70510, pthreadZucondZuinit, int, ag_pthread_cond_init,
        (pthread_cond_t *c, const pthread_condattr_t *attr), (c, attr))

AG_INLINE int ag_pthread_cond_destroy(pthread_cond_t *c)
{
   int ret, outer;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   outer = ag_cond_enter();
   CALL_FN_W_W(ret, fn, c);
   ag_cond_leave();
   AG_POP();
   if (outer && ret == 0)
      AG_REQ(AG_CR_LOCK_DESTROY, c, 0, 0);
   AG_TRACE(fn, "pthread_cond_destroy", c, 0, ret);
   return ret;
}
AG_WRAP(70520, pthreadZucondZudestroy, int, ag_pthread_cond_destroy,
        (pthread_cond_t *c), (c))

/* signal and broadcast: the wake-up is reported before the real call (it
   orders the signaller before the woken thread), and again after it: a
   thread that began waiting in between was woken too, and the tool must
   not take it for blocked (ag_deadlock.c). */
#define AG_COND_NOTIFY(tag, zfn, cname)                                   \
   AG_INLINE int ag_##cname(pthread_cond_t *c)                            \
   {                                                                      \
      int ret, outer;                                                     \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      AG_PUSH();                                                          \
      outer = ag_cond_enter();                                            \
      if (outer)                                                          \
         AG_REQ(AG_CR_COND_SIGNAL, c, 0, 0);                              \
      CALL_FN_W_W(ret, fn, c);                                            \
      if (outer)                                                          \
         AG_REQ(AG_CR_COND_SIGNALLED, c, 0, 0);                           \
      ag_cond_leave();                                                    \
      AG_POP();                                                           \
      AG_TRACE(fn, #cname, c, 0, ret);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname, (pthread_cond_t *c), (c))

AG_COND_NOTIFY(70530, pthreadZucondZusignal, pthread_cond_signal)
AG_COND_NOTIFY(70540, pthreadZucondZubroadcast, pthread_cond_broadcast)

/* A condvar wait cancelled inside the real call: glibc re-acquires the
   mutex, then runs cleanup handlers, this one first. */
typedef struct {
   pthread_cond_t *c;
   pthread_mutex_t *m;
   int outer;
} ag_wait_ctx;

static void ag_cond_wait_cancelled(void *p)
{
   ag_wait_ctx *w = p;
   ag_cond_leave();
   AG_POP();
   if (w->outer)
      AG_REQ(AG_CR_COND_WAIT_POST, w->c, w->m, 0);
}

/* A plain condvar wait waits in slices of a second (the real clockwait,
   called without redirection), asking the tool after each whether the
   program is deadlocked, as a join does: the last thread that could
   signal may end instead of blocking.  Between slices the waiter holds
   the mutex again; if the condvar was signalled meanwhile, or another
   thread took the mutex (it may have changed the predicate and signalled
   while no one waited), the wait returns: a spurious wake-up, which POSIX
   allows.  Otherwise nothing it waits for can have happened, and it waits
   again.  Not glibc's compatibility pthread_cond_wait@GLIBC_2.2.5, whose
   condvar is another structure: the tool tells the versions apart
   (AG_CR_COND_SLICEABLE; this library, linked without libc, cannot name
   one). */
extern int pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                                  const struct timespec *);

static long ag_cond_sliced(ag_wait_ctx *w)
{
   OrigFn timed;
   long ret;
   timed.nraddr = (unsigned long)pthread_cond_clockwait;
   for (;;) {
      struct timespec slice;
      AG_SLICE_END(slice, CLOCK_MONOTONIC);
      ret = ag_call_cancellable(timed, ag_cond_wait_cancelled, w, (unsigned long)w->c,
                                (unsigned long)w->m, CLOCK_MONOTONIC,
                                (unsigned long)&slice);
      if (ret != ETIMEDOUT)
         return ret;
      AG_SLICE_CHECK();
      if (AG_REQ_RES(AG_CR_COND_SLICE, 0, 0, 0))
         return 0;
   }
}

/* wait, timedwait, clockwait.  The mutex is held again when the wait
   returns, whatever the result.  The PRE request's result is an
   announcement's (ag_announce_wait): an untimed wait may be the one that
   leaves no thread able to run. */
#define AG_COND_WAIT(tag, zfn, cname, how, A)                             \
   AG_INLINE int ag_##cname(pthread_cond_t *c, pthread_mutex_t *m         \
                            AG_ARGS_##A)                                  \
   {                                                                      \
      int ret, outer, status = 0;                                         \
      ag_wait_ctx w;                                                      \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      AG_PUSH();                                                          \
      outer = ag_cond_enter();                                            \
      if (outer)                                                          \
         status = (int)AG_REQ_RES(AG_CR_COND_WAIT_PRE, c, m, how);        \
      if (status != 0)                                                    \
         _exit(status);                                                   \
      w.c = c;                                                            \
      w.m = m;                                                            \
      w.outer = outer;                                                    \
      if ((how) == AG_ACQ_BLOCK && outer && RUNNING_ON_VALGRIND           \
          && AG_REQ_RES(AG_CR_COND_SLICEABLE, fn.nraddr, 0, 0))           \
         ret = (int)ag_cond_sliced(&w);                                   \
      else                                                                \
         ret = (int)ag_call_cancellable(fn, ag_cond_wait_cancelled, &w,   \
                                        (unsigned long)c,                 \
                                        (unsigned long)m, AG_WORDS_##A);  \
      ag_cond_leave();                                                    \
      AG_POP();                                                           \
      if (outer)                                                          \
         AG_REQ(AG_CR_COND_WAIT_POST, c, m, 0);                           \
      AG_TRACE(fn, #cname, c, m, ret);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname,                                     \
           (pthread_cond_t *c, pthread_mutex_t *m AG_ARGS_##A),           \
           (c, m AG_PASS_##A))

AG_COND_WAIT(70550, pthreadZucondZuwait, pthread_cond_wait, AG_ACQ_BLOCK, 0)
AG_COND_WAIT(70560, pthreadZucondZutimedwait, pthread_cond_timedwait,
             AG_ACQ_TIMED, T)
AG_COND_WAIT(70570, pthreadZucondZuclockwait, pthread_cond_clockwait,
             AG_ACQ_TIMED, CT)

/* ------------------------------------------------------------------ */
/* Semaphores                                                           */
/* ------------------------------------------------------------------ */

AG_INLINE int ag_sem_init(sem_t *s, int pshared, unsigned value)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   CALL_FN_W_WWW(ret, fn, s, pshared, value);
   AG_POP();
   if (ret == 0) {
      AG_REQ(AG_CR_LOCK_DESTROY, s, 0, 0);
      AG_REQ(AG_CR_SEM_INIT, s, value, pshared);
   }
   AG_TRACE(fn, "sem_init", s, value, ret);
   return ret;
}
AG_WRAP(70610, semZuinit, int, ag_sem_init,
        (sem_t *s, int pshared, unsigned value), (s, pshared, value))

AG_INLINE int ag_sem_destroy(sem_t *s)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   CALL_FN_W_W(ret, fn, s);
   AG_POP();
   if (ret == 0)
      AG_REQ(AG_CR_LOCK_DESTROY, s, 0, 0);
   AG_TRACE(fn, "sem_destroy", s, 0, ret);
   return ret;
}
AG_WRAP(70620, semZudestroy, int, ag_sem_destroy, (sem_t *s), (s))

/* Told before the real post: the waiter it wakes may run at once. */
AG_TOLD_FIRST(70630, semZupost, sem_post, sem_t *, AG_CR_SEM_POST)

/* sem_wait waits in slices of a second (the real clockwait, without
   redirection), asking the tool after each whether the program is
   deadlocked, as a join does.  A semaphore keeps its posts: nothing is
   lost between slices.  errno is the call's own. */
extern int sem_clockwait(sem_t *, clockid_t, const struct timespec *);

static long ag_sem_sliced(sem_t *s)
{
   OrigFn timed;
   long ret;
   int saved = errno;
   timed.nraddr = (unsigned long)sem_clockwait;
   for (;;) {
      struct timespec slice;
      AG_SLICE_END(slice, CLOCK_MONOTONIC);
      ret = ag_call_cancellable(timed, ag_wait_cancelled, NULL, (unsigned long)s,
                                CLOCK_MONOTONIC, (unsigned long)&slice, 0);
      if (ret == 0) {
         errno = saved;
         return 0;
      }
      if (errno != ETIMEDOUT)
         return ret;
      AG_SLICE_CHECK();
   }
}

/* wait, trywait, timedwait, clockwait.  (trywait is no cancellation
   point: its cleanup never runs.)  Only sem_wait can wait forever. */
#define AG_SEM_WAIT(tag, zfn, cname, how, A)                              \
   AG_INLINE int ag_##cname(sem_t *s AG_ARGS_##A)                         \
   {                                                                      \
      int ret;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      if ((how) == AG_ACQ_BLOCK)                                          \
         ag_announce_wait(AG_WT_SEM, s, 0);                               \
      AG_PUSH();                                                          \
      if ((how) == AG_ACQ_BLOCK && RUNNING_ON_VALGRIND)                   \
         ret = (int)ag_sem_sliced(s);                                     \
      else                                                                \
         ret = (int)ag_call_cancellable(fn, (how) == AG_ACQ_BLOCK         \
                                        ? ag_wait_cancelled               \
                                        : ag_cancelled_pop, NULL,         \
                                        (unsigned long)s,                 \
                                        AG_SEM_WORDS_##A);                \
      AG_POP();                                                           \
      if (ret == 0)                                                       \
         AG_REQ(AG_CR_SEM_WAITED, s, 0, 0);                               \
      else if ((how) == AG_ACQ_BLOCK)                                     \
         AG_REQ(AG_CR_WAIT_DONE, s, 0, 0);                                \
      AG_TRACE(fn, #cname, s, 0, ret);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, int, ag_##cname, (sem_t *s AG_ARGS_##A),             \
           (s AG_PASS_##A))
#define AG_SEM_WORDS_0   0, 0, 0
#define AG_SEM_WORDS_T   (unsigned long)abstime, 0, 0
#define AG_SEM_WORDS_CT  (unsigned long)clock, (unsigned long)abstime, 0
#define AG_SEM_WORDS_TRY 0, 0, 0
#define AG_ARGS_TRY
#define AG_PASS_TRY

AG_SEM_WAIT(70640, semZuwait, sem_wait, AG_ACQ_BLOCK, 0)
AG_SEM_WAIT(70650, semZutrywait, sem_trywait, AG_ACQ_TRY, TRY)
AG_SEM_WAIT(70660, semZutimedwait, sem_timedwait, AG_ACQ_TIMED, T)
AG_SEM_WAIT(70670, semZuclockwait, sem_clockwait, AG_ACQ_TIMED, CT)

/* Named semaphores: sem_open and sem_close only keep glibc's table of
   mappings (under a lock of glibc's own); bracket them so that table is
   not taken for program data.  Posts and waits on the semaphore go
   through the wrappers above.  sem_open is variadic (mode and value come
   only with O_CREAT); passing four words is harmless on amd64. */
AG_INLINE sem_t *ag_sem_open(const char *name, int oflag, mode_t mode,
                             unsigned value)
{
   sem_t *ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   CALL_FN_W_WWWW(ret, fn, name, oflag, mode, value);
   AG_POP();
   AG_TRACE(fn, "sem_open", name, oflag, (long)ret);
   return ret;
}
AG_WRAP(70680, semZuopen, sem_t *, ag_sem_open,
        (const char *name, int oflag, mode_t mode, unsigned value),
        (name, oflag, mode, value))

AG_INLINE int ag_sem_close(sem_t *s)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   CALL_FN_W_W(ret, fn, s);
   AG_POP();
   AG_TRACE(fn, "sem_close", s, 0, ret);
   return ret;
}
AG_WRAP(70690, semZuclose, int, ag_sem_close, (sem_t *s), (s))

/* ------------------------------------------------------------------ */
/* Barriers                                                             */
/* ------------------------------------------------------------------ */

AG_INLINE int ag_pthread_barrier_init(pthread_barrier_t *b,
                                      const pthread_barrierattr_t *attr,
                                      unsigned count)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_REQ(AG_CR_BARRIER_INIT_PRE, b, count, 0);
   AG_PUSH();
   CALL_FN_W_WWW(ret, fn, b, attr, count);
   AG_POP();
   if (ret == 0) {
      /* a process-shared barrier's other arrivals may come from another
         process: its count means nothing to the deadlock check here */
      int pshared = PTHREAD_PROCESS_PRIVATE;
      if (attr) pthread_barrierattr_getpshared(attr, &pshared);
      AG_REQ(AG_CR_LOCK_DESTROY, b, 0, 0);
      AG_REQ(AG_CR_BARRIER_COUNT, b, pshared == PTHREAD_PROCESS_SHARED ? 0 : count, 0);
   }
   AG_TRACE(fn, "pthread_barrier_init", b, count, ret);
   return ret;
}
AG_WRAP(70710, pthreadZubarrierZuinit, int, ag_pthread_barrier_init,
        (pthread_barrier_t *b, const pthread_barrierattr_t *attr,
         unsigned count),
        (b, attr, count))

AG_INLINE int ag_pthread_barrier_destroy(pthread_barrier_t *b)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_REQ(AG_CR_BARRIER_DESTROY_PRE, b, 0, 0);
   AG_PUSH();
   CALL_FN_W_W(ret, fn, b);
   AG_POP();
   if (ret == 0)
      AG_REQ(AG_CR_LOCK_DESTROY, b, 1, 0);
   AG_TRACE(fn, "pthread_barrier_destroy", b, 0, ret);
   return ret;
}
AG_WRAP(70720, pthreadZubarrierZudestroy, int, ag_pthread_barrier_destroy,
        (pthread_barrier_t *b), (b))

/* PRE and POST always come in pairs; the wait returns 0 or
   PTHREAD_BARRIER_SERIAL_THREAD (glibc has no error return).  PRE is an
   announcement (ag_announce_wait): an arrival that leaves the barrier
   short of its count may be the one that leaves no thread able to run. */
AG_INLINE int ag_pthread_barrier_wait(pthread_barrier_t *b)
{
   int ret, status;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   status = (int)AG_REQ_RES(AG_CR_BARRIER_PRE, b, 0, 0);
   if (status != 0)
      _exit(status);
   AG_PUSH();
   CALL_FN_W_W(ret, fn, b);
   AG_POP();
   AG_REQ(AG_CR_BARRIER_POST, b, 0, 0);
   AG_TRACE(fn, "pthread_barrier_wait", b, 0, ret);
   return ret;
}
AG_WRAP(70730, pthreadZubarrierZuwait, int, ag_pthread_barrier_wait,
        (pthread_barrier_t *b), (b))

/* ------------------------------------------------------------------ */
/* Signal handlers                                                      */
/* ------------------------------------------------------------------ */

/* A handler may post a semaphore (sem_post is async-signal-safe) when a
   signal comes from outside -- a timer, another process: once the program
   has one, no semaphore wait counts as blocked for good (ag_deadlock.c).
   signal() and its relatives do not call sigaction through the PLT, so
   each is wrapped. */
AG_INLINE int ag_is_handler(void (*h)(int))
{
   return h != SIG_DFL && h != SIG_IGN;
}

AG_INLINE int ag_sigaction(int sig, const struct sigaction *act,
                           struct sigaction *old)
{
   int ret;
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_PUSH();
   CALL_FN_W_WWW(ret, fn, sig, act, old);
   AG_POP();
   if (ret == 0 && act && ag_is_handler(act->sa_handler))
      AG_REQ(AG_CR_SIGNAL_HANDLER, sig, 0, 0);
   AG_TRACE(fn, "sigaction", sig, act, ret);
   return ret;
}
AG_WRAP(70810, sigaction, int, ag_sigaction,
        (int sig, const struct sigaction *act, struct sigaction *old),
        (sig, act, old))

#define AG_SIGNAL(tag, zfn, cname)                                        \
   AG_INLINE __sighandler_t ag_##cname(int sig, __sighandler_t h)         \
   {                                                                      \
      __sighandler_t ret;                                                 \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      AG_PUSH();                                                          \
      CALL_FN_W_WW(ret, fn, sig, h);                                      \
      AG_POP();                                                           \
      if (ret != SIG_ERR && ag_is_handler(h))                             \
         AG_REQ(AG_CR_SIGNAL_HANDLER, sig, 0, 0);                         \
      AG_TRACE(fn, #cname, sig, h, 0);                                    \
      return ret;                                                         \
   }                                                                      \
   AG_WRAP(tag, zfn, __sighandler_t, ag_##cname,                          \
           (int sig, __sighandler_t h), (sig, h))

AG_SIGNAL(70820, signal, signal)
AG_SIGNAL(70830, sigset, sigset)
AG_SIGNAL(70840, bsdZusignal, bsd_signal)
AG_SIGNAL(70850, sysvZusignal, sysv_signal)

/* ------------------------------------------------------------------ */
/* Streams                                                              */
/* ------------------------------------------------------------------ */

/* A FILE the program opens is told to the tool as it is returned, before
   another thread can use it.  glibc sets a stream's orientation before
   it takes the stream's lock, so a FILE first known at its first lock
   (ag_stdio.c) has had that write analysed, and a race with it reported.
   Not bracketed: the FILE is new memory, and its lock is free. */
#define AG_FOPEN(tag, zfn, cname, params, args, CALL)                     \
   AG_INLINE FILE *ag_##cname params                                      \
   {                                                                      \
      FILE *f;                                                            \
      OrigFn fn;                                                          \
      VALGRIND_GET_ORIG_FN(fn);                                           \
      CALL;                                                               \
      AG_REQ(AG_CR_STDIO_FILES, f, 0, 0);                                 \
      AG_TRACE(fn, #cname, f, 0, 0);                                      \
      return f;                                                           \
   }                                                                      \
   AG_WRAP_ONE(tag, AG_SO_LIBC, zfn, FILE *, ag_##cname, params, args)

#define AG_FOPEN_PM(tag, zfn, cname, P)                                   \
   AG_FOPEN(tag, zfn, cname, (P a, const char *m), (a, m), CALL_FN_W_WW(f, fn, a, m))
#define AG_FOPEN_PMF(tag, zfn, cname)                                     \
   AG_FOPEN(tag, zfn, cname, (const char *p, const char *m, FILE *o), (p, m, o), \
            CALL_FN_W_WWW(f, fn, p, m, o))
#define AG_FOPEN_V(tag, zfn, cname)                                       \
   AG_FOPEN(tag, zfn, cname, (void), (), CALL_FN_W_v(f, fn))

AG_FOPEN_PM(71010, fopen, fopen, const char *)
AG_FOPEN_PM(71020, fopen64, fopen64, const char *)
AG_FOPEN_PM(71030, fdopen, fdopen, int)
AG_FOPEN_PM(71040, popen, popen, const char *)
AG_FOPEN_PMF(71050, freopen, freopen)
AG_FOPEN_PMF(71060, freopen64, freopen64)
AG_FOPEN_V(71070, tmpfile, tmpfile)
AG_FOPEN_V(71080, tmpfile64, tmpfile64)
AG_FOPEN(71090, fmemopen, fmemopen, (void *b, size_t n, const char *m), (b, n, m),
         CALL_FN_W_WWW(f, fn, b, n, m))
AG_FOPEN(71100, openZumemstream, open_memstream, (char **b, size_t *n), (b, n),
         CALL_FN_W_WW(f, fn, b, n))

/* ------------------------------------------------------------------ */
/* The process's exit                                                   */
/* ------------------------------------------------------------------ */

/* exit() (main's return too): the tool may let the other threads run
   first, as they would natively while exit does its work (ag_sched.c).
   Here, not at exit_group: a thread that dies of a signal meanwhile
   must find this one in client code, not inside the exit's system call.
   Only libc has exit; the wrapper in libpthread binds to nothing. */
AG_INLINE void ag_exit(int status)
{
   OrigFn fn;
   VALGRIND_GET_ORIG_FN(fn);
   AG_REQ(AG_CR_EXIT, status, 0, 0);
   CALL_FN_v_W(fn, status);
   _exit(status);                /* (exit does not return) */
}
AG_WRAP(70910, exit, void, ag_exit, (int status), (status))
