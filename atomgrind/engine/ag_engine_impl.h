/* ag_engine_impl.h -- what an engine implements (ag_engine_ops) and the
 * context the dispatcher (ag_engine.c) shares with it.  Only engines, the
 * dispatcher and white-box tests include this; front ends use ag_engine.h.
 *
 * Engines never see Valgrind; see ag_shim.h.
 */
#ifndef AG_ENGINE_IMPL_H
#define AG_ENGINE_IMPL_H

#include "ag_engine.h"           /* ag_tid, ag_violation, ag_config, events */

/* ------------------------------------------------------------------ */
/* The context the dispatcher shares with an engine instance.          */

typedef struct ag_region {
   uint32_t depth;           /* nesting depth; 0 = outside any region */
   uint64_t begin_event;     /* outermost begin's event index */
   ag_site begin_site;
   int live;                 /* thread announced and not exited */
   int reported;             /* this region instance was reported ... */
   ag_tid reported_other;    /* ... as interleaved by this thread */
   uint32_t held;            /* locks it holds (acquires less releases) */
} ag_region;

typedef struct ag_ctx {
   uint64_t event;           /* index of the event being processed */
   ag_site site;             /* its site */
   ag_addr addr;             /* if it is an access: its first byte, */
   unsigned size;            /* size (0 for other events) */
   unsigned flags;           /* and AG_WRITE/AG_ATOMIC */
   ag_config cfg;
   /* The engine is not sent the accesses made while no region is open:
      the event (an end, or a thread's exit) that began the latest such
      stretch; 0 when none has, or every access is sent. */
   uint64_t blind_since;
   ag_region *regions;       /* per thread, indexed by ag_tid */
   uint32_t nthreads;        /* threads announced so far (max tid + 1) */
   /* set by the dispatcher, used by ag_ctx_report */
   void *disp;
} ag_ctx;

/* Engines call this to report.  It fills the region fields and drops
   repeats: a second report within one event, and a second atomicity report
   for one region instance interleaved by the same other thread (the same
   bug seen at its next access).  Returns 1 if it was delivered.
   AG_KIND_PREDICT engines de-duplicate themselves: only the engine name,
   kind and the reporting event's index and site are filled. */
int ag_ctx_report(ag_ctx *ctx, ag_violation *v);

/* While an acquire is dispatched: if thread a made the lock's last release
   and its acquire before it is known, their events (a held the lock in
   between) and 1; else 0. */
int ag_ctx_lock_held(ag_ctx *ctx, ag_tid a, uint64_t *acq_event, uint64_t *rel_event);

/* Fill v->other_begin_* when the other transaction on the cycle is known to
   be u's currently open region. */
void ag_ctx_other_region(ag_ctx *ctx, ag_violation *v, ag_tid u);

/* ------------------------------------------------------------------ */
/* What an engine implements.  `loc` points to loc_size bytes of
   per-location (per byte of memory) state owned by the engine. */

struct ag_engine_ops {
   const char *name;          /* --engine=NAME */
   const char *help;          /* one line for --help */
   int kind;                  /* AG_KIND_* it checks */
   unsigned loc_size;         /* bytes of per-location state (>0) */

   void *(*create)(ag_ctx *ctx);
   void  (*destroy)(void *self);

   void  (*loc_init)(void *self, void *loc);              /* fresh, never accessed */
   void  (*loc_copy)(void *self, void *dst, const void *src); /* dst is uninitialised */
   void  (*loc_fini)(void *self, void *loc);              /* memory freed/reused */
   /* Does destroy free whatever the locations hold, so that the shadow
      may drop its cells without loc_fini (an RPT window's end)?  May be
      NULL (no). */
   int   (*locs_die_with_engine)(void *self);
   /* The shadow was deleted without loc_fini (needs locs_die_with_engine)
      and a fresh one made: free what the locations held, keep the rest
      (threads, locks, reports made).  ctx->blind_since is the reset's
      event: nothing may be concluded across it.  May be NULL (the engine
      keeps every location: cfg.loc_budget does not apply). */
   void  (*locs_reset)(void *self);
   /* Bytes the locations hold now outside the shadow's cells (counted
      against cfg.loc_budget).  May be NULL (none). */
   uint64_t (*locs_heap)(void *self);
   /* a and b are interchangeable: every later event sequence gives the same
      reports and states whether it meets a or b, so the shadow may merge
      adjacent locations of a word that hold them.  May be NULL (never). */
   int   (*loc_equal)(void *self, const void *a, const void *b);

   void  (*thread_new)(void *self, ag_tid t);             /* before t's first event */
   void  (*thread_exit)(void *self, ag_tid t);            /* after its last; may be NULL */
   void  (*begin)(void *self, ag_tid t);                  /* outermost only */
   void  (*end)(void *self, ag_tid t);                    /* outermost only */
   /* One access event: access_start (may be NULL), then one access call
      per location touched (addr is that location's first byte; a location
      is a run of bytes within an aligned 8-byte word that every access so
      far covered entirely or not at all -- see ag_shadow.h), then
      access_done (may be NULL).  The event is one unary transaction when
      t is outside any region. */
   void  (*access_start)(void *self, ag_tid t, unsigned flags);
   void  (*access)(void *self, ag_tid t, void *loc, ag_addr addr, unsigned flags);
   /* May be NULL.  1 if this access, to part of a whole word whose state
      is loc, would report nothing and leave the state of the part as it
      is: the dispatcher then makes no other call for it, and the word is
      not divided (its parts would all have loc's state again, and an
      undivided word is as good as one divided into equal states: see
      ag_shadow.h). */
   int   (*access_idle)(void *self, ag_tid t, const void *loc, unsigned flags);
   void  (*acquire)(void *self, ag_tid t, ag_addr lock, int shared);
   void  (*release)(void *self, ag_tid t, ag_addr lock, int shared);
   void  (*fork)(void *self, ag_tid parent, ag_tid child);
   void  (*join)(void *self, ag_tid joiner, ag_tid child);
   void  (*access_done)(void *self, ag_tid t);
   /* The lock (or sync object) at this address was re-initialised,
      destroyed or freed: a later one there is a new object and starts
      fresh.  May be NULL if the engine keeps no per-lock state. */
   void  (*lock_forget)(void *self, ag_addr lock);
   /* loc (at loc_addr) is part of the atomic object [addr, addr+size): an
      atomic access touched it before the engine was (re)started and the
      memory was not forgotten since.  The dispatcher keeps these across
      sampling windows.  May be NULL (the engine ignores atomic objects). */
   void  (*atomic_mark)(void *self, void *loc, ag_addr loc_addr,
                        ag_addr addr, unsigned size);
   /* The most bytes of per-location state the engine held at once outside
      the shadow's cells (FastTrack's read sets), for --stats.  May be NULL. */
   uint64_t (*heap_peak)(void *self);
   /* Lookups that missed the engine's per-access cache (FastTrack's site
      numbers, prediction's access descriptors), for --stats and tests.
      May be NULL. */
   uint64_t (*cache_misses)(void *self);
};

/* FastTrack keeps site numbers below this in its 24-byte location, larger
   ones beside it (ag_fasttrack.c); read when an instance is created.
   White-box tests lower it so that both paths run. */
extern uint32_t ag_fasttrack_site_inline;

#endif
