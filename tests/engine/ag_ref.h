/* ag_ref.h -- brute-force reference checkers for the atomicity engines, a
 * random trace generator, and a helper that feeds a trace to any engine.
 *
 * The reference is slow and meant to be obviously right: it keeps every
 * conflicting pair of events (same thread, fork/join, every release ->
 * acquire on a lock with rwlock semantics, every byte-overlapping pair of
 * accesses with at least one write) and answers questions by searching the
 * resulting graphs.  Event indices are 1-based, exactly as the dispatcher
 * numbers them when the trace is fed one ag_ev_* call per event. */
#ifndef AG_REF_H
#define AG_REF_H

#include <stdint.h>
#include <stdio.h>
#include "ag_engine.h"

enum {
   AG_REF_BEGIN, AG_REF_END,
   AG_REF_RD, AG_REF_WR,          /* arg = address, size = bytes */
   AG_REF_ACQ, AG_REF_REL,        /* exclusive (mutex, write side) */
   AG_REF_RACQ, AG_REF_RREL,      /* shared (read side of an rwlock) */
   AG_REF_FORK, AG_REF_JOIN       /* arg = child tid */
};

typedef struct {
   uint8_t tid;
   uint8_t op;
   uint8_t size;
   uint64_t arg;
} ag_ref_ev;

#define AG_REF_MAXEV 512
#define AG_REF_MAXT 16

typedef struct {
   int n;                 /* events */
   int ninit;             /* threads 0..ninit-1 exist from the start */
   int nthreads;          /* all threads, children are forked */
   ag_ref_ev ev[AG_REF_MAXEV];
   uint8_t exits[AG_REF_MAXT];  /* thread exits after its last event (not an
                                   event: ag_ev_thread_exit, in ag_ref_feed) */
} ag_ref_trace;

/* Building traces by hand */
void ag_ref_init(ag_ref_trace *tr, int ninit);
void ag_ref_add(ag_ref_trace *tr, int tid, int op, uint64_t arg, int size);
void ag_ref_print(const ag_ref_trace *tr, FILE *f);

/* ---- reference answers (0 = never) -------------------------------- */

/* First event at which the transaction graph of the prefix is cyclic. */
int ag_ref_first_cycle(const ag_ref_trace *tr);
/* First event e (not a begin/end) of an open transaction T such that
   begin(T) <CHB e3 <CHB e for some e3 outside T. */
int ag_ref_first_increasing(const ag_ref_trace *tr);
/* AeroDrome's Theorem 1 bound: first event at which a cycle exists in
   the transaction order (T1 -> T2 iff some e1 in T1 <=CHB some e2 in T2)
   among the completed transactions plus at most one open one. */
int ag_ref_first_thm1(const ag_ref_trace *tr);
/* Does event e add a conflict edge v -> txn(e) that closes a cycle in
   the full transaction graph of the prefix up to e? */
int ag_ref_closes_cycle(const ag_ref_trace *tr, int e);
/* Is there an increasing cycle ending at e (as in first_increasing)? */
int ag_ref_increasing_at(const ag_ref_trace *tr, int e);
/* Are all transactions of the trace completed at its end? */
int ag_ref_all_complete(const ag_ref_trace *tr);

/* ---- random traces ------------------------------------------------ */

uint64_t ag_ref_rand(uint64_t *st);
/* Well-formed random trace of about `len` events (<= AG_REF_MAXEV - 64):
   2..maxthreads threads (some forked and joined), a few 8-byte-aligned
   words accessed with sizes 1/2/4/8 (so accesses overlap partially),
   mutexes and rwlocks with well-nested locking, nested regions and unary
   events (a quarter with long stretches where no region is open); some
   traces stop with transactions still open. */
void ag_ref_gen(ag_ref_trace *tr, uint64_t *st, int len, int maxthreads);

/* ---- driving an engine -------------------------------------------- */

typedef struct {
   int n;
   ag_violation v[AG_REF_MAXEV];
} ag_ref_reports;

/* Feed tr to engine `name` through the public ag_ev_* API.  Returns the
   number of reports (stored in out, if given), -1 if the engine is not
   registered. */
/* Feed one event to an engine instance (its site: the given number). */
int ag_ref_feed_event(ag_engine *e, const ag_ref_ev *ev, uint64_t site);
int ag_ref_feed(const ag_ref_trace *tr, const char *name, const ag_config *cfg,
                ag_ref_reports *out);

#endif
