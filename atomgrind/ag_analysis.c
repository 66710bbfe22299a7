/* ag_analysis.c -- the engines the tool runs and the events it feeds them.
 *
 * One engine per analysis asked for (--check=): an atomicity engine
 * (--engine=) and/or the race engine.  Events are forwarded to each;
 * reports come back through ag_report and go to the error manager. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "ag_tool.h"

#define AG_DEFAULT_ENGINE "aerodrome"
#define AG_RACE_ENGINE "fasttrack"

static ag_engine *ag_eng[2];
static UInt ag_neng;

/* Read inline by instrumented code: accesses call the helper only when
   non-zero (cleared between RPT windows). */
volatile UWord ag_an_gate = 1;

/* The core's scheduler yield: not in the public headers, but exported. */
extern void VG_(vg_yield)(void);

static void ag_report(void *cookie, const ag_violation *v)
{
   (void)cookie;
   ag_error_violation(v);
}

static ag_engine *ag_make(const HChar *name, const ag_config *cfg)
{
   const ag_engine_ops *ops = ag_engine_find(name);
   if (!ops) {
      VG_(fmsg)("atomgrind: engine '%s' is not available in this build\n", name);
      VG_(exit)(1);
   }
   return ag_engine_new(ops, cfg, ag_report, NULL);
}

void ag_analysis_init(void)
{
   ag_config cfg;
   VG_(memset)(&cfg, 0, sizeof cfg);
   cfg.cycles_increasing = ag_clo_cycles_increasing;
   if (ag_clo_check & AG_CHECK_ATOMICITY) {
      const HChar *name = ag_clo_engine;
      if (!name) name = ag_engine_find("atomsanitizer") ? "atomsanitizer" : AG_DEFAULT_ENGINE;
      ag_eng[ag_neng++] = ag_make(name, &cfg);
   }
   if (ag_clo_check & AG_CHECK_RACES)
      ag_eng[ag_neng++] = ag_make(AG_RACE_ENGINE, &cfg);
}

void ag_analysis_fini(void)
{
   for (UInt i = 0; i < ag_neng; i++) {
      if (VG_(clo_verbosity) >= 2 || VG_(clo_stats)) {
         const ag_engine_ops *ops = ag_engine_ops_of(ag_eng[i]);
         VG_(umsg)("atomgrind: %s: %llu events, %llu analysed, %llu reports, %u threads, "
                   "%llu bytes of shadow memory\n", ops->name,
                   (ULong)ag_engine_events(ag_eng[i]), (ULong)ag_engine_analysed(ag_eng[i]),
                   (ULong)ag_engine_reports(ag_eng[i]), ag_engine_threads(ag_eng[i]),
                   (ULong)ag_engine_shadow_bytes(ag_eng[i]));
      }
   }
}

Bool ag_an_active(void) { return ag_an_gate != 0; }

void ag_an_thread_new(ag_tid t)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_thread_new(ag_eng[i], t);
}

void ag_an_fork(ag_tid parent, ag_tid child)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_fork(ag_eng[i], parent, child, 0);
}

void ag_an_join(ag_tid joiner, ag_tid child)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_join(ag_eng[i], joiner, child, 0);
}

void ag_an_thread_exit(ag_tid t, ThreadId vgtid)
{
   int rc = AG_OK;
   for (UInt i = 0; i < ag_neng; i++) rc |= ag_ev_thread_exit(ag_eng[i], t);
   if (rc == AG_MISUSE_OPEN_EXIT)
      ag_error_misuse(vgtid, "Thread #%u exited inside an atomic region (the region "
                      "is closed here)", t + 1);
}

void ag_an_begin(ag_tid t, ThreadId vgtid)
{
   ExeContext *ec = VG_(record_ExeContext)(vgtid, 0);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_begin(ag_eng[i], t, (ULong)(Addr)ec);
   if (ag_clo_yield) VG_(vg_yield)();
}

void ag_an_end(ag_tid t, ThreadId vgtid)
{
   int rc = AG_OK;
   if (ag_clo_yield) VG_(vg_yield)();
   for (UInt i = 0; i < ag_neng; i++) rc = ag_ev_end(ag_eng[i], t, 0);
   if (rc == AG_MISUSE_END)
      ag_error_misuse(vgtid, "ATOMGRIND_ATOMIC_END without a matching "
                      "ATOMGRIND_ATOMIC_BEGIN in thread #%u", t + 1);
}

void ag_an_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_access(ag_eng[i], t, a, size, flags, ip);
}

void ag_an_acquire(ag_tid t, Addr lock, Bool shared)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_acquire(ag_eng[i], t, lock, shared, 0);
}

void ag_an_release(ag_tid t, Addr lock, Bool shared)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_release(ag_eng[i], t, lock, shared, 0);
}

void ag_an_forget(Addr a, SizeT len)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_forget(ag_eng[i], a, len);
}
