/* ag_errors.c -- atomgrind's errors through Valgrind's error manager:
 * printing (text and XML), de-duplication, suppressions. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"   /* stacks: VG_(eq_ExeContext) */
#include "pub_tool_xarray.h"       /* (needed by pub_tool_addrinfo.h) */
#include "pub_tool_debuginfo.h"    /* VG_(current_DiEpoch) */
#include "pub_tool_addrinfo.h"     /* describing an address */
#include "pub_tool_errormgr.h"     /* VG_(maybe_record_error), suppressions */
#include "pub_tool_libcbase.h"     /* VG_(memset), VG_(strcmp) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(printf_xml) */
#include "pub_tool_options.h"      /* VG_(clo_xml) */
#include "pub_tool_tooliface.h"    /* VG_(needs_tool_errors) */
#include "ag_errors.h"
#include "ag_cycles.h"             /* the cycle of a report, drawn */
#include "ag_stacks.h"             /* stacks (-flto's inlined frames named), where one starts, where a thread is */
#include "ag_fd.h"                 /* descriptors' made-up addresses (inline only) */
#include "ag_fnspec.h"             /* regions that are calls; --infer-spec */
#include "ag_options.h"            /* --trace-reports */
#include "ag_history.h"            /* access stacks (--history-level=full) */
#include "ag_syncinfo.h"           /* what kind of object a lock address is */
#include "ag_blocks.h"             /* heap blocks of race reports */
#include "ag_locksets.h"           /* locks held by a race's accesses */
#include "ag_site.h"               /* what a report's sites hold */
#include "ag_lockerrors.h"         /* deadlocks and lock orders (kinds 5 and 6) */
#include "ag_threadinfo.h"         /* thread announcements */

typedef enum { AG_ERR_ATOMICITY = 1, AG_ERR_RACE, AG_ERR_MISUSE, AG_ERR_PREDICTED } ag_err_kind;
STATIC_ASSERT(AG_ERR_DEADLOCK == AG_ERR_PREDICTED + 1 && AG_ERR_LOCKORDER == AG_ERR_DEADLOCK + 1);
#define AG_ERR_LAST AG_ERR_LOCKORDER

typedef struct {
   ag_violation v;
   ExeContext *begin_ec;        /* region of the reporting thread */
   ExeContext *other_begin_ec;  /* region of the other thread, if known */
   AddrInfo ai;
   Bool described;
   HChar msg[160];              /* misuse text */
   /* a report closed by a synchronisation event */
   UInt sync_kind;              /* AG_SK_* of v.lock */
   ExeContext *lock_acq_ec, *lock_rel_ec, *own_rel_ec;
   AddrInfo data_ai;            /* v.other_addr of the conflicting data */
   Bool data_described;
   AddrInfo own_ai;             /* v.own_addr, for a report at a region's end */
   Bool own_described;
   /* --history-level=full: stacks of the other thread's access and of
      the region's own access (NULL: code address only) */
   ExeContext *other_ec, *own_ec;
   /* a race on a heap block: the thread that allocated it */
   ag_tid block_tid;
   /* the cycle, looked for when the context is first recorded (if its
      picture was asked for); cycle_no: its files' number, 0: none yet */
   Bool cycle_sought;
   ag_xp_cycle *cycle;
   UInt cycle_no;
} ag_err_extra;

/* The address a report is about: the access's, else the lock's. */
static Addr ag_err_addr(const ag_violation *v)
{
   return (Addr)(v->addr ? v->addr : v->lock);
}

/* Region begin and lock sites are ExeContext handles (ag_an_begin,
   ag_an_sync_site); any other site gives NULL (ag_site.h). */
static ExeContext *ag_site_ec(ag_site site)
{
   return (ExeContext *)ag_site_handle_of(site);
}

/* " (call of NAME)" when the region that began at site is a call of an
   atomic function, else "". */
static const HChar *ag_call_of(ULong site, HChar *buf, SizeT n)
{
   Int fn = ag_fnspec_of_site(site);
   if (fn == AG_NO_FN) return "";
   VG_(snprintf)(buf, n, " (call of %s)", ag_fnspec_name(fn));
   return buf;
}

/* --infer-spec: the violation is blamed on the reporting thread's region
   -- the transaction the cycle returns to, which the engine found not
   serializable -- and, if that region is not a call (source markers),
   on the other thread's region on the cycle.  The blamed function stops
   being atomic; the report goes into the spec as the reason. */
static void ag_infer(ThreadId vgtid, const ag_violation *v)
{
   Int fn = ag_fnspec_of_site(v->begin_site);
   if (fn == AG_NO_FN) fn = ag_fnspec_of_site(v->other_begin_site);
   if (fn == AG_NO_FN) return;
   HChar why[400], other[32] = "another thread";
   /* an access's site is its code address; any other event's site is
      an ExeContext (or none), and the event is happening now: where the
      thread is */
   Addr ip = v->addr && v->site ? (Addr)v->site : ag_stacks_program_ip(vgtid);
   const HChar *at = VG_(describe_IP)(VG_(current_DiEpoch)(), ip, NULL);
   if (v->other_tid != AG_NO_TID)
      VG_(snprintf)(other, sizeof other, "thread #%u", v->other_tid + 1);
   VG_(snprintf)(why, sizeof why, "Atomicity violation: thread #%u's region interleaved "
                 "by %s\nat %s", v->tid + 1, other, at);
   if (ag_fnspec_drop(fn, why) && VG_(clo_verbosity) >= 1)
      VG_(umsg)("atomgrind: --infer-spec: %s is not atomic (%s)\n", ag_fnspec_name(fn), at);
}

/* ---- recording -------------------------------------------------- */

/* Regions (their begin stacks) an observed atomicity violation was
   reported in, as the interrupted or the interrupting region.  A
   predicted violation in such a region is the same bug seen again: it is
   not shown.  (Begin stacks are ExeContexts, which the core shares
   between equal stacks.)  A bounded list: beyond it, predictions are shown. */
#define AG_OBSERVED_MAX 256
static ExeContext *ag_observed[AG_OBSERVED_MAX];
static UInt ag_nobserved;

static Bool ag_observed_region(ExeContext *ec)
{
   for (UInt i = 0; i < ag_nobserved; i++)
      if (ag_observed[i] == ec) return True;
   return False;
}

static void ag_note_observed(ExeContext *ec)
{
   if (ec && !ag_observed_region(ec) && ag_nobserved < AG_OBSERVED_MAX)
      ag_observed[ag_nobserved++] = ec;
}

void ag_error_violation(ThreadId vgtid, const ag_violation *v)
{
   ag_err_extra x;
   if (ag_clo_trace_reports)
      VG_(umsg)("atomgrind: report: engine=%s event=%llu thread=%u other=%d\n",
                v->engine, (ULong)v->event, v->tid + 1,
                v->other_tid == AG_NO_TID ? -1 : (Int)v->other_tid + 1);
   VG_(memset)(&x, 0, sizeof x);
   x.v = *v;
   x.block_tid = AG_NO_TID;
   x.begin_ec = ag_site_ec(v->begin_site);
   x.other_begin_ec = ag_site_ec(v->other_begin_site);
   if (v->kind == AG_KIND_ATOMICITY && ag_fnspec_inferring()) ag_infer(vgtid, v);
   if (v->kind == AG_KIND_ATOMICITY && v->other_tid != AG_NO_TID) {
      x.other_ec = ag_history_stack(v->other_tid, v->other_event);
      x.own_ec = ag_history_stack(v->tid, v->own_event);
   }
   if (v->lock) {
      x.sync_kind = ag_syncinfo_kind((Addr)v->lock);
      x.lock_acq_ec = ag_site_ec(v->lock_acq_site);
      x.lock_rel_ec = ag_site_ec(v->lock_rel_site);
      x.own_rel_ec = ag_site_ec(v->own_rel_site);
   }
   if (v->kind == AG_KIND_ATOMICITY) {
      ag_note_observed(x.begin_ec);
      ag_note_observed(x.other_begin_ec);
   }
   if (v->kind == AG_KIND_PREDICT && x.begin_ec && ag_observed_region(x.begin_ec)) return;
   ag_err_kind k = v->kind == AG_KIND_RACE ? AG_ERR_RACE
                   : v->kind == AG_KIND_PREDICT ? AG_ERR_PREDICTED : AG_ERR_ATOMICITY;
   VG_(maybe_record_error)(vgtid, k, ag_err_addr(v), NULL, &x);
}

void ag_error_misuse(ThreadId vgtid, const HChar *fmt, ...)
{
   ag_err_extra x;
   va_list ap;
   VG_(memset)(&x, 0, sizeof x);
   va_start(ap, fmt);
   VG_(vsnprintf)(x.msg, sizeof x.msg, fmt, ap);
   va_end(ap);
   VG_(maybe_record_error)(vgtid, AG_ERR_MISUSE, 0, x.msg, &x);
}

/* ---- error manager callbacks ------------------------------------ */

/* A race engine's site: the earlier access's stack, if it carries one
   (--history-level=full, ag_site.h) ... */
static ExeContext *ag_site_ec_stack(ag_site site)
{
   if (!ag_site_is_stack(site)) return NULL;
   return VG_(get_ExeContext_from_ECU)(ag_site_stack_of(site));
}

/* ... and its code address either way. */
static Addr ag_site_ip(ag_site site)
{
   ExeContext *ec = ag_site_ec_stack(site);
   return ec ? ag_stacks_top(ec) : (Addr)ag_site_code_of(site);
}

static Bool ag_eq_Error(VgRes res, const Error *e1, const Error *e2)
{
   const ag_err_extra *a = VG_(get_error_extra)(e1);
   const ag_err_extra *b = VG_(get_error_extra)(e2);
   switch (VG_(get_error_kind)(e1)) {
   case AG_ERR_ATOMICITY:
      /* One bug, one report: the core has compared the stacks where the
         cycle closed; the rest of the key is code sites, not instances
         (threads, addresses, locks, or whether the other thread was in a
         region or which call path it took are not part of it): where the
         region began and, for a cycle closed by an access, the other
         thread's access it conflicts with. */
      return ag_stacks_top(a->begin_ec) == ag_stacks_top(b->begin_ec)
          && a->v.at_end == b->v.at_end
          && (a->v.size ? a->v.other_site : 0) == (b->v.size ? b->v.other_site : 0);
   case AG_ERR_RACE:
      /* the code of the earlier access, whatever locks it held; not
         whether this one reads or writes: at one instruction (the core
         has compared the stacks) that tells only the read half of a
         read-modify-write from its write half, one bug (Helgrind and DRD
         report a racing `lock xadd` once) */
      return ag_site_ip(a->v.other_site) == ag_site_ip(b->v.other_site);
   case AG_ERR_MISUSE:
      return VG_STREQ(a->msg, b->msg);
   case AG_ERR_DEADLOCK: case AG_ERR_LOCKORDER:
      return ag_lockerr_eq(VG_(get_error_kind)(e1), a, b);
   case AG_ERR_PREDICTED:
      /* one report per (region begin, the three accesses' code) */
      return ag_stacks_top(a->begin_ec) == ag_stacks_top(b->begin_ec)
          && a->v.e1_site == b->v.e1_site && a->v.e2_site == b->v.e2_site
          && a->v.other_site == b->v.other_site;
   default:
      return False;
   }
}

/* "Thread #N was created" and where, the first time thread t appears in
   a report (the announcement opens an XML <announcethread>, as
   Helgrind's).  Returns whether it was printed. */
static Bool ag_announce_thread(ag_tid t, Bool xml)
{
   if (!ag_threadinfo_announce(t)) return False;
   ExeContext *ec = ag_threadinfo_creation(t);
   if (xml) {
      VG_(printf_xml)("<announcethread>\n  <hthreadid>%u</hthreadid>\n", t + 1);
      if (ec) ag_stacks_pp(ec);
      else if (t == 0) VG_(printf_xml)("  <isrootthread></isrootthread>\n");
      VG_(printf_xml)("</announcethread>\n\n");
      return True;
   }
   VG_(umsg)("---Thread-Announcement------------------------------------------\n\n");
   if (ec) {
      VG_(umsg)("Thread #%u was created\n", t + 1);
      ag_stacks_pp(ec);
   } else if (t == 0) {
      VG_(umsg)("Thread #%u is the program's root thread\n", t + 1);
   } else {
      VG_(umsg)("Thread #%u was created (where is not known)\n", t + 1);
   }
   VG_(umsg)("\n");
   return True;
}

/* Threads of a report not announced yet, as Helgrind does: the threads
   it names (atomicity: the region's and the other one; prediction: also
   the region's if it is not the reporting thread), and for a race the
   heap block's allocator and the first acquirers of its locks. */
static void ag_before_pp_Error(const Error *err)
{
   const ag_err_extra *x = VG_(get_error_extra)(err);
   Bool xml = VG_(clo_xml), any = False;
   ErrorKind kind = VG_(get_error_kind)(err);
   if (kind == AG_ERR_MISUSE) return;
   if (kind == AG_ERR_DEADLOCK || kind == AG_ERR_LOCKORDER) {
      ag_tid ts[2 * AG_DL_MAX + 2];
      UInt n = ag_lockerr_threads(err, ts, sizeof ts / sizeof ts[0]);
      for (UInt i = 0; i < n; i++) any |= ag_announce_thread(ts[i], xml);
      if (any && !xml)
         VG_(umsg)("----------------------------------------------------------------\n\n");
      return;
   }
   const ag_violation *v = &x->v;
   if (kind == AG_ERR_PREDICTED) any |= ag_announce_thread(v->local_tid, xml);
   any |= ag_announce_thread(v->tid, xml);
   any |= ag_announce_thread(v->other_tid, xml);
   if (kind != AG_ERR_RACE) {
      if (any && !xml)
         VG_(umsg)("----------------------------------------------------------------\n\n");
      return;
   }
   any |= ag_announce_thread(x->block_tid, xml);
   ag_site sites[2] = { v->site, v->other_site };
   for (UInt k = 0; k < 2; k++) {
      UInt id = ag_site_lockset(sites[k]);
      for (UInt i = 0; i < ag_lockset_size(id); i++) {
         ag_tid by;
         if (ag_lockset_first_acquire(ag_lockset_lock(id, i), &by))
            any |= ag_announce_thread(by, xml);
      }
   }
   if (any && !xml)
      VG_(umsg)("----------------------------------------------------------------\n\n");
}

static const HChar *ag_rw(unsigned flags)
{
   if (flags & AG_FREE) return "free";
   if (flags & AG_ATOMIC) return (flags & AG_WRITE) ? "atomic update" : "atomic read";
   return (flags & AG_WRITE) ? "write" : "read";
}

/* Print a region-begin stack, or say there was none. */
static void ag_pp_region(const HChar *who, ExeContext *ec, Bool xml)
{
   if (xml) {
      VG_(printf_xml)("  <auxwhat>%s</auxwhat>\n", who);
      if (ec) ag_stacks_pp(ec);
   } else {
      VG_(umsg)("%s\n", who);
      if (ec) ag_stacks_pp(ec);
   }
}

static void ag_pp_addr(const ag_err_extra *x)
{
   if (x->described)
      VG_(pp_addrinfo)(ag_err_addr(&x->v), &x->ai);
}

static void ag_pp_ip(ULong ip, Bool xml);

/* An access: its whole stack if kept, else its code address. */
/* (an atomicity engine's access site is its code address) */
static void ag_pp_access_at(ExeContext *ec, ag_site site, Bool xml)
{
   Addr ip = (Addr)ag_site_code_of(site);
   if (ec) ag_stacks_pp(ec);
   else if (ip) ag_pp_ip(ip, xml);
}

/* "This conflicts with ... by thread #N" and the other access: engines
   keep its instruction address; its stack is kept only with
   --history-level=full (a stack capture per access costs). */
static void ag_pp_other_access(const ag_violation *v, ExeContext *ec, const HChar *earlier,
                               Bool xml)
{
   HChar prev[160];
   if (v->other_tid != AG_NO_TID)
      VG_(snprintf)(prev, sizeof prev, "This conflicts with %s %s by thread #%u",
                    earlier, ag_rw(v->other_flags), v->other_tid + 1);
   else
      VG_(snprintf)(prev, sizeof prev, "This conflicts with %s %s", earlier, ag_rw(v->other_flags));
   if (xml)
      VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", prev);
   else
      VG_(umsg)("%s\n", prev);
   ag_pp_access_at(ec, v->other_site, xml);
}

/* The first line of a report closed by a synchronisation event: the
   object named as what it is. */
static void ag_sync_what(HChar *what, Int n, const ag_err_extra *x, const HChar *other)
{
   const ag_violation *v = &x->v;
   unsigned long a = (unsigned long)v->lock;
   HChar op[96];
   switch (x->sync_kind) {
   case AG_SK_COND:
      VG_(snprintf)(op, sizeof op, "wake-up from condition variable %#lx in", a); break;
   case AG_SK_SEM:
      VG_(snprintf)(op, sizeof op, "wait on semaphore %#lx by", a); break;
   case AG_SK_BARRIER:
      VG_(snprintf)(op, sizeof op, "wait at barrier %#lx by", a); break;
   case AG_SK_ONCE:
      VG_(snprintf)(op, sizeof op, "pthread_once on %#lx by", a); break;
   case AG_SK_RWLOCK_RD: case AG_SK_RWLOCK_WR:
      VG_(snprintf)(op, sizeof op, "rwlock %#lx %s-locked by", a, v->shared ? "read" : "write");
      break;
   case AG_SK_SPIN:
      VG_(snprintf)(op, sizeof op, "spinlock %#lx acquired by", a); break;
   default:
      VG_(snprintf)(op, sizeof op, "%slock %#lx acquired by", v->shared ? "read " : "", a);
   }
   VG_(snprintf)(what, n, "Atomicity violation: %s thread #%u breaks its atomic region "
                 "(interleaved by %s)", op, v->tid + 1, other);
}

/* One line of explanation (an auxwhat in XML). */
static void ag_aux(Bool xml, const HChar *text)
{
   if (xml) VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", text);
   else VG_(umsg)("%s\n", text);
}

/* A code location known by its instruction address only. */
static void ag_pp_ip(ULong ip, Bool xml)
{
   /* in XML, describe_IP gives a <frame> element: a stack of one frame */
   const HChar *desc = VG_(describe_IP)(VG_(current_DiEpoch)(), (Addr)ip, NULL);
   if (xml) VG_(printf_xml)("  <stack>\n    %s\n  </stack>\n", desc);
   else VG_(umsg)("   at %s\n", desc);
}

static const HChar *ag_past(unsigned flags)
{
   if (flags & AG_ATOMIC) return (flags & AG_WRITE) ? "atomically updated" : "atomically read";
   return (flags & AG_WRITE) ? "wrote" : "read";
}

/* What the other thread changed (or read) while the region was out of
   the lock, and the region's own access it conflicts with. */
static void ag_pp_conflict_data(const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   HChar line[192];
   const HChar *them = v->other_size == 1 ? "it" : "them";
   if ((v->other_flags | v->own_flags) & AG_WRITE)
      VG_(snprintf)(line, sizeof line,
                    "Thread #%u %s %u byte%s at %#lx after thread #%u's atomic region %s %s",
                    v->other_tid + 1, ag_past(v->other_flags), v->other_size,
                    v->other_size == 1 ? "" : "s", (unsigned long)v->other_addr, v->tid + 1,
                    ag_past(v->own_flags), them);
   else      /* a cycle through the lock alone: what the lock guarded */
      VG_(snprintf)(line, sizeof line,
                    "Thread #%u %s %u byte%s at %#lx under the %s, as thread #%u's atomic "
                    "region had", v->other_tid + 1, ag_past(v->other_flags), v->other_size,
                    v->other_size == 1 ? "" : "s", (unsigned long)v->other_addr,
                    ag_syncinfo_name(x->sync_kind), v->tid + 1);
   ag_aux(xml, line);
   ag_pp_access_at(x->other_ec, v->other_site, xml);
   if (x->data_described) VG_(pp_addrinfo)((Addr)v->other_addr, &x->data_ai);
   if (!xml) VG_(umsg)("\n");
   VG_(snprintf)(line, sizeof line, "The %s of thread #%u inside its atomic region was",
                 ag_rw(v->own_flags), v->tid + 1);
   ag_aux(xml, line);
   ag_pp_access_at(x->own_ec, v->own_site, xml);
   if (!xml) VG_(umsg)("\n");
}

/* One way into a cycle reported at a region's end (AeroDrome): the event
   of `who`'s region from which it came after `whom`'s region -- an
   access (size > 0: site is its code address), an operation on a
   synchronisation object at addr (site: its stack, if kept), or a join. */
static void ag_pp_end_way(UInt who, UInt whom, ULong event, ag_site site, Addr addr, UInt size,
                          UInt flags, ExeContext *ec, const AddrInfo *ai, Bool xml)
{
   HChar line[200];
   if (!event) return;
   Int n = VG_(snprintf)(line, sizeof line, "Thread #%u's atomic region came after thread "
                         "#%u's from its ", who, whom);
   UInt sk = size ? 0 : ag_syncinfo_kind(addr);
   if (size)
      VG_(snprintf)(line + n, sizeof line - n, "%s of size %u at %#lx", ag_rw(flags), size,
                    (unsigned long)addr);
   else if (addr)
      VG_(snprintf)(line + n, sizeof line - n, "%s the %s at %#lx",
                    ag_syncinfo_is_lock(sk) ? "acquire of" : "operation on",
                    ag_syncinfo_name(sk), (unsigned long)addr);
   else
      VG_(snprintf)(line + n, sizeof line - n, "join of a thread");
   ag_aux(xml, line);
   if (size) ag_pp_access_at(ec, site, xml);
   else if (ag_site_ec(site)) ag_stacks_pp(ag_site_ec(site));
   if (size && ai) VG_(pp_addrinfo)(addr, ai);
   if (!xml) VG_(umsg)("\n");
}

/* A cycle found at the end of the region: the other region came after
   this one from some event of its own, and this one after it from one
   of this region's (each the event through which the order reached it,
   directly or through other threads). */
static void ag_pp_end_ways(const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   if (v->other_tid == AG_NO_TID) return;
   ag_pp_end_way(v->other_tid + 1, v->tid + 1, v->other_event, v->other_site,
                 (Addr)v->other_addr, v->other_size, v->other_flags, x->other_ec,
                 x->data_described ? &x->data_ai : NULL, xml);
   ag_pp_end_way(v->tid + 1, v->other_tid + 1, v->own_event, v->own_site, (Addr)v->own_addr,
                 v->own_size, v->own_flags, x->own_ec, x->own_described ? &x->own_ai : NULL,
                 xml);
}

static void ag_pp_stack(const HChar *line, ExeContext *ec, Bool xml)
{
   ag_aux(xml, line);
   ag_stacks_pp(ec);
}

/* Where the other thread took and released the lock (a condition
   variable, semaphore, barrier or once control: its last operation on
   it), and where this thread let it go inside its region. */
static void ag_pp_lock_uses(const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   const HChar *name = ag_syncinfo_name(x->sync_kind);
   HChar line[160];
   Bool any = False;
   if (ag_syncinfo_is_lock(x->sync_kind)) {
      if (x->lock_acq_ec) {
         VG_(snprintf)(line, sizeof line, "Thread #%u acquired the %s at", v->other_tid + 1, name);
         ag_pp_stack(line, x->lock_acq_ec, xml);
      }
      if (x->lock_rel_ec) {
         if (x->lock_acq_ec)
            VG_(snprintf)(line, sizeof line, "and released it at");
         else
            VG_(snprintf)(line, sizeof line, "Thread #%u released the %s at",
                          v->other_tid + 1, name);
         ag_pp_stack(line, x->lock_rel_ec, xml);
      }
      any = x->lock_acq_ec || x->lock_rel_ec;
      if (x->own_rel_ec) {
         if (any && !xml) VG_(umsg)("\n");
         VG_(snprintf)(line, sizeof line, "Thread #%u had released it inside its atomic region at",
                       v->tid + 1);
         ag_pp_stack(line, x->own_rel_ec, xml);
         any = True;
      }
   } else if (x->lock_rel_ec) {
      VG_(snprintf)(line, sizeof line, "Thread #%u's last operation on the %s before it was at",
                    v->other_tid + 1, name);
      ag_pp_stack(line, x->lock_rel_ec, xml);
      any = True;
   }
   if (any && !xml) VG_(umsg)("\n");
}

static void ag_pp_atomicity(const Error *err, const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   HChar other[64], Other[64], what[160];
   if (v->other_tid != AG_NO_TID) {
      VG_(snprintf)(other, sizeof other, "thread #%u", v->other_tid + 1);
      VG_(snprintf)(Other, sizeof Other, "Thread #%u", v->other_tid + 1);
   } else {
      VG_(snprintf)(other, sizeof other, "another thread");
      VG_(snprintf)(Other, sizeof Other, "Another thread");
   }
   if (v->at_end)
      VG_(snprintf)(what, sizeof what,
                    "Atomicity violation: the atomic region of thread #%u, ending here, "
                    "was interleaved with conflicting work of %s",
                    v->tid + 1, other);
   else if (v->size)
      VG_(snprintf)(what, sizeof what,
                    "Atomicity violation: %s of size %u at %#lx by thread #%u "
                    "breaks its atomic region (interleaved by %s)",
                    ag_rw(v->flags), v->size, (unsigned long)v->addr, v->tid + 1, other);
   else if (v->lock)
      ag_sync_what(what, sizeof what, x, other);
   else
      VG_(snprintf)(what, sizeof what,
                    "Atomicity violation in thread #%u's atomic region (interleaved by %s)",
                    v->tid + 1, other);
   if (xml) {
      VG_(printf_xml)("  <kind>Atomicity</kind>\n  <what>%pS</what>\n", what);
      ag_stacks_pp(VG_(get_error_where)(err));
   } else {
      VG_(umsg)("%s\n", what);
      ag_stacks_pp(VG_(get_error_where)(err));
      VG_(umsg)("\n");
   }
   /* the other thread's access this one conflicts with, when the engine
      knows it (an access's site is its instruction address) */
   if (v->size && v->other_event && v->other_site) {
      ag_pp_other_access(v, x->other_ec, "an earlier", xml);
      if (!xml) VG_(umsg)("\n");
   }
   if (!v->size && !v->at_end && v->own_event) ag_pp_conflict_data(x, xml);
   if (v->at_end) ag_pp_end_ways(x, xml);
   if (v->lock) ag_pp_lock_uses(x, xml);
   HChar line[384], call[160];
   VG_(snprintf)(line, sizeof line, "The atomic region%s of thread #%u began at",
                 ag_call_of(v->begin_site, call, sizeof call), v->tid + 1);
   ag_pp_region(line, x->begin_ec, xml);
   if (x->other_begin_ec)
      VG_(snprintf)(line, sizeof line,
                    "%s ran conflicting code inside its atomic region%s, which began at", Other,
                    ag_call_of(v->other_begin_site, call, sizeof call));
   else
      VG_(snprintf)(line, sizeof line, "%s ran conflicting code in between.", Other);
   if (!xml) VG_(umsg)("\n");
   ag_pp_region(line, x->other_begin_ec, xml);
   ag_pp_addr(x);
   /* (x is the error manager's own copy: the files' number is kept in it,
      so -v's list of errors at exit does not write them again) */
   if (x->cycle_sought) ag_cyc_pp(x->cycle, (UInt *)&x->cycle_no, xml);
}

/* A line of text, then "   at <code location of ip>". */
static void ag_pp_line_at(const HChar *text, ULong ip, Bool xml)
{
   if (xml)
      VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", text);
   else
      VG_(umsg)("%s\n", text);
   if (ip) ag_pp_ip(ip, xml);
}

/* A predicted violation is reported at the end of the region (when the
   prediction was made while it was open), or at the other thread's access
   (made after the region ended).  The stack is that event's; the other
   accesses are known by their instruction address. */
static void ag_pp_predicted(const Error *err, const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   HChar what[240], line[160];
   UInt t = v->local_tid + 1, u = v->other_tid + 1;
   if (v->at_end)
      VG_(snprintf)(what, sizeof what,
                    "Possible atomicity violation: the atomic region of thread #%u, ending here, "
                    "could be interleaved by a %s of thread #%u between its %s and its %s "
                    "at %#lx", t, ag_rw(v->other_flags), u, ag_rw(v->e1_flags),
                    ag_rw(v->e2_flags), (unsigned long)v->addr);
   else
      VG_(snprintf)(what, sizeof what,
                    "Possible atomicity violation: %s of size %u at %#lx by thread #%u "
                    "could interleave between a %s and a %s of thread #%u's atomic region",
                    ag_rw(v->other_flags), v->size, (unsigned long)v->addr, u,
                    ag_rw(v->e1_flags), ag_rw(v->e2_flags), t);
   if (xml)
      VG_(printf_xml)("  <kind>PredictedAtomicity</kind>\n  <what>%pS</what>\n", what);
   else
      VG_(umsg)("%s\n", what);
   ag_stacks_pp(VG_(get_error_where)(err));
   if (!xml) VG_(umsg)("\n");
   VG_(snprintf)(line, sizeof line, "Thread #%u's first access, a %s, was", t, ag_rw(v->e1_flags));
   ag_pp_line_at(line, v->e1_site, xml);
   VG_(snprintf)(line, sizeof line, "and its later %s was", ag_rw(v->e2_flags));
   ag_pp_line_at(line, v->e2_site, xml);
   if (v->at_end) {
      VG_(snprintf)(line, sizeof line, "Thread #%u's %s, which could run in between, was", u,
                    ag_rw(v->other_flags));
      ag_pp_line_at(line, v->other_site, xml);
   }
   if (!xml) VG_(umsg)("\n");
   HChar call[160];
   VG_(snprintf)(line, sizeof line, "The atomic region%s of thread #%u began at",
                 ag_call_of(v->begin_site, call, sizeof call), t);
   ag_pp_region(line, x->begin_ec, xml);
   ag_pp_addr(x);
}

/* "Locks held: none" / "Locks held: N, at address(es) A B ..." for the
   set a race engine's site carries. */
static void ag_pp_locks_held(ag_site site, Bool xml)
{
   UInt id = ag_site_lockset(site), n = ag_lockset_size(id);
   HChar line[256];
   Int len;
   if (id == AG_LS_UNKNOWN)
      len = VG_(snprintf)(line, sizeof line, "Locks held: not known (over 64 at once, "
                          "or over 65534 sets in the run)");
   else if (n == 0)
      len = VG_(snprintf)(line, sizeof line, "Locks held: none");
   else
      len = VG_(snprintf)(line, sizeof line, "Locks held: %u, at address%s", n, n == 1 ? "" : "es");
   UInt i;
   for (i = 0; i < n && len < (Int)sizeof line - 24; i++)
      len += VG_(snprintf)(line + len, sizeof line - len, " %#lx",
                           (unsigned long)ag_lockset_lock(id, i));
   if (i < n) VG_(snprintf)(line + len, sizeof line - len, " ...");
   ag_aux(xml, line);
}

/* Where a lock the race's accesses held was first acquired, and what its
   address is. */
static void ag_pp_lock_origin(Addr lock, Bool xml)
{
   ag_tid by = AG_NO_TID;
   ExeContext *ec = ag_lockset_first_acquire(lock, &by);
   HChar line[160];
   if (!xml) VG_(umsg)("\n");
   const HChar *name = ag_syncinfo_name(ag_syncinfo_kind(lock));
   if (ec)
      VG_(snprintf)(line, sizeof line, "The %s at %#lx was first acquired by thread #%u at",
                    name, (unsigned long)lock, by + 1);
   else
      VG_(snprintf)(line, sizeof line, "The %s at %#lx: where it was first acquired is "
                    "not known", name, (unsigned long)lock);
   ag_aux(xml, line);
   if (ec) ag_stacks_pp(ec);
   AddrInfo ai;
   VG_(describe_addr)(VG_(current_DiEpoch)(), lock, &ai);
   VG_(pp_addrinfo)(lock, &ai);
   VG_(clear_addrinfo)(&ai);
}

static Bool ag_in_set(UInt id, Addr lock)
{
   for (UInt i = 0; i < ag_lockset_size(id); i++)
      if (ag_lockset_lock(id, i) == lock) return True;
   return False;
}

/* Each lock either access held, once. */
static void ag_pp_lock_origins(const ag_violation *v, Bool xml)
{
   UInt a = ag_site_lockset(v->site), b = ag_site_lockset(v->other_site);
   for (UInt i = 0; i < ag_lockset_size(a); i++) ag_pp_lock_origin(ag_lockset_lock(a, i), xml);
   for (UInt i = 0; i < ag_lockset_size(b); i++)
      if (!ag_in_set(a, ag_lockset_lock(b, i))) ag_pp_lock_origin(ag_lockset_lock(b, i), xml);
}

/* Helgrind's order: what, locks held, stack; the earlier access, its
   locks, its code location; the address; then where each lock came from
   (XML: the locks after the stack, which must follow what). */
static void ag_pp_race(const Error *err, const ag_err_extra *x, Bool xml)
{
   const ag_violation *v = &x->v;
   HChar what[160], prev[160];
   Int fd = ag_fd_of_loc((Addr)v->addr);     /* a descriptor's use or close */
   const HChar *rw = fd >= 0 ? (v->flags & AG_WRITE ? "close" : "use") : ag_rw(v->flags);
   const HChar *orw = fd >= 0 ? (v->other_flags & AG_WRITE ? "close" : "use")
                              : ag_rw(v->other_flags);
   if (fd >= 0)
      VG_(snprintf)(what, sizeof what, "Possible data race during %s of file descriptor %d "
                    "by thread #%u", rw, fd, v->tid + 1);
   else
      VG_(snprintf)(what, sizeof what, "Possible data race during %s of size %u at %#lx "
                    "by thread #%u", rw, v->size, (unsigned long)v->addr, v->tid + 1);
   if (v->other_tid != AG_NO_TID)
      VG_(snprintf)(prev, sizeof prev, "This conflicts with a previous %s by thread #%u",
                    orw, v->other_tid + 1);
   else
      VG_(snprintf)(prev, sizeof prev, "This conflicts with a previous %s", orw);
   ExeContext *other_ec = ag_site_ec_stack(v->other_site);
   if (xml) {
      VG_(printf_xml)("  <kind>Race</kind>\n  <what>%pS</what>\n", what);
      ag_stacks_pp(VG_(get_error_where)(err));
      ag_pp_locks_held(v->site, xml);
      ag_aux(xml, prev);
      ag_pp_access_at(other_ec, v->other_site, xml);
      ag_pp_locks_held(v->other_site, xml);
   } else {
      VG_(umsg)("%s\n", what);
      ag_pp_locks_held(v->site, xml);
      ag_stacks_pp(VG_(get_error_where)(err));
      VG_(umsg)("\n%s\n", prev);
      ag_pp_locks_held(v->other_site, xml);
      ag_pp_access_at(other_ec, v->other_site, xml);
   }
   if (fd < 0) ag_pp_addr(x);
   ag_pp_lock_origins(v, xml);
}

static void ag_pp_Error(const Error *err)
{
   const ag_err_extra *x = VG_(get_error_extra)(err);
   Bool xml = VG_(clo_xml);
   switch (VG_(get_error_kind)(err)) {
   case AG_ERR_ATOMICITY: ag_pp_atomicity(err, x, xml); break;
   case AG_ERR_RACE: ag_pp_race(err, x, xml); break;
   case AG_ERR_PREDICTED: ag_pp_predicted(err, x, xml); break;
   case AG_ERR_DEADLOCK: case AG_ERR_LOCKORDER: ag_lockerr_pp(err, xml); break;
   case AG_ERR_MISUSE:
      if (xml) {
         VG_(printf_xml)("  <kind>Misuse</kind>\n  <what>%pS</what>\n", x->msg);
      } else {
         VG_(umsg)("%s\n", x->msg);
      }
      ag_stacks_pp(VG_(get_error_where)(err));
      break;
   default:
      VG_(umsg)("atomgrind: unknown error kind\n");
   }
}

/* A race on a live heap block: described as Helgrind does, with where
   and by which thread it was allocated. */
static Bool ag_describe_block(ag_err_extra *x)
{
   Addr a = ag_err_addr(&x->v), start;
   SizeT n;
   ExeContext *ec;
   ag_tid by;
   if (!ag_blocks_find(a, &start, &n, &ec, &by)) return False;
   VG_(memset)(&x->ai, 0, sizeof x->ai);
   x->ai.tag = Addr_Block;
   x->ai.Addr.Block.block_kind = Block_Mallocd;
   x->ai.Addr.Block.block_desc = "block";
   x->ai.Addr.Block.block_szB = n;
   x->ai.Addr.Block.rwoffset = (PtrdiffT)(a - start);
   x->ai.Addr.Block.allocated_at = ec;
   VG_(initThreadInfo)(&x->ai.Addr.Block.alloc_tinfo);
   if (by != AG_NO_TID) x->ai.Addr.Block.alloc_tinfo.tnr = by + 1;
   x->ai.Addr.Block.freed_at = VG_(null_ExeContext)();
   x->block_tid = by;
   return True;
}

static UInt ag_update_extra(const Error *err)
{
   ag_err_extra *x = VG_(get_error_extra)(err);
   ErrorKind k = VG_(get_error_kind)(err);
   if (k == AG_ERR_DEADLOCK || k == AG_ERR_LOCKORDER) return ag_lockerr_size(k);
   if (x && k == AG_ERR_RACE && !x->described)
      x->described = ag_describe_block(x);
   if (x && ag_err_addr(&x->v) && !x->described) {
      VG_(describe_addr)(VG_(current_DiEpoch)(), ag_err_addr(&x->v), &x->ai);
      x->described = True;
   }
   /* a new context's cycle: the ring holds the events up to its report
      now (this runs inside ag_error_violation) */
   if (x && VG_(get_error_kind)(err) == AG_ERR_ATOMICITY && ag_cyc_on && !x->cycle_sought) {
      x->cycle = ag_cyc_find(&x->v);
      x->cycle_sought = True;
   }
   /* heap blocks are described now: they may be freed before printing */
   if (x && !x->v.size && (x->v.own_event || x->v.at_end) && x->v.other_addr
       && (x->v.other_size || !x->v.at_end) && !x->data_described) {
      VG_(describe_addr)(VG_(current_DiEpoch)(), (Addr)x->v.other_addr, &x->data_ai);
      x->data_described = True;
   }
   if (x && x->v.at_end && x->v.own_addr && x->v.own_size && !x->own_described) {
      VG_(describe_addr)(VG_(current_DiEpoch)(), (Addr)x->v.own_addr, &x->own_ai);
      x->own_described = True;
   }
   return sizeof(ag_err_extra);
}

static const HChar *const ag_kind_names[] = { NULL, "Atomicity", "Race", "Misuse",
                                              "PredictedAtomicity", "Deadlock", "LockOrder" };

static Bool ag_recognised_suppression(const HChar *name, Supp *su)
{
   for (Int k = AG_ERR_ATOMICITY; k <= AG_ERR_LAST; k++)
      if (VG_STREQ(name, ag_kind_names[k])) {
         VG_(set_supp_kind)(su, k);
         return True;
      }
   return False;
}

static Bool ag_read_extra_suppression_info(Int fd, HChar **bufpp, SizeT *nBufp,
                                           Int *lineno, Supp *su)
{
   (void)fd; (void)bufpp; (void)nBufp; (void)lineno; (void)su;
   return True;
}

static Bool ag_error_matches_suppression(const Error *err, const Supp *su)
{
   return VG_(get_supp_kind)(su) == (SuppKind)VG_(get_error_kind)(err);
}

static const HChar *ag_get_error_name(const Error *err)
{
   ErrorKind k = VG_(get_error_kind)(err);
   return (k >= AG_ERR_ATOMICITY && k <= AG_ERR_LAST) ? ag_kind_names[k] : NULL;
}

static SizeT ag_print_extra_suppression_info(const Error *err, HChar *buf, Int nBuf)
{
   (void)err;
   if (nBuf > 0) buf[0] = 0;
   return 0;
}

static SizeT ag_print_extra_suppression_use(const Supp *su, HChar *buf, Int nBuf)
{
   (void)su;
   if (nBuf > 0) buf[0] = 0;
   return 0;
}

static void ag_update_extra_suppression_use(const Error *err, const Supp *su)
{
   (void)err; (void)su;
}

void ag_errors_init(void)
{
   VG_(needs_tool_errors)(ag_eq_Error, ag_before_pp_Error, ag_pp_Error,
                          False /* show ThreadIDs: we name threads ourselves */,
                          ag_update_extra, ag_recognised_suppression,
                          ag_read_extra_suppression_info,
                          ag_error_matches_suppression, ag_get_error_name,
                          ag_print_extra_suppression_info,
                          ag_print_extra_suppression_use,
                          ag_update_extra_suppression_use);
   VG_(needs_xml_output)();
}
