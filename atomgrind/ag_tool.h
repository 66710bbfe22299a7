/* ag_tool.h -- declarations shared by the files of the Valgrind tool.
 * Every global of the tool carries the ag_ prefix. */
#ifndef AG_TOOL_H
#define AG_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_tooliface.h"
#include "ag_engine.h"

/* The core's scheduler yield: not in the public headers, but exported. */
extern void VG_(vg_yield)(void);

/* ---- options (ag_options.c) ---- */
#define AG_DEFAULT_ENGINE "atomsanitizer"
typedef enum { AG_CHECK_ATOMICITY = 1, AG_CHECK_RACES = 2, AG_CHECK_ALL = 3 } ag_check_t;
extern const HChar *ag_clo_engine;        /* --engine= */
extern ag_check_t ag_clo_check;           /* --check= */
extern Bool ag_clo_check_stack_var;       /* --check-stack-var= */
extern Bool ag_clo_cycles_increasing;     /* --cycles=increasing */
extern Bool ag_clo_sample_rpt;            /* --sample=rpt */
extern Int  ag_clo_rpt_epsilon_ppm, ag_clo_rpt_delta_ppm;
extern ULong ag_clo_sample_seed;
extern const HChar *ag_clo_record_trace;  /* --record-trace=FILE */
extern Bool ag_clo_record_std;            /* --record-trace-format=std */
extern Bool ag_clo_trace_reports;         /* --trace-reports (debug) */
extern Bool ag_clo_skip_quiescent;        /* --skip-quiescent (debug) */
Bool ag_process_cmd_line_option(const HChar *arg);
void ag_print_usage(void);
void ag_print_debug_usage(void);
void ag_options_check(void);              /* post_clo validation */

/* ---- threads (ag_threads.c) ---- */
typedef struct {
   Bool valid;
   ag_tid tid;           /* dense engine id; never reused */
   UInt ignore;          /* >0 while inside a synchronisation call */
   Addr stack_max;       /* highest address of the thread's stack */
   UWord pthread;        /* pthread_t, once known */
   ag_tid last_child;    /* most recent child created by this thread */
   UInt held;            /* locks held now (for RPT's h) */
} ag_thread;
extern ag_thread *ag_cur;                 /* the running thread */
extern ThreadId ag_cur_vgtid;
void ag_threads_init(void);
ag_thread *ag_thread_of(ThreadId vgtid);
ag_tid ag_tid_of_pthread(UWord pt);       /* AG_NO_TID if unknown */
void ag_threads_set_pthread(ag_tid t, UWord pt);
ThreadId ag_vgtid_of(ag_tid t);           /* VG_INVALID_THREADID if gone */
UInt ag_threads_created(void);

/* ---- analysis: the engines and what feeds them (ag_analysis.c) ---- */
void ag_analysis_init(void);
void ag_analysis_fini(void);
void ag_an_thread_new(ag_tid t);
void ag_an_fork(ag_tid parent, ag_tid child);
void ag_an_join(ag_tid joiner, ag_tid child);
void ag_an_thread_exit(ag_tid t, ThreadId vgtid);
void ag_an_begin(ag_tid t, ThreadId vgtid);
void ag_an_end(ag_tid t, ThreadId vgtid);
void ag_an_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);
void ag_an_acquire(ag_tid t, Addr lock, Bool shared);
void ag_an_release(ag_tid t, Addr lock, Bool shared);
void ag_an_forget(Addr a, SizeT len);
Bool ag_an_in_region(ag_tid t);
void ag_an_disable(void);                 /* nothing is analysed from now on */
Bool ag_preload_present(void);            /* our pthread wrappers are mapped */
struct _DebugInfo;
Bool ag_is_preload(const struct _DebugInfo *di, const HChar *prefix);
extern volatile UWord ag_an_gate;         /* read inline by instrumented code */
extern ULong ag_an_clock, ag_an_next;     /* RPT time, and when to tick */
void ag_an_tick(void);

/* ---- synchronisation objects (ag_sync.c) ---- */
void ag_sync_init(void);
void ag_sync_lock_acquired(ThreadId vgtid, Addr lock, UInt kind);
void ag_sync_lock_release(ThreadId vgtid, Addr lock);
void ag_sync_cond_wait_pre(ThreadId vgtid, Addr cond, Addr mutex);
void ag_sync_cond_wait_post(ThreadId vgtid, Addr cond, Addr mutex);
void ag_sync_object(ThreadId vgtid, Addr obj);   /* an RMW on a sync object */
void ag_sync_object_read(ThreadId vgtid, Addr obj);  /* a read of its state */
void ag_sync_destroy(ThreadId vgtid, Addr obj);
Bool ag_sync_holds(ThreadId vgtid, Addr lock);  /* exclusively, by this thread */
UInt ag_sync_held(void);                  /* locks held now, all threads (RPT's h) */

/* ---- errors (ag_errors.c) ---- */
typedef enum { AG_ERR_ATOMICITY = 1, AG_ERR_RACE, AG_ERR_MISUSE } ag_err_kind;
void ag_errors_init(void);
void ag_error_violation(const ag_violation *v);
void ag_error_misuse(ThreadId vgtid, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
ExeContext *ag_site_ec(ULong site);       /* begin sites are ExeContexts */

/* ---- instrumentation (ag_instrument.c) ---- */
IRSB *ag_instrument(VgCallbackClosure *closure, IRSB *bb,
                    const VexGuestLayout *layout, const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy);

/* ---- malloc replacement (ag_malloc.c) ---- */
void ag_malloc_init(void);

/* ---- client requests (ag_clientreq.c) ---- */
Bool ag_handle_client_request(ThreadId vgtid, UWord *args, UWord *ret);

/* ---- trace recording (ag_record.c) ---- */
void ag_record_init(void);
void ag_record_fini(void);
void ag_rec_thread(ag_tid t);
void ag_rec_exit(ag_tid t);
void ag_rec_begin(ag_tid t, Addr ip);
void ag_rec_end(ag_tid t, Addr ip);
void ag_rec_fork(ag_tid parent, ag_tid child);
void ag_rec_join(ag_tid joiner, ag_tid child);
void ag_rec_forget(Addr a, SizeT len);
void ag_rec_acquire(ag_tid t, Addr lock, Bool shared);
void ag_rec_release(ag_tid t, Addr lock, Bool shared);
void ag_rec_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);

#endif
