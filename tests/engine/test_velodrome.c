/* test_velodrome.c -- unit tests of the Velodrome engine on constructed
 * traces: the AeroDrome paper's rho1-rho4, rwlock and fork/join cases,
 * unary transactions on a cycle, going on after a violation, a random
 * differential test against a brute-force transaction-graph checker, and
 * memory that stays flat on a long trace over a fixed set of locations.
 *
 * Build: cc -std=gnu99 -I atomgrind/engine atomgrind/engine/ag_engine.c
 *   atomgrind/engine/ag_shadow.c atomgrind/engine/ag_map.c
 *   atomgrind/engine/ag_velodrome.c (and the other engines ag_engine.c
 *   registers) tests/engine/ag_test_shim.c tests/engine/test_velodrome.c
 */
#include "ag_engine_impl.h"
#include "ag_check.h"
#include <string.h>

extern const ag_engine_ops ag_velodrome_ops;
extern size_t ag_test_live_bytes, ag_test_peak_bytes;

#define ENGINE "velodrome"
static void run(const ev *tr, int n, int nthreads, reports *r) { run_named(ENGINE, tr, n, nthreads, r); }
static void expect(const char *name, const ev *tr, int n, int nthreads,
                   const uint64_t *want, int nwant)
{
   expect_named(ENGINE, name, tr, n, nthreads, want, nwant);
}

enum { X = 0, Y = 8, Z = 16, W = 24 };

static void test_paper(void)
{
   /* rho1: serializable (T3 T1 T2) */
   static const ev rho1[] = {
      {'b',0}, {'w',0,X}, {'b',1}, {'r',1,X}, {'e',1},
      {'b',2}, {'w',2,Z}, {'e',2}, {'r',0,Z}, {'e',0} };
   expect("rho1", rho1, N(rho1), 3, NULL, 0);

   static const ev rho2[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1} };
   static const uint64_t w2[] = { 6 };
   expect("rho2", rho2, N(rho2), 2, w2, 1);
   reports r;
   run(rho2, N(rho2), 2, &r);
   if (r.n) {
      const ag_violation *v = &r.v[0];
      CHECK(v->tid == 0 && v->other_tid == 1, "rho2: threads %u/%u", v->tid, v->other_tid);
      CHECK(v->other_event == 5 && v->other_site == 104 && (v->other_flags & AG_WRITE),
            "rho2: other event %llu site %llu", (unsigned long long)v->other_event,
            (unsigned long long)v->other_site);
      CHECK(v->begin_event == 1 && v->other_begin_event == 2,
            "rho2: begins %llu/%llu", (unsigned long long)v->begin_event,
            (unsigned long long)v->other_begin_event);
      CHECK(v->addr == 0x1000 + Y && v->size == 1 && !(v->flags & AG_WRITE),
            "rho2: access fields");
      CHECK(v->kind == AG_KIND_ATOMICITY && strcmp(v->engine, "velodrome") == 0, "rho2: kind");
   }

   static const ev rho3[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'w',1,Y}, {'r',0,Y}, {'r',1,X}, {'e',0}, {'e',1} };
   static const uint64_t w3[] = { 6 };
   expect("rho3", rho3, N(rho3), 2, w3, 1);

   static const ev rho4[] = {
      {'b',0}, {'w',0,X}, {'b',1}, {'w',1,Y}, {'r',1,X}, {'e',1},
      {'b',2}, {'r',2,Y}, {'w',2,Z}, {'e',2}, {'r',0,Z}, {'e',0} };
   static const uint64_t w4[] = { 11 };
   expect("rho4", rho4, N(rho4), 3, w4, 1);
}

static void test_rwlock(void)
{
   /* two readers of l do not order each other */
   static const ev rr[] = {
      {'b',0}, {'a',0,0,0,1}, {'l',0,0,0,1},
      {'b',1}, {'a',1,0,0,1}, {'l',1,0,0,1}, {'w',1,X}, {'r',0,X} };
   expect("readers", rr, N(rr), 2, NULL, 0);
   /* a writer is ordered after an earlier reader */
   static const ev rw[] = {
      {'b',0}, {'a',0,0,0,1}, {'l',0,0,0,1},
      {'b',1}, {'a',1,0,0,0}, {'l',1,0,0,0}, {'w',1,X}, {'r',0,X} };
   static const uint64_t w1[] = { 8 };
   expect("reader-writer", rw, N(rw), 2, w1, 1);
   /* a reader is ordered after the last writer */
   static const ev wr[] = {
      {'b',0}, {'a',0,0,0,0}, {'l',0,0,0,0},
      {'b',1}, {'a',1,0,0,1}, {'w',1,X}, {'r',0,X} };
   static const uint64_t w2[] = { 7 };
   expect("writer-reader", wr, N(wr), 2, w2, 1);
   /* a writer follows every reader since the last write release, even
      when another reader released after the one on the cycle */
   static const ev rrw[] = {
      {'b',0}, {'a',0,0,0,1}, {'l',0,0,0,1},
      {'a',2,0,0,1}, {'l',2,0,0,1},
      {'b',1}, {'a',1,0,0,0}, {'w',1,X}, {'r',0,X} };
   static const uint64_t w3[] = { 9 };
   expect("readers-writer", rrw, N(rrw), 3, w3, 1);
   /* a reader is not ordered after readers that follow the writer */
   static const ev wrr[] = {
      {'a',2,0,0,0}, {'l',2,0,0,0},
      {'b',0}, {'a',0,0,0,1}, {'l',0,0,0,1},
      {'b',1}, {'a',1,0,0,1}, {'l',1,0,0,1}, {'w',1,X}, {'r',0,X} };
   expect("writer-readers", wrr, N(wrr), 3, NULL, 0);
   /* mutex: release -> acquire */
   static const ev mx[] = {
      {'b',0}, {'a',0,1}, {'l',0,1}, {'b',1}, {'a',1,1}, {'w',1,X}, {'l',1,1}, {'e',1},
      {'r',0,X}, {'e',0} };
   static const uint64_t w4[] = { 9 };
   expect("mutex", mx, N(mx), 2, w4, 1);
}

static void test_fork_join(void)
{
   /* fork and join in one transaction, the child idle: no cycle */
   static const ev idle[] = { {'b',0}, {'f',0,1}, {'j',0,1}, {'e',0} };
   expect("fork-join idle child", idle, N(idle), 1, NULL, 0);
   /* ... with a child event in between: a cycle at the join */
   static const ev busy[] = { {'b',0}, {'f',0,1}, {'r',1,Z}, {'j',0,1}, {'e',0} };
   static const uint64_t w1[] = { 4 };
   expect("fork-join busy child", busy, N(busy), 1, w1, 1);
   /* the fork edge reaches the child's first transaction */
   static const ev fk[] = {
      {'b',0}, {'f',0,1}, {'b',1}, {'w',1,X}, {'e',1}, {'r',0,X}, {'e',0} };
   static const uint64_t w2[] = { 6 };
   expect("fork edge", fk, N(fk), 1, w2, 1);
   /* the join edge from the child's last transaction */
   static const ev jn[] = {
      {'b',0}, {'w',0,X}, {'r',1,X}, {'j',0,1}, {'e',0} };
   static const uint64_t w3[] = { 4 };
   expect("join edge", jn, N(jn), 2, w3, 1);
   /* join outside a region: unary, nothing to report */
   static const ev ju[] = { {'w',0,X}, {'b',1}, {'r',1,X}, {'e',1}, {'j',0,1} };
   expect("unary join", ju, N(ju), 2, NULL, 0);
}

static void test_unary(void)
{
   /* a cycle through two unary transactions of another thread */
   static const ev u[] = { {'b',0}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0} };
   static const uint64_t w1[] = { 5 };
   expect("unary cycle", u, N(u), 2, w1, 1);
   /* the same without the thread order between them: no cycle */
   static const ev v[] = { {'b',0}, {'w',0,X}, {'r',1,X}, {'w',2,Y}, {'r',0,Y}, {'e',0} };
   expect("unary no cycle", v, N(v), 3, NULL, 0);
   /* multi-byte access: one unary transaction touching two locations,
      each written by another open region; both links count */
   static const ev m[] = {
      {'b',0}, {'b',2}, {'w',0,X}, {'w',2,X + 1}, {'r',1,X,2}, {'w',1,Y},
      {'r',0,Y}, {'r',2,Y} };
   static const uint64_t w2[] = { 7, 8 };
   expect("unary multi-byte", m, N(m), 3, w2, 2);
   /* adjacent bytes never conflict */
   static const ev a[] = { {'b',0}, {'b',1}, {'w',0,X}, {'w',1,X + 1}, {'r',0,X + 1, 1},
                           {'r',1,X}, {'e',0}, {'e',1} };
   static const uint64_t w3[] = { 6 };
   expect("bytes", a, N(a), 2, w3, 1);
   static const ev a2[] = { {'b',0}, {'b',1}, {'w',0,X}, {'w',1,X + 1}, {'r',0,X + 2},
                            {'r',1,X + 3}, {'e',0}, {'e',1} };
   expect("bytes apart", a2, N(a2), 2, NULL, 0);
}

static void test_continue(void)
{
   /* rho2 twice on fresh variables: two reports; the closing edge of the
      first is not inserted, so its transactions stay usable */
   static const ev t2[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y}, {'e',0}, {'e',1},
      {'b',0}, {'b',1}, {'w',0,Z}, {'r',1,Z}, {'w',1,W}, {'r',0,W}, {'e',0}, {'e',1} };
   static const uint64_t w[] = { 6, 14 };
   expect("twice", t2, N(t2), 2, w, 2);
   /* after the report, T1's region goes on and another cycle with a third
      thread is found */
   static const ev t3[] = {
      {'b',0}, {'b',1}, {'w',0,X}, {'r',1,X}, {'w',1,Y}, {'r',0,Y},
      {'w',0,Z}, {'b',2}, {'r',2,Z}, {'w',2,W}, {'e',2}, {'r',0,W}, {'e',0}, {'e',1} };
   static const uint64_t w3[] = { 6, 12 };
   expect("again", t3, N(t3), 3, w3, 2);
}

/* ---- brute-force reference --------------------------------------- */

#define MAXE 48
#define NV 6

static int conflicts(const ev *a, int ia, const ev *b, int ib)
{
   (void)ia; (void)ib;
   if (a->t == b->t) return 1;
   if ((a->op == 'r' || a->op == 'w') && (b->op == 'r' || b->op == 'w')) {
      if (a->op == 'r' && b->op == 'r') return 0;
      int sa = a->size ? a->size : 1, sb = b->size ? b->size : 1;
      return a->arg < b->arg + sb && b->arg < a->arg + sa;
   }
   if (a->op == 'l' && b->op == 'a' && a->arg == b->arg)
      return !b->shared || !a->shared;   /* a reader only follows writers */
   if (a->op == 'f' && a->arg == b->t) return 1;
   if (b->op == 'j' && b->arg == a->t) return 1;
   return 0;
}

/* First event (1-based) at which the transaction graph is cyclic, or 0. */
static int reference(const ev *tr, int n)
{
   int txn[MAXE], depth[8] = { 0 }, cur[8], ntx = 0;
   static unsigned char adj[MAXE][MAXE];
   memset(adj, 0, sizeof adj);
   for (int i = 0; i < n; i++) {
      int t = tr[i].t;
      if (tr[i].op == 'b' && depth[t]++ == 0) cur[t] = ntx++;
      if (depth[t]) txn[i] = cur[t];
      else txn[i] = ntx++;
      if (tr[i].op == 'e') depth[t]--;
      for (int j = 0; j < i; j++)
         if (txn[j] != txn[i] && conflicts(&tr[j], j, &tr[i], i)) adj[txn[j]][txn[i]] = 1;
      /* cyclic iff txn[i] reaches itself */
      int seen[MAXE] = { 0 }, stack[MAXE], sp = 0;
      stack[sp++] = txn[i];
      while (sp) {
         int x = stack[--sp];
         for (int y = 0; y < ntx; y++)
            if (adj[x][y]) {
               if (y == txn[i]) return i + 1;
               if (!seen[y]) { seen[y] = 1; stack[sp++] = y; }
            }
      }
   }
   return 0;
}

static unsigned rng_state;
static unsigned rnd(unsigned n)
{
   rng_state = rng_state * 1103515245u + 12345u;
   return (rng_state >> 8) % n;
}

/* A well-formed random trace: locks respected, regions nested, threads
   forked before they run and joined after their last event. */
static int gen(ev *tr, int *nthreads, int *forkmode)
{
   int k = 2 + rnd(3), n = 8 + rnd(MAXE - 8);
   int fm = rnd(2);
   int runnable[8], depth[8] = { 0 }, joined[8] = { 0 };
   int writer[2] = { -1, -1 }, readers[2][8];
   int held[8][2];                       /* 0 no, 1 write, 2 read */
   memset(readers, 0, sizeof readers);
   memset(held, 0, sizeof held);
   for (int t = 0; t < k; t++) runnable[t] = !fm || t == 0;
   int len = 0;
   for (int tries = 0; len < n && tries < 1000; tries++) {
      int t = rnd(k);
      if (!runnable[t] || joined[t]) continue;
      ev x = { 0, t, 0, 0, 0 };
      switch (rnd(10)) {
      case 0:
         if (depth[t] >= 2) continue;
         x.op = 'b'; depth[t]++;
         break;
      case 1:
         if (!depth[t]) continue;
         x.op = 'e'; depth[t]--;
         break;
      case 2: case 3: case 4: case 5:
         x.op = rnd(2) ? 'r' : 'w';
         x.arg = rnd(NV);
         x.size = 1 + rnd(3);
         if (x.arg + x.size > NV) x.size = NV - x.arg;
         break;
      case 6: {
         int l = rnd(2), sh = rnd(2);
         if (held[t][l] || writer[l] >= 0) continue;
         if (!sh) {
            int any = 0;
            for (int u = 0; u < k; u++) any |= readers[l][u];
            if (any) continue;
            writer[l] = t; held[t][l] = 1;
         } else {
            readers[l][t] = 1; held[t][l] = 2;
         }
         x.op = 'a'; x.arg = l; x.shared = sh;
         break;
      }
      case 7: {
         int l = rnd(2);
         if (!held[t][l]) continue;
         x.op = 'l'; x.arg = l; x.shared = held[t][l] == 2;
         if (held[t][l] == 1) writer[l] = -1; else readers[l][t] = 0;
         held[t][l] = 0;
         break;
      }
      case 8: {
         if (!fm) continue;
         int u = rnd(k);
         if (runnable[u]) continue;
         x.op = 'f'; x.arg = u; runnable[u] = 1;
         break;
      }
      case 9: {
         int u = rnd(k);
         if (u == t || !runnable[u] || joined[u] || depth[u] || held[u][0] || held[u][1])
            continue;
         x.op = 'j'; x.arg = u; joined[u] = 1;
         break;
      }
      }
      tr[len++] = x;
   }
   *nthreads = k;
   *forkmode = fm;
   return len;
}

static void test_random(void)
{
   ev tr[MAXE];
   int mism = 0, cyclic = 0;
   rng_state = 12345;
   for (int it = 0; it < 30000; it++) {
      int k, fm, n = gen(tr, &k, &fm);
      int want = reference(tr, n);
      reports r;
      run(tr, n, fm ? 1 : k, &r);
      int got = r.n ? (int)r.v[0].event : 0;
      cyclic += want != 0;
      if (got != want && mism++ < 5) {
         fprintf(stderr, "FAIL random trace %d: velodrome %d, reference %d:\n", it, got, want);
         for (int i = 0; i < n; i++)
            fprintf(stderr, "  %2d T%d %c %d/%d%s\n", i + 1, tr[i].t, tr[i].op, tr[i].arg,
                    tr[i].size, tr[i].shared ? " shared" : "");
      }
   }
   CHECK(mism == 0, "random: %d mismatches", mism);
   CHECK(cyclic > 3000, "random: only %d cyclic traces", cyclic);
}

/* ---- memory ------------------------------------------------------ */

static void test_memory(void)
{
   reports r;
   memset(&r, 0, sizeof r);
   size_t base = ag_test_live_bytes;
   ag_engine *e = ag_engine_new(&ag_velodrome_ops, NULL, on_report, &r);
   int k = 4, depth[4] = { 0 };
   for (int t = 0; t < k; t++) ag_ev_thread_new(e, t);
   rng_state = 777;
   size_t peak_early = 0, peak_late = 0;
   const long n = 2000000;
   for (long i = 0; i < n; i++) {
      int t = rnd(k);
      unsigned c = rnd(16);
      if (c == 0 && depth[t] == 0) { ag_ev_begin(e, t, 1); depth[t] = 1; }
      else if (c == 1 && depth[t]) { ag_ev_end(e, t, 2); depth[t] = 0; }
      else if (c == 2) { ag_ev_acquire(e, t, 0x9000, rnd(2), 3); }
      else if (c == 3) { ag_ev_release(e, t, 0x9000, 0, 3); }
      else ag_ev_access(e, t, 0x1000 + 4 * rnd(16), 1 + rnd(4), rnd(3) ? 0 : AG_WRITE, 4);
      size_t live = ag_test_live_bytes - base;
      if (i >= n / 10 && i < n / 5 && live > peak_early) peak_early = live;
      if (i >= n - n / 10 && live > peak_late) peak_late = live;
   }
   ag_engine_delete(e);
   CHECK(ag_test_live_bytes == base, "memory: %zu bytes leaked", ag_test_live_bytes - base);
   CHECK(peak_late <= 2 * peak_early + 65536,
         "memory grows: peak %zu early, %zu late", peak_early, peak_late);
   CHECK(r.n > 0, "memory: no violations in the random stream");
   printf("velodrome memory: peak %zu bytes early, %zu late, %d reports\n",
          peak_early, peak_late, r.n);
}

int main(void)
{
   test_paper();
   test_rwlock();
   test_fork_join();
   test_unary();
   test_continue();
   test_random();
   test_memory();
   if (failures) {
      fprintf(stderr, "test_velodrome: %d failure(s)\n", failures);
      return 1;
   }
   printf("test_velodrome: all passed\n");
   return 0;
}
