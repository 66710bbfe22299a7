/* test_tracefmt.c -- the trace writers and the binary decoder:
 * random records survive write + decode (streamed in odd-sized reads and
 * from memory), every truncation is either a clean end or an error at the
 * cut, the STD writer's lines are exact, write errors stick, and every
 * registered atomicity engine reports at the same events whether fed
 * directly or through a written and decoded trace.
 *
 * Build: cc -std=gnu99 -I atomgrind/engine atomgrind/engine/ag_*.c
 *        tests/engine/test_tracefmt.c   (ag_shim_host.c included)
 */
#include "ag_engine_impl.h"
#include "ag_tracefmt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; \
   fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
   fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static unsigned long long rng = 88172645463325252ull;
static uint64_t rnd64(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static unsigned rnd(unsigned n) { return (unsigned)(rnd64() % n); }

/* growable memory sink */
typedef struct { unsigned char *p; size_t n, cap; int fail_after; } sink;
static int sink_write(void *cookie, const void *buf, size_t n)
{
   sink *s = cookie;
   if (s->fail_after >= 0 && s->fail_after-- == 0) return -1;
   if (s->n + n > s->cap) {
      s->cap = (s->n + n) * 2;
      s->p = realloc(s->p, s->cap);
   }
   memcpy(s->p + s->n, buf, n);
   s->n += n;
   return 0;
}

typedef struct { const unsigned char *p; size_t n, pos; int maxchunk; } source;
static long source_read(void *cookie, void *buf, size_t n)
{
   source *s = cookie;
   size_t k = s->n - s->pos;
   size_t chunk = 1 + rnd((unsigned)s->maxchunk);
   if (k > n) k = n;
   if (k > chunk) k = chunk;
   memcpy(buf, s->p + s->pos, k);
   s->pos += k;
   return (long)k;
}

/* ---- random records ---------------------------------------------- */

static char texts[8][64];

static ag_trec random_rec(void)
{
   ag_trec r;
   memset(&r, 0, sizeof r);
   r.kind = (ag_trec_kind)(1 + rnd(11));
   r.tid = rnd(4) ? rnd(8) : (ag_tid)(rnd64() % 0xfffffffeu);
   r.site = rnd(3) ? rnd(1000) : rnd64();
   switch (r.kind) {
   case AG_TK_ACCESS: {
      static const unsigned sizes[] = { 1, 2, 4, 8, 3, 16, 32, 64, 65536 };
      r.size = sizes[rnd(9)];
      r.flags = rnd(4);
      r.addr = rnd(3) ? 0x1000 + rnd(4096) : rnd64() >> 1;
      if (r.addr + r.size - 1 < r.addr) r.addr -= r.size;
      break;
   }
   case AG_TK_ACQUIRE: case AG_TK_RELEASE:
      r.addr = rnd(2) ? rnd(16) : rnd64();
      r.shared = rnd(2);
      break;
   case AG_TK_FORK: case AG_TK_JOIN:
      r.tid2 = rnd(16);
      break;
   case AG_TK_FORGET:
      r.addr = rnd64() >> 2;
      r.len = rnd(2) ? rnd(100) : rnd64() >> 3;
      r.site = 0;
      break;
   case AG_TK_SITE: {
      int k = rnd(8);
      r.len = strlen(texts[k]);
      r.text = texts[k];
      break;
   }
   default:
      break;
   }
   if (r.kind == AG_TK_THREAD || r.kind == AG_TK_EXIT || r.kind == AG_TK_FORGET) r.site = 0;
   return r;
}

static void write_rec(ag_twriter *w, const ag_trec *r)
{
   switch (r->kind) {
   case AG_TK_THREAD: ag_tw_thread(w, r->tid); break;
   case AG_TK_BEGIN: ag_tw_begin(w, r->tid, r->site); break;
   case AG_TK_END: ag_tw_end(w, r->tid, r->site); break;
   case AG_TK_ACCESS: ag_tw_access(w, r->tid, r->addr, r->size, r->flags, r->site); break;
   case AG_TK_ACQUIRE: ag_tw_acquire(w, r->tid, r->addr, r->shared, r->site); break;
   case AG_TK_RELEASE: ag_tw_release(w, r->tid, r->addr, r->shared, r->site); break;
   case AG_TK_FORK: ag_tw_fork(w, r->tid, r->tid2, r->site); break;
   case AG_TK_JOIN: ag_tw_join(w, r->tid, r->tid2, r->site); break;
   case AG_TK_EXIT: ag_tw_exit(w, r->tid); break;
   case AG_TK_FORGET: ag_tw_forget(w, r->addr, r->len); break;
   case AG_TK_SITE: ag_tw_site(w, r->site, r->text, r->len); break;
   }
}

static int same_rec(const ag_trec *a, const ag_trec *b)
{
   if (a->kind != b->kind) return 0;
   switch (a->kind) {
   case AG_TK_THREAD: case AG_TK_EXIT: return a->tid == b->tid;
   case AG_TK_BEGIN: case AG_TK_END: return a->tid == b->tid && a->site == b->site;
   case AG_TK_ACCESS:
      return a->tid == b->tid && a->addr == b->addr && a->size == b->size &&
             a->flags == b->flags && a->site == b->site;
   case AG_TK_ACQUIRE: case AG_TK_RELEASE:
      return a->tid == b->tid && a->addr == b->addr && a->shared == b->shared &&
             a->site == b->site;
   case AG_TK_FORK: case AG_TK_JOIN:
      return a->tid == b->tid && a->tid2 == b->tid2 && a->site == b->site;
   case AG_TK_FORGET: return a->addr == b->addr && a->len == b->len;
   case AG_TK_SITE:
      return a->site == b->site && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
   }
   return 0;
}

static void test_roundtrip(void)
{
   for (int k = 0; k < 8; k++) {
      int n = k * 7;
      for (int i = 0; i < n; i++) texts[k][i] = (char)('a' + (i * 5 + k) % 26);
      texts[k][n] = 0;
   }
   const int N = 60000;
   ag_trec *recs = malloc(N * sizeof *recs);
   static ag_twriter w;
   sink s = { NULL, 0, 0, -1 };
   ag_tw_init(&w, AG_TW_BIN, sink_write, &s);
   for (int i = 0; i < N; i++) {
      recs[i] = random_rec();
      write_rec(&w, &recs[i]);
   }
   CHECK(ag_tw_flush(&w) == 0, "flush failed");
   CHECK(w.records == (uint64_t)N, "writer counted %llu records", (unsigned long long)w.records);
   CHECK(s.n > 2 * AG_TW_BUFSZ, "trace too small to cross buffer flushes (%zu)", s.n);

   for (int mode = 0; mode < 3; mode++) {
      ag_treader r;
      source src = { s.p, s.n, 0, mode == 0 ? 7 : 100000 };
      int rc = mode == 2 ? ag_tr_init_mem(&r, s.p, s.n) : ag_tr_init(&r, source_read, &src);
      CHECK(rc == 0, "mode %d: init: %s", mode, r.err);
      ag_trec got;
      int i = 0, bad = 0;
      while ((rc = ag_tr_next(&r, &got)) > 0) {
         if (i >= N || !same_rec(&got, &recs[i])) {
            if (bad++ < 3) fprintf(stderr, "FAIL mode %d: record %d differs (kind %d/%d)\n",
                                   mode, i, got.kind, i < N ? recs[i].kind : -1);
         }
         i++;
      }
      CHECK(rc == 0, "mode %d: decoder error %s at %llu", mode, r.err,
            (unsigned long long)r.err_offset);
      CHECK(i == N && !bad, "mode %d: %d records decoded, %d bad", mode, i, bad);
      ag_tr_fini(&r);
   }

   /* every prefix: records decoded are a prefix; an error only mid-record */
   size_t small = 0;
   {
      ag_treader r;
      ag_tr_init_mem(&r, s.p, s.n);
      ag_trec got;
      for (int i = 0; i < 300 && ag_tr_next(&r, &got) > 0; i++) ;
      small = (size_t)ag_tr_offset(&r);
      ag_tr_fini(&r);
   }
   for (size_t cut = 0; cut <= small; cut++) {
      ag_treader r;
      int rc = ag_tr_init_mem(&r, s.p, cut);
      if (cut < AG_TRACE_MAGIC_LEN) {
         CHECK(rc < 0, "cut %zu: short magic accepted", cut);
         ag_tr_fini(&r);
         continue;
      }
      ag_trec got;
      int i = 0;
      while ((rc = ag_tr_next(&r, &got)) > 0) {
         CHECK(same_rec(&got, &recs[i]), "cut %zu: record %d differs", cut, i);
         i++;
      }
      if (rc < 0) CHECK(r.err_offset < cut && strstr(r.err, "truncated"),
                        "cut %zu: error %s at %llu", cut, r.err,
                        (unsigned long long)r.err_offset);
      else CHECK(ag_tr_offset(&r) == cut, "cut %zu: clean end at %llu", cut,
                 (unsigned long long)ag_tr_offset(&r));
      ag_tr_fini(&r);
   }
   free(recs);
   free(s.p);
}

static void expect_err(const char *name, const void *data, size_t n, const char *want)
{
   ag_treader r;
   ag_trec got;
   int rc = ag_tr_init_mem(&r, data, n);
   while (rc == 0 && (rc = ag_tr_next(&r, &got)) > 0) ;
   CHECK(rc < 0 && r.err && strstr(r.err, want), "%s: got %s, want %s", name,
         r.err ? r.err : "(no error)", want);
   ag_tr_fini(&r);
}

static void test_malformed(void)
{
   expect_err("magic", "AGTRACE2", 8, "bad magic");
   expect_err("short", "AGTR", 4, "too short");
   expect_err("tag", "AGTRACE1\x40", 9, "unknown record tag");
   expect_err("varint", "AGTRACE1\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 19, "varint");
   expect_err("tid", "AGTRACE1\x01\xff\xff\xff\xff\x0f", 14, "thread id");
   expect_err("size0", "AGTRACE1\x10\x00\x00\x00\x00", 13, "access size");
   expect_err("wrap", "AGTRACE1\x2c\x00\x03\x00", 12, "beyond");
   expect_err("forget", "AGTRACE1\x0b\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02", 20, "beyond");
   expect_err("text", "AGTRACE1\x0c\x01\x81\x40", 12, "too long");
   expect_err("trunc", "AGTRACE1\x0c\x01\x05""abc", 14, "truncated");
}

static void test_std_writer(void)
{
   static ag_twriter w;
   sink s = { NULL, 0, 0, -1 };
   ag_tw_init(&w, AG_TW_STD, sink_write, &s);
   ag_tw_thread(&w, 0);
   ag_tw_begin(&w, 0, 12);
   ag_tw_access(&w, 0, 0x7ff0001000ull, 8, AG_WRITE, 13);
   ag_tw_access(&w, 10, 0, 1, 0, 0);
   ag_tw_acquire(&w, 1, 0xabc, 0, 14);
   ag_tw_release(&w, 1, 0xabc, 1, 15);
   ag_tw_fork(&w, 0, 2, 16);
   ag_tw_join(&w, 0, 2, 18446744073709551615ull);
   ag_tw_site(&w, 1, "x", 1);
   ag_tw_forget(&w, 1, 2);
   ag_tw_exit(&w, 2);
   ag_tw_end(&w, 0, 17);
   ag_tw_flush(&w);
   const char *want =
      "T0|begin|12\n"
      "T0|w(0x7ff0001000)|13\n"
      "T10|r(0x0)|0\n"
      "T1|acq(0xabc)|14\n"
      "T1|rel(0xabc)|15\n"
      "T0|fork(T2)|16\n"
      "T0|join(T2)|18446744073709551615\n"
      "T0|end|17\n";
   CHECK(s.n == strlen(want) && memcmp(s.p, want, s.n) == 0, "STD output:\n%.*s",
         (int)s.n, (const char *)s.p);
   free(s.p);
}

static void test_write_error(void)
{
   static ag_twriter w;
   sink s = { NULL, 0, 0, 1 };          /* the magic goes, then failure */
   CHECK(ag_tw_init(&w, AG_TW_BIN, sink_write, &s) == 0, "init failed");
   for (int i = 0; i < 100000; i++) ag_tw_begin(&w, 1, i);
   CHECK(ag_tw_flush(&w) != 0 && w.err, "write error not sticky");
   free(s.p);
}

/* ---- same verdicts through a trace ------------------------------- */

typedef struct { int n; uint64_t ev[256]; } evlist;
static void on_rep(void *c, const ag_violation *v)
{
   evlist *l = c;
   if (l->n < 256) l->ev[l->n++] = v->event;
}

static void feed_rec(ag_engine *e, const ag_trec *r)
{
   switch (r->kind) {
   case AG_TK_THREAD: ag_ev_thread_new(e, r->tid); break;
   case AG_TK_BEGIN: ag_ev_begin(e, r->tid, r->site); break;
   case AG_TK_END: ag_ev_end(e, r->tid, r->site); break;
   case AG_TK_ACCESS: ag_ev_access(e, r->tid, r->addr, r->size, r->flags, r->site); break;
   case AG_TK_ACQUIRE: ag_ev_acquire(e, r->tid, r->addr, r->shared, r->site); break;
   case AG_TK_RELEASE: ag_ev_release(e, r->tid, r->addr, r->shared, r->site); break;
   case AG_TK_FORK: ag_ev_fork(e, r->tid, r->tid2, r->site); break;
   case AG_TK_JOIN: ag_ev_join(e, r->tid, r->tid2, r->site); break;
   case AG_TK_EXIT: ag_ev_thread_exit(e, r->tid); break;
   case AG_TK_FORGET: ag_ev_forget(e, r->addr, r->len); break;
   case AG_TK_SITE: break;
   }
}

static void test_verdicts(void)
{
   int compared = 0, with_reports = 0;
   for (const ag_engine_ops *const *p = ag_engine_all(); *p; p++) {
      for (int it = 0; it < 200; it++) {
         enum { N = 400 };
         ag_trec recs[N];
         int n = 0, depth[4] = { 0 }, held[4] = { 0 };
         for (int t = 0; t < 4; t++) {
            memset(&recs[n], 0, sizeof recs[n]);
            recs[n].kind = AG_TK_THREAD;
            recs[n++].tid = t;
         }
         while (n < N) {
            ag_trec r;
            memset(&r, 0, sizeof r);
            r.tid = rnd(4);
            r.site = rnd(50);
            switch (rnd(8)) {
            case 0:
               if (depth[r.tid]) { r.kind = AG_TK_END; depth[r.tid] = 0; }
               else { r.kind = AG_TK_BEGIN; depth[r.tid] = 1; }
               break;
            case 1:
               if (held[r.tid]) { r.kind = AG_TK_RELEASE; held[r.tid] = 0; }
               else {
                  int busy = 0;
                  for (int u = 0; u < 4; u++) busy |= held[u];
                  if (busy) continue;
                  r.kind = AG_TK_ACQUIRE; held[r.tid] = 1;
               }
               r.addr = 0x77;
               break;
            case 2:
               r.kind = AG_TK_FORGET;
               r.addr = 0x1000 + rnd(64);
               r.len = rnd(16);
               r.site = 0;
               break;
            default:
               r.kind = AG_TK_ACCESS;
               r.addr = 0x1000 + rnd(48);
               r.size = 1u << rnd(4);
               r.flags = rnd(3) ? 0 : AG_WRITE;
               break;
            }
            recs[n++] = r;
         }
         static ag_twriter w;
         sink s = { NULL, 0, 0, -1 };
         ag_tw_init(&w, AG_TW_BIN, sink_write, &s);
         for (int i = 0; i < n; i++) write_rec(&w, &recs[i]);
         ag_tw_flush(&w);

         evlist direct = { 0 }, replayed = { 0 };
         ag_engine *e = ag_engine_new(*p, NULL, on_rep, &direct);
         for (int i = 0; i < n; i++) feed_rec(e, &recs[i]);
         ag_engine_delete(e);
         e = ag_engine_new(*p, NULL, on_rep, &replayed);
         ag_treader r;
         ag_trec got;
         ag_tr_init_mem(&r, s.p, s.n);
         while (ag_tr_next(&r, &got) > 0) feed_rec(e, &got);
         ag_tr_fini(&r);
         ag_engine_delete(e);
         free(s.p);
         int same = direct.n == replayed.n &&
                    memcmp(direct.ev, replayed.ev, direct.n * sizeof(uint64_t)) == 0;
         CHECK(same, "%s: %d reports directly, %d through the trace", (*p)->name, direct.n,
               replayed.n);
         compared++;
         with_reports += direct.n > 0;
      }
   }
   CHECK(with_reports > compared / 4, "only %d of %d runs reported anything", with_reports,
         compared);
}

int main(void)
{
   test_roundtrip();
   test_malformed();
   test_std_writer();
   test_write_error();
   test_verdicts();
   if (failures) {
      fprintf(stderr, "test_tracefmt: %d failure(s)\n", failures);
      return 1;
   }
   printf("test_tracefmt: all passed\n");
   return 0;
}
