/* ag_engine.h -- the event stream every analysis consumes: what front ends
 * call.  (What an engine implements: ag_engine_impl.h.)
 *
 * Front-ends (the Valgrind tool, atomgrind-trace, unit tests) create an
 * engine instance by name and feed it events through the ag_ev_* calls.
 * The dispatcher (ag_engine.c) owns what is common to every analysis:
 *   - the event counter (1-based; every ag_ev_* call except ag_ev_thread_new,
 *     ag_ev_thread_exit, ag_ev_forget and ag_ev_atomic_seen is one event,
 *     even a nested begin/end that is a no-op; ag_ev_free is one for race
 *     engines only), and each numbered event handed to the observers
 *     that asked for them (ag_engine_observe);
 *   - nesting of atomic regions (engines only see outermost begin/end);
 *   - accesses made while no thread is inside a region are not forwarded
 *     to atomicity engines: no such access can lie on a cycle, nor can any
 *     cycle pass from transactions before it to transactions after it
 *     (see ag_quiescent in ag_engine.c).  Race engines see every event;
 *   - byte-precise shadow memory (ag_shadow.c): per-location engine state
 *     lives in shadow cells, split per byte only where accesses need it;
 *   - the addresses each engine keeps lock state for, so that memory freed
 *     or re-initialised makes its locks new (ops->lock_forget);
 *   - for race engines, the atomic objects (addresses and sizes of atomic
 *     accesses), kept across sampling windows (ops->atomic_mark);
 *   - the per-event de-duplication of reports, and report sites.
 * An engine implements ag_engine_ops (ag_engine_impl.h) over
 * already-resolved locations.
 *
 * Engines never see Valgrind; see ag_shim.h.
 */
#ifndef AG_ENGINE_H
#define AG_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "ag_site.h"         /* what a site is */
#include "ag_registry.h"     /* ag_engine_ops; the engines by name */

typedef uint32_t ag_tid;          /* dense thread index, 0.. */
typedef uint64_t ag_addr;
#define AG_NO_TID ((ag_tid)0xffffffffu)

/* Access flags */
#define AG_WRITE  1u   /* a write (else a read) */
#define AG_ATOMIC 2u   /* part of an atomic RMW/CAS: never races with another
                          atomic; for race engines also an acquire (and, if
                          a write, a release) on its location, which becomes
                          an atomic object (see ag_fasttrack.c) */
#define AG_FREE   4u   /* with AG_WRITE: the write that frees a block (ag_ev_free) */
#define AG_SPIN   8u   /* a read in a spin loop (a loop that only reads a
                          location and exits on its value): race engines
                          get it as an atomic read, an acquire of the
                          location; atomicity engines as a plain read */
#define AG_ATOMIC_LS 16u /* an access the front end knows is atomic by where
                          its code comes from (std::atomic's operations;
                          its load and store are plain movs on x86): race
                          engines get it with AG_ATOMIC added (and keep the
                          bit: ag_fasttrack.c); atomicity engines without
                          the bit (a plain load or store is then not half
                          of an RMW) */
#define AG_COMMUTE 32u /* with AG_ATOMIC: a half of a reference count's
                          increment or decrement (shared_ptr, locales).
                          Race engines get the atomic RMW; atomicity engines
                          a read: it conflicts with the count's plain writes
                          and not with other counts' updates, which commute
                          (docs/atomgrind.md, "Standard library idioms") */

#define AG_PLAIN_RMW 64u /* half of an instruction that reads and writes its
                          location without a LOCK prefix (add, inc, or to
                          memory), in code that only GCC compiled: not an
                          atomic operation's (GCC gives every atomic RMW a
                          LOCK prefix or xchg, and never fuses an atomic
                          load and store into one instruction, as LLVM
                          does).  Race engines keep it plain on an atomic
                          object and when an atomic instruction reveals
                          the location later (ag_fasttrack.c); atomicity
                          engines get it without the bit */

/* What an engine checks */
#define AG_KIND_ATOMICITY 1
#define AG_KIND_RACE      2
#define AG_KIND_PREDICT   3   /* predicted atomicity violations (ag_predict.c) */

/* One report.  Fields the engine does not know are 0 (tids: AG_NO_TID). */
typedef struct ag_violation {
   const char *engine;       /* engine name */
   int kind;                 /* AG_KIND_* */
   uint64_t event;           /* the event at which it was detected */
   ag_tid tid;               /* thread of that event */
   ag_site site;             /* front-end site of that event (ag_site.h) */
   ag_addr addr;             /* location of the access, if the event is one */
   unsigned size;
   unsigned flags;           /* AG_WRITE/AG_ATOMIC of that access */
   int at_end;               /* detected at the end of tid's region */
   ag_addr lock;             /* the lock, if the event is an acquire */
   int shared;               /* ... of its read side */
   /* tid's interrupted region (filled by the dispatcher) */
   uint64_t begin_event; ag_site begin_site;
   /* the other side: for atomicity the other thread whose transaction
      lies on the cycle; for races the earlier conflicting access */
   ag_tid other_tid;
   uint64_t other_event; ag_site other_site;
   unsigned other_flags;
   ag_addr other_addr;       /* ... and its range */
   unsigned other_size;
   /* the other thread's region on the cycle, when it is known */
   uint64_t other_begin_event; ag_site other_begin_site;
   /* A report closed by a synchronisation event (an acquire, a join) says
      what data conflicted, when the engine knows: other_* is then an
      access of other_tid that conflicts with this earlier access of tid's
      region (own_*) and precedes the closing edge's source in other_tid's
      order, so tid's region -> other's access -> ... -> tid is a cycle.
      A report at_end (AeroDrome) gives instead the two ways into its
      cycle: own_* is the event of tid's region from which it came after
      other_tid's region, other_* the event of other_tid's region from
      which it came after tid's (for an acquire: *_addr is the lock and
      *_size 0; for a join both are 0). */
   uint64_t own_event; ag_site own_site;
   ag_addr own_addr;
   unsigned own_size, own_flags;
   /* An acquire-closed report (filled by the dispatcher): where other_tid
      last acquired and released the lock before this acquire, and where
      tid released it inside its region (0 if not known). */
   uint64_t lock_acq_event; ag_site lock_acq_site; uint64_t lock_rel_event; ag_site lock_rel_site;
   uint64_t own_rel_event; ag_site own_rel_site;
   /* AG_KIND_PREDICT: thread local_tid's accesses e1 < e2 of one atomic
      region (begin_*), and other_tid's access (other_*) that a feasible
      reordering of the run places between them.  The reporting event
      (tid, event, site) is e2 or the other access, whichever came later,
      or, with at_end, the end of local_tid's region (a prediction made
      while the region was open waits for its end); addr/size/flags are
      those of the later access. */
   ag_tid local_tid;
   uint64_t e1_event; ag_site e1_site; uint64_t e2_event; ag_site e2_site;
   unsigned e1_flags, e2_flags;
} ag_violation;

typedef void (*ag_report_fn)(void *cookie, const ag_violation *v);

/* Configuration common to all engines. */
typedef struct ag_config {
   int cycles_increasing;    /* AtomSanitizer: report only increasing cycles */
   int keep_quiescent;       /* forward accesses made while no region is open */
   /* Race reports may name, as the earlier access, the first of its
      thread's epoch (same thread, kind and clock, so racing exactly when
      the last one does) rather than the last: FastTrack's same-epoch
      shortcut.  The verdicts do not change (ag_fasttrack.c). */
   int approx_history;
   /* The prediction engine sees only the accesses made while some region
      is open, as the atomicity engines do (bounded prediction); it then
      predicts nothing across a stretch it did not see (ag_predict.c). */
   int predict_in_regions;
   /* Bytes of location state (the shadow's pages and slabs, and what the
      engine keeps for locations beside them) above which an engine that
      can (ops->locs_reset: prediction) drops every location's state and
      goes on from fresh ones, predicting nothing across the drop; 0: no
      bound. */
   uint64_t loc_budget;
   /* Accesses in RPT windows (ag_sampler.h, with these epsilon, delta
      and seed): the engine is sent the accesses of the windows the
      sampler picks (after its whole-run prefix), and every access before
      the win_whole-th, and every location's state is dropped where a
      window ends (as for loc_budget), so nothing is predicted across a
      gap.  Synchronisation and region events are all sent.  For
      prediction (ops->locs_reset); 0: every access.  win_r and win_k, if
      nonzero, fix the sampler's r and k (tests). */
   int access_windows;
   double win_epsilon, win_delta;
   uint64_t win_seed, win_r, win_k, win_whole;
} ag_config;

/* ------------------------------------------------------------------ */
/* What front-ends call.                                               */

typedef struct ag_engine ag_engine;

ag_engine *ag_engine_new(const ag_engine_ops *ops, const ag_config *cfg,
                         ag_report_fn report, void *cookie);
void ag_engine_delete(ag_engine *e);
const ag_engine_ops *ag_engine_ops_of(const ag_engine *e);

/* Whether an engine made from now on joins a byte loop's word at its last
   byte (engines with loc_equal: see ag_engine.c).  On by default; tests
   switch it off to show that joining changes no report. */
extern int ag_engine_join_bytes;

/* Observers: each event as the dispatcher numbered it, handed to whoever
   asked (the tool's cycle pictures: a ring of ag_explain_core.c), so
   that no one numbers events a second time.  The kinds are in the same
   order as atomgrind-trace's AG_RE_*. */
enum { AG_XE_READ, AG_XE_WRITE, AG_XE_ACQ, AG_XE_REL, AG_XE_FORK, AG_XE_JOIN,
       AG_XE_BEGIN, AG_XE_END };
typedef struct ag_xp_event {
   uint64_t index;            /* the engine's event index (1-based) */
   int kind;                  /* AG_XE_* */
   ag_tid tid;
   uint64_t a;                /* address, lock, or the other thread (fork/join) */
   unsigned size;
   int shared;
} ag_xp_event;

typedef struct ag_observer {
   /* every event the engine numbers, active or not, wanted or not (an
      access while no region is open too), with the flags and the thread
      as the front end gave them; before the engine sees it, so a report
      made at it finds it already told */
   void (*event)(void *cookie, const ag_xp_event *ev);
   /* thread t exits (not an event); before its open region is closed */
   void (*thread_exit)(void *cookie, ag_tid t);
   void *cookie;
} ag_observer;
#define AG_MAX_OBSERVERS 2
/* o (copied) observes e from now on; 0, or -1 when e has AG_MAX_OBSERVERS. */
int ag_engine_observe(ag_engine *e, const ag_observer *o);

/* Misuse codes returned by the event calls (0 = fine). */
#define AG_OK               0
#define AG_MISUSE_END       1   /* end without begin */
#define AG_MISUSE_OPEN_EXIT 2   /* thread exited inside a region (closed) */
#define AG_MISUSE_BAD_TID   3   /* unknown/exited thread */

/* Threads must be announced before their first event (fork does it too). */
void ag_ev_thread_new(ag_engine *e, ag_tid t);
int  ag_ev_begin(ag_engine *e, ag_tid t, ag_site site);
int  ag_ev_end(ag_engine *e, ag_tid t, ag_site site);
int  ag_ev_access(ag_engine *e, ag_tid t, ag_addr addr, unsigned size,
                  unsigned flags, ag_site site);
int  ag_ev_acquire(ag_engine *e, ag_tid t, ag_addr lock, int shared, ag_site site);
int  ag_ev_release(ag_engine *e, ag_tid t, ag_addr lock, int shared, ag_site site);
int  ag_ev_fork(ag_engine *e, ag_tid parent, ag_tid child, ag_site site);
int  ag_ev_join(ag_engine *e, ag_tid joiner, ag_tid child, ag_site site);
/* Not an event for the engines: closes an open region (returns
   AG_MISUSE_OPEN_EXIT then) and marks t dead. */
int  ag_ev_thread_exit(ag_engine *e, ag_tid t);
/* Memory [addr, addr+len) was freed, unmapped or re-initialised: drop its
   state, that of every lock whose address lies in it, and its atomic
   objects. */
void ag_ev_forget(ag_engine *e, ag_addr addr, uint64_t len);
/* Not an event: an atomic access to [addr, addr+size) that the front end
   did not analyse (outside a sampling window).  A race engine must still
   know the atomic object when it restarts. */
void ag_ev_atomic_seen(ag_engine *e, ag_addr addr, unsigned size);
/* Thread t frees the heap block [addr, addr+len).  For race engines this is
   one event, a write of every location of the block that has state (so it
   races with any access not ordered before it, as in Helgrind and DRD),
   followed by ag_ev_forget of all but that write: a later access races
   with the free unless ordered after it, until the front end forgets the
   block when it is reused.  For atomicity engines it is only the forget:
   no event, no conflict.  Returns AG_MISUSE_BAD_TID for an unknown t (the
   memory is forgotten all the same). */
int  ag_ev_free(ag_engine *e, ag_tid t, ag_addr addr, uint64_t len, ag_site site);

/* Sampling support: while inactive, events are counted and region nesting
   is tracked, but nothing reaches the engine.  Activating starts from
   fresh engine state; threads inside an open region get a synthetic begin. */
void ag_engine_set_active(ag_engine *e, int active);

/* Counters */
uint64_t ag_engine_events(const ag_engine *e);       /* all events seen */
uint64_t ag_engine_analysed(const ag_engine *e);     /* events forwarded */
uint64_t ag_engine_reports(const ag_engine *e);      /* reports delivered */
uint64_t ag_engine_shadow_bytes(const ag_engine *e); /* shadow memory in use */
uint64_t ag_engine_shadow_peak(const ag_engine *e);  /* ... the most at once */
uint64_t ag_engine_shadow_slabs(const ag_engine *e); /* ... held for cells */
uint64_t ag_engine_heap_peak(const ag_engine *e);    /* engine's own, most at once */
uint64_t ag_engine_cache_misses(const ag_engine *e); /* its per-access cache's, all runs */
uint64_t ag_engine_loc_resets(const ag_engine *e);   /* times cfg.loc_budget dropped them */
/* The shadow's words by their number of locations (h[0]: fresh, h[n]:
   n locations; ag_shadow_words), for --stats. */
void ag_engine_shadow_words(const ag_engine *e, uint64_t h[9]);
/* cfg.access_windows: the accesses offered (made while the engine would
   see them), those sent, and the sampler's windows (its whole-run prefix
   is the first); 0 without windows. */
uint64_t ag_engine_win_offered(const ag_engine *e);
uint64_t ag_engine_win_sent(const ag_engine *e);
uint64_t ag_engine_win_windows(const ag_engine *e);
/* Drop every location's state, as when cfg.loc_budget is reached
   (engines with ops->locs_reset; a no-op for the others): now, or, while
   a thread holds a lock, at the release that frees the last one, the
   engine being sent no access meanwhile (ag_engine.c, ag_drop_when_free). */
void ag_engine_reset_locs(ag_engine *e);
uint32_t ag_engine_threads(const ag_engine *e);
/* threads inside a region now */
uint32_t ag_engine_open_regions(const ag_engine *e);
/* depth of t's region nesting (0 outside) */
uint32_t ag_engine_depth(const ag_engine *e, ag_tid t);

#endif
