/* ag_options.h -- atomgrind's command-line options (ag_options.c).
 * The bottom of the front end: every file may read these. */
#ifndef AG_OPTIONS_H
#define AG_OPTIONS_H

#include "pub_tool_basics.h"     /* Bool, HChar, Int, ULong */

#define AG_DEFAULT_ENGINE "atomsanitizer"
typedef enum { AG_CHECK_ATOMICITY = 1, AG_CHECK_RACES = 2, AG_CHECK_ALL = 3 } ag_check_t;

extern const HChar *ag_clo_engine;        /* --engine= */
extern ag_check_t ag_clo_check;           /* --check= */
extern Bool ag_clo_check_stack_var;       /* --check-stack-var= */
extern Bool ag_clo_cycles_increasing;     /* --cycles=increasing */
typedef enum { AG_SCHED_NATIVE, AG_SCHED_RANDOM, AG_SCHED_PCT } ag_sched_kind;
extern ag_sched_kind ag_clo_sched;        /* --sched= */
extern ULong ag_clo_sched_seed;           /* --sched-seed= */
extern Bool  ag_clo_sched_seed_given;
extern UInt  ag_clo_sched_depth;          /* --sched-depth= (PCT's d) */
extern UInt  ag_clo_sched_timeout_ms;     /* --sched-timeout= (debug) */
extern const HChar *ag_clo_sched_races;   /* --sched-races= (NULL: the default) */
extern Bool ag_clo_sample_rpt;            /* --sample=rpt */
extern Int  ag_clo_rpt_epsilon_ppm, ag_clo_rpt_delta_ppm;
extern ULong ag_clo_sample_seed;
extern const HChar *ag_clo_record_trace;  /* --record-trace=FILE */
extern Bool ag_clo_record_std;            /* --record-trace-format=std */
extern Bool ag_clo_trace_reports;         /* --trace-reports (debug) */
extern Bool ag_clo_skip_quiescent;        /* --skip-quiescent (debug) */
/* Atomic regions from function names (ag_fnspec.c, ag_spec.c). */
extern const HChar *ag_clo_atomic_fns;    /* --atomic-fns=P,P,... (repeats join) */
extern const HChar *ag_clo_atomic_spec;   /* --atomic-spec=FILE */
extern const HChar *ag_clo_atomic_objs;   /* --atomic-objs=P,P,... */
extern const HChar *ag_clo_infer_spec;    /* --infer-spec=FILE */
typedef enum { AG_FRAMES_AUTO, AG_FRAMES_YES, AG_FRAMES_NO } ag_frames_t;
extern ag_frames_t ag_clo_track_frames;   /* --track-frames= */
extern Bool ag_clo_inline_regions;        /* --inline-regions= */
/* --history-level: stacks for the other thread's side of a report */
typedef enum { AG_HIST_NONE, AG_HIST_APPROX, AG_HIST_FULL } ag_history_t;
extern ag_history_t ag_clo_history;
extern Bool ag_clo_predict;               /* --predict= */
extern Bool ag_clo_predict_regions;       /* --predict=regions: bounded */
extern UInt ag_clo_predict_memory;        /* --predict-memory=MiB, 0: unbounded */
extern Bool ag_clo_predict_windows;       /* --predict-windows: bounded, in windows */
extern ULong ag_clo_predict_whole;        /* --predict-whole: ... after these accesses */
/* The cycle of each atomicity report, drawn (ag_cycles.c) */
extern const HChar *ag_clo_explain_dir;   /* --explain-dir=DIR */
extern UInt ag_clo_explain_window;        /* --explain-window=N: events kept */

Bool ag_process_cmd_line_option(const HChar *arg);
void ag_print_usage(void);
void ag_print_debug_usage(void);
void ag_options_check(void);              /* post_clo validation */

#endif
