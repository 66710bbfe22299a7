/* ag_analysis.c -- the engines the tool runs and the events it feeds them.
 *
 * One engine per analysis asked for (--check=): an atomicity engine
 * (--engine=), the prediction engine beside it (--predict=yes), and/or
 * the race engine.  Events are forwarded to each; reports come back
 * through ag_report and go to the error manager. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"   /* region begin sites are ExeContexts */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(fmsg) */
#include "pub_tool_libcassert.h"   /* VG_(exit) */
#include "pub_tool_machine.h"      /* VG_(get_IP) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity), VG_(clo_stats) */
#include "pub_tool_stacktrace.h"   /* VG_(get_StackTrace): a free's caller */
#include "pub_tool_threadstate.h"  /* VG_INVALID_THREADID, VG_(get_running_tid) */
#include "pub_tool_transtab.h"     /* VG_(discard_translations_safely) */
#include "ag_analysis.h"
#include "ag_errors.h"             /* reports and misuse */
#include "ag_fnspec.h"             /* were atomic functions named? */
#include "ag_blocks.h"             /* heap blocks, for race reports */
#include "ag_cycles.h"             /* the ring reports' cycles are drawn from: an observer */
#include "ag_dcl.h"                /* check-lock-recheck's first checks */
#include "ag_stdio.h"              /* glibc's inline stdio locks */
#include "ag_handoff.h"            /* the owner table's happens-before */
#include "ag_history.h"            /* --history-level=full: access stacks */
#include "ag_locksets.h"           /* locks held, for race reports */
#include "ag_options.h"            /* --check, --engine, --sample, ... */
#include "ag_record.h"             /* --record-trace */
#include "ag_sampler.h"            /* RPT windows */
#include "ag_site.h"               /* what the engines' sites hold */
#include "ag_threadrec.h"          /* the client requests a thread is inside */

#define AG_RACE_ENGINE "fasttrack"
#define AG_PREDICT_ENGINE "predict"

static ag_engine *ag_eng[3];        /* [0] atomicity if checked */
static UInt ag_neng;
/* The race engine's index in ag_eng (its access sites carry the locks
   held: ag_locksets.h), or past the end. */
static UInt ag_an_race_eng = 3;
static ThreadId ag_an_vgtid = VG_INVALID_THREADID;   /* the running thread */
static UInt ag_an_threads;           /* threads announced (RPT's |T|) */
static UInt ag_an_held;              /* locks held now, all threads (RPT's h) */
static ULong ag_an_regions;          /* regions begun, all threads */

/* Read inline by instrumented code: accesses call the helper only when
   non-zero.  It is cleared between RPT windows, and -- when only atomicity
   is checked and no trace is recorded -- while no thread is inside a
   region, since the dispatcher would not forward those accesses anyway
   (ag_quiescent in engine/ag_engine.c).  It changes only at client
   requests and window edges, so superblocks read it once. */
volatile UWord ag_an_gate = 1;
static Bool ag_an_window = True;     /* inside an RPT window (or no sampling) */
static Bool ag_an_every_access;      /* races checked, trace recorded, or
                                        --skip-quiescent=no */
/* Prediction needs the accesses made while no region is open too (a
   remote access of a serial-looking run lies outside the region), but
   only from the run's first region on: a program without regions pays
   nothing, and one with regions only after its first begin.  Accesses
   before it are not seen, so a remote access made before any region
   began is never predicted. */
static Bool ag_an_predicting;        /* the prediction engine runs ... */
static Bool ag_an_region_seen;       /* ... and a region has begun */

/* The floor: while the gate has been shut since the start (no region has
   opened yet, and accesses matter only inside regions), accesses are not
   instrumented at all; when the gate first opens every translation is
   discarded, so code runs instrumented from the next superblock on.  Once
   instrumented, code stays so (the gate does the rest): a program that
   opens and closes regions all the time never retranslates twice.  Not
   with RPT, whose gate opens and shuts at every window. */
Bool ag_an_instrument_accesses = True;

/* Core-private, not in the tool headers (but exported, as the big lock
   ag_sched.c takes): True while a client request is handled, when the core
   lets tools discard translations; and the discard itself, which the
   scheduler also makes between runs of generated code. */
extern Bool VG_(ok_to_discard_translations);
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);

/* A region opened by an atomic function's entry (ag_spec.c) opens the gate
   from a helper, inside the translation of the entry's superblock, which
   must not be discarded then.  The entry's superblock tests ag_an_leave
   right after the helper and leaves to the scheduler before running any
   of the function's code; the discard is made there (ag_an_stopped), and
   the block runs again instrumented (the entry, at the same SP, opens
   nothing twice).  Not at the next run's start: the core has looked the
   code up by then.  Set: a discard is pending. */
volatile UWord ag_an_leave;

static void ag_an_discard(void)
{
   VG_(discard_translations)((Addr)0x1000, ~(ULong)0xfff, "atomgrind");
}

/* Client requests each thread is inside (nested: a handler's own calls).
   The core's VG_(ok_to_discard_translations) is True while any thread is
   in one -- also when that thread has parked there for the scheduler and
   another runs generated code, whose current translation a discard would
   pull from under it (it went on uninstrumented: a region's first read
   was lost in test_spec's tail case).  Counted in the thread's slot
   (ag_threadrec.h). */
void ag_an_request(ThreadId vgtid, Bool in)
{
   UChar *n = &ag_slot_of(vgtid)->in_request;
   if (in) (*n)++;
   else if (*n > 0) (*n)--;
}

static Bool ag_an_may_discard(void)
{
   ThreadId me = VG_(get_running_tid)();
   return VG_(ok_to_discard_translations) && ag_slot_of(me)->in_request > 0;
}

static void ag_an_instrument_now(void)
{
   if (ag_an_instrument_accesses) return;
   ag_an_instrument_accesses = True;
   if (ag_an_may_discard()) {
      ag_an_discard();
   } else {
      ag_an_leave = 1;
   }
}

static void ag_an_update_gate(void)
{
   ag_an_gate = ag_neng > 0 && ag_an_window
                && (ag_an_every_access || ag_engine_open_regions(ag_eng[0]) > 0
                    || (ag_an_predicting && ag_an_region_seen));
   if (ag_an_gate) ag_an_instrument_now();
}

/* Without the engines no event reaches them, and with the gate shut no
   access reaches ag_an_access. */
void ag_an_disable(void)
{
   ag_neng = 0;
   ag_an_update_gate();
}

/* RPT sampling (--sample=rpt).  Time is counted in events: instrumented
   superblocks add their number of accesses to ag_an_clock inline, and call
   ag_an_tick only when it reaches ag_an_next; synchronisation events count
   one each.  Between windows the engines hold no state at all. */
static ag_sampler ag_smp;
ULong ag_an_clock;
ULong ag_an_next = ~0ULL;

void ag_an_tick(void)
{
   ag_sampler_note_threads(&ag_smp, ag_an_threads);
   ag_sampler_note_locks_held(&ag_smp, ag_an_held);
   int act = ag_sampler_advance(&ag_smp, ag_an_clock);
   for (UInt i = 0; i < ag_neng; i++) ag_engine_set_active(ag_eng[i], act);
   ag_an_window = act;
   ag_an_update_gate();
   ag_an_next = ag_sampler_next_change(&ag_smp);
}

/* A synchronisation event: one tick of time. */
static inline void ag_an_sync_event(void)
{
   if (!ag_clo_sample_rpt) return;
   ag_an_clock++;
   ag_an_tick();
}

static void ag_report(void *cookie, const ag_violation *v)
{
   (void)cookie;
   ag_error_violation(ag_an_vgtid, v);
}

/* What check-lock-recheck (ag_dcl.c) calls back: the engines' access
   path past it, its own reports, the event count. */
static void ag_an_access_now(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);
static void ag_an_report(ag_violation *v);
static ULong ag_an_events(void);
static void ag_an_stdio_acquire(ag_tid t, Addr lock);
static void ag_an_stdio_release(ag_tid t, Addr lock);
static void ag_an_forget_engines(Addr a, SizeT len);

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
   cfg.keep_quiescent = !ag_clo_skip_quiescent;
   cfg.predict_in_regions = ag_clo_predict_regions;
   /* a race report may name its thread's epoch's first access: the same
      verdicts, 0.91-1.08x the time (not with full history: exact names) */
   cfg.approx_history = ag_clo_history != AG_HIST_FULL;
   /* applies to prediction only (the engine with ops->locs_reset) */
   cfg.loc_budget = (ULong)ag_clo_predict_memory << 20;
   if (ag_clo_check & AG_CHECK_ATOMICITY) {
      const HChar *name = ag_clo_engine;
      if (!name) name = AG_DEFAULT_ENGINE;
      ag_eng[ag_neng++] = ag_make(name, &cfg);
      /* not with RPT windows: a window starts without the locks held
         at its start, and prediction needs them */
      if (ag_clo_predict && !ag_clo_sample_rpt) {
         /* bounded prediction's time too: past the run's start, windows */
         ag_config pcfg = cfg;
         pcfg.access_windows = ag_clo_predict_regions && ag_clo_predict_windows;
         pcfg.win_epsilon = ag_clo_rpt_epsilon_ppm / 1e6;
         pcfg.win_delta = ag_clo_rpt_delta_ppm / 1e6;
         pcfg.win_seed = ag_clo_sample_seed;
         pcfg.win_whole = ag_clo_predict_whole;
         ag_eng[ag_neng++] = ag_make(AG_PREDICT_ENGINE, &pcfg);
         /* bounded, it needs what the atomicity engine needs */
         ag_an_predicting = !ag_clo_predict_regions;
      }
   }
   if (ag_clo_check & AG_CHECK_RACES) {
      ag_an_race_eng = ag_neng;
      ag_eng[ag_neng++] = ag_make(AG_RACE_ENGINE, &cfg);
      ag_blocks_on = True;
   }
   /* the cycle pictures are drawn from the atomicity engine's events */
   if (ag_cyc_on && ag_neng > 0) ag_engine_observe(ag_eng[0], &ag_cyc_observer);
   ag_an_every_access = (ag_clo_check & AG_CHECK_RACES) || ag_clo_record_trace
                        || !ag_clo_skip_quiescent;
   ag_an_update_gate();
   ag_an_instrument_accesses = ag_an_gate || ag_clo_sample_rpt;
   if (ag_clo_sched != AG_SCHED_NATIVE) ag_ho_init();   /* shared accesses are points */
   /* held-back loads would reach the race engine out of order */
   ag_dcl_on = ag_clo_check == AG_CHECK_ATOMICITY && ag_neng > 0 && !ag_clo_record_trace;
   static const ag_dcl_ops dcl = { ag_an_access_now, ag_an_report, ag_an_events };
   ag_dcl_init(&dcl);
   static const ag_stdio_ops stdio = { ag_an_stdio_acquire, ag_an_stdio_release,
                                       ag_an_forget_engines };
   ag_stdio_init(&stdio);
   if (ag_clo_sample_rpt) {
      ag_sampler_init(&ag_smp, ag_clo_rpt_epsilon_ppm / 1e6, ag_clo_rpt_delta_ppm / 1e6,
                      ag_clo_sample_seed);
      ag_an_tick();
   }
}

void ag_analysis_fini(void)
{
   ag_dcl_fini();
   ag_stdio_fini();
   ag_ho_fini();
   /* a clean report on a program nobody marked is not a clean bill */
   if ((ag_clo_check & AG_CHECK_ATOMICITY) && ag_neng > 0 && ag_an_regions == 0
       && VG_(clo_verbosity) >= 1) {
      VG_(umsg)("atomgrind: WARNING: no atomic region was entered, so atomicity "
                "was not checked.\n");
      if (ag_fnspec_given()) {   /* the advice was followed: say what happened */
         VG_(umsg)("atomgrind: No function named by --atomic-fns/--atomic-spec ran "
                   "(each pattern's reason is above).\n");
      } else {
         VG_(umsg)("atomgrind: Mark regions with ATOMGRIND_ATOMIC_BEGIN/END, or name "
                   "atomic functions\n");
         VG_(umsg)("atomgrind: with --atomic-fns=PATTERN or --atomic-spec=FILE.\n");
      }
   }
   if (ag_clo_sample_rpt && VG_(clo_verbosity) >= 1)
      VG_(umsg)("RPT sampling: %llu window(s) analysed, %llu of %llu events "
                "(k = %llu, r = %llu, seed %llu)\n",
                (ULong)ag_sampler_windows(&ag_smp), (ULong)ag_sampler_analysed(&ag_smp),
                ag_an_clock, (ULong)ag_smp.k, (ULong)ag_smp.r, ag_clo_sample_seed);
   for (UInt i = 0; i < ag_neng; i++) {
      ULong offered = ag_engine_win_offered(ag_eng[i]), sent = ag_engine_win_sent(ag_eng[i]);
      if (sent < offered && VG_(clo_verbosity) >= 1)
         VG_(umsg)("Prediction: every access of the first %llu in regions, then RPT "
                   "windows: %llu window(s), %llu of %llu accesses; nothing predicted "
                   "across the gaps (--predict-windows=no: every access)\n",
                   ag_clo_predict_whole, (ULong)ag_engine_win_windows(ag_eng[i]), sent, offered);
      if (ag_engine_loc_resets(ag_eng[i]) && VG_(clo_verbosity) >= 1)
         VG_(umsg)("Prediction: its location state reached --predict-memory=%u MiB "
                   "%llu time(s) and started afresh: no pattern across those points "
                   "was predicted\n", ag_clo_predict_memory,
                   (ULong)ag_engine_loc_resets(ag_eng[i]));
      if (VG_(clo_verbosity) >= 2 || VG_(clo_stats)) {
         const ag_engine_ops *ops = ag_engine_ops_of(ag_eng[i]);
         VG_(umsg)("atomgrind: %s: %llu events, %llu analysed, %llu reports, %u threads, "
                   "%llu bytes of shadow memory (peak %llu, slabs %llu; engine's own peak %llu), "
                   "%llu cache misses\n",
                   ag_engine_name(ops),
                   (ULong)ag_engine_events(ag_eng[i]), (ULong)ag_engine_analysed(ag_eng[i]),
                   (ULong)ag_engine_reports(ag_eng[i]), ag_engine_threads(ag_eng[i]),
                   (ULong)ag_engine_shadow_bytes(ag_eng[i]), (ULong)ag_engine_shadow_peak(ag_eng[i]),
                   (ULong)ag_engine_shadow_slabs(ag_eng[i]), (ULong)ag_engine_heap_peak(ag_eng[i]),
                   (ULong)ag_engine_cache_misses(ag_eng[i]));
         uint64_t h[9];
         ag_engine_shadow_words(ag_eng[i], h);
         VG_(umsg)("atomgrind: %s: shadow words by locations: fresh %llu, 1: %llu, "
                   "2: %llu, 3: %llu, 4: %llu, 5: %llu, 6: %llu, 7: %llu, 8: %llu\n",
                   ag_engine_name(ops), (ULong)h[0], (ULong)h[1], (ULong)h[2], (ULong)h[3],
                   (ULong)h[4], (ULong)h[5], (ULong)h[6], (ULong)h[7], (ULong)h[8]);
      }
   }
}

Bool ag_an_in_region(ag_tid t) { return ag_neng > 0 && ag_engine_depth(ag_eng[0], t) > 0; }
Int ag_an_depth(ag_tid t) { return ag_neng > 0 ? (Int)ag_engine_depth(ag_eng[0], t) : -1; }

void ag_an_running(ThreadId vgtid) { ag_an_vgtid = vgtid; }

void ag_an_stopped(void)
{
   if (UNLIKELY(ag_an_leave)) {
      ag_an_leave = 0;
      ag_an_discard();
   }
}

static void ag_an_announce(ag_tid t)
{
   if (t + 1 > ag_an_threads) ag_an_threads = t + 1;
}

void ag_an_thread_new(ag_tid t)
{
   ag_an_announce(t);
   ag_rec_thread(t);
   ag_ho_thread_new(t);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_thread_new(ag_eng[i], t);
}

void ag_an_fork(ag_tid parent, ag_tid child)
{
   ag_an_announce(child);
   ag_an_sync_event();
   ag_rec_fork(parent, child);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_fork(ag_eng[i], parent, child, 0);
}

void ag_an_join(ag_tid joiner, ag_tid child)
{
   ag_an_sync_event();
   ag_rec_join(joiner, child);
   ag_ho_join(joiner, child);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_join(ag_eng[i], joiner, child, 0);
}

void ag_an_thread_exit(ag_tid t, ThreadId vgtid)
{
   int rc = AG_OK;
   ag_an_vgtid = vgtid;
   if (ag_dcl_on && ag_an_in_region(t)) ag_dcl_end(t);
   ag_rec_exit(t);
   for (UInt i = 0; i < ag_neng; i++) rc |= ag_ev_thread_exit(ag_eng[i], t);
   ag_an_update_gate();
   if (rc == AG_MISUSE_OPEN_EXIT)
      ag_error_misuse(vgtid, "Thread #%u exited inside an atomic region (the region "
                      "is closed here)", t + 1);
}

/* Only an outermost region's begin site is kept (and reported), so a
   nested one costs no stack capture. */
ULong ag_an_begin(ag_tid t, ThreadId vgtid)
{
   ExeContext *ec = ag_an_in_region(t) ? NULL : VG_(record_ExeContext)(vgtid, 0);
   ag_an_regions++;
   ag_an_vgtid = vgtid;
   ag_an_sync_event();
   ag_rec_begin(t, VG_(get_IP)(vgtid));
   ag_site site = ag_site_handle(ec);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_begin(ag_eng[i], t, site);
   if (ag_dcl_on) ag_dcl_begin(t, site);
   ag_an_region_seen = True;
   ag_an_update_gate();
   return site;
}

void ag_an_end(ag_tid t, ThreadId vgtid)
{
   int rc = AG_OK;
   ag_an_vgtid = vgtid;
   ag_an_sync_event();
   if (ag_dcl_on && ag_engine_depth(ag_eng[0], t) == 1) ag_dcl_end(t);
   ag_rec_end(t, VG_(get_IP)(vgtid));
   for (UInt i = 0; i < ag_neng; i++) rc = ag_ev_end(ag_eng[i], t, 0);
   ag_an_update_gate();
   if (rc == AG_MISUSE_END)
      ag_error_misuse(vgtid, "ATOMGRIND_ATOMIC_END without a matching "
                      "ATOMGRIND_ATOMIC_BEGIN in thread #%u", t + 1);
}

/* --history-level=full: the stack of an access the atomicity engine
   analysed inside some region (no other access can be reported).  VEX
   keeps the unwind registers exact at memory accesses, so it is the
   access's own stack. */
static void ag_an_access_stack(ag_tid t)
{
   if (!(ag_clo_check & AG_CHECK_ATOMICITY) || ag_engine_open_regions(ag_eng[0]) == 0)
      return;
   ag_history_note(t, ag_engine_events(ag_eng[0]),
                   VG_(record_ExeContext)(VG_(get_running_tid)(), 0));
}

/* --history-level=full in race mode: the access's whole stack stands for
   its address (ag_site.h), as Helgrind keeps a stack per access. */
static ag_site ag_an_race_stack(void)
{
   ExeContext *ec = VG_(record_ExeContext)(VG_(get_running_tid)(), 0);
   return ag_site_stack(VG_(get_ECU_from_ExeContext)(ec));
}

/* The site of an access for engine i: the race engine's carries the
   locks the thread holds (ag_locksets.h). */
static inline ag_site ag_an_site(UInt i, ag_tid t, Addr ip)
{
   if (i != ag_an_race_eng) return ag_site_code(ip);
   if (UNLIKELY(ag_clo_history == AG_HIST_FULL))
      return ag_site_with_locks(ag_an_race_stack(), ag_lockset_tag(t));
   return ag_site_with_locks(ag_site_code(ip), ag_lockset_tag(t));
}

static ULong ag_an_events(void) { return ag_neng ? ag_engine_events(ag_eng[0]) : 0; }

/* A report ag_dcl.c makes itself (a first check overwritten, then no
   re-check under the writers' lock). */
static void ag_an_report(ag_violation *v)
{
   v->engine = "check-lock-recheck";
   v->event = ag_neng ? ag_engine_events(ag_eng[0]) : 0;
   ag_error_violation(ag_an_vgtid, v);
}

/* A std::atomic load may be a DCL's first check, held back (ag_dcl.c);
   while one is, every access goes past it. */
void ag_an_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip)
{
   if (UNLIKELY(flags & AG_IN_LIBC)) {     /* libc's inline stdio locks */
      if (ag_stdio_access(t, a, size, flags)) return;
      flags &= ~AG_IN_LIBC;
   }
   if (UNLIKELY(ag_dcl_on) && (ag_dcl_nheld
                             || (flags & (AG_ATOMIC_LS | AG_ATOMIC | AG_WRITE)) == AG_ATOMIC_LS)
       && ag_dcl_access(t, a, size, flags, ip))
      return;
   ag_an_access_now(t, a, size, flags, ip);
}

/* The hot path: no call for recording unless asked, one engine unrolled. */
static void ag_an_access_now(ag_tid t, Addr a, UInt size, UInt flags, Addr ip)
{
   if (UNLIKELY(ag_clo_record_trace != NULL)) ag_rec_access(t, a, size, flags, ip);
   ag_ev_access(ag_eng[0], t, a, size, flags, ag_an_site(0, t, ip));
   for (UInt i = 1; i < ag_neng; i++)
      ag_ev_access(ag_eng[i], t, a, size, flags, ag_an_site(i, t, ip));
   if (UNLIKELY(ag_clo_history == AG_HIST_FULL)) ag_an_access_stack(t);
}

/* The stack of a lock operation, for reports closed at an acquire (where
   the other thread took and released the lock): only while some region
   is open, since no other lock operation can lie on a cycle (the
   argument of ag_quiescent in engine/ag_engine.c), so programs without
   regions do not pay for it. */
static ag_site ag_an_sync_site(void)
{
   if (ag_clo_history == AG_HIST_NONE || !(ag_clo_check & AG_CHECK_ATOMICITY)
       || ag_engine_open_regions(ag_eng[0]) == 0)
      return AG_SITE_NONE;
   return ag_site_handle(VG_(record_ExeContext)(VG_(get_running_tid)(), 0));
}

static void ag_an_acquire(ag_tid t, Addr lock, Bool shared)
{
   ag_an_sync_event();
   ag_rec_acquire(t, lock, shared);
   ag_ho_acquire(t, lock);
   ag_site site = ag_neng ? ag_an_sync_site() : AG_SITE_NONE;
   for (UInt i = 0; i < ag_neng; i++) ag_ev_acquire(ag_eng[i], t, lock, shared, site);
}

static void ag_an_release(ag_tid t, Addr lock, Bool shared)
{
   ag_an_sync_event();
   ag_rec_release(t, lock, shared);
   ag_ho_release(t, lock);
   ag_site site = ag_neng ? ag_an_sync_site() : AG_SITE_NONE;
   for (UInt i = 0; i < ag_neng; i++) ag_ev_release(ag_eng[i], t, lock, shared, site);
}

/* The held count changes before the event's tick, so RPT sees a lock as
   held at its acquire and not at its release. */
void ag_an_lock_acquire(ag_tid t, Addr lock, Bool shared)
{
   ag_an_held++;
   if (ag_an_race_eng < ag_neng) ag_lockset_acquire(t, VG_(get_running_tid)(), lock);
   if (ag_dcl_on) ag_dcl_lock(t, lock, True);
   ag_ho_lock(t, True);
   ag_an_acquire(t, lock, shared);
}

void ag_an_lock_release(ag_tid t, Addr lock, Bool shared)
{
   if (ag_an_held) ag_an_held--;
   if (ag_an_race_eng < ag_neng) ag_lockset_release(t, lock);
   if (ag_dcl_on) ag_dcl_lock(t, lock, False);
   ag_ho_lock(t, False);
   ag_an_release(t, lock, shared);
}

static void ag_an_stdio_acquire(ag_tid t, Addr lock) { ag_an_lock_acquire(t, lock, False); }
static void ag_an_stdio_release(ag_tid t, Addr lock) { ag_an_lock_release(t, lock, False); }

void ag_an_sync_rmw(ag_tid t, Addr obj)
{
   ag_an_acquire(t, obj, False);
   ag_an_release(t, obj, False);
}

/* Ordering and accesses that no instruction of the program makes
   (descriptors and system calls, ag_fd.c): for the race engine only --
   atomicity engines see no lock here that a thread holds and releases. */
void ag_an_order(ag_tid t, Addr obj, Bool release)
{
   if (release) ag_ho_release(t, obj);
   else ag_ho_acquire(t, obj);
   if (ag_an_race_eng >= ag_neng) return;
   ag_an_sync_event();
   /* recorded as what the race engine sees (a replay with --check=races
      numbers events as it did) */
   if (release) {
      ag_rec_release(t, obj, False);
      ag_ev_release(ag_eng[ag_an_race_eng], t, obj, False, 0);
   } else {
      ag_rec_acquire(t, obj, False);
      ag_ev_acquire(ag_eng[ag_an_race_eng], t, obj, False, 0);
   }
}

void ag_an_world_access(ag_tid t, Addr a, SizeT len, Bool write, Addr ip)
{
   if (ag_an_race_eng >= ag_neng || !ag_an_gate || len == 0) return;
   UInt size = len > 0x7fffffffUL ? 0x7fffffffU : (UInt)len;
   if (ag_stdio_lock_word(a, size)) return;     /* a stdio lock's futex */
   ag_rec_access(t, a, size, write ? AG_WRITE : 0, ip);
   ag_ev_access(ag_eng[ag_an_race_eng], t, a, size, write ? AG_WRITE : 0,
                ag_an_site(ag_an_race_eng, t, ip));
}

/* A barrier wait's arrival or departure.  The race engine sees a release
   (arrival) or an acquire (departure) of gen, an object of the barrier's
   generation, so a departure is ordered after the arrivals of its own
   generation only (as an RMW of the barrier, everyone's later arrivals
   would order it too, hiding races between generations).  The other
   engines see the RMW of b, as before.  Recorded as the race engine sees
   it. */
void ag_an_barrier(ag_tid t, Addr b, Addr gen, Bool arrive)
{
   ag_site site = ag_neng ? ag_an_sync_site() : AG_SITE_NONE;
   ag_an_sync_event();
   if (arrive) ag_rec_release(t, gen, False);
   else ag_rec_acquire(t, gen, False);
   if (arrive) ag_ho_release(t, gen);
   else ag_ho_acquire(t, gen);
   for (UInt i = 0; i < ag_neng; i++) {
      if (i == ag_an_race_eng) {
         if (arrive) ag_ev_release(ag_eng[i], t, gen, False, 0);
         else ag_ev_acquire(ag_eng[i], t, gen, False, 0);
         continue;
      }
      ag_ev_acquire(ag_eng[i], t, b, False, site);
      ag_ev_release(ag_eng[i], t, b, False, site);
   }
}

void ag_an_atomic_seen(Addr a, UInt size)
{
   for (UInt i = 0; i < ag_neng; i++) ag_ev_atomic_seen(ag_eng[i], a, size);
}

/* The code that called free (the replacement's caller): where a report
   says the free was made when it is the earlier access. */
static Addr ag_an_free_caller(void)
{
   Addr ips[2];
   UInt n = VG_(get_StackTrace)(VG_(get_running_tid)(), ips, 2, NULL, NULL, 0);
   return n > 1 ? ips[1] : n ? ips[0] : 0;
}

/* A free is a write of the whole block for race engines (ag_ev_free), a
   forget for the others.  Not recorded as an access: atomgrind-trace sees
   the forget only. */
void ag_an_free(ag_tid t, Addr a, SizeT len)
{
   if (!ag_an_gate) {
      ag_an_forget(a, len);
      return;
   }
   ag_rec_forget(a, len);
   ag_stdio_forget(a, len);
   Addr ip = ag_an_race_eng < ag_neng ? ag_an_free_caller() : 0;
   for (UInt i = 0; i < ag_neng; i++) ag_ev_free(ag_eng[i], t, a, len, ag_an_site(i, t, ip));
}

void ag_an_once(ag_tid t, Addr once, Bool init)
{
   ag_an_sync_event();
   /* recorded as before (an RMW of a sync object): offline atomicity
      replays still see once -> later once as lock edges */
   ag_rec_acquire(t, once, False);
   ag_rec_release(t, once, False);
   ag_ho_acquire(t, once);
   ag_ho_release(t, once);
   for (UInt i = 0; i < ag_neng; i++) {
      if (ag_engine_kind(ag_engine_ops_of(ag_eng[i])) == AG_KIND_ATOMICITY) {
         ag_ev_access(ag_eng[i], t, once, 1, init ? AG_WRITE : 0, 0);
      } else {
         ag_ev_acquire(ag_eng[i], t, once, False, 0);
         ag_ev_release(ag_eng[i], t, once, False, 0);
      }
   }
}

void ag_an_forget(Addr a, SizeT len)
{
   ag_stdio_forget(a, len);
   ag_an_forget_engines(a, len);
}

static void ag_an_forget_engines(Addr a, SizeT len)
{
   ag_rec_forget(a, len);
   for (UInt i = 0; i < ag_neng; i++) ag_ev_forget(ag_eng[i], a, len);
}
