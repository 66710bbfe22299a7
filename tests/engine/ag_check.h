/* ag_check.h -- what the hand-trace engine tests share: CHECK, a trace of
 * one-letter events fed through the dispatcher, and a report collector.
 * Header-only (static functions): each test is one C file. */
#ifndef AG_CHECK_H
#define AG_CHECK_H
#include "ag_engine_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
   fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
   fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* op: b e r w c C(RMWs, see feed_ev) a(acquire) l(release) f(fork) j(join) F(forget arg..+size)
   K(forget the lock at LOCK+arg);
   arg is an offset from BASE for accesses, from LOCK for locks, a thread
   for fork/join */
typedef struct { char op; int t; int arg; int size; int shared; } ev;
#define BASE 0x1000
#define LOCK 0x9000

#define MAXREP 64
typedef struct { int n; ag_violation v[MAXREP]; } reports;

static void on_report(void *cookie, const ag_violation *v)
{
   reports *r = cookie;
   if (r->n < MAXREP) r->v[r->n] = *v;
   r->n++;
}

/* One event; returns the dispatcher's AG_OK or misuse code. */
static int feed_ev(ag_engine *e, const ev *x, uint64_t site)
{
   unsigned size = x->size ? x->size : 1;
   switch (x->op) {
   case 'b': return ag_ev_begin(e, x->t, site);
   case 'e': return ag_ev_end(e, x->t, site);
   case 'r': return ag_ev_access(e, x->t, BASE + x->arg, size, 0, site);
   case 'w': return ag_ev_access(e, x->t, BASE + x->arg, size, AG_WRITE, site);
   /* the write half of an atomic RMW: a reference count's (c), another (C) */
   case 'c': return ag_ev_access(e, x->t, BASE + x->arg, size, AG_WRITE | AG_ATOMIC | AG_COMMUTE, site);
   case 'C': return ag_ev_access(e, x->t, BASE + x->arg, size, AG_WRITE | AG_ATOMIC, site);
   case 'a': return ag_ev_acquire(e, x->t, LOCK + x->arg, x->shared, site);
   case 'l': return ag_ev_release(e, x->t, LOCK + x->arg, x->shared, site);
   case 'f': return ag_ev_fork(e, x->t, x->arg, site);
   case 'j': return ag_ev_join(e, x->t, x->arg, site);
   case 'F': ag_ev_forget(e, BASE + x->arg, size); return AG_OK;
   case 'K': ag_ev_forget(e, LOCK + x->arg, 1); return AG_OK;
   }
   abort();
}

/* every event of a hand trace must be accepted */
static void feed(ag_engine *e, const ev *x, uint64_t site)
{
   int rc = feed_ev(e, x, site);
   if (rc != AG_OK) { fprintf(stderr, "event %c rejected: %d\n", x->op, rc); abort(); }
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A fresh instance of `engine` reporting into r, with threads
   0..nthreads-1 announced. */
static ag_engine *new_engine_named(const char *engine, reports *r, int nthreads)
{
   memset(r, 0, sizeof *r);
   const ag_engine_ops *ops = ag_engine_find(engine);
   if (!ops) { fprintf(stderr, "%s is not registered\n", engine); exit(1); }
   ag_engine *e = ag_engine_new(ops, NULL, on_report, r);
   for (int t = 0; t < nthreads; t++) ag_ev_thread_new(e, t);
   return e;
}

/* Run a trace from fresh state; site = 100+i. */
static void run_named(const char *engine, const ev *tr, int n, int nthreads, reports *r)
{
   ag_engine *e = new_engine_named(engine, r, nthreads);
   for (int i = 0; i < n; i++) feed(e, &tr[i], 100 + i);
   ag_engine_delete(e);
}

/* The reports are at exactly these events ('F' lines are not events). */
static void expect_named(const char *engine, const char *name, const ev *tr, int n,
                         int nthreads, const uint64_t *want, int nwant)
{
   reports r;
   run_named(engine, tr, n, nthreads, &r);
   CHECK(r.n == nwant, "%s: %d reports, want %d (first at %llu)", name, r.n, nwant,
         r.n ? (unsigned long long)r.v[0].event : 0ULL);
   for (int i = 0; i < nwant && i < r.n; i++)
      CHECK(r.v[i].event == want[i], "%s: report %d at event %llu, want %llu", name, i,
            (unsigned long long)r.v[i].event, (unsigned long long)want[i]);
   for (int i = 0; i < r.n && i < MAXREP; i++)
      CHECK(r.v[i].kind == AG_KIND_ATOMICITY && !strcmp(r.v[i].engine, engine),
            "%s: report kind/engine", name);
}
#endif
