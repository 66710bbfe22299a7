/* ag_options.c -- command-line options of atomgrind. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(strtoll10) & co. */
#include "pub_tool_libcassert.h"   /* VG_(exit) */
#include "pub_tool_libcprint.h"    /* VG_(printf), VG_(fmsg) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc) */
#include "pub_tool_options.h"      /* VG_BOOL_CLO & co. */
#include "pub_tool_replacemalloc.h" /* --alignment & co. (heap options) */
#include "ag_engine.h"             /* ag_engine_find: --engine= names */
#include "ag_options.h"

const HChar *ag_clo_engine = NULL;        /* NULL: the default engine */
ag_check_t ag_clo_check = AG_CHECK_ATOMICITY;
Bool ag_clo_check_stack_var = False;
Bool ag_clo_cycles_increasing = False;
ag_sched_kind ag_clo_sched = AG_SCHED_RANDOM;
static Bool ag_sched_given;               /* --sched= was on the command line */
ULong ag_clo_sched_seed = 0;
Bool  ag_clo_sched_seed_given = False;
UInt  ag_clo_sched_depth = 3;
UInt  ag_clo_sched_timeout_ms = 20;
const HChar *ag_clo_sched_races = NULL;   /* NULL: auto, none with --sched-seed */
static Bool ag_clo_yield_given = False;  /* --yield-at-regions (deprecated) */
Bool ag_clo_sample_rpt = False;
Int  ag_clo_rpt_epsilon_ppm = 10000;      /* 0.01 */
Int  ag_clo_rpt_delta_ppm = 100000;       /* 0.1 */
ULong ag_clo_sample_seed = 0;
const HChar *ag_clo_record_trace = NULL;
Bool ag_clo_record_std = False;
Bool ag_clo_trace_reports = False;
Bool ag_clo_skip_quiescent = True;
const HChar *ag_clo_atomic_fns = NULL;
const HChar *ag_clo_atomic_spec = NULL;
const HChar *ag_clo_atomic_objs = NULL;
const HChar *ag_clo_infer_spec = NULL;
ag_frames_t ag_clo_track_frames = AG_FRAMES_AUTO;
Bool ag_clo_inline_regions = True;

/* A repeated list option adds to the list: "a,b" then "c" is "a,b,c". */
static const HChar *ag_join_list(const HChar *old, const HChar *add)
{
   if (!old) return add;
   SizeT n = VG_(strlen)(old) + VG_(strlen)(add) + 2;
   HChar *s = VG_(malloc)("ag.clo.list", n);
   VG_(snprintf)(s, n, "%s,%s", old, add);
   return s;
}
ag_history_t ag_clo_history = AG_HIST_APPROX;
Bool ag_clo_predict = True;
Bool ag_clo_predict_regions = False;
/* --predict= was given; else prediction follows the scheduler (ag_options_check) */
static Bool ag_predict_given;
UInt ag_clo_predict_memory = 16;    /* MiB; 0: unbounded */
Bool ag_clo_predict_windows = True;
ULong ag_clo_predict_whole = 1ULL << 24;   /* accesses in regions sent before windows */
const HChar *ag_clo_explain_dir = NULL;
UInt ag_clo_explain_window = 4096;

/* Parse a decimal fraction in (0,1) such as 0.01 into parts per million. */
static Bool ag_parse_ppm(const HChar *s, Int *ppm)
{
   Long whole = 0, frac = 0, scale = 1000000;
   const HChar *p = s;
   while (*p >= '0' && *p <= '9') whole = whole * 10 + (*p++ - '0');
   if (*p == '.') {
      p++;
      while (*p >= '0' && *p <= '9') {
         scale /= 10;
         frac += (*p++ - '0') * scale;
         if (scale == 0) return False;
      }
   }
   if (*p != 0 || p == s) return False;
   Long v = whole * 1000000 + frac;
   if (v <= 0 || v >= 1000000) return False;
   *ppm = (Int)v;
   return True;
}

Bool ag_process_cmd_line_option(const HChar *arg)
{
   const HChar *str = NULL;
   if VG_STR_CLO(arg, "--engine", str) {
      if (!ag_engine_find(str) || ag_engine_kind(ag_engine_find(str)) != AG_KIND_ATOMICITY)
         VG_(fmsg_bad_option)(arg, "unknown atomicity engine '%s' (see --help)\n", str);
      ag_clo_engine = str;
   }
   else if VG_XACT_CLO(arg, "--check=atomicity", ag_clo_check, AG_CHECK_ATOMICITY) {}
   else if VG_XACT_CLO(arg, "--check=races", ag_clo_check, AG_CHECK_RACES) {}
   else if VG_XACT_CLO(arg, "--check=all", ag_clo_check, AG_CHECK_ALL) {}
   else if VG_BOOL_CLO(arg, "--check-stack-var", ag_clo_check_stack_var) {}
   else if VG_XACT_CLO(arg, "--cycles=all", ag_clo_cycles_increasing, False) {}
   else if VG_XACT_CLO(arg, "--cycles=increasing", ag_clo_cycles_increasing, True) {}
   else if VG_XACT_CLO(arg, "--sched=native", ag_clo_sched, AG_SCHED_NATIVE) ag_sched_given = True;
   else if VG_XACT_CLO(arg, "--sched=random", ag_clo_sched, AG_SCHED_RANDOM) ag_sched_given = True;
   else if VG_XACT_CLO(arg, "--sched=pct", ag_clo_sched, AG_SCHED_PCT) ag_sched_given = True;
   else if VG_BINT_CLO(arg, "--sched-seed", ag_clo_sched_seed, 0, 0x7fffffffffffffffLL)
      ag_clo_sched_seed_given = True;
   else if VG_BINT_CLO(arg, "--sched-depth", ag_clo_sched_depth, 1, 17) {}
   else if VG_BINT_CLO(arg, "--sched-timeout", ag_clo_sched_timeout_ms, 1, 10000) {}
   else if VG_STR_CLO(arg, "--sched-races", ag_clo_sched_races) {
      if (!*ag_clo_sched_races)
         VG_(fmsg_bad_option)(arg, "--sched-races wants auto, none or a file\n");
   }
   else if VG_XACT_CLO(arg, "--yield-at-regions=yes", ag_clo_yield_given, True) {}
   else if VG_XACT_CLO(arg, "--yield-at-regions=no", ag_clo_yield_given, True)
      ag_clo_sched = AG_SCHED_NATIVE;
   else if VG_XACT_CLO(arg, "--sample=none", ag_clo_sample_rpt, False) {}
   else if VG_XACT_CLO(arg, "--sample=rpt", ag_clo_sample_rpt, True) {}
   else if VG_STR_CLO(arg, "--rpt-epsilon", str) {
      if (!ag_parse_ppm(str, &ag_clo_rpt_epsilon_ppm))
         VG_(fmsg_bad_option)(arg, "--rpt-epsilon wants a number strictly between 0 and 1\n");
   }
   else if VG_STR_CLO(arg, "--rpt-delta", str) {
      if (!ag_parse_ppm(str, &ag_clo_rpt_delta_ppm))
         VG_(fmsg_bad_option)(arg, "--rpt-delta wants a number strictly between 0 and 1\n");
   }
   else if VG_BINT_CLO(arg, "--sample-seed", ag_clo_sample_seed, 0, 0x7fffffffffffffffLL) {}
   else if VG_STR_CLO(arg, "--record-trace", ag_clo_record_trace) {}
   else if VG_XACT_CLO(arg, "--record-trace-format=bin", ag_clo_record_std, False) {}
   else if VG_XACT_CLO(arg, "--record-trace-format=std", ag_clo_record_std, True) {}
   else if VG_BOOL_CLO(arg, "--trace-reports", ag_clo_trace_reports) {}
   else if VG_BOOL_CLO(arg, "--skip-quiescent", ag_clo_skip_quiescent) {}
   else if VG_STR_CLO(arg, "--atomic-fns", str) ag_clo_atomic_fns = ag_join_list(ag_clo_atomic_fns, str);
   else if VG_STR_CLO(arg, "--atomic-objs", str) ag_clo_atomic_objs = ag_join_list(ag_clo_atomic_objs, str);
   else if VG_STR_CLO(arg, "--atomic-spec", ag_clo_atomic_spec) {}
   else if VG_STR_CLO(arg, "--infer-spec", ag_clo_infer_spec) {}
   else if VG_XACT_CLO(arg, "--track-frames=auto", ag_clo_track_frames, AG_FRAMES_AUTO) {}
   else if VG_XACT_CLO(arg, "--track-frames=yes", ag_clo_track_frames, AG_FRAMES_YES) {}
   else if VG_XACT_CLO(arg, "--track-frames=no", ag_clo_track_frames, AG_FRAMES_NO) {}
   else if VG_BOOL_CLO(arg, "--inline-regions", ag_clo_inline_regions) {}
   else if VG_XACT_CLO(arg, "--history-level=none", ag_clo_history, AG_HIST_NONE) {}
   else if VG_XACT_CLO(arg, "--history-level=approx", ag_clo_history, AG_HIST_APPROX) {}
   else if VG_XACT_CLO(arg, "--history-level=full", ag_clo_history, AG_HIST_FULL) {}
   else if VG_STR_CLO(arg, "--predict", str) {
      ag_clo_predict = !VG_STREQ(str, "no");
      ag_clo_predict_regions = VG_STREQ(str, "regions");
      ag_predict_given = True;
      if (!VG_STREQ(str, "yes") && !VG_STREQ(str, "no") && !ag_clo_predict_regions)
         VG_(fmsg_bad_option)(arg, "--predict wants yes, regions or no\n");
   }
   else if VG_BINT_CLO(arg, "--predict-memory", ag_clo_predict_memory, 0, 1u << 20) {}
   else if VG_BOOL_CLO(arg, "--predict-windows", ag_clo_predict_windows) {}
   else if VG_BINT_CLO(arg, "--predict-whole", ag_clo_predict_whole, 0, 1ULL << 40) {}
   else if VG_STR_CLO(arg, "--explain-dir", ag_clo_explain_dir) {}
   else if VG_BINT_CLO(arg, "--explain-window", ag_clo_explain_window, 0, 16384) {}
   else
      /* the heap options of every tool that replaces malloc (--alignment,
         --redzone-size, --trace-malloc ...), which --help lists */
      return VG_(replacement_malloc_process_cmd_line_option)(arg);
   return True;
}

void ag_print_usage(void)
{
   const ag_engine_ops *const *e;
   VG_(printf)(
"    --check=atomicity|races|all  what to check [atomicity]\n"
"    --engine=NAME             atomicity engine [%s]:\n", AG_DEFAULT_ENGINE);
   for (e = ag_engine_all(); *e; e++)
      if (ag_engine_kind(*e) == AG_KIND_ATOMICITY)
         VG_(printf)("        %-15s %s\n", ag_engine_name(*e), ag_engine_help(*e));
   VG_(printf)(
"    --predict=yes|regions|no  also report atomicity violations that a feasible\n"
"                              reordering of the run would show, from every\n"
"                              access or from those made while a region is\n"
"                              open [yes with --sched=native, else regions]\n"
"    --predict-memory=<MiB>    prediction's state for locations, at most; past\n"
"                              it, it starts afresh (0: no bound) [16]\n"
"    --predict-windows=yes|no  --predict=regions: past the run's first accesses\n"
"                              in regions, predict within RPT windows only\n"
"                              (--rpt-epsilon, --rpt-delta, --sample-seed) [yes]\n"
"    --predict-whole=<n>       ... that many first accesses [16777216]\n"
"    --cycles=all|increasing   report every non-serializable cycle, or only\n"
"                              cycles blamed on one region (atomsanitizer) [all]\n"
"    --check-stack-var=no|yes  check accesses to the thread's own stack [no]\n"
"    --sched=random|pct|native which thread runs next at regions, locks and\n"
"                              accesses in regions: random preemptions, PCT\n"
"                              priorities, or Valgrind's own order [random;\n"
"                              native with --check=races]\n"
"    --sched-seed=N            seed of the scheduler's choices [from the clock]\n"
"    --sched-depth=D           PCT: bug depth, D-1 priority changes [3]\n"
"    --sched-races=auto|none|FILE  random: postpone threads at race sites\n"
"                              learned by earlier runs of the command (auto),\n"
"                              none, or those in FILE (an exit line names it)\n"
"                              [auto; none with --sched-seed]\n"
"    --sample=none|rpt         analyse the whole run, or RPT random windows [none]\n"
"    --rpt-epsilon=E --rpt-delta=D  RPT parameters [0.01, 0.1]\n"
"    --sample-seed=N           seed for the choice of RPT windows [0]\n"
"    --record-trace=FILE       write the events analysed to FILE\n"
"    --record-trace-format=bin|std  atomgrind's binary or RAPID's text format [bin]\n"
"    --atomic-fns=P[,P...]     each call of a function whose name matches a\n"
"                              pattern P (* and ? as in suppressions' fun:)\n"
"                              is an atomic region; !P excludes; 'all' is\n"
"                              every function of the executable and of\n"
"                              --atomic-objs [none]\n"
"    --atomic-spec=FILE        the same, one pattern a line, # comments\n"
"    --atomic-objs=P[,P...]    objects (file name patterns) 'all' covers too\n"
"    --infer-spec=FILE         a function blamed for a violation stops being\n"
"                              atomic; write the refined spec to FILE at exit\n"
"    --track-frames=auto|yes|no  close regions whose frame is gone (return,\n"
"                              longjmp, exception); auto: with a spec or\n"
"                              when atomicity is checked [auto]\n"
"    --inline-regions=yes|no   inlined copies of atomic functions are regions\n"
"                              too [yes]\n"
"    --history-level=none|approx|full  stacks for the other thread's side of a\n"
"                              report: none: code addresses only; approx: also\n"
"                              where it took and released locks; full: also a\n"
"                              stack for each access it made in a region, and\n"
"                              with --check=races for each access [approx]\n"
"    --explain-dir=DIR         draw the cycle of each atomicity report into\n"
"                              DIR/cycle-N.html and .txt (%%p: the pid) [none]\n"
"    --explain-window=N        events kept to find a report's cycle in, for\n"
"                              --explain-dir, -v (the cycle as text in the\n"
"                              report) and --xml=yes; 0: none [4096]\n"
   );
}

void ag_print_debug_usage(void)
{
   VG_(printf)(
"    --trace-reports=no|yes    print every engine report (event index, thread)\n"
"                              as it happens, before de-duplication [no]\n"
"    --skip-quiescent=yes|no   leave out accesses made while no thread is in a\n"
"                              region: they cannot be part of a violation; no:\n"
"                              analyse them anyway (same reports, full cost) [yes]\n"
"    --sched-timeout=MS        a thread waiting for its turn takes it when the\n"
"                              holder reached no scheduling point for MS ms [20]\n");
}

void ag_options_check(void)
{
   /* The scheduler makes regions interleave; a happens-before race check
      alone does not need that, so it runs at Valgrind's own pace (as
      Helgrind and DRD do) unless --sched= asks otherwise. */
   if (!ag_sched_given && ag_clo_check == AG_CHECK_RACES) ag_clo_sched = AG_SCHED_NATIVE;
   /* Prediction from every access costs a spec'd run 5x the time and 6x
      the memory (issue 32).  The scheduler keeps regions open and makes
      them interleave, so the accesses made while a region is open suffice
      there; at Valgrind's own pace regions rarely overlap, and prediction
      needs the rest. */
   if (!ag_predict_given) ag_clo_predict_regions = ag_clo_sched != AG_SCHED_NATIVE;
   if (ag_clo_yield_given)
      VG_(umsg)("atomgrind: --yield-at-regions is deprecated: the scheduler (--sched=)\n"
                "atomgrind: replaces it; --yield-at-regions=no means --sched=native\n");
   if (ag_clo_cycles_increasing && ag_clo_engine
       && !VG_STREQ(ag_clo_engine, "atomsanitizer")) {
      VG_(fmsg_bad_option)("--cycles=increasing",
                           "only the atomsanitizer engine checks increasing cycles\n");
      VG_(exit)(1);   /* after option parsing, fmsg_bad_option returns */
   }
}
