/* ag_dcl.c -- see ag_dcl.h.  The rule, why the cycle it accepts is no
 * real violation, and the two things it can hide are in docs/atomgrind.md
 * (section 3, "Standard library idioms", check-lock-recheck).
 *
 * Thread t's first check R1 (a std::atomic load, inside a region, t
 * holding no lock, the location x all zero) is held back.  Until t's next
 * access to x:
 *   - t's own other events go on: moving R1 later inside its own region
 *     past events that do not write x changes no conflict;
 *   - a write to x by a thread holding no lock feeds R1 first (exact);
 *   - a write to x by a thread u holding locks marks R1 overwritten, with
 *     the locks u held.
 * At t's next access A to x:
 *   - A re-reads x while t holds one of the overwriters' locks (or x was
 *     not overwritten, and t holds a lock): R1 is dropped.  This is the
 *     DCL: R1 only chose the locked path, whose re-check decides;
 *   - else, not overwritten: R1 is fed, then A (exact);
 *   - else: R1 -> W -> A is a cycle of two transactions: reported here.
 * At the end of t's region with R1 held: not overwritten, R1 is fed
 * (exact); overwritten and t took one of the overwriters' locks since,
 * R1 -> W -> release -> t's acquire is a cycle: reported; else R1 is
 * dropped, and a cycle through R1 and other data than x is not seen
 * (counted, and said at exit with -v).  A held R1 fed while another
 * thread runs (before its unlocked write) is recorded with that thread's
 * stack under --history-level=full. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client) */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "ag_threadrec.h"          /* the per-thread records by thread id */
#include "ag_dcl.h"
#include "ag_site.h"               /* the report's sites are code addresses */

/* A thread's part of its record (ag_threadrec.h). */
typedef ag_tr_dcl ag_dcl_thread;

UInt ag_dcl_nheld;
Bool ag_dcl_on;
static ag_dcl_ops ag_dcl_an;        /* analysis, which calls us (ag_dcl_init) */
static ULong ag_dcl_dropped, ag_dcl_unseen;

static ag_dcl_thread *ag_dcl_get(ag_tid t)
{
   return &ag_rec_of(t)->dcl;
}

static Bool ag_dcl_holds(const ag_dcl_thread *d, Addr lock)
{
   for (UInt i = 0; i < d->nlocks; i++)
      if (d->locks[i] == lock) return True;
   return False;
}

static Bool ag_dcl_overlaps(const ag_dcl_thread *d, Addr a, UInt size)
{
   return a < d->addr + d->size && d->addr < a + size;
}

/* Is the memory [a, a+size) readable and all zero? */
static Bool ag_dcl_zero(Addr a, UInt size)
{
   if (size == 0 || size > 16 || !VG_(am_is_valid_for_client)(a, size, VKI_PROT_READ))
      return False;
   for (UInt i = 0; i < size; i++)
      if (((const UChar *)a)[i]) return False;
   return True;
}

static void ag_dcl_unhold(ag_dcl_thread *d)
{
   d->held = False;
   ag_dcl_nheld--;
}

/* Feed t's held R1 now: no write to x came between. */
static void ag_dcl_feed(ag_tid t, ag_dcl_thread *d)
{
   ag_dcl_unhold(d);
   ag_dcl_an.feed(t, d->addr, d->size, d->flags, d->ip);
}

/* R1 -> W -> (t's access at ip, or its acquire of the writer's lock):
   a cycle of two transactions. */
static void ag_dcl_report(ag_tid t, ag_dcl_thread *d, Addr a, UInt size, UInt flags, Addr ip)
{
   ag_violation v;
   VG_(memset)(&v, 0, sizeof v);
   v.kind = AG_KIND_ATOMICITY;
   v.tid = t;
   v.site = ag_site_code(ip);
   v.addr = a;
   v.size = size;
   v.flags = flags;
   v.begin_site = d->begin_site;
   v.other_tid = d->over_tid;
   v.other_site = ag_site_code(d->over_ip);
   v.other_event = d->over_event;
   v.other_flags = d->over_flags | AG_WRITE;
   v.other_addr = d->addr;
   v.other_size = d->size;
   v.other_begin_site = d->over_begin;
   v.own_site = ag_site_code(d->ip);
   v.own_addr = d->addr;
   v.own_size = d->size;
   v.own_flags = d->flags;
   v.local_tid = AG_NO_TID;
   ag_dcl_unhold(d);
   ag_dcl_an.report(&v);
}

/* A write to x by u while t holds R1 of x. */
static void ag_dcl_overwrite(ag_tid t, ag_dcl_thread *d, ag_tid u, const ag_dcl_thread *w,
                             UInt flags, Addr ip)
{
   if (w->nlocks == 0) { ag_dcl_feed(t, d); return; }
   if (!d->over) {
      d->over = True;
      d->over_tid = u;
      d->over_ip = ip;
      d->over_event = ag_dcl_an.events() + 1;
      d->over_flags = flags;
      d->over_begin = w->begin_site;
      d->nover = w->nlocks;
      for (UInt i = 0; i < w->nlocks; i++) d->over_locks[i] = w->locks[i];
      return;
   }
   /* keep the locks every overwriting write held */
   UInt n = 0;
   for (UInt i = 0; i < d->nover; i++)
      if (ag_dcl_holds(w, d->over_locks[i])) d->over_locks[n++] = d->over_locks[i];
   d->nover = n;
}

static Bool ag_dcl_holds_over_lock(const ag_dcl_thread *d)
{
   for (UInt i = 0; i < d->nover; i++)
      if (ag_dcl_holds(d, d->over_locks[i])) return True;
   return False;
}

/* t's own next access to x. */
static void ag_dcl_next(ag_tid t, ag_dcl_thread *d, Addr a, UInt size, UInt flags, Addr ip)
{
   Bool reread = !(flags & AG_WRITE) && a == d->addr && size == d->size;
   if (reread && (d->over ? ag_dcl_holds_over_lock(d) : d->nlocks > 0)) {
      ag_dcl_unhold(d);                 /* the DCL's first check */
      ag_dcl_dropped++;
   } else if (!d->over) {
      ag_dcl_feed(t, d);
   } else {
      ag_dcl_report(t, d, a, size, flags, ip);
   }
}

Bool ag_dcl_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip)
{
   ag_dcl_thread *d = ag_dcl_get(t);
   if (ag_dcl_nheld) {
      if (d->held && ag_dcl_overlaps(d, a, size)) ag_dcl_next(t, d, a, size, flags, ip);
      if (flags & AG_WRITE)
         for (ag_tid u = 0; u < ag_nrecs; u++) {
            ag_dcl_thread *o = &ag_recs[u]->dcl;
            if (u != t && o->held && ag_dcl_overlaps(o, a, size))
               ag_dcl_overwrite(u, o, t, d, flags, ip);
         }
   }
   if ((flags & (AG_ATOMIC_LS | AG_ATOMIC | AG_WRITE)) != AG_ATOMIC_LS || d->held || d->nlocks
       || !d->begin_site || !ag_dcl_zero(a, size))
      return False;
   d->held = True;
   d->addr = a;
   d->size = size;
   d->flags = flags;
   d->ip = ip;
   d->over = False;
   d->nover = 0;
   d->took_over_lock = False;
   ag_dcl_nheld++;
   return True;
}

static void ag_dcl_end_held(ag_tid t, ag_dcl_thread *d)
{
   if (!d->over) ag_dcl_feed(t, d);
   else if (d->took_over_lock) ag_dcl_report(t, d, d->addr, d->size, d->flags, d->ip);
   else {
      ag_dcl_unhold(d);
      ag_dcl_unseen++;
   }
}

void ag_dcl_init(const ag_dcl_ops *ops) { ag_dcl_an = *ops; }

void ag_dcl_begin(ag_tid t, ULong site)
{
   if (site) ag_dcl_get(t)->begin_site = site;
}

void ag_dcl_end(ag_tid t)
{
   ag_dcl_thread *d = ag_dcl_get(t);
   if (d->held) ag_dcl_end_held(t, d);
   d->begin_site = 0;
}

void ag_dcl_lock(ag_tid t, Addr lock, Bool acquire)
{
   ag_dcl_thread *d = ag_dcl_get(t);
   if (acquire) {
      if (d->nlocks < AG_DCL_LOCKS) d->locks[d->nlocks++] = lock;
      if (d->held && d->over)
         for (UInt i = 0; i < d->nover; i++)
            if (d->over_locks[i] == lock) d->took_over_lock = True;
      return;
   }
   for (UInt i = d->nlocks; i-- > 0;)
      if (d->locks[i] == lock) {
         d->locks[i] = d->locks[--d->nlocks];
         return;
      }
}

void ag_dcl_fini(void)
{
   if (ag_dcl_on && VG_(clo_verbosity) > 1)
      VG_(umsg)("atomgrind: check-lock-recheck: %llu first check(s) dropped, %llu "
                "overwritten and never re-checked\n", ag_dcl_dropped, ag_dcl_unseen);
}
