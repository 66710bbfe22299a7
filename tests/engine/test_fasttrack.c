/* test_fasttrack.c -- the "fasttrack" race engine on constructed traces with
 * known outcomes, fed through the public ag_ev_* API.  Each case lists the
 * events (1-based, as the dispatcher numbers them) that must be reported;
 * every other event must not be.  The site of event i is 1000 + i, so a
 * report's other_site names the earlier access. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ag_engine.h"
#include "ag_engine_impl.h"      /* loc_size, for the joining case */
#include "ag_shadow.h"           /* ag_shadow_compact_min, ag_page */

static int failures;
static const char *cur;

#define MAXR 256
static ag_violation reps[MAXR];
static int nreps;
static ag_engine *E;
static uint64_t ev;          /* events fed so far */

static void on_report(void *cookie, const ag_violation *v)
{
   (void)cookie;
   if (nreps < MAXR) reps[nreps++] = *v;
}

static void fail(const char *fmt, long a, long b)
{
   printf("FAIL %s: ", cur);
   printf(fmt, a, b);
   printf("\n");
   failures++;
}

static void start(const char *name, int nthreads)
{
   cur = name;
   nreps = 0;
   ev = 0;
   E = ag_engine_new(ag_engine_find("fasttrack"), NULL, on_report, NULL);
   for (int t = 0; t < nthreads; t++) ag_ev_thread_new(E, t);
}

static uint64_t site(void) { return 1000 + ev; }

static uint64_t acc(int t, uint64_t a, unsigned sz, unsigned fl)
{
   ev++;
   if (ag_ev_access(E, t, a, sz, fl, site())) fail("access rejected at %ld%.0ld", (long)ev, 0);
   return ev;
}
static uint64_t rd(int t, uint64_t a)  { return acc(t, a, 8, 0); }
static uint64_t wr(int t, uint64_t a)  { return acc(t, a, 8, AG_WRITE); }
static uint64_t ard(int t, uint64_t a) { return acc(t, a, 8, AG_ATOMIC); }
static uint64_t awr(int t, uint64_t a) { return acc(t, a, 8, AG_WRITE | AG_ATOMIC); }
static uint64_t acq(int t, uint64_t l)  { ev++; ag_ev_acquire(E, t, l, 0, site()); return ev; }
static uint64_t rel(int t, uint64_t l)  { ev++; ag_ev_release(E, t, l, 0, site()); return ev; }
static uint64_t racq(int t, uint64_t l) { ev++; ag_ev_acquire(E, t, l, 1, site()); return ev; }
static uint64_t rrel(int t, uint64_t l) { ev++; ag_ev_release(E, t, l, 1, site()); return ev; }
static uint64_t fork_(int p, int c) { ev++; ag_ev_fork(E, p, c, site()); return ev; }
static uint64_t join_(int j, int c) { ev++; ag_ev_join(E, j, c, site()); return ev; }
static uint64_t begin_(int t) { ev++; ag_ev_begin(E, t, site()); return ev; }
static uint64_t end_(int t)   { ev++; ag_ev_end(E, t, site()); return ev; }

/* The reports must be exactly at `want` (0-terminated), one per event. */
static void expect(const uint64_t *want)
{
   int nw = 0;
   while (want[nw]) nw++;
   if (nreps != nw) fail("%ld reports, expected %ld", nreps, nw);
   for (int i = 0; i < nreps; i++) {
      const ag_violation *v = &reps[i];
      int ok = 0;
      for (int j = 0; j < nw; j++) ok |= v->event == want[j];
      if (!ok) fail("unexpected report at event %ld (other tid %ld)", (long)v->event, (long)v->other_tid);
      if (v->kind != AG_KIND_RACE || strcmp(v->engine, "fasttrack"))
         fail("bad kind/engine at %ld%.0ld", (long)v->event, 0);
      if (v->site != 1000 + v->event) fail("site %ld at event %ld", (long)v->site, (long)v->event);
      for (int j = 0; j < i; j++)
         if (reps[j].event == v->event) fail("two reports at event %ld%.0ld", (long)v->event, 0);
   }
   for (int j = 0; j < nw; j++) {
      int ok = 0;
      for (int i = 0; i < nreps; i++) ok |= reps[i].event == want[j];
      if (!ok) fail("missing report at event %ld%.0ld", (long)want[j], 0);
   }
}

static const ag_violation *report_at(uint64_t e)
{
   for (int i = 0; i < nreps; i++) if (reps[i].event == e) return &reps[i];
   fail("no report at %ld%.0ld", (long)e, 0);
   return NULL;
}

/* the report at e names (tid, flags) and earlier access (other_event's
   thread, site and flags) */
static void expect_detail(uint64_t e, int tid, unsigned flags, int otid,
                          uint64_t oev, unsigned oflags)
{
   const ag_violation *v = report_at(e);
   if (!v) return;
   if ((int)v->tid != tid) fail("tid %ld, expected %ld", v->tid, tid);
   if (v->flags != flags) fail("flags %ld, expected %ld", v->flags, flags);
   if ((int)v->other_tid != otid) fail("other_tid %ld, expected %ld", v->other_tid, otid);
   if (v->other_site != 1000 + oev) fail("other_site %ld, expected %ld", (long)v->other_site, (long)(1000 + oev));
   if (v->other_flags != oflags) fail("other_flags %ld, expected %ld", v->other_flags, oflags);
}

static void done(void)
{
   if (ag_engine_events(E) != ev) fail("dispatcher counted %ld events, fed %ld", (long)ag_engine_events(E), (long)ev);
   ag_engine_delete(E);
   E = NULL;
}

#define X 0x1000
#define Y 0x2000
#define L 0x9000
#define L2 0x9100
#define WANT(...) do { uint64_t w_[] = { __VA_ARGS__, 0 }; expect(w_); } while (0)
#define NONE() do { uint64_t w_[] = { 0 }; expect(w_); } while (0)

/* Thread 1 reads byte 5 of X after thread 0's byte loop (the store
   instruction of site 5000) wrote it: the race names that store, there. */
static void loop_report_at_x5(void)
{
   uint64_t r = acc(1, X + 5, 1, 0);
   WANT(r);
   const ag_violation *v = report_at(r);
   if (v && (v->other_site != 5000 || v->addr != X + 5 || v->size != 1))
      fail("report names site %ld at %#lx", (long)v->other_site, (long)v->addr);
}

int main(void)
{
   if (!ag_engine_find("fasttrack")) { printf("FAIL fasttrack not registered\n"); return 1; }

   /* Unsynchronised counter: both threads read-modify-write. */
   start("counter", 2);
   rd(0, X); uint64_t w0 = wr(0, X);
   uint64_t r1 = rd(1, X), w1 = wr(1, X);
   WANT(r1, w1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   expect_detail(w1, 1, AG_WRITE, 0, w0, AG_WRITE);
   done();

   /* The same counter under a lock: nothing. */
   start("counter locked", 2);
   acq(0, L); rd(0, X); wr(0, X); rel(0, L);
   acq(1, L); rd(1, X); wr(1, X); rel(1, L);
   acq(0, L); rd(0, X); wr(0, X); rel(0, L);
   NONE();
   done();

   /* A lock on one side only (both orders). */
   start("missing lock, unlocked second", 2);
   acq(0, L); w0 = wr(0, X); rel(0, L);
   w1 = wr(1, X);
   WANT(w1);
   expect_detail(w1, 1, AG_WRITE, 0, w0, AG_WRITE);
   done();
   start("missing lock, locked second", 2);
   w0 = wr(0, X);
   acq(1, L); w1 = wr(1, X); rel(1, L);
   WANT(w1);
   done();
   start("different locks", 2);
   acq(0, L); wr(0, X); rel(0, L);
   acq(1, L2); w1 = wr(1, X); rel(1, L2);
   WANT(w1);
   done();

   /* Byte-adjacent data never conflicts; an overlapping byte does. */
   start("adjacent bytes", 2);
   acc(0, X, 1, AG_WRITE); acc(1, X + 1, 1, AG_WRITE);
   acc(0, X + 2, 2, AG_WRITE); acc(1, X + 4, 4, AG_WRITE);
   acc(1, X + 8, 8, AG_WRITE); acc(0, X + 16, 8, AG_WRITE);
   acc(0, X + 1, 1, 0);                  /* reads t1's byte: race */
   w1 = ev;
   uint64_t w2 = acc(1, X + 3, 2, AG_WRITE);   /* overlaps t0's X+2..3 */
   WANT(w1, w2);
   done();
   start("whole word split later", 2);
   wr(0, X); acq(0, L); rel(0, L);
   acq(1, L); acc(1, X + 4, 4, AG_WRITE); rel(1, L);   /* ordered */
   acc(0, X, 4, AG_WRITE);                               /* other half: no conflict */
   r1 = acc(0, X + 4, 1, 0);                             /* t1's half, unordered */
   WANT(r1);
   done();

   /* rwlock: write side orders both ways, read sides do not order each
      other, a write-acquire is after every earlier read release. */
   start("rwlock write then read", 3);
   acq(0, L); wr(0, X); rel(0, L);
   racq(1, L); rd(1, X); rrel(1, L);
   racq(2, L); rd(2, X); rrel(2, L);
   acq(0, L); wr(0, X); rel(0, L);           /* after both readers */
   NONE();
   done();
   start("rwlock readers then writer", 3);
   racq(0, L); rd(0, X); rrel(0, L);
   racq(1, L); rd(1, X); rrel(1, L);
   acq(2, L); wr(2, X); rel(2, L);
   racq(0, L); rd(0, X); rrel(0, L);
   NONE();
   done();
   start("rwlock readers do not order each other", 2);
   racq(0, L); w0 = wr(0, X); rrel(0, L);   /* writes under the read lock */
   racq(1, L); r1 = rd(1, X); rrel(1, L);
   WANT(r1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   done();
   start("rwlock read release then read acquire", 2);
   racq(0, L); uint64_t r0 = rd(0, X); rrel(0, L);
   racq(1, L); w1 = wr(1, X); rrel(1, L);
   WANT(w1);
   expect_detail(w1, 1, AG_WRITE, 0, r0, 0);
   done();
   start("rwlock read releases are consumed by a write acquire", 3);
   racq(0, L); rd(0, X); rrel(0, L);
   acq(1, L); wr(1, X); rel(1, L);
   acq(2, L); wr(2, X); rel(2, L);
   NONE();
   done();

   /* fork/join */
   start("fork orders parent's past", 1);
   wr(0, X); fork_(0, 1); rd(1, X); wr(1, X);
   NONE();
   done();
   start("parent after fork races", 1);
   fork_(0, 1); w0 = wr(0, X); w1 = wr(1, X);
   WANT(w1);
   expect_detail(w1, 1, AG_WRITE, 0, w0, AG_WRITE);
   done();
   start("join orders child's past", 1);
   fork_(0, 1); wr(1, X); rd(1, Y); join_(0, 1); wr(0, X); wr(0, Y);
   NONE();
   done();
   start("no join, race", 2);
   wr(1, X); w0 = wr(0, X);
   WANT(w0);
   done();
   start("grandchildren", 1);
   wr(0, X); fork_(0, 1); fork_(1, 2); wr(2, X); join_(1, 2); wr(1, X);
   join_(0, 1); wr(0, X);
   NONE();
   done();

   /* Sync objects as the front-end expresses condvars, semaphores and
      barriers: release at signal/post/arrival, acquire at the woken wait /
      successful wait / departure. */
   start("semaphore", 2);
   wr(0, X); rel(0, L2);          /* post */
   acq(1, L2); rd(1, X); wr(1, X);   /* wait */
   NONE();
   done();
   start("semaphore posted by two", 3);
   wr(0, X); rel(0, L2);
   wr(1, Y); rel(1, L2);
   acq(2, L2); wr(2, X); wr(2, Y);     /* a later wait sees both posts */
   NONE();
   done();
   start("condvar", 2);
   acq(1, L); rel(1, L);                 /* waiter: wait releases m */
   acq(0, L); wr(0, X); rel(0, L2); rel(0, L);   /* signal under m */
   acq(1, L2); acq(1, L); rd(1, X); rel(1, L);   /* woken, re-takes m */
   NONE();
   done();
   start("barrier", 3);
   wr(0, X); wr(1, Y); wr(2, X + 8);
   rel(0, L2); rel(1, L2); rel(2, L2);       /* arrivals */
   acq(0, L2); acq(1, L2); acq(2, L2);       /* departures */
   rd(0, Y); rd(1, X + 8); rd(2, X);
   NONE();
   done();
   start("accesses after a barrier are not ordered with each other", 2);
   rel(0, L2); rel(1, L2); acq(0, L2); acq(1, L2);
   r0 = rd(0, X); w1 = wr(1, X);
   WANT(w1);
   done();
   start("signal before the write does not order it", 2);
   rel(0, L2); w0 = wr(0, X); acq(1, L2); r1 = rd(1, X);
   WANT(r1);
   done();

   /* Atomics */
   start("atomic vs atomic", 3);
   awr(0, X); awr(1, X); ard(2, X); awr(2, X); ard(0, X); ard(1, X); awr(0, X);
   NONE();
   done();
   start("plain read starting before an atomic object vs atomic write", 2);
   w0 = acc(0, X + 4, 4, AG_WRITE | AG_ATOMIC); r1 = rd(1, X);
   WANT(r1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE | AG_ATOMIC);
   done();
   start("a load of part of an atomic object is an acquire of it (C++ static guard)", 2);
   wr(0, Y); acc(0, X, 4, AG_WRITE | AG_ATOMIC);    /* __cxa_guard_release's xchg */
   acc(1, X, 1, 0); rd(1, Y);                        /* the fast path's byte test */
   NONE();
   done();
   start("plain write inside an atomic object vs atomic write", 2);
   w0 = awr(0, X); w1 = acc(1, X + 4, 4, AG_WRITE);
   WANT(w1);
   expect_detail(w1, 1, AG_WRITE, 0, w0, AG_WRITE | AG_ATOMIC);
   done();
   start("atomic read vs plain write of another size", 2);
   r0 = ard(0, X); w1 = acc(1, X, 2, AG_WRITE);
   WANT(w1);
   expect_detail(w1, 1, AG_WRITE, 0, r0, AG_ATOMIC);
   done();
   start("a load of both counts of a shared_ptr acquires the use count", 2);
   wr(0, Y); acc(0, X, 4, AG_WRITE | AG_ATOMIC);    /* the use count's decrement */
   rd(1, X); rd(1, Y); wr(1, X);                     /* unique: both counts reset */
   NONE();
   done();
   start("atomics publish via lock", 2);
   awr(0, X); rel(0, L); acq(1, L); acc(1, X, 4, 0); acc(1, X, 4, AG_WRITE);
   NONE();
   done();

   /* Atomic instructions synchronise: release + acquire on their location. */
   start("RMW publishes", 2);
   wr(0, Y); awr(0, X); ard(1, X); rd(1, Y); wr(1, Y);
   NONE();
   done();
   start("RMW before the data does not publish it", 2);
   awr(0, X); w0 = wr(0, Y); ard(1, X); r1 = rd(1, Y);
   WANT(r1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   done();
   start("a chain of RMWs (release sequence, refcount)", 3);
   wr(0, Y); awr(0, X); awr(1, X); awr(2, X); wr(2, Y);
   NONE();
   done();

   /* Atomic objects: plain accesses of the same address and size are
      acquire loads and release stores. */
   start("message passing on an atomic object", 2);
   ard(1, X);                    /* an RMW made X atomic */
   wr(0, Y); wr(0, X); rd(1, X); rd(1, Y); wr(1, Y);
   NONE();
   done();
   start("data written after the release store races", 2);
   ard(1, X);
   wr(0, X); w0 = wr(0, Y); rd(1, X); r1 = rd(1, Y);
   WANT(r1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   done();
   start("an acquire load before the release store does not order", 2);
   ard(1, X);
   rd(1, X); wr(0, Y); wr(0, X); r1 = rd(1, Y);
   WANT(r1);
   done();
   start("a plain store of another size is no release", 2);
   uint64_t a1 = ard(1, X);
   wr(0, Y); w0 = acc(0, X, 4, AG_WRITE);
   uint64_t rx = rd(1, X);       /* an acquire load, racing with that store */
   r1 = rd(1, Y);
   WANT(w0, rx, r1);
   expect_detail(w0, 0, AG_WRITE, 1, a1, AG_ATOMIC);
   done();
   start("plain accesses before the first atomic one are the object's", 3);
   rd(0, X); rd(1, X); awr(2, X); rd(0, X); awr(1, X);
   NONE();
   done();
   start("an atomic write over two locations releases both", 2);
   acc(0, X, 4, 0); awr(0, X);   /* X is split in two locations */
   ard(1, X); acc(1, X + 4, 4, 0); acc(1, X, 4, AG_WRITE);
   NONE();
   done();

   /* Spin reads: atomic reads for race engines. */
   start("message passing through a spin loop on a plain flag", 2);
   acc(1, X, 8, AG_SPIN);        /* the reader spins first */
   wr(0, Y); wr(0, X);           /* a release store: X is an atomic object now */
   acc(1, X, 8, AG_SPIN); rd(1, Y); wr(1, Y);
   NONE();
   done();
   start("a spin read does not order the data written after the flag", 2);
   acc(1, X, 8, AG_SPIN);
   wr(0, X); w0 = wr(0, Y);
   acc(1, X, 8, AG_SPIN); r1 = rd(1, Y);
   WANT(r1);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   done();

   /* Freeing is a write of the block, kept until the block is reused (the
      front end forgets it at the allocation); forgotten memory is no
      longer atomic. */
   start("free races with an access", 2);
   w0 = wr(0, X); acc(0, X + 8, 8, 0);
   uint64_t f1 = ++ev;
   ag_ev_free(E, 1, X, 16, site());
   WANT(f1);
   expect_detail(f1, 1, AG_WRITE | AG_FREE, 0, w0, AG_WRITE);
   done();
   start("free after synchronisation", 2);
   wr(0, X); rel(0, L); acq(1, L);
   ++ev; ag_ev_free(E, 1, X, 16, site());
   ag_ev_forget(E, X, 16);       /* allocated again: the memory is new */
   wr(0, X);
   NONE();
   done();
   start("an access after the free races with it", 2);
   wr(0, X); rel(0, L); acq(1, L);
   f1 = ++ev; ag_ev_free(E, 1, X, 16, site());
   w0 = wr(0, X);                /* a use after the free: not reused */
   WANT(w0);
   expect_detail(w0, 0, AG_WRITE, 1, f1, AG_WRITE);
   done();
   start("an access ordered after the free does not race", 2);
   wr(0, X);
   ++ev; ag_ev_free(E, 0, X, 16, site());
   rel(0, L); acq(1, L);
   rd(1, X); wr(1, X + 8);
   NONE();
   done();
   start("a freed atomic location keeps a plain write", 2);
   ard(0, X); ++ev; ag_ev_free(E, 0, X, 8, site());
   r1 = ard(1, X);
   WANT(r1);
   done();
   start("refcount: the last decrement frees", 2);
   rd(0, Y); awr(0, X); awr(1, X);
   ++ev; ag_ev_free(E, 1, Y, 8, site());
   NONE();
   done();
   start("use after the decrement races with the free", 2);
   awr(0, X); r0 = rd(0, Y); awr(1, X);
   f1 = ++ev; ag_ev_free(E, 1, Y, 8, site());
   WANT(f1);
   expect_detail(f1, 1, AG_WRITE | AG_FREE, 0, r0, 0);
   done();
   start("a freed atomic object is plain again", 2);
   ard(0, X); ++ev; ag_ev_free(E, 0, X, 8, site());
   ag_ev_forget(E, X, 8);
   wr(1, X); r0 = rd(0, X);
   WANT(r0);
   done();
   start("free of a block the size of an atomic object is no release", 2);
   ard(0, X); wr(0, X);
   f1 = ++ev; ag_ev_free(E, 1, X, 8, site());
   WANT(f1);
   done();

   /* Sampling: atomic objects are remembered while the engine is off. */
   start("atomic objects across sampling windows", 2);
   ag_engine_set_active(E, 0);
   ard(1, X);
   ag_engine_set_active(E, 1);
   wr(0, Y); wr(0, X); rd(1, X); rd(1, Y);
   NONE();
   done();
   start("forgotten while the engine is off", 2);
   ag_engine_set_active(E, 0);
   ard(1, X); ag_ev_forget(E, X, 8);
   ag_engine_set_active(E, 1);
   wr(0, X); r1 = rd(1, X);
   WANT(r1);
   done();

   /* Atomicity engines: a free is no event. */
   {
      ag_engine *a = ag_engine_new(ag_engine_find("atomsanitizer"), NULL, on_report, NULL);
      ag_ev_thread_new(a, 0);
      ag_ev_access(a, 0, X, 8, AG_WRITE, 1);
      ag_ev_free(a, 0, X, 8, 2);
      cur = "free in atomicity engines";
      if (ag_engine_events(a) != 1) fail("%ld events, expected %ld", (long)ag_engine_events(a), 1);
      ag_engine_delete(a);
   }

   /* Concurrent reads inflate to a read clock; a write then races with the
      reader it is not ordered after. */
   start("read-shared then write", 3);
   r0 = rd(0, X); r1 = rd(1, X); rel(0, L);
   acq(2, L); w2 = wr(2, X);
   WANT(w2);
   expect_detail(w2, 2, AG_WRITE, 1, r1, 0);
   done();
   start("read-shared then ordered write", 3);
   rd(0, X); rd(1, X); rd(2, X); rel(0, L); rel(1, L);
   acq(2, L); wr(2, X); rd(0, Y);
   NONE();
   done();
   start("read-shared reset by write", 3);
   rd(0, X); rd(1, X); rel(0, L); rel(1, L);
   acq(2, L); wr(2, X); rel(2, L);
   acq(0, L); wr(0, X); rd(0, X);
   NONE();
   done();

   /* A word whose read clock is inflated is split by a byte access: each
      byte keeps a copy of the readers. */
   start("split inflated word", 3);
   rd(0, X); r1 = rd(1, X); rel(0, L); acq(2, L);
   acc(2, X + 3, 1, 0);
   w2 = acc(2, X + 3, 1, AG_WRITE);
   uint64_t w3 = acc(2, X + 5, 1, AG_WRITE);
   acq(1, L2); rel(1, L2); rel(1, L); acq(2, L);
   acc(2, X + 6, 2, AG_WRITE);
   WANT(w2, w3);
   expect_detail(w3, 2, AG_WRITE, 1, r1, 0);
   done();

   /* One report per event even when all 8 bytes race. */
   start("one report per event", 2);
   wr(0, X); acc(1, X, 8, AG_WRITE);
   acc(0, X + 24, 1, AG_WRITE); acc(0, X + 25, 1, AG_WRITE);
   w1 = acc(1, X + 24, 8, AG_WRITE);
   WANT(2, w1);
   done();

   /* Regions do not matter to races. */
   start("regions", 2);
   begin_(0); wr(0, X); end_(0); begin_(1); begin_(1); w1 = wr(1, X); end_(1); end_(1);
   WANT(w1);
   done();

   /* Many threads: clocks grow. */
   start("many threads", 1);
   for (int t = 1; t <= 60; t++) { wr(0, X + 8 * t); fork_(0, t); }
   uint64_t ry60 = 0;
   for (int t = 1; t <= 60; t++) { rd(t, X + 8 * t); wr(t, X + 8 * t); ry60 = rd(t, Y); }
   for (int t = 1; t <= 59; t++) join_(0, t);
   for (int t = 1; t <= 59; t++) rd(0, X + 8 * t);
   w0 = wr(0, Y);                 /* ordered after 59 readers, not thread 60 */
   r0 = rd(0, X + 8 * 60);
   WANT(w0, r0);
   expect_detail(w0, 0, AG_WRITE, 60, ry60, 0);
   done();

   /* Memory reuse: forgotten state does not race. */
   start("forget", 2);
   wr(0, X); ag_ev_forget(E, X, 8); wr(1, X);
   NONE();
   done();

   /* A byte loop by one thread leaves eight equal locations; the shadow
      joins them into one (sweeping here before every access that divides
      a word), and the joined location reports as the bytes did.  The
      second time every site number is kept beside the location: joining
      compares and copies those. */
   const uint64_t compact_min = ag_shadow_compact_min;
   const uint32_t site_inline = ag_fasttrack_site_inline;
   ag_shadow_compact_min = 0;
   for (int pass = 0; pass < 2; pass++) {
      ag_fasttrack_site_inline = pass ? 0 : site_inline;
      start(pass ? "byte loop joined, sites beside" : "byte loop joined", 2);
      for (int i = 0; i < 8; i++) {
         ev++;
         ag_ev_access(E, 0, X + i, 1, AG_WRITE, 5000);     /* one store instruction */
      }
      acc(0, Y, 1, AG_WRITE);            /* sweeps: marks X's word cold */
      acc(0, Y + 4, 1, AG_WRITE);        /* joins it */
      const uint64_t cell = (ag_engine_find("fasttrack")->loc_size + 7) & ~7u;
      if (ag_engine_shadow_bytes(E) != 2 * sizeof(ag_page) + (1 + 4) * cell)
         fail("%ld shadow bytes, expected X's word joined into one cell (%ld)",
              (long)ag_engine_shadow_bytes(E), (long)(2 * sizeof(ag_page) + 5 * cell));
      loop_report_at_x5();
      done();
   }

   /* With no sweep at all, the dispatcher joins the word at the byte
      loop's last byte; a later read of one byte by another thread divides
      it again and reports as the bytes would.  A loop whose bytes were
      stored by two instructions leaves unequal locations, kept apart. */
   ag_shadow_compact_min = compact_min;
   for (int pass = 0; pass < 2; pass++) {
      start(pass ? "byte loop, two sites" : "byte loop joined at once", 2);
      for (int i = 0; i < 8; i++) {
         ev++;
         ag_ev_access(E, 0, X + i, 1, AG_WRITE, pass && i == 3 ? 5001 : 5000);
      }
      const uint64_t cell = (ag_engine_find("fasttrack")->loc_size + 7) & ~7u;
      const uint64_t want = sizeof(ag_page) + (pass ? 8 : 1) * cell;
      if (ag_engine_shadow_bytes(E) != want)
         fail("%ld shadow bytes after the loop, expected %ld", (long)ag_engine_shadow_bytes(E),
              (long)want);
      loop_report_at_x5();
      done();
   }
   ag_shadow_compact_min = 0;

   /* Site numbers too large for the location's fields (here: all of them)
      are kept beside it, and reports name them: through a division of
      the word, a read set, an atomic object taking over a plain write,
      and a sweep that must not join bytes whose sites differ. */
   ag_fasttrack_site_inline = 0;
   start("sites beside the location", 2);
   w0 = wr(0, X);
   r1 = acc(1, X + 3, 1, 0);             /* divides X's word */
   r0 = rd(0, Y);
   rd(1, Y);                             /* concurrent: a read set */
   w1 = wr(1, Y);
   uint64_t wz = wr(0, X + 8);
   awr(1, X + 8);                         /* t0's write becomes an atomic one */
   uint64_t rz = acc(1, X + 8, 4, AG_WRITE);   /* plain: not the object's size */
   uint64_t wb[8];
   for (int i = 0; i < 8; i++) wb[i] = acc(0, X + 16 + i, 1, AG_WRITE);
   acc(0, Y + 8, 1, AG_WRITE);            /* sweeps: X+16's word is not */
   acc(0, Y + 12, 1, AG_WRITE);           /* joinable, its sites differ */
   uint64_t r5 = acc(1, X + 21, 1, 0);
   WANT(r1, w1, rz, r5);
   expect_detail(r1, 1, 0, 0, w0, AG_WRITE);
   expect_detail(w1, 1, AG_WRITE, 0, r0, 0);
   expect_detail(rz, 1, AG_WRITE, 0, wz, AG_WRITE | AG_ATOMIC);
   expect_detail(r5, 1, 0, 0, wb[5], AG_WRITE);
   done();
   ag_fasttrack_site_inline = site_inline;
   ag_shadow_compact_min = compact_min;

   /* A 16-byte atomic object (cmpxchg16b): a plain load of its second
      word starts inside it (the location's offset to the object is -8),
      so it acquires the object and orders the data published before. */
   start("16-byte atomic object", 2);
   wr(0, Y);
   acc(0, X, 16, AG_WRITE | AG_ATOMIC);
   acc(1, X + 8, 8, 0);
   rd(1, Y);
   NONE();
   done();

   /* A location is 16 bytes of shadow, carved at that size: a byte loop
      over 64 KiB (65536 locations) holds at most 1 MiB of slabs and a
      little more for the free blocks of the word being divided, not the
      1.5 MiB that 24-byte cells would take. */
   start("byte locations", 1);
   enum { NBYTES = 65536 };
   for (int i = 0; i < NBYTES; i++) {
      ev++;
      ag_ev_access(E, 0, X + i, 1, AG_WRITE, 6000);
   }
   if (ag_engine_find("fasttrack")->loc_size != 16
       || ag_engine_shadow_slabs(E) > NBYTES * 16 + 2 * 65536)
      fail("byte loop: cells of %ld bytes, %ld bytes of slabs",
           (long)ag_engine_find("fasttrack")->loc_size, (long)ag_engine_shadow_slabs(E));
   NONE();
   done();

   /* Read sets are sparse: two threads with high numbers reading 4096
      locations concurrently hold 4096 sets of two 16-byte entries (40
      bytes each, from slabs), not an entry per thread number below them.
      A write reports the lowest racing thread first; freed sets are
      reused. */
   start("sparse read sets", 1);
   enum { NLOC = 4096, TA = 1000, TB = 1001 };
   ag_ev_thread_new(E, TA);
   ag_ev_thread_new(E, TB);
   fork_(0, TA);
   fork_(0, TB);
   uint64_t rb = 0;
   for (int i = 0; i < NLOC; i++) { rd(TA, X + 8 * i); rb = rd(TB, X + 8 * i); }
   const uint64_t held = ag_engine_heap_peak(E), bound = NLOC * 40 + 64 * 1024;
   if (held == 0 || held > bound)
      fail("read sets hold %ld bytes, expected 1..%ld", (long)held, (long)bound);
   w0 = wr(0, X + 8 * (NLOC - 1));
   WANT(w0);
   expect_detail(w0, 0, AG_WRITE, TA, rb - 1, 0);
   ag_ev_forget(E, X, 8 * NLOC);
   uint64_t rb2 = 0;
   for (int i = 0; i < NLOC; i++) {
      uint64_t e = rd(TB, X + 8 * i);
      if (i == 2) rb2 = e;
      rd(TA, X + 8 * i);
   }
   if (ag_engine_heap_peak(E) != held)
      fail("read sets hold %ld bytes after reuse, expected %ld", (long)ag_engine_heap_peak(E), (long)held);
   join_(0, TA);
   r0 = wr(0, X + 16);           /* ordered after TA's read, not TB's */
   WANT(w0, r0);
   expect_detail(r0, 0, AG_WRITE, TB, rb2, 0);
   done();

   /* The site-number cache keeps a loop's sites: 1500 instructions 6
      bytes apart, run 20 times, miss once each (1500 misses).  1024
      entries indexed by the low bits of site ^ site >> 10 missed 26,447
      times. */
   start("site cache", 1);
   for (int pass = 0; pass < 20; pass++)
      for (int i = 0; i < 1500; i++) {
         ev++;
         ag_ev_access(E, 0, X + 8 * (i % 64), 8, AG_WRITE, 0x400000 + 6 * i);
      }
   NONE();
   if (ag_engine_cache_misses(E) > 3000)
      fail("%ld site-cache misses for 1500 sites%.0ld", (long)ag_engine_cache_misses(E), 0);
   done();

   /* A set larger than the slabs' largest (64 entries) comes from the heap
      and is freed with the engine (ASan checks for leaks); a write that
      races with all 100 readers names the lowest. */
   start("large read set", 1);
   for (int t = 1; t <= 100; t++) { ag_ev_thread_new(E, t); fork_(0, t); }
   uint64_t r_first = rd(1, X);
   for (int t = 2; t <= 100; t++) rd(t, X);
   join_(0, 100);
   w0 = wr(0, X);
   WANT(w0);
   expect_detail(w0, 0, AG_WRITE, 1, r_first, 0);
   /* one still held when the engine goes: its shadow must finalise the
      location rather than leave the set to the slabs' release */
   for (int t = 1; t <= 99; t++) rd(t, Y);
   done();

   /* std::atomic's release store and acquire load, plain movs known atomic
      by where their code comes from (AG_ATOMIC_LS): the data they publish
      does not race; through a plain flag it does. */
   start("atomic by provenance", 2);
   wr(0, X); acc(0, Y, 1, AG_WRITE | AG_ATOMIC_LS);
   acc(1, Y, 1, AG_ATOMIC_LS); rd(1, X);
   NONE();
   done();
   start("plain flag", 2);
   wr(0, X); acc(0, Y, 1, AG_WRITE);
   r1 = acc(1, Y, 1, 0); uint64_t r2 = rd(1, X);
   WANT(r1, r2);
   done();
   /* A plain initialisation, then another thread's first atomic access
      with no order between: an atomic instruction (AG_ATOMIC) makes the
      init atomic after the fact (it may have been an atomic store compiled
      to a mov); one known atomic by its code's origin (std::atomic's
      load, AG_ATOMIC_LS) does not: the init races with it. */
   start("init, then LOCK access", 2);
   wr(0, X); ard(1, X);
   NONE();
   done();
   start("init, then std::atomic load", 2);
   wr(0, X); r1 = acc(1, X, 8, AG_ATOMIC_LS);
   WANT(r1);
   done();
   /* `Global++` as one add to memory (AG_PLAIN_RMW: no atomic operation
      compiles to it), then another thread's first atomic RMW with no
      order between: the add stays plain and races with it (ThreadSanitizer's
      atomic_stack); on an atomic object it stays plain too, while a plain
      store of the object's size is a release store. */
   start("plain RMW, then LOCK access", 2);
   acc(0, X, 8, AG_PLAIN_RMW); acc(0, X, 8, AG_WRITE | AG_PLAIN_RMW);
   r1 = ard(1, X); a1 = awr(1, X);
   WANT(r1, a1);
   done();
   start("plain read of an RMW, then LOCK write", 2);
   acc(0, X, 8, AG_PLAIN_RMW); wr(1, Y);
   a1 = awr(1, X);
   WANT(a1);
   done();
   start("plain RMW on an atomic object", 2);
   ard(1, X); awr(1, X);
   r0 = acc(0, X, 8, AG_PLAIN_RMW); uint64_t w0b = acc(0, X, 8, AG_WRITE | AG_PLAIN_RMW);
   WANT(r0, w0b);
   done();
   start("plain store on an atomic object", 2);
   ard(1, X); awr(1, X);
   acc(0, X, 8, AG_WRITE);
   NONE();
   done();
   /* a free's write is no atomic store either (gcc's atomic_free2: the
      block deleted, then another thread's atomic RMW on it) */
   start("free, then LOCK access", 2);
   wr(0, X); ++ev; ag_ev_free(E, 0, X, 8, site());
   r1 = ard(1, X);
   WANT(r1);
   done();

   /* A reference count's updates (AG_COMMUTE) stay atomic RMWs here: the
      last one orders the other owners' accesses before the delete. */
   start("reference count", 2);
   rd(0, X); acc(0, Y, 4, AG_ATOMIC | AG_COMMUTE); acc(0, Y, 4, AG_WRITE | AG_ATOMIC | AG_COMMUTE);
   acc(1, Y, 4, AG_ATOMIC | AG_COMMUTE); acc(1, Y, 4, AG_WRITE | AG_ATOMIC | AG_COMMUTE);
   wr(1, X);
   NONE();
   done();

   if (failures) { printf("%d failure(s)\n", failures); return 1; }
   printf("test_fasttrack: all passed\n");
   return 0;
}
