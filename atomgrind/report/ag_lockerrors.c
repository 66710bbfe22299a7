/* ag_lockerrors.c -- printing the deadlock and lock-order errors, in text
 * and XML, and telling them apart (ag_lockerrors.h). */
#include "pub_tool_basics.h"
#include "pub_tool_errormgr.h"     /* VG_(maybe_record_error), VG_(get_error_*) */
#include "pub_tool_xarray.h"       /* (needed by pub_tool_addrinfo.h) */
#include "pub_tool_debuginfo.h"    /* VG_(current_DiEpoch) */
#include "pub_tool_addrinfo.h"     /* what a lock's address is */
#include "pub_tool_execontext.h"   /* VG_(apply_ExeContext) */
#include "pub_tool_libcbase.h"     /* VG_(strlen) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(printf_xml) */
#include "pub_tool_options.h"      /* VG_(clo_xml) */
#include "ag_lockerrors.h"
#include "ag_syncinfo.h"           /* what kind of object a lock address is */
#include "ag_stacks.h"             /* stacks (-flto's inlined frames named), where one starts */

void ag_lockerr_deadlock(ThreadId vgtid, const ag_dl_report *r)
{
   VG_(maybe_record_error)(vgtid, AG_ERR_DEADLOCK, r->e[0].obj, NULL, (void *)r);
}

void ag_lockerr_order(ThreadId vgtid, const ag_lo_report *r)
{
   VG_(maybe_record_error)(vgtid, AG_ERR_LOCKORDER, r->observed.to, NULL, (void *)r);
}

SizeT ag_lockerr_size(ErrorKind kind)
{
   return kind == AG_ERR_DEADLOCK ? sizeof(ag_dl_report) : sizeof(ag_lo_report);
}

/* The core has compared where each was reported.  A deadlock ends the
   run: there is one.  An inversion is one bug per pair of code sites that
   took the two locks in the observed order, whichever lock instances. */
Bool ag_lockerr_eq(ErrorKind kind, const void *a, const void *b)
{
   if (kind == AG_ERR_DEADLOCK) return True;
   const ag_lo_report *x = a, *y = b;
   return ag_stacks_top(x->observed.from_ec) == ag_stacks_top(y->observed.from_ec)
       && ag_stacks_top(x->observed.to_ec) == ag_stacks_top(y->observed.to_ec);
}

static void ag_le_add(ag_tid *out, UInt *n, UInt max, ag_tid t)
{
   if (t == AG_NO_TID || *n >= max) return;
   for (UInt i = 0; i < *n; i++)
      if (out[i] == t) return;
   out[(*n)++] = t;
}

UInt ag_lockerr_threads(const Error *err, ag_tid *out, UInt max)
{
   UInt n = 0;
   if (VG_(get_error_kind)(err) == AG_ERR_DEADLOCK) {
      const ag_dl_report *r = VG_(get_error_extra)(err);
      for (UInt i = 0; i < r->n; i++) {
         ag_le_add(out, &n, max, r->e[i].tid);
         ag_le_add(out, &n, max, r->e[i].holder);
      }
      if (r->ended) ag_le_add(out, &n, max, r->ended - 1);
   } else {
      const ag_lo_report *r = VG_(get_error_extra)(err);
      ag_le_add(out, &n, max, r->observed.tid);
      for (UInt i = 0; i < r->n; i++) ag_le_add(out, &n, max, r->path[i].tid);
   }
   return n;
}

/* ---- printing ---- */

static void ag_le_aux(Bool xml, const HChar *text)
{
   if (xml) VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", text);
   else VG_(umsg)("%s\n", text);
}

static void ag_le_stack(Bool xml, const HChar *text, ExeContext *ec)
{
   ag_le_aux(xml, text);
   if (ec) ag_stacks_pp(ec);
   if (!xml) VG_(umsg)("\n");
}

static const HChar *ag_le_name(Addr a)
{
   return ag_syncinfo_name(ag_syncinfo_kind(a));
}

/* What each object at a[0..n) is (a global's name, a heap block), once. */
static void ag_le_describe(const Addr *a, UInt n)
{
   for (UInt i = 0; i < n; i++) {
      Bool seen = False;
      for (UInt j = 0; j < i; j++) seen |= a[j] == a[i];
      if (seen || a[i] == 0) continue;
      AddrInfo ai;
      VG_(describe_addr)(VG_(current_DiEpoch)(), a[i], &ai);
      VG_(pp_addrinfo)(a[i], &ai);
      VG_(clear_addrinfo)(&ai);
   }
}

/* "Thread #N waits for ..." */
static void ag_le_wait_line(const ag_dl_entry *e, HChar *buf, Int n)
{
   HChar by[48] = "";
   if (e->holder != AG_NO_TID)
      VG_(snprintf)(by, sizeof by, ", held by thread #%u", e->holder + 1);
   else if (e->what == AG_DW_LOCK || (e->what == AG_DW_COND && e->woken))
      /* (a lock waited for by no one in particular is read-held; a
         reader that ended holds it for good) */
      VG_(snprintf)(by, sizeof by, ", held by readers, blocked or ended");
   switch (e->what) {
   case AG_DW_JOIN:
      VG_(snprintf)(buf, n, "Thread #%u waits for thread #%u to end (a join)", e->tid + 1,
                    e->holder + 1);
      break;
   case AG_DW_SEM:
      VG_(snprintf)(buf, n, "Thread #%u waits on semaphore %#lx, whose value is 0, which no "
                    "thread that can run will post", e->tid + 1, (unsigned long)e->obj);
      break;
   case AG_DW_BARRIER:
      VG_(snprintf)(buf, n, "Thread #%u waits at barrier %#lx, where %u of its %u threads "
                    "have arrived", e->tid + 1, (unsigned long)e->obj, e->arrived, e->count);
      break;
   case AG_DW_COND:
      if (e->woken)
         VG_(snprintf)(buf, n, "Thread #%u, woken from condition variable %#lx, waits for "
                       "its mutex %#lx%s", e->tid + 1, (unsigned long)e->obj,
                       (unsigned long)e->mutex, by);
      else
         VG_(snprintf)(buf, n, "Thread #%u waits on condition variable %#lx (mutex %#lx), "
                       "which no thread that can run will signal", e->tid + 1,
                       (unsigned long)e->obj, (unsigned long)e->mutex);
      break;
   default:
      VG_(snprintf)(buf, n, "Thread #%u waits for the %s at %#lx%s", e->tid + 1,
                    ag_le_name(e->obj), (unsigned long)e->obj, by);
   }
}

/* The lock entry e waits for, and where its holder took it. */
static void ag_le_taken(const ag_dl_entry *e, Bool xml)
{
   HChar line[160];
   Addr lock = e->what == AG_DW_COND ? e->mutex : e->obj;
   if (e->what == AG_DW_JOIN || e->what == AG_DW_BARRIER || e->what == AG_DW_SEM
       || e->holder == AG_NO_TID
       || !e->taken_at)
      return;
   VG_(snprintf)(line, sizeof line, "Thread #%u took the %s at %#lx at", e->holder + 1,
                 ag_le_name(lock), (unsigned long)lock);
   ag_le_stack(xml, line, e->taken_at);
}

static void ag_le_pp_deadlock(const Error *err, const ag_dl_report *r, Bool xml)
{
   HChar what[200], line[256];
   if (r->cycle)
      VG_(snprintf)(what, sizeof what, "Deadlock: %u threads wait for each other in a cycle; "
                    "the run cannot go on", r->n);
   else
      VG_(snprintf)(what, sizeof what, "Deadlock: every thread is blocked, and none can be "
                    "woken by one that runs; the run cannot go on");
   if (xml) VG_(printf_xml)("  <kind>Deadlock</kind>\n  <what>%pS</what>\n", what);
   else VG_(umsg)("%s\n", what);
   ag_stacks_pp(VG_(get_error_where)(err));
   if (!xml) VG_(umsg)("\n");
   for (UInt i = 0; i < r->n; i++) {
      const ag_dl_entry *e = &r->e[i];
      ag_le_wait_line(e, line, sizeof line);
      if (i == 0) {                 /* its stack is the report's own, above */
         ag_le_aux(xml, line);
         if (!xml) VG_(umsg)("\n");
      } else {
         VG_(snprintf)(line + VG_(strlen)(line), sizeof line - VG_(strlen)(line), ", at");
         ag_le_stack(xml, line, e->stack);
      }
      ag_le_taken(e, xml);
   }
   if (r->more) {
      VG_(snprintf)(line, sizeof line, "(and %u more blocked thread%s)", r->more,
                    r->more == 1 ? "" : "s");
      ag_le_aux(xml, line);
   }
   if (r->ended) {
      VG_(snprintf)(line, sizeof line, "Thread #%u, the last thread that could run, has ended",
                    r->ended);
      ag_le_aux(xml, line);
      if (!xml) VG_(umsg)("\n");
   }
   Addr objs[2 * AG_DL_MAX];
   UInt n = 0;
   for (UInt i = 0; i < r->n; i++) {
      if (r->e[i].what == AG_DW_JOIN) continue;
      objs[n++] = r->e[i].obj;
      if (r->e[i].what == AG_DW_COND) objs[n++] = r->e[i].mutex;
   }
   ag_le_describe(objs, n);
}

/* "Thread #N acquired A at ... and then B at ..." */
static void ag_le_pp_orderstep(const ag_lo_order *o, const HChar *how, Bool xml)
{
   HChar line[200];
   VG_(snprintf)(line, sizeof line, "%s: thread #%u acquired the %s at %#lx", how, o->tid + 1,
                 ag_le_name(o->from), (unsigned long)o->from);
   ag_le_stack(xml, line, o->from_ec);
   VG_(snprintf)(line, sizeof line, " followed by a later acquisition of the %s at %#lx",
                 ag_le_name(o->to), (unsigned long)o->to);
   ag_le_stack(xml, line, o->to_ec);
}

/* Helgrind's LockOrder: the order the path established first, the
   observed order that inverts it. */
static void ag_le_pp_order(const Error *err, const ag_lo_report *r, Bool xml)
{
   HChar what[200];
   const ag_lo_order *o = &r->observed;
   VG_(snprintf)(what, sizeof what, "Thread #%u: lock order \"%#lx before %#lx\" violated "
                 "(a possible deadlock)", o->tid + 1, (unsigned long)o->to,
                 (unsigned long)o->from);
   if (xml) VG_(printf_xml)("  <kind>LockOrder</kind>\n  <what>%pS</what>\n", what);
   else VG_(umsg)("%s\n", what);
   ag_stacks_pp(VG_(get_error_where)(err));
   if (!xml) VG_(umsg)("\n");
   ag_le_pp_orderstep(o, "Observed (incorrect) order", xml);
   for (UInt i = 0; i < r->n; i++)
      ag_le_pp_orderstep(&r->path[i], i == 0 ? "Required order was established by"
                                             : "and by", xml);
   if (r->more) {
      HChar line[80];
      VG_(snprintf)(line, sizeof line, "(and %u more orders of the cycle)", r->more);
      ag_le_aux(xml, line);
   }
   Addr locks[1 + AG_LO_PATH_MAX];
   UInt n = 0;
   locks[n++] = o->to;
   for (UInt i = 0; i < r->n; i++) locks[n++] = r->path[i].to;
   ag_le_describe(locks, n);
}

void ag_lockerr_pp(const Error *err, Bool xml)
{
   if (VG_(get_error_kind)(err) == AG_ERR_DEADLOCK)
      ag_le_pp_deadlock(err, VG_(get_error_extra)(err), xml);
   else
      ag_le_pp_order(err, VG_(get_error_extra)(err), xml);
}
