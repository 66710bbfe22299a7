/* test_aerodrome.c -- unit tests of the AeroDrome engine, driven through the
 * dispatcher (ag_ev_* calls, one event per call, so report indices are the
 * paper's event numbers):
 *   - the paper's Section 3 traces rho1..rho4 (Figures 5-7);
 *   - unary transactions, including one access that touches two locations;
 *   - fork/join, with the idle-child corner case;
 *   - rwlock readers vs a writer; lock chains; locked check-then-act;
 *   - byte precision, and a cell split while a transaction is open;
 *   - the end-push/update-set and GC cases the appendix listing gets wrong;
 *   - going on after a violation; 300 threads over time; ag_ev_forget;
 *   - random traces: reports do not depend on thread or address naming.
 *
 * Build: cc -std=gnu99 -I atomgrind/engine -I tests/engine
 *   atomgrind/engine/ag_*.c (not ag_shim_host.c) tests/engine/ag_test_shim.c
 *   tests/engine/ag_ref.c tests/engine/test_aerodrome.c
 * Usage: test_aerodrome [ntraces]
 */
#include "ag_engine_impl.h"
#include "ag_check.h"
#include "ag_ref.h"
#include <string.h>
#include <time.h>

extern size_t ag_test_live_bytes, ag_test_peak_bytes;

enum { X = 0, Y = 8, Z = 16, W = 24, S = 32, Q = 40 };

#define ENGINE "aerodrome"
static ag_engine *new_engine(reports *r, int nthreads) { return new_engine_named(ENGINE, r, nthreads); }
static void run(const ev *tr, int n, int nthreads, reports *r) { run_named(ENGINE, tr, n, nthreads, r); }
static void expect(const char *name, const ev *tr, int n, int nthreads,
                   const uint64_t *want, int nwant)
{
   expect_named(ENGINE, name, tr, n, nthreads, want, nwant);
}

/* The first report is at `at`; up to `most` reports in all. */
static void first_at(const char *name, const ev *tr, int n, int nthreads, uint64_t at, int most)
{
   reports r;
   run(tr, n, nthreads, &r);
   CHECK(r.n >= 1 && r.n <= most && r.v[0].event == at, "%s: %d reports, first at %llu, want %llu",
         name, r.n, r.n ? (unsigned long long)r.v[0].event : 0ULL, (unsigned long long)at);
}

#define ONE(name, tr, nt, at) do { static const uint64_t w_[] = { at }; \
   expect(name, tr, N(tr), nt, w_, 1); } while (0)
#define NONE(name, tr, nt) expect(name, tr, N(tr), nt, NULL, 0)

/* ---- the paper's examples ----------------------------------------- */

static void test_paper(void)
{
   /* rho1 (Fig. 1): serializable, T3 T1 T2 */
   static const ev rho1[] = {
      {'b',0}, {'w',0,X}, {'b',1}, {'r',1,X}, {'e',1},
      {'b',2}, {'w',2,Z}, {'e',2}, {'r',0,Z}, {'e',0} };
   NONE("rho1", rho1, 3);

   /* rho2 (Fig. 5): C>_t1 <= W_y at the read of y, event 6 */
   static const ev rho2[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1} };
   ONE("rho2", rho2, 2, 6);
   reports r;
   run(rho2, N(rho2), 2, &r);
   if (r.n) {
      const ag_violation *v = &r.v[0];
      CHECK(v->tid == 0 && v->other_tid == 1 && !v->at_end, "rho2: tid %u other %u at_end %d",
            v->tid, v->other_tid, v->at_end);
      CHECK(v->other_event == 5 && v->other_site == 104 && (v->other_flags & AG_WRITE),
            "rho2: other event %llu site %llu", (unsigned long long)v->other_event,
            (unsigned long long)v->other_site);
      CHECK(v->begin_event == 1 && v->other_begin_event == 2 && v->other_begin_site == 101,
            "rho2: begins %llu/%llu", (unsigned long long)v->begin_event,
            (unsigned long long)v->other_begin_event);
      CHECK(v->addr == BASE + Y && v->size == 1 && !(v->flags & AG_WRITE) && v->site == 105,
            "rho2: access fields");
   }

   /* rho3 (Fig. 6): no CHB path back into T1; found at T1's end, event 7 */
   static const ev rho3[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'w',1,Y}, {'r',0,Y}, {'r',1,X}, {'e',0}, {'e',1} };
   ONE("rho3", rho3, 2, 7);
   run(rho3, N(rho3), 2, &r);
   if (r.n) {
      const ag_violation *v = &r.v[0];
      CHECK(v->tid == 0 && v->other_tid == 1 && v->at_end, "rho3: tid %u other %u at_end %d",
            v->tid, v->other_tid, v->at_end);
      CHECK(v->begin_event == 1 && v->other_begin_event == 2, "rho3: begins %llu/%llu",
            (unsigned long long)v->begin_event, (unsigned long long)v->other_begin_event);
      /* the two ways into the cycle: T2's read of x (event 6) after T1's
         write, T1's read of y (event 5) after T2's write */
      CHECK(v->other_event == 6 && v->other_site == 105 && v->other_addr == BASE + X
            && v->other_size == 1 && !(v->other_flags & AG_WRITE),
            "rho3: other way in at %llu, site %llu, addr %#llx size %u", (unsigned long long)v->other_event,
            (unsigned long long)v->other_site, (unsigned long long)v->other_addr, v->other_size);
      CHECK(v->own_event == 5 && v->own_site == 104 && v->own_addr == BASE + Y
            && v->own_size == 1 && !(v->own_flags & AG_WRITE),
            "rho3: own way in at %llu, site %llu, addr %#llx size %u", (unsigned long long)v->own_event,
            (unsigned long long)v->own_site, (unsigned long long)v->own_addr, v->own_size);
   }

   /* rho3 with T1 ordered after T2 by a lock T2 released before it read x:
      T1's way in is its acquire (a lock: size 0) */
   static const ev rho3l[] = {
      {'b',1}, {'a',1,0}, {'l',1,0}, {'b',0}, {'w',0,X}, {'r',1,X}, {'a',0,0}, {'l',0,0},
      {'e',0}, {'e',1} };
   ONE("rho3 lock", rho3l, 2, 9);
   run(rho3l, N(rho3l), 2, &r);
   if (r.n) {
      const ag_violation *v = &r.v[0];
      CHECK(v->at_end && v->other_event == 6 && v->other_addr == BASE + X && v->other_size == 1,
            "rho3 lock: other way in at %llu", (unsigned long long)v->other_event);
      CHECK(v->own_event == 7 && v->own_site == 106 && v->own_addr == LOCK && v->own_size == 0,
            "rho3 lock: own way in at %llu, addr %#llx size %u", (unsigned long long)v->own_event,
            (unsigned long long)v->own_addr, v->own_size);
   }

   /* rho4 (Fig. 7): T1 -> T2 -> T3 -> T1 through completed T2, T3; event 11 */
   static const ev rho4[] = {
      {'b',0}, {'w',0,X}, {'b',1}, {'w',1,Y}, {'r',1,X}, {'e',1},
      {'b',2}, {'r',2,Y}, {'w',2,Z}, {'e',2}, {'r',0,Z}, {'e',0} };
   ONE("rho4", rho4, 3, 11);
   run(rho4, N(rho4), 3, &r);
   if (r.n)   /* T3 has completed: no other region to name */
      CHECK(r.v[0].tid == 0 && r.v[0].other_tid == 2 && r.v[0].other_begin_event == 0,
            "rho4: tid %u other %u other_begin %llu", r.v[0].tid, r.v[0].other_tid,
            (unsigned long long)r.v[0].other_begin_event);
}

/* ---- unary transactions ------------------------------------------ */

static void test_unary(void)
{
   /* a unary event on a cycle: T0 -> r1(x) -> w1(y) -> T0 */
   static const ev on_cycle[] = {
      {'b',0}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0} };
   ONE("unary on a cycle", on_cycle, 2, 5);

   /* only unary transactions: never a cycle */
   static const ev all_unary[] = {
      {'w',0,X}, {'r',1,X}, {'w',1,X}, {'w',0,Y}, {'r',1,Y}, {'w',0,X}, {'r',1,X} };
   NONE("all unary", all_unary, 2);

   /* a unary access is not checked even though T0's edge reaches it */
   static const ev unary_not_checked[] = {
      {'b',0}, {'w',0,X}, {'r',1,X}, {'w',1,X}, {'e',0}, {'r',1,X} };
   NONE("unary target", unary_not_checked, 2);

   /* One 2-byte access is ONE unary transaction: the edge in arrives at its
      second byte and the edge out leaves from its first (and vice versa). */
   static const ev two_bytes_a[] = {
      {'b',0}, {'w',0,X+1}, {'w',1,X,2}, {'r',0,X}, {'e',0} };
   ONE("two-byte unary (in at byte 1)", two_bytes_a, 2, 4);
   static const ev two_bytes_b[] = {
      {'b',0}, {'w',0,X}, {'w',1,X,2}, {'r',0,X+1}, {'e',0} };
   ONE("two-byte unary (in at byte 0)", two_bytes_b, 2, 4);
   /* as two 1-byte accesses they are two transactions: no cycle */
   static const ev two_events[] = {
      {'b',0}, {'w',0,X+1}, {'w',1,X}, {'w',1,X+1}, {'r',0,X}, {'e',0} };
   NONE("two one-byte unary", two_events, 2);
   /* ... that holds for a whole word too (one 8-byte location) */
   static const ev word[] = {
      {'b',0}, {'w',0,X,8}, {'w',1,X,8}, {'r',0,X,8}, {'e',0} };
   ONE("word unary", word, 2, 4);
}

/* ---- reference counts (AG_COMMUTE) -------------------------------- */

static void test_commute(void)
{
   /* T0 copies and drops a shared pointer while T1 copies it: the count's
      updates commute, so no cycle (as atomic RMWs of another kind: one) */
   static const ev counts[] = {
      {'b',0}, {'c',0,X,4}, {'c',1,X,4}, {'c',0,X,4}, {'e',0} };
   NONE("reference counts", counts, 2);
   static const ev rmws[] = {
      {'b',0}, {'C',0,X,4}, {'C',1,X,4}, {'C',0,X,4}, {'e',0} };
   ONE("other RMWs", rmws, 2, 4);
   /* a plain write of the count still conflicts with its updates */
   static const ev reset[] = {
      {'b',0}, {'c',0,X,4}, {'w',1,X,4}, {'c',0,X,4}, {'e',0} };
   ONE("count written", reset, 2, 4);
   /* a snapshot bug beside the counts: two reads of Y with T1's write
      between them */
   static const ev snapshot[] = {
      {'b',0}, {'c',0,X,4}, {'r',0,Y}, {'w',1,Y}, {'c',1,X,4}, {'r',0,Y}, {'c',0,X,4}, {'e',0} };
   ONE("snapshot beside counts", snapshot, 2, 6);
}

/* ---- fork / join -------------------------------------------------- */

static void test_fork_join(void)
{
   /* ATOMSANITIZER.md §10: fork and join in one txn, child idle: no cycle */
   static const ev idle[] = { {'b',0}, {'f',0,1}, {'j',0,1}, {'e',0} };
   NONE("fork-join idle child", idle, 1);
   static const ev idle2[] = { {'b',0}, {'w',0,X}, {'f',0,1}, {'r',0,X}, {'j',0,1}, {'w',0,X}, {'e',0} };
   NONE("fork-join idle child, accesses around", idle2, 1);
   /* a child that ran one event: T0 -> child -> T0 */
   static const ev busy[] = { {'b',0}, {'f',0,1}, {'w',1,X}, {'j',0,1}, {'e',0} };
   ONE("fork-join busy child", busy, 1, 4);
   /* fork and join outside regions */
   static const ev outside[] = { {'w',0,X}, {'f',0,1}, {'w',1,X}, {'b',1}, {'r',1,X}, {'e',1},
                                 {'j',0,1}, {'r',0,X} };
   NONE("fork-join outside", outside, 1);
   /* the fork edge reaches the child's transaction */
   static const ev fork_edge[] = { {'b',0}, {'f',0,1}, {'b',1}, {'w',1,Y}, {'r',0,Y}, {'e',1}, {'e',0} };
   ONE("fork edge", fork_edge, 1, 5);
   /* the join edge leaves the child's last transaction */
   static const ev join_edge[] = { {'f',0,1}, {'b',1}, {'w',1,Y}, {'b',0}, {'w',0,X}, {'r',1,X},
                                   {'e',1}, {'j',0,1}, {'e',0} };
   ONE("join edge", join_edge, 1, 8);
}

/* ---- locks -------------------------------------------------------- */

#define RA(t, l) {'a',t,l,0,1}
#define RL(t, l) {'l',t,l,0,1}

static void test_locks(void)
{
   /* check-then-act, each access under the lock: race-free and not atomic */
   static const ev cta[] = {
      {'b',0}, {'a',0,0}, {'r',0,X}, {'l',0,0},
      {'a',1,0}, {'w',1,X}, {'l',1,0},
      {'a',0,0}, {'w',0,X}, {'l',0,0}, {'e',0} };
   /* the acquire closes the cycle; the write closes it again (t1's write),
      which the dispatcher may fold into the first report */
   first_at("locked check-then-act", cta, N(cta), 2, 8, 2);
   /* holding the lock across check and act */
   static const ev held[] = {
      {'b',0}, {'a',0,0}, {'r',0,X}, {'w',0,X}, {'l',0,0}, {'e',0},
      {'a',1,0}, {'w',1,X}, {'l',1,0},
      {'b',0}, {'a',0,0}, {'r',0,X}, {'w',0,X}, {'l',0,0}, {'e',0} };
   NONE("lock held across", held, 2);
   /* release -> acquire chains through two locks and three threads */
   static const ev chain[] = {
      {'b',0}, {'a',0,0}, {'w',0,X}, {'l',0,0},
      {'a',1,0}, {'l',1,0}, {'a',1,1}, {'l',1,1},
      {'a',2,1}, {'w',2,Y}, {'l',2,1},
      {'r',0,Y}, {'e',0} };
   ONE("lock chain", chain, 3, 12);
   /* same chain, but thread 1 takes the second lock first: no path */
   static const ev nochain[] = {
      {'b',0}, {'a',1,1}, {'l',1,1}, {'a',0,0}, {'w',0,X}, {'l',0,0},
      {'a',1,0}, {'l',1,0},
      {'a',2,1}, {'w',2,Y}, {'l',2,1},
      {'r',0,Y}, {'e',0} };
   NONE("no lock chain", nochain, 3);
   /* re-acquiring one's own lock is no edge */
   static const ev own[] = { {'b',0}, {'a',0,0}, {'l',0,0}, {'a',0,0}, {'l',0,0}, {'e',0} };
   NONE("own lock", own, 1);
}

static void test_rwlock(void)
{
   /* readers do not order each other */
   static const ev readers[] = {
      {'b',0}, RA(0,0), {'r',0,X}, RL(0,0),
      {'b',1}, RA(1,0), {'r',1,X}, RL(1,0),
      RA(0,0), {'r',0,X}, RL(0,0), {'e',0}, {'e',1} };
   NONE("rwlock readers", readers, 2);
   /* the same as a mutex: T0 -> T1 -> T0 */
   static const ev mutex[] = {
      {'b',0}, {'a',0,0}, {'r',0,X}, {'l',0,0},
      {'b',1}, {'a',1,0}, {'r',1,X}, {'l',1,0},
      {'a',0,0}, {'r',0,X}, {'l',0,0}, {'e',0}, {'e',1} };
   ONE("mutex readers", mutex, 2, 9);
   /* a writer between two read sections of T0 */
   static const ev writer[] = {
      {'b',0}, RA(0,0), RL(0,0),
      {'b',1}, {'a',1,0}, {'l',1,0}, {'e',1},
      RA(0,0), RL(0,0), {'e',0} };
   ONE("rwlock writer between reads", writer, 2, 8);
   /* a write-acquire comes after every read release since the last write */
   static const ev after_readers[] = {
      {'b',0}, RA(0,0), RL(0,0),
      RA(1,0), RL(1,0),
      {'b',2}, {'a',2,0}, {'w',2,X}, {'l',2,0}, {'e',2},
      {'r',0,X}, {'e',0} };
   ONE("write-acquire after readers", after_readers, 3, 11);
   /* a read-acquire after a read release: no edge */
   static const ev rd_after_rd[] = {
      {'b',0}, RA(0,0), RL(0,0),
      {'b',1}, RA(1,0), {'w',1,X}, RL(1,0), {'e',1},
      {'w',0,Y}, {'e',0},
      {'r',0,X} };
   NONE("read-acquire after read release", rd_after_rd, 2);
   /* a read-acquire after the last write release */
   static const ev rd_after_wr[] = {
      {'b',0}, {'w',0,X},
      {'b',1}, {'r',1,X}, {'a',1,0}, {'l',1,0}, {'e',1},
      RA(0,0), RL(0,0), {'e',0} };
   ONE("read-acquire after write release", rd_after_wr, 2, 8);
}

/* ---- byte precision ----------------------------------------------- */

static void test_bytes(void)
{
   /* adjacent bytes written by different threads: no conflict */
   static const ev adjacent[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'w',1,X+1}, {'w',0,X}, {'w',1,X+1}, {'e',0}, {'e',1} };
   NONE("adjacent bytes", adjacent, 2);
   static const ev fields[] = {
      {'b',0}, {'b',1}, {'w',0,X,4}, {'w',1,X+4,4}, {'r',0,X,4}, {'w',0,X,4},
      {'r',1,X+4,4}, {'e',0}, {'e',1} };
   NONE("adjacent int fields", fields, 2);
   /* an 8-byte access vs a 1-byte access inside it */
   static const ev overlap[] = {
      {'b',0}, {'w',0,X,8}, {'b',1}, {'w',1,X+3}, {'r',0,X,8}, {'e',0}, {'e',1} };
   ONE("8-byte vs 1-byte", overlap, 2, 5);
   static const ev overlap2[] = {
      {'b',0}, {'w',0,X+3}, {'b',1}, {'r',1,X,8}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1} };
   ONE("1-byte vs 8-byte", overlap2, 2, 6);

   /* The word T0 wrote whole is split into byte cells while T0 is open;
      T0's end must still reach the copies.  A -> T0 -> T3 -> A. */
   static const ev split[] = {
      {'b',2}, {'w',2,S},
      {'b',0}, {'w',0,X,8}, {'r',1,X+3}, {'r',0,S}, {'e',0},
      {'b',3}, {'r',3,X+5}, {'w',3,Q}, {'e',3},
      {'r',2,Q}, {'e',2} };
   ONE("split while open", split, 4, 12);
   /* ... and the byte that was read (and so changed) */
   static const ev split3[] = {
      {'b',2}, {'w',2,S},
      {'b',0}, {'w',0,X,8}, {'r',1,X+3}, {'r',0,S}, {'e',0},
      {'b',3}, {'r',3,X+3}, {'w',3,Q}, {'e',3},
      {'r',2,Q}, {'e',2} };
   ONE("split while open, read byte", split3, 4, 12);
   /* a read makes byte 3 a copy of the word's state, whose reader (thread
      1) knows the open A; A's end must reach the copy.  B -> A -> r1 ->
      w4 -> B. */
   static const ev unshare[] = {
      {'b',0}, {'w',0,W},
      {'b',2}, {'w',2,S}, {'r',1,S}, {'r',1,X,8}, {'r',3,X+3}, {'r',2,W}, {'e',2},
      {'w',4,X+3}, {'w',4,Q}, {'r',0,Q}, {'e',0} };
   ONE("unshared copy in update sets", unshare, 5, 12);
   /* bytes of a split word share their state until they differ */
   static const ev share[] = {
      {'b',0}, {'w',0,X,8}, {'b',1}, {'w',1,X+2,2}, {'r',1,X+6}, {'e',1},
      {'r',0,X+4,4}, {'e',0} };
   NONE("split bytes diverge", share, 2);
   static const ev share2[] = {
      {'b',0}, {'w',0,X,8}, {'b',1}, {'r',1,X+2,2}, {'w',1,X+6}, {'w',1,Y}, {'e',1},
      {'r',0,Y}, {'e',0} };
   ONE("split bytes diverge 2", share2, 2, 8);
}

/* ---- end pushes and garbage collection ------------------------------- */

static void test_pushes(void)
{
   /* V's end makes W_x know T's begin; T's end must then reach W_x
      (Algorithm 3's update sets miss it).  S -> T -> V -> Q -> S. */
   static const ev upd[] = {
      {'b',0}, {'w',0,S},
      {'b',2}, {'w',2,X},
      {'b',1}, {'w',1,Y}, {'r',2,Y}, {'e',2},
      {'r',1,S}, {'e',1},
      {'b',3}, {'r',3,X}, {'w',3,Q}, {'e',3},
      {'r',0,Q}, {'e',0} };
   ONE("end-push into a location", upd, 4, 15);
   /* the same through a lock released by V */
   static const ev updl[] = {
      {'b',0}, {'w',0,S},
      {'b',2}, {'a',2,0}, {'l',2,0},
      {'b',1}, {'w',1,Y}, {'r',2,Y}, {'e',2},
      {'r',1,S}, {'e',1},
      {'b',3}, {'a',3,0}, {'l',3,0}, {'w',3,Q}, {'e',3},
      {'r',0,Q}, {'e',0} };
   ONE("end-push into a lock", updl, 4, 17);
   /* T learns nothing during its transaction but its thread's earlier
      transaction T' knew the open X: X -> T' -> T -> R -> X.  The
      appendix's GC test would drop T. */
   static const ev gc[] = {
      {'b',0}, {'w',0,Z},
      {'b',1}, {'r',1,Z}, {'e',1},
      {'b',1}, {'w',1,X}, {'e',1},
      {'b',2}, {'r',2,X}, {'w',2,Y}, {'e',2},
      {'r',0,Y}, {'e',0} };
   ONE("GC keeps a txn with an open ancestor", gc, 3, 13);
   /* a transaction knowing nothing open is collected; later ones still work */
   static const ev gc_ok[] = {
      {'b',1}, {'w',1,X}, {'e',1},
      {'b',0}, {'r',0,X}, {'w',0,Y},
      {'b',1}, {'r',1,Y}, {'w',1,Z}, {'e',1},
      {'r',0,Z}, {'e',0} };
   ONE("after GC", gc_ok, 2, 11);
}

/* ---- going on after a violation ------------------------------------ */

static void test_continue(void)
{
   /* rho2, then an independent rho2 on other threads and locations */
   static const ev twice[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1},
      {'b',2}, {'b',3}, {'w',2,Z}, {'r',3,Z}, {'w',3,W}, {'r',2,W}, {'e',2}, {'e',3} };
   static const uint64_t w2[] = { 6, 14 };
   expect("two independent violations", twice, N(twice), 4, w2, 2);
   /* the same threads and locations again, after the first one */
   static const ev again[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1},
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1} };
   static const uint64_t wa[] = { 6, 14 };
   expect("the same violation twice", again, N(again), 2, wa, 2);
   /* the closing edge was not applied: T1's end does not report it again */
   static const ev rho2[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',1}, {'e',0} };
   ONE("not applied", rho2, 2, 6);

   /* A loop with a violation in every iteration: reports stay one per
      iteration, state stays flat. */
   reports r;
   ag_engine *e = new_engine(&r, 2);
   size_t base = ag_test_live_bytes, at100 = 0;
   uint64_t site = 1;
   int iters = 20000;
   for (int i = 0; i < iters; i++) {
      ev loop[] = { {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1},
                    {'a',0,0}, {'w',0,Z}, {'l',0,0}, {'a',1,0}, {'r',1,Z}, {'l',1,0} };
      for (int j = 0; j < N(loop); j++) feed(e, &loop[j], site++);
      if (i == 100) at100 = ag_test_live_bytes - base;
   }
   size_t end = ag_test_live_bytes - base;
   CHECK(r.n == iters, "loop: %d reports for %d violating iterations", r.n, iters);
   CHECK(end <= at100 + 4096, "loop: state grew from %zu to %zu bytes", at100, end);
   ag_engine_delete(e);
}

/* ---- many threads ---------------------------------------------------- */

static void test_many_threads(void)
{
   /* 300 threads forked and joined over time, at most 8 alive, each a
      locked read-modify-write of a counter in a region; main reads the
      counter between joins.  Serializable.  Then one violation. */
   reports r;
   ag_engine *e = new_engine(&r, 1);
   uint64_t site = 1;
   int nt = 300, next = 1, joined = 1;
   size_t peak0 = ag_test_peak_bytes;
   clock_t c0 = clock();
   while (joined <= nt) {
      while (next <= nt && next - joined < 8) {
         ag_ev_fork(e, 0, next, site++);
         next++;
      }
      for (int t = joined; t < next; t++) {
         ag_ev_begin(e, t, site++);
         ag_ev_acquire(e, t, LOCK, 0, site++);
         ag_ev_access(e, t, BASE + X, 4, 0, site++);
         ag_ev_access(e, t, BASE + X, 4, AG_WRITE, site++);
         ag_ev_access(e, t, BASE + 64 + 8 * t, 8, AG_WRITE, site++);   /* private */
         ag_ev_release(e, t, LOCK, 0, site++);
         ag_ev_end(e, t, site++);
      }
      ag_ev_join(e, 0, joined, site++);
      ag_ev_acquire(e, 0, LOCK, 0, site++);
      ag_ev_access(e, 0, BASE + X, 4, 0, site++);
      ag_ev_release(e, 0, LOCK, 0, site++);
      joined++;
   }
   /* all joined: main reads every thread's private word */
   for (int t = 1; t <= nt; t++) ag_ev_access(e, 0, BASE + 64 + 8 * t, 8, 0, site++);
   CHECK(r.n == 0, "300 threads: %d reports, want 0 (first at %llu)", r.n,
         r.n ? (unsigned long long)r.v[0].event : 0ULL);
   /* the last thread id and main: rho2 */
   int a = nt + 1, b = nt + 2;
   ag_ev_fork(e, 0, a, site++);
   ag_ev_fork(e, 0, b, site++);
   ag_ev_begin(e, a, site++);
   ag_ev_begin(e, b, site++);
   ag_ev_access(e, a, BASE + Y, 1, AG_WRITE, site++);
   ag_ev_access(e, b, BASE + Y, 1, 0, site++);
   ag_ev_access(e, b, BASE + Z, 1, AG_WRITE, site++);
   uint64_t want = ag_engine_events(e) + 1;
   ag_ev_access(e, a, BASE + Z, 1, 0, site++);
   CHECK(r.n == 1 && r.v[0].event == want && r.v[0].tid == (ag_tid)a && r.v[0].other_tid == (ag_tid)b,
         "302 threads: %d reports (first at %llu, want %llu)", r.n,
         r.n ? (unsigned long long)r.v[0].event : 0ULL, (unsigned long long)want);
   ag_engine_delete(e);
   printf("many threads: %d threads, %.3f s, peak %zu KiB\n", nt + 2,
          (double)(clock() - c0) / CLOCKS_PER_SEC, (ag_test_peak_bytes - peak0) / 1024);
}

/* ---- forget ---------------------------------------------------------- */

static void test_forget(void)
{
   /* T0 -> T1 through x and T1 -> T0 through y ... */
   static const ev kept[] = {
      {'b',0}, {'w',0,X}, {'b',1}, {'w',1,X}, {'w',1,Y}, {'e',1}, {'r',0,Y}, {'e',0} };
   ONE("x kept", kept, 2, 7);
   /* ... unless x was freed in between: the reused x starts fresh */
   static const ev freed[] = {
      {'b',0}, {'w',0,X}, {'F',0,X,8}, {'b',1}, {'w',1,X}, {'w',1,Y}, {'e',1}, {'r',0,Y}, {'e',0} };
   NONE("x forgotten", freed, 2);
   /* forgetting part of a word keeps the rest */
   static const ev part[] = {
      {'b',0}, {'w',0,X,8}, {'F',0,X,4}, {'b',1}, {'w',1,X+4}, {'w',1,Y}, {'e',1}, {'r',0,Y}, {'e',0} };
   ONE("half forgotten", part, 2, 7);
   /* a location forgotten while in an open transaction's update set */
   static const ev inset[] = {
      {'b',2}, {'w',2,S},
      {'b',0}, {'w',0,X}, {'r',0,S}, {'F',0,X,8}, {'w',1,X}, {'e',0},
      {'b',3}, {'r',3,X}, {'w',3,Q}, {'e',3}, {'r',2,Q}, {'e',2} };
   NONE("forgotten inside an update set", inset, 4);

   /* freed state is reused: writing and freeing the same amount again and
      again does not grow the engine */
   reports r;
   ag_engine *e = new_engine(&r, 2);
   size_t base = ag_test_live_bytes, first = 0;
   for (int round = 0; round < 8; round++) {
      ag_addr a = 0x100000;   /* (the dispatcher keeps shadow pages) */
      ag_ev_begin(e, round & 1, 1);
      for (int i = 0; i < 4096; i++) ag_ev_access(e, round & 1, a + 4 * i, 4, AG_WRITE, 2);
      ag_ev_end(e, round & 1, 3);
      ag_ev_forget(e, a, 4 * 4096);
      if (round == 1) first = ag_test_live_bytes - base;
   }
   size_t last = ag_test_live_bytes - base;
   CHECK(r.n == 0 && last <= first + 4096, "forget: %zu bytes after 2 rounds, %zu after 8", first, last);
   ag_engine_delete(e);
}

/* ---- random traces: naming does not matter ----------------------------- */

static int first_report(const ag_ref_reports *r) { return r->n ? (int)r->v[0].event : 0; }

static void test_random(int ntraces)
{
   static ag_ref_trace tr, tr2;
   static ag_ref_reports r1, r2;
   uint64_t st = 12345;
   int cyc = 0;
   for (int k = 0; k < ntraces; k++) {
      ag_ref_gen(&tr, &st, 40 + (int)(ag_ref_rand(&st) % 160), 2 + (int)(ag_ref_rand(&st) % 5));
      ag_ref_feed(&tr, "aerodrome", NULL, &r1);
      if (r1.n) cyc++;
      /* permute thread ids (initial ones among themselves, forked ones
         among themselves) and move the addresses by whole words */
      int perm[AG_REF_MAXT];
      for (int i = 0; i < tr.nthreads; i++) perm[i] = i;
      for (int i = tr.ninit - 1; i > 0; i--) {
         int j = (int)(ag_ref_rand(&st) % (uint64_t)(i + 1)), x = perm[i];
         perm[i] = perm[j]; perm[j] = x;
      }
      for (int i = tr.nthreads - 1; i > tr.ninit; i--) {
         int j = tr.ninit + (int)(ag_ref_rand(&st) % (uint64_t)(i - tr.ninit + 1)), x = perm[i];
         perm[i] = perm[j]; perm[j] = x;
      }
      uint64_t shift = 8 * (1 + ag_ref_rand(&st) % 1000);
      tr2 = tr;
      for (int i = 0; i < tr.n; i++) {
         ag_ref_ev *x = &tr2.ev[i];
         x->tid = (uint8_t)perm[x->tid];
         if (x->op == AG_REF_FORK || x->op == AG_REF_JOIN) x->arg = (uint64_t)perm[x->arg];
         if (x->op == AG_REF_RD || x->op == AG_REF_WR) x->arg += shift;
      }
      ag_ref_feed(&tr2, "aerodrome", NULL, &r2);
      int ok = r1.n == r2.n;
      for (int i = 0; ok && i < r1.n && i < AG_REF_MAXEV; i++)
         ok = r1.v[i].event == r2.v[i].event && perm[r1.v[i].tid] == (int)r2.v[i].tid;
      CHECK(ok, "random trace %d: %d reports (first %d) vs %d renamed (first %d)", k,
            r1.n, first_report(&r1), r2.n, first_report(&r2));
      if (!ok) { ag_ref_print(&tr, stderr); break; }
      /* and the same trace gives the same answer twice */
      ag_ref_feed(&tr, "aerodrome", NULL, &r2);
      CHECK(r2.n == r1.n && first_report(&r2) == first_report(&r1), "random trace %d: not deterministic", k);
   }
   printf("random: %d traces, %d with reports\n", ntraces, cyc);
}

int main(int argc, char **argv)
{
   int ntraces = argc > 1 ? atoi(argv[1]) : 2000;
   test_paper();
   test_unary();
   test_commute();
   test_fork_join();
   test_locks();
   test_rwlock();
   test_bytes();
   test_pushes();
   test_continue();
   test_many_threads();
   test_forget();
   test_random(ntraces);
   printf("%d checks, %d failed\n", checks, failures);
   return failures ? 1 : 0;
}
