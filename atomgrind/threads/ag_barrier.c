/* ag_barrier.c -- see ag_barrier.h.
 *
 * For races, a barrier's departures are ordered after the arrivals of
 * their own generation only.  glibc's barrier (since 2.23: nptl's struct
 * pthread_barrier) keeps its count at offset 8; a count that does not
 * look like one falls back to an RMW of the barrier object.
 *
 * Misuse, in Helgrind's words: a zero count, initialising a barrier that
 * is initialised (not on a stack: a frame's barrier is a new one each
 * call), initialising or destroying one that threads wait at, destroying
 * one never initialised.  With waiters, the init or destroy is also
 * ordered after their arrivals, and later arrivals do not read the
 * barrier's memory until it is freed: the misuse is the report, not races
 * on that memory besides it. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client): the count */
#include "pub_tool_machine.h"      /* threads' stacks */
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "ag_analysis.h"           /* arrivals and departures as events */
#include "ag_barrier.h"
#include "ag_errors.h"             /* ag_error_misuse */
#include "ag_map.h"                /* barrier address -> state */
#include "ag_threads.h"            /* the calling thread's engine id */

typedef struct {
   UInt count;          /* threads per generation */
   ULong arrivals;      /* since init */
   Addr gen;            /* the current generation's object */
   Bool inited;         /* initialised, not destroyed or freed since */
   Bool misused;        /* initialised or destroyed under waiters */
} ag_barrier;

#define AG_BAR_COUNT_OFF 8
#define AG_BAR_GEN_BASE 0xFFFFC00000000000ULL

static ag_map *ag_bar_all;     /* barrier address -> ag_barrier */
static ag_map *ag_bar_waiting; /* (barrier, tid) -> its generation object */
static ag_map *ag_bar_left;    /* generation object -> departures so far */
static Addr ag_bar_next = AG_BAR_GEN_BASE;

void ag_bar_init(void)
{
   ag_bar_all = ag_map_new(sizeof(ag_barrier));
   ag_bar_waiting = ag_map_new(sizeof(Addr));
   ag_bar_left = ag_map_new(sizeof(UInt));
}

static ULong ag_bar_key(Addr b, ag_tid t)
{
   return (ULong)b | ((ULong)(t + 1) << 48);   /* user addresses: 48 bits */
}

/* An arrival: into the current generation, or a new one when the last is
   full. */
void ag_bar_arrive(ThreadId vgtid, Addr b)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   Addr at = b + AG_BAR_COUNT_OFF;
   UInt count = VG_(am_is_valid_for_client)(at, sizeof(UInt), VKI_PROT_READ)
                ? *(const UInt *)at : 0;
   if (count == 0 || count > (1u << 20)) {
      ag_an_sync_rmw(th->tid, b);
      return;
   }
   ag_barrier *g = ag_map_lookup(ag_bar_all, b, NULL);
   if (g->count != count) {             /* first wait since init */
      g->count = count;
      g->arrivals = 0;
   }
   if (g->arrivals++ % count == 0) {
      g->gen = ag_bar_next;
      ag_bar_next += 8;
   }
   *(Addr *)ag_map_lookup(ag_bar_waiting, ag_bar_key(b, th->tid), NULL) = g->gen;
   ag_an_barrier(th->tid, b, g->gen, True);
}

/* A departure: after the arrivals of its own generation, whose object is
   dropped when all of them have left. */
void ag_bar_depart(ThreadId vgtid, Addr b)
{
   ag_thread *th = ag_thread_of(vgtid);
   if (!th->valid) return;
   ag_barrier *g = ag_map_get(ag_bar_all, b);
   Addr *gen = ag_map_get(ag_bar_waiting, ag_bar_key(b, th->tid));
   if (!gen || !*gen || !g) {
      ag_an_sync_rmw(th->tid, b);
      return;
   }
   ag_an_barrier(th->tid, b, *gen, False);
   UInt *left = ag_map_lookup(ag_bar_left, *gen, NULL);
   if (++*left == g->count) ag_an_forget(*gen, 1);
   *gen = 0;
}

/* The calling thread's number in reports. */
static UInt ag_bar_who(ThreadId vgtid)
{
   return ag_thread_of(vgtid)->tid + 1;
}

/* Threads that wait at g: those of its generation not yet full (those
   of a full one are leaving, and glibc's destroy waits for them). */
static UInt ag_bar_waiting_at(const ag_barrier *g)
{
   return g->count == 0 ? 0 : (UInt)(g->arrivals % g->count);
}

/* Threads wait at g: say so, and order the caller after their arrivals. */
static void ag_bar_waiters(ThreadId vgtid, Addr b, ag_barrier *g, const HChar *fn)
{
   ag_error_misuse(vgtid, "Thread #%u: %s: threads are waiting at barrier %#lx",
                   ag_bar_who(vgtid), fn, b);
   g->misused = True;
   ag_thread *th = ag_thread_of(vgtid);
   if (th->valid && g->gen != 0) ag_an_barrier(th->tid, b, g->gen, False);
   else if (th->valid) ag_an_sync_rmw(th->tid, b);
}

/* Is a in some thread's stack (a frame's barrier: a new object at each
   call of the function)? */
static Bool ag_bar_on_a_stack(Addr a)
{
   ThreadId t;
   Addr lo, hi;
   VG_(thread_stack_reset_iter)(&t);
   while (VG_(thread_stack_next)(&t, &lo, &hi)) {
      Addr max = VG_(thread_get_stack_max)(t);
      if (a <= max && a + VG_(thread_get_stack_size)(t) > max) return True;
   }
   return False;
}

void ag_bar_init_pre(ThreadId vgtid, Addr b, UInt count)
{
   if (count == 0)
      ag_error_misuse(vgtid, "Thread #%u: pthread_barrier_init: 'count' argument "
                      "is zero (barrier %#lx)", ag_bar_who(vgtid), b);
   ag_barrier *g = ag_map_get(ag_bar_all, b);
   if (!g) return;
   if (g->inited && !ag_bar_on_a_stack(b))
      ag_error_misuse(vgtid, "Thread #%u: pthread_barrier_init: barrier %#lx is "
                      "already initialised", ag_bar_who(vgtid), b);
   if (ag_bar_waiting_at(g) > 0) ag_bar_waiters(vgtid, b, g, "pthread_barrier_init");
}

void ag_bar_destroy_pre(ThreadId vgtid, Addr b)
{
   ag_barrier *g = ag_map_get(ag_bar_all, b);
   if (!g || !g->inited) {
      ag_error_misuse(vgtid, "Thread #%u: pthread_barrier_destroy: barrier %#lx "
                      "was never initialised", ag_bar_who(vgtid), b);
      return;
   }
   if (ag_bar_waiting_at(g) > 0) ag_bar_waiters(vgtid, b, g, "pthread_barrier_destroy");
}

void ag_bar_destroyed(ThreadId vgtid, Addr b)
{
   ag_thread *th = ag_thread_of(vgtid);
   ag_barrier *g = ag_map_get(ag_bar_all, b);
   if (th->valid && g && g->gen != 0) ag_an_barrier(th->tid, b, g->gen, False);
}

Bool ag_bar_misused(Addr b)
{
   ag_barrier *g = ag_map_get(ag_bar_all, b);
   return g && g->misused;
}

/* An init or destroy: whatever waits come next are a new barrier's. */
void ag_bar_set_inited(Addr b, Bool inited)
{
   ag_barrier *g = inited ? ag_map_lookup(ag_bar_all, b, NULL) : ag_map_get(ag_bar_all, b);
   if (!g) return;
   g->count = 0;
   g->inited = inited;
}

static void ag_bar_gone(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   ag_barrier *g = rec;
   g->inited = g->misused = False;
   g->count = 0;
}

void ag_bar_forget_range(Addr a, SizeT len)
{
   ag_map_foreach_in(ag_bar_all, a, a + len, ag_bar_gone, NULL);
}
