/* test_differential.c -- the atomicity engines against the brute-force
 * reference (ag_ref.c), on hand-made regression traces and on thousands of
 * random traces with fixed seeds.
 *
 *   test_differential [hand|atomsan|inc|velodrome|aerodrome|all] [ntraces]
 *
 * Exit 0 on success, 1 on failure, 77 when the requested engine is not
 * registered (the section is skipped; "all" just notes it). */
#include "ag_ref.h"
#include "ag_shadow.h"           /* ag_shadow_compact_min */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const ag_config plain = { 0 }, increasing = { 1 };

#define FAIL(tr, ...) do {                                   \
      failures++;                                            \
      if (failures <= 5) {                                   \
         fprintf(stderr, "FAIL: " __VA_ARGS__);              \
         fputc('\n', stderr);                                \
         if (tr) ag_ref_print(tr, stderr);                   \
      }                                                      \
   } while (0)

static int first_of(const ag_ref_reports *r) { return r->n ? (int)r->v[0].event : 0; }

static int ref_is_access(const ag_ref_ev *x) { return x->op == AG_REF_RD || x->op == AG_REF_WR; }

/* reports at an access, and those naming the other thread's access */
static int at_access, with_other;

/* The other thread's access a report names (if any) conflicts with the
   reported access: earlier, of other_tid, a common byte, one writes. */
static void check_other_access(const ag_ref_trace *tr, const ag_violation *v,
                               const char *eng, int e)
{
   const ag_ref_ev *y = &tr->ev[e - 1];
   if (!ref_is_access(y)) return;
   at_access++;
   if (!v->other_event) return;
   with_other++;
   int o = (int)v->other_event;
   const ag_ref_ev *x = &tr->ev[o - 1];
   if (o >= e || x->tid != v->other_tid || v->other_site != (uint64_t)o || !ref_is_access(x)
       || x->arg >= y->arg + y->size || y->arg >= x->arg + x->size
       || (x->op != AG_REF_WR && y->op != AG_REF_WR)
       || !!(v->other_flags & AG_WRITE) != (x->op == AG_REF_WR))
      FAIL(tr, "%s: report at %d names event %d as the other thread's access", eng, e, o);
}

/* Fields every atomicity report must get right. */
static void check_fields(const ag_ref_trace *tr, const ag_ref_reports *r,
                         const char *eng, int inc)
{
   for (int i = 0; i < r->n; i++) {
      const ag_violation *v = &r->v[i];
      int e = (int)v->event;
      if (e < 1 || e > tr->n) { FAIL(tr, "%s: report at bad event %d", eng, e); return; }
      if (i && e <= (int)r->v[i - 1].event)
         FAIL(tr, "%s: reports not in event order (%d after %d)", eng, e, (int)r->v[i - 1].event);
      if (v->tid != tr->ev[e - 1].tid)
         FAIL(tr, "%s: report at %d names T%u, the event is T%d", eng, e, v->tid, tr->ev[e - 1].tid);
      if (v->kind != AG_KIND_ATOMICITY || v->site != (uint64_t)e)
         FAIL(tr, "%s: report at %d: kind %d site %llu", eng, e, v->kind,
              (unsigned long long)v->site);
      if (v->other_event > 0 && v->other_event <= (uint64_t)tr->n)
         check_other_access(tr, v, eng, e);
      else if (v->other_event)
         FAIL(tr, "%s: report at %d: other event %llu", eng, e, (unsigned long long)v->other_event);
      if (strcmp(eng, "atomsanitizer") != 0) continue;
      if (v->other_tid == v->tid || v->other_tid >= (ag_tid)tr->nthreads)
         FAIL(tr, "%s: report at %d: other_tid %u", eng, e, v->other_tid);
      if (inc && v->other_begin_event)
         FAIL(tr, "%s: increasing report at %d names another region", eng, e);
      if (v->other_begin_event) {
         int b = (int)v->other_begin_event;
         if (b >= e || tr->ev[b - 1].op != AG_REF_BEGIN || tr->ev[b - 1].tid != v->other_tid)
            FAIL(tr, "%s: report at %d: other region begins at %d", eng, e, b);
      }
      if (v->begin_event) {
         int b = (int)v->begin_event;
         if (b >= e || tr->ev[b - 1].op != AG_REF_BEGIN || tr->ev[b - 1].tid != v->tid)
            FAIL(tr, "%s: report at %d: region begins at %d", eng, e, b);
      } else {
         FAIL(tr, "%s: report at %d has no region", eng, e);
      }
   }
}

/* Every report is at an event that closes a real cycle (plain) or ends a
   real increasing cycle (inc). */
static void check_sound(const ag_ref_trace *tr, const ag_ref_reports *r,
                        const char *eng, int inc, int first_ref)
{
   for (int i = 0; i < r->n; i++) {
      int e = (int)r->v[i].event;
      if (inc ? !ag_ref_increasing_at(tr, e) : !ag_ref_closes_cycle(tr, e))
         FAIL(tr, "%s%s: report #%d at %d, but the reference sees no cycle %s there",
              eng, inc ? " (increasing)" : "", i + 1, e, inc ? "ending" : "closed");
      if (!first_ref || e < first_ref)
         FAIL(tr, "%s: report #%d at %d before the first cycle (%d)", eng, i + 1, e, first_ref);
   }
}

/* ---- hand-made traces --------------------------------------------- */

enum { B = AG_REF_BEGIN, E = AG_REF_END, R = AG_REF_RD, Wr = AG_REF_WR,
       A = AG_REF_ACQ, L = AG_REF_REL, RA = AG_REF_RACQ, RL = AG_REF_RREL,
       F = AG_REF_FORK, J = AG_REF_JOIN };

#define X 0x1000
#define Y 0x1008
#define Z 0x1010
#define U 0x1018
#define V 0x1020
#define LK 0x9000

typedef struct { int t, op; uint64_t arg; int size; } hev;

typedef struct {
   const char *name;
   int ninit;
   const hev *ev;
   int n;
   int expect;          /* atomsanitizer / reference / velodrome */
   int expect_aero;     /* AeroDrome (basic algorithm), -1: just check the bounds */
   int expect_inc;      /* increasing-cycle mode, -1: equal to the reference */
} hand_t;

#define W8(t, a)  { t, Wr, a, 8 }
#define R8(t, a)  { t, R, a, 8 }
#define BG(t)     { t, B, 0, 0 }
#define EN(t)     { t, E, 0, 0 }

/* AeroDrome paper, Fig. 1-4 (threads t1..t3 are 0..2) */
static const hev rho1[] = { BG(0), W8(0, X), BG(1), R8(1, X), EN(1), BG(2), W8(2, Z), EN(2),
                            R8(0, Z), EN(0) };
static const hev rho2[] = { BG(0), BG(1), W8(0, X), R8(1, X), W8(1, Y), R8(0, Y), EN(0), EN(1) };
static const hev rho3[] = { BG(0), BG(1), W8(0, X), W8(1, Y), R8(0, Y), R8(1, X), EN(0), EN(1) };
static const hev rho4[] = { BG(0), W8(0, X), BG(1), W8(1, Y), R8(1, X), EN(1), BG(2), R8(2, Y),
                            W8(2, Z), EN(2), R8(0, Z), EN(0) };
/* AtomSanitizer paper, Fig. 6 (sigma7): t1..t4 are 0..3; T1,T5 in t1; T4,T7
   in t2; T2 in t3; T3,T6 in t4.  Edges: e7 T2->T3, e11 T1->T4, e17 T5->T7,
   e18 T4->T6, e19 T7->T2 (closure: T5->T2, T7->T3, T5->T3), e20 T3->T5. */
static const hev sigma7[] = {
   BG(2), W8(2, X),                      /* 1-2   T2 */
   BG(3),                                /* 3     T3 */
   BG(0), W8(0, Z), EN(0),               /* 4-6   T1 */
   W8(3, X), EN(3),                      /* 7-8   edge 1 */
   BG(1), W8(1, U), R8(1, Z), EN(1),     /* 9-12  T4, edge 2 at 11 */
   BG(0), W8(0, V),                      /* 13-14 T5 */
   BG(1),                                /* 15    T7 */
   BG(3),                                /* 16    T6 */
   W8(1, V),                             /* 17    edge 3 */
   R8(3, U),                             /* 18    edge 4 */
   R8(2, V),                             /* 19    edge 5 + closure */
   R8(0, X),                             /* 20    T3 -> T5: violation */
};
/* addSuccessor's To-lowering branch: A=0 B=1 C=2.  Tc -> Tb1 (4); Ta ->
   Tb2 (10); Ta -> Tc (12) makes the earlier Tb1 learn Ta; Tb1 -> Ta (13). */
static const hev lower[] = {
   BG(2), BG(1), W8(2, X), R8(1, X), W8(1, Z), EN(1),
   BG(0), BG(1), W8(0, Y), R8(1, Y), W8(0, U), R8(2, U), R8(0, Z),
};
/* the forward half of the closure: Tc -> Tb (4), Ta -> Tc (7) must give
   Ta -> Tb, then Tb -> Ta (9) closes the cycle. */
static const hev forward[] = {
   BG(2), BG(1), W8(2, X), R8(1, X), BG(0), W8(0, Y), R8(2, Y), W8(1, V), R8(0, V),
};
/* fork(u) and join(u) in one transaction, u does nothing: no cycle */
static const hev forkjoin0[] = { BG(0), { 0, F, 1, 0 }, { 0, J, 1, 0 }, EN(0) };
/* ... u does something: T -> u -> T, a cycle at the join */
static const hev forkjoin1[] = { BG(0), { 0, F, 1, 0 }, W8(1, X), { 0, J, 1, 0 }, EN(0) };
/* ... u runs an empty region: still an event of u */
static const hev forkjoin2[] = { BG(0), { 0, F, 1, 0 }, BG(1), EN(1), { 0, J, 1, 0 }, EN(0) };
/* joined by another thread, no events in u: no edge */
static const hev forkjoin3[] = { BG(0), BG(1), { 0, F, 2, 0 }, W8(1, X), R8(0, X), { 1, J, 2, 0 },
                                 EN(0), EN(1) };
/* bytes: adjacent bytes never conflict ... */
static const hev bytes0[] = { BG(0), { 0, Wr, X, 1 }, { 1, Wr, X + 1, 1 }, { 1, R, X + 2, 2 },
                              { 0, R, X, 1 }, { 0, Wr, X + 4, 4 }, EN(0) };
/* ... overlapping ones do, whatever their sizes */
static const hev bytes1[] = { BG(0), W8(0, X), { 1, Wr, X + 3, 1 }, { 0, R, X + 2, 2 }, EN(0) };
static const hev bytes2[] = { BG(0), { 0, Wr, X + 4, 4 }, { 1, R, X, 8 }, { 1, Wr, Y + 4, 4 },
                              { 0, R, Y + 4, 1 }, EN(0) };
/* an unaligned access straddling two words */
static const hev bytes3[] = { BG(0), { 0, Wr, X + 4, 8 }, { 1, R, Y, 1 }, { 1, Wr, Y + 7, 1 },
                              { 0, R, Y + 2, 4 }, { 0, R, Y + 7, 1 }, EN(0) };
/* rwlocks: readers do not order each other */
static const hev rw0[] = { BG(0), W8(0, X), BG(1), R8(1, X), { 1, RA, LK, 0 }, { 1, RL, LK, 0 },
                           EN(1), { 0, RA, LK, 0 }, { 0, RL, LK, 0 }, EN(0) };
/* a read-acquire follows the last write-release */
static const hev rw1[] = { BG(0), W8(0, X), BG(1), R8(1, X), { 1, A, LK, 0 }, { 1, L, LK, 0 },
                           EN(1), { 0, RA, LK, 0 }, { 0, RL, LK, 0 }, EN(0) };
/* a write-acquire follows the read-releases since the last write-release */
static const hev rw2[] = { BG(0), { 0, RA, LK, 0 }, { 0, RL, LK, 0 }, { 1, A, LK, 0 }, W8(1, X),
                           { 1, L, LK, 0 }, R8(0, X), EN(0) };
/* ... and the earlier write-release (through the reader in between) */
static const hev rw3[] = { BG(0), { 0, A, LK, 0 }, { 0, L, LK, 0 }, { 2, RA, LK, 0 },
                           { 2, RL, LK, 0 }, { 1, A, LK, 0 }, W8(1, X), { 1, L, LK, 0 },
                           R8(0, X), EN(0) };
/* mutex: release -> acquire */
static const hev mx0[] = { BG(0), { 0, A, LK, 0 }, W8(0, Y), { 0, L, LK, 0 }, BG(1),
                           { 1, A, LK, 0 }, W8(1, X), { 1, L, LK, 0 }, EN(1), R8(0, X), EN(0) };
/* nested regions: only the outermost counts */
static const hev nest0[] = { BG(0), BG(1), W8(0, X), BG(0), EN(0), R8(1, X), W8(1, Y), BG(1),
                             EN(1), BG(0), R8(0, Y), EN(0), EN(0), EN(1) };
/* a unary transaction lies on the cycle: T -> unary -> T */
static const hev unary0[] = { BG(0), W8(0, X), R8(1, X), W8(1, Y), R8(0, Y), EN(0) };
/* continue after a violation: rho2 twice, then an edge whose cycle
   would only exist through the dropped closing edge */
static const hev twice[] = { BG(0), BG(1), W8(0, X), R8(1, X), W8(1, Y), R8(0, Y), EN(0), EN(1),
                             BG(2), BG(3), W8(2, Z), R8(3, Z), W8(3, U), R8(2, U), EN(2), EN(3) };
/* the engine reports again at 7 (the closing edge was not applied), but
   the dispatcher delivers one report per region instance and other thread */
static const hev again[] = { BG(0), BG(1), W8(0, X), R8(1, X), W8(1, Y), R8(0, Y), R8(0, Y),
                             R8(0, Z), EN(0), EN(1) };
/* increasing vs plain: rho3's cycle is not increasing, rho2's is */

static const hand_t hands[] = {
#define H(nm, ni, arr, ex, exa, exi) { nm, ni, arr, (int)(sizeof arr / sizeof arr[0]), ex, exa, exi }
   H("rho1", 3, rho1, 0, 0, 0),
   H("rho2", 2, rho2, 6, 6, 6),
   H("rho3", 2, rho3, 6, 7, 0),
   H("rho4", 3, rho4, 11, 11, -1),
   H("sigma7", 4, sigma7, 20, -1, -1),
   H("to-lowering", 3, lower, 13, -1, -1),
   H("forward-closure", 3, forward, 9, -1, -1),
   H("fork-join-empty", 1, forkjoin0, 0, 0, 0),
   H("fork-join-child-access", 1, forkjoin1, 4, -1, -1),
   H("fork-join-child-region", 1, forkjoin2, 5, -1, -1),
   H("fork-other-joiner", 2, forkjoin3, 0, 0, 0),
   H("bytes-adjacent", 2, bytes0, 0, 0, 0),
   H("bytes-overlap", 2, bytes1, 4, -1, -1),
   H("bytes-overlap-sizes", 2, bytes2, 5, -1, -1),
   H("bytes-straddle", 2, bytes3, 6, -1, -1),
   H("rwlock-readers", 2, rw0, 0, 0, 0),
   H("rwlock-read-after-write", 2, rw1, 8, -1, -1),
   H("rwlock-write-after-reads", 2, rw2, 7, -1, -1),
   H("rwlock-write-after-write", 3, rw3, 9, -1, -1),
   H("mutex", 2, mx0, 10, -1, -1),
   H("nested", 2, nest0, 11, -1, -1),
   H("unary-on-cycle", 2, unary0, 5, -1, -1),
   H("twice", 4, twice, 6, -1, -1),
   H("again", 2, again, 6, -1, -1),
#undef H
};

static void hand_trace(const hand_t *h, ag_ref_trace *tr)
{
   ag_ref_init(tr, h->ninit);
   for (int i = 0; i < h->n; i++) ag_ref_add(tr, h->ev[i].t, h->ev[i].op, h->ev[i].arg, h->ev[i].size);
}

static int engine_missing(const char *name)
{
   if (ag_engine_find(name)) return 0;
   printf("SKIP: engine '%s' is not registered\n", name);
   return 1;
}

static ag_ref_reports rep, joined;

/* Do two reports say the same, field by field? */
static int same_report(const ag_violation *a, const ag_violation *b)
{
#define AG_SAME(f) (a->f == b->f)
   return AG_SAME(event) && AG_SAME(tid) && AG_SAME(site) && AG_SAME(addr) && AG_SAME(size)
          && AG_SAME(flags) && AG_SAME(at_end) && AG_SAME(lock) && AG_SAME(shared)
          && AG_SAME(begin_event) && AG_SAME(begin_site) && AG_SAME(other_tid)
          && AG_SAME(other_event) && AG_SAME(other_site) && AG_SAME(other_flags)
          && AG_SAME(other_addr) && AG_SAME(other_size) && AG_SAME(other_begin_event)
          && AG_SAME(other_begin_site) && AG_SAME(own_event) && AG_SAME(own_site)
          && AG_SAME(own_addr) && AG_SAME(own_size) && AG_SAME(own_flags)
          && AG_SAME(lock_acq_event) && AG_SAME(lock_rel_event) && AG_SAME(own_rel_event);
#undef AG_SAME
}

/* Joining equal locations (engines with loc_equal: a sweep before every
   access; and a word at the end of a byte access to its last byte, which
   rep's run does and the second one here does not) changes no report: rep
   is made again. */
static void check_joined(const ag_ref_trace *tr, const char *eng, const ag_config *cfg,
                         const char *what)
{
   for (int how = 0; how < 2; how++) {
      const uint64_t compact_min = ag_shadow_compact_min;
      if (how == 0) ag_shadow_compact_min = 0;
      else ag_engine_join_bytes = 0;
      ag_ref_feed(tr, eng, cfg, &joined);
      ag_shadow_compact_min = compact_min;
      ag_engine_join_bytes = 1;
      int same = joined.n == rep.n;
      for (int i = 0; same && i < rep.n; i++) same = same_report(&rep.v[i], &joined.v[i]);
      if (!same) FAIL(tr, "%s: %s: %d reports %s, %d with the defaults, or different", what, eng,
                      joined.n, how ? "with no word joined at a byte access" : "with sweeps",
                      rep.n);
   }
}

static void check_exact(const ag_ref_trace *tr, const char *eng, const ag_config *cfg,
                        int want, const char *what)
{
   ag_ref_feed(tr, eng, cfg, &rep);
   if (first_of(&rep) != want)
      FAIL(tr, "%s: %s%s: first report at %d, want %d", what, eng,
           cfg->cycles_increasing ? " (increasing)" : "", first_of(&rep), want);
   check_fields(tr, &rep, eng, cfg->cycles_increasing);
}

/* AeroDrome: first report between the first cycle and the Theorem 1 event;
   equal verdicts when every transaction completed. */
static int aero_late, aero_thm1_later;

static void check_aero(const ag_ref_trace *tr, int ref, const char *what)
{
   int thm1 = ag_ref_first_thm1(tr);
   ag_ref_feed(tr, "aerodrome", &plain, &rep);
   int got = first_of(&rep);
   aero_late += ref && got != ref;
   aero_thm1_later += thm1 > ref;
   if (!ref && got) FAIL(tr, "%s: aerodrome reports at %d, the trace is serializable", what, got);
   if (ref && got && got < ref) FAIL(tr, "%s: aerodrome reports at %d before the cycle at %d", what, got, ref);
   if (thm1 && (!got || got > thm1))
      FAIL(tr, "%s: aerodrome reports at %d, after the Theorem 1 event %d (cycle at %d)",
           what, got, thm1, ref);
   if (ref && !got && ag_ref_all_complete(tr))
      FAIL(tr, "%s: aerodrome misses the cycle at %d of a complete trace", what, ref);
   for (int i = 0; i < rep.n; i++)
      if ((int)rep.v[i].event < ref || !ref)
         FAIL(tr, "%s: aerodrome report #%d at %d before any cycle", what, i + 1, (int)rep.v[i].event);
   check_fields(tr, &rep, "aerodrome", 0);
}

static void check_hand(const hand_t *h, ag_ref_trace *tr, int have_velo, int have_aero)
{
   hand_trace(h, tr);
   int ref = ag_ref_first_cycle(tr);
   if (ref != h->expect) FAIL(tr, "%s: reference says %d, want %d", h->name, ref, h->expect);
   int inc = ag_ref_first_increasing(tr);
   if (h->expect_inc >= 0 && inc != h->expect_inc)
      FAIL(tr, "%s: increasing reference says %d, want %d", h->name, inc, h->expect_inc);
   check_exact(tr, "atomsanitizer", &plain, h->expect, h->name);
   check_joined(tr, "atomsanitizer", &plain, h->name);
   check_sound(tr, &rep, "atomsanitizer", 0, ref);
   check_exact(tr, "atomsanitizer", &increasing, inc, h->name);
   check_sound(tr, &rep, "atomsanitizer", 1, ref);
   if (have_velo) {
      check_exact(tr, "velodrome", &plain, h->expect, h->name);
      check_sound(tr, &rep, "velodrome", 0, ref);
   }
   if (have_aero) {
      check_aero(tr, ref, h->name);
      if (h->expect_aero >= 0 && first_of(&rep) != h->expect_aero)
         FAIL(tr, "%s: aerodrome reports at %d, want %d", h->name, first_of(&rep), h->expect_aero);
   }
}

/* A ring through 11 regions, threads forked while the state grows (the
   From/To arrays are resized with edges in them). */
static int build_ring(hev *ev)
{
   int n = 0;
   ev[n++] = (hev)BG(1);
   ev[n++] = (hev){ 1, Wr, 0x2000 + 8, 8 };
   for (int i = 2; i < 12; i++) {
      ev[n++] = (hev){ 0, F, (uint64_t)i, 0 };
      ev[n++] = (hev)BG(i);
      ev[n++] = (hev){ i, R, 0x2000 + 8 * (uint64_t)(i - 1), 8 };
      ev[n++] = (hev){ i, Wr, 0x2000 + 8 * (uint64_t)i, 8 };
   }
   ev[n++] = (hev){ 1, R, 0x2000 + 8 * 11, 8 };
   return n;
}

/* e's shadow is one page and n cells. */
static void want_cells(ag_engine *e, unsigned n, const char *what)
{
   const uint64_t cell = (ag_engine_ops_of(e)->loc_size + 7) & ~(uint64_t)7;
   const uint64_t want = sizeof(ag_page) + n * cell;
   if (ag_engine_shadow_bytes(e) != want)
      FAIL(NULL, "byte loop: %llu shadow bytes, want %llu (%s)",
           (unsigned long long)ag_engine_shadow_bytes(e), (unsigned long long)want, what);
}

/* A byte loop inside one transaction leaves a word of eight equal
   AtomSanitizer locations: the shadow joins them into one cell (sweeping
   here before every access that divides a word). */
static void check_byte_loop_joined(void)
{
   const ag_engine_ops *ops = ag_engine_find("atomsanitizer");
   const uint64_t compact_min = ag_shadow_compact_min;
   ag_shadow_compact_min = 0;
   ag_engine *e = ag_engine_new(ops, &plain, NULL, NULL);
   ag_ev_thread_new(e, 0);
   ag_ev_begin(e, 0, 1);
   for (int i = 0; i < 8; i++) ag_ev_access(e, 0, X + i, 1, AG_WRITE, 2);
   ag_ev_access(e, 0, Y, 1, AG_WRITE, 3);        /* sweeps: marks X's word cold */
   ag_ev_access(e, 0, Y + 4, 1, AG_WRITE, 3);    /* joins it */
   want_cells(e, 1 + 4, "X's word joined; Y: 4");
   ag_engine_delete(e);
   ag_shadow_compact_min = compact_min;
}

/* The dispatcher joins such a word at its last byte, with no sweep at
   all.  A byte loop outside any region is as many unary transactions,
   one group with one id while no edge enters them (ag_atomsan.c): its
   word is joined too.  An edge into the loop's fifth byte (T1 wrote it
   before) starts a new group there, so Z's word keeps eight locations
   (two groups of equal ones). */
static void check_byte_loop_joined_at_once(void)
{
   const ag_engine_ops *ops = ag_engine_find("atomsanitizer");
   const ag_config keepq = { 0, 1 };
   ag_engine *e = ag_engine_new(ops, &keepq, NULL, NULL);
   ag_ev_thread_new(e, 0);
   ag_ev_thread_new(e, 1);
   ag_ev_begin(e, 0, 1);
   for (int i = 0; i < 8; i++) ag_ev_access(e, 0, X + i, 1, AG_WRITE, 2);
   ag_ev_end(e, 0, 1);
   for (int i = 0; i < 8; i++) ag_ev_access(e, 0, Y + i, 1, AG_WRITE, 2);
   ag_ev_access(e, 1, Y + 16 + 4, 1, AG_WRITE, 3);
   for (int i = 0; i < 8; i++) ag_ev_access(e, 0, Y + 16 + i, 1, AG_WRITE, 2);
   want_cells(e, 1 + 1 + 8, "X's and Y's words joined at their ends; Z: 8");
   ag_engine_delete(e);
}

static void run_hand(void)
{
   check_byte_loop_joined();
   check_byte_loop_joined_at_once();
   ag_ref_trace *tr = malloc(sizeof *tr);
   int nh = (int)(sizeof hands / sizeof hands[0]);
   int have_velo = ag_engine_find("velodrome") != NULL;
   int have_aero = ag_engine_find("aerodrome") != NULL;
   for (int i = 0; i < nh; i++) check_hand(&hands[i], tr, have_velo, have_aero);
   hev ring[64];
   int nr = build_ring(ring);
   hand_t hr = { "ring12", 2, ring, nr, nr, -1, -1 };
   check_hand(&hr, tr, have_velo, have_aero);
   /* continue-after-violation counts */
   for (int i = 0; i < nh; i++) {
      const hand_t *h = &hands[i];
      int want = !strcmp(h->name, "twice") ? 2 : !strcmp(h->name, "again") ? 1 : -1;
      if (want < 0) continue;
      hand_trace(h, tr);
      ag_ref_feed(tr, "atomsanitizer", &plain, &rep);
      if (rep.n != want) FAIL(tr, "%s: atomsanitizer made %d reports, want %d", h->name, rep.n, want);
      if (!strcmp(h->name, "twice") && rep.n == 2 && rep.v[1].event != 14)
         FAIL(tr, "twice: second report at %d, want 14", (int)rep.v[1].event);
   }
   /* rho2's report names the other region (t2's, begun at event 2) and
      its write of y (event 5) */
   hand_trace(&hands[1], tr);
   ag_ref_feed(tr, "atomsanitizer", &plain, &rep);
   if (rep.n != 1 || rep.v[0].tid != 0 || rep.v[0].other_tid != 1 || rep.v[0].begin_event != 1
       || rep.v[0].other_begin_event != 2 || rep.v[0].addr != Y || rep.v[0].size != 8
       || rep.v[0].other_event != 5 || !(rep.v[0].other_flags & AG_WRITE))
      FAIL(tr, "rho2: report fields (tid %u other %u begin %llu other_begin %llu addr %llx "
           "other event %llu)", rep.v[0].tid, rep.v[0].other_tid,
           (unsigned long long)rep.v[0].begin_event,
           (unsigned long long)rep.v[0].other_begin_event, (unsigned long long)rep.v[0].addr,
           (unsigned long long)rep.v[0].other_event);
   printf("hand: %d traces%s%s\n", nh + 1, have_velo ? ", velodrome" : " (velodrome not registered)",
          have_aero ? ", aerodrome" : " (aerodrome not registered)");
   free(tr);
}

/* ---- random traces ------------------------------------------------ */

typedef enum { S_ATOMSAN, S_INC, S_VELO, S_AERO } section;

static void run_random(section sec, int ntraces)
{
   ag_ref_trace *tr = malloc(sizeof *tr);
   static const char *const names[] = { "atomsanitizer", "atomsanitizer", "velodrome", "aerodrome" };
   const char *eng = names[sec];
   uint64_t seed0[] = { 0xa70a5a17ULL, 0x1c4ea5eULL, 0x7e10d40eULL, 0xae40d40eULL };
   uint64_t st = seed0[sec];
   int cyc = 0, reps = 0, trunc = 0, multi = 0;
   for (int i = 0; i < ntraces && failures < 5; i++) {
      /* mostly small traces (cycles early), some long ones */
      int len = (i % 10 == 0) ? 80 + (int)(ag_ref_rand(&st) % 120) : 8 + (int)(ag_ref_rand(&st) % 60);
      int maxth = (i % 7 == 0) ? 6 : 2 + (int)(ag_ref_rand(&st) % 3);
      ag_ref_gen(tr, &st, len, maxth);
      int ref = ag_ref_first_cycle(tr);
      cyc += ref != 0;
      trunc += !ag_ref_all_complete(tr);
      char what[64];
      snprintf(what, sizeof what, "%s random #%d", eng, i);
      switch (sec) {
      case S_ATOMSAN:
         check_exact(tr, eng, &plain, ref, what);
         check_joined(tr, eng, &plain, what);
         check_sound(tr, &rep, eng, 0, ref);
         break;
      case S_INC: {
         int inc = ag_ref_first_increasing(tr);
         if (inc && (!ref || inc < ref)) FAIL(tr, "increasing cycle at %d before cycle at %d", inc, ref);
         check_exact(tr, eng, &increasing, inc, what);
         check_sound(tr, &rep, eng, 1, ref);
         break;
      }
      case S_VELO:
         check_exact(tr, eng, &plain, ref, what);
         check_sound(tr, &rep, eng, 0, ref);
         break;
      case S_AERO:
         check_aero(tr, ref, what);
         break;
      }
      reps += rep.n;
      multi += rep.n > 1;
   }
   printf("%s%s: %d random traces, %d with a cycle, %d truncated, %d reports, %d traces with several; "
          "%d of %d reports at an access name the other thread's access\n",
          eng, sec == S_INC ? " (increasing)" : "", ntraces, cyc, trunc, reps, multi,
          with_other, at_access);
   /* most cycles close at an access whose conflicting access is recent */
   if (sec != S_AERO && with_other * 2 < at_access)
      FAIL(tr, "%s: only %d of %d reports at an access name the other access", eng, with_other,
           at_access);
   at_access = with_other = 0;
   if (sec == S_AERO)
      printf("aerodrome: %d first reports after the first cycle (or none), %d traces where the "
             "Theorem 1 event is later than the first cycle\n", aero_late, aero_thm1_later);
   free(tr);
}

int main(int argc, char **argv)
{
   const char *what = argc > 1 ? argv[1] : "all";
   int n = argc > 2 ? atoi(argv[2]) : 3000;
   int all = !strcmp(what, "all"), ran = 0;
   if (all || !strcmp(what, "hand")) { run_hand(); ran = 1; }
   if (all || !strcmp(what, "atomsan")) { run_random(S_ATOMSAN, n); ran = 1; }
   if (all || !strcmp(what, "inc")) { run_random(S_INC, n); ran = 1; }
   if (all || !strcmp(what, "velodrome")) {
      ran = 1;
      if (engine_missing("velodrome")) { if (!all) return 77; }
      else run_random(S_VELO, n);
   }
   if (all || !strcmp(what, "aerodrome")) {
      ran = 1;
      if (engine_missing("aerodrome")) { if (!all) return 77; }
      else run_random(S_AERO, n);
   }
   if (!ran) { fprintf(stderr, "usage: %s [hand|atomsan|inc|velodrome|aerodrome|all] [n]\n", argv[0]); return 2; }
   if (failures) { fprintf(stderr, "%d failure(s)\n", failures); return 1; }
   printf("ok\n");
   return 0;
}
