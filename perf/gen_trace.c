/* gen_trace.c -- generate a synthetic trace for benchmarks and fuzz seeds.
 *
 *   gen_trace [--format=bin|std] [--events=N] [--threads=K] [--shared=V]
 *             [--private=P] [--locks=L] [--txn=M] [--shared-pct=S]
 *             [--seed=X] OUT|-
 *
 * K worker threads are forked by T0 and joined at the end.  Each worker
 * loops: begin; M events (accesses, some inside a lock, some rwlock reads);
 * end; two unary accesses.  An access touches one of V shared words with
 * probability S%, else one of P private words of its thread; the set of
 * locations is fixed, so engine memory must not grow with N.  The workers
 * are interleaved at random, one event at a time, so transactions on
 * shared words do conflict and cycles appear.
 * Writes through ag_tracefmt's writers (the same code the Valgrind tool
 * uses).  Build:
 *   cc -O2 -I atomgrind/engine atomgrind/engine/ag_tracefmt.c
 *      atomgrind/engine/ag_shim_host.c perf/gen_trace.c -o gen_trace
 */
#include "ag_tracefmt.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t rnd(uint32_t n)
{
   rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
   return (uint32_t)(((rng >> 32) * (uint64_t)n) >> 32);
}

typedef struct {
   int step;            /* position in the loop body */
   int held;            /* lock held (index+1), 0 none */
   int shared_held;     /* held in read mode */
   int lock_left;       /* accesses left inside the lock */
} worker;

enum { SITE_BEGIN = 1, SITE_END, SITE_RD, SITE_WR, SITE_ACQ, SITE_REL, SITE_FORK, SITE_JOIN,
       SITE_UNARY };

int main(int argc, char **argv)
{
   const char *out = NULL;
   int format = AG_TW_BIN;
   uint64_t events = 1000000;
   unsigned k = 4, nshared = 64, npriv = 256, nlocks = 4, txn = 8, shared_pct = 10;
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      if (strcmp(a, "--format=bin") == 0) format = AG_TW_BIN;
      else if (strcmp(a, "--format=std") == 0) format = AG_TW_STD;
      else if (strncmp(a, "--events=", 9) == 0) events = strtoull(a + 9, NULL, 0);
      else if (strncmp(a, "--threads=", 10) == 0) k = (unsigned)atoi(a + 10);
      else if (strncmp(a, "--shared=", 9) == 0) nshared = (unsigned)atoi(a + 9);
      else if (strncmp(a, "--private=", 10) == 0) npriv = (unsigned)atoi(a + 10);
      else if (strncmp(a, "--locks=", 8) == 0) nlocks = (unsigned)atoi(a + 8);
      else if (strncmp(a, "--txn=", 6) == 0) txn = (unsigned)atoi(a + 6);
      else if (strncmp(a, "--shared-pct=", 13) == 0) shared_pct = (unsigned)atoi(a + 13);
      else if (strncmp(a, "--seed=", 7) == 0) rng ^= strtoull(a + 7, NULL, 0) * 0x2545f4914f6cdd1dull;
      else if (a[0] == '-' && a[1]) { fprintf(stderr, "gen_trace: unknown option %s\n", a); return 2; }
      else out = a;
   }
   if (!out || k < 1 || k > 1000 || nshared < 1 || npriv < 1 || nlocks < 1 || txn < 1) {
      fprintf(stderr, "usage: gen_trace [--format=bin|std] [--events=N] [--threads=K] "
              "[--shared=V] [--private=P] [--locks=L] [--txn=M] [--shared-pct=S] "
              "[--seed=X] OUT|-\n");
      return 2;
   }
   int fd = 1;
   if (strcmp(out, "-") != 0) {
      fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) { perror(out); return 2; }
   }
   static ag_twriter w;
   ag_tw_init(&w, format, ag_fd_write, &fd);
   static const char *site_text[] = { "", "worker gen.c:10", "worker gen.c:20",
      "worker gen.c:11", "worker gen.c:12", "worker gen.c:13", "worker gen.c:14",
      "main gen.c:30", "main gen.c:31", "worker gen.c:22" };
   for (int s = 1; s <= SITE_UNARY; s++) ag_tw_site(&w, s, site_text[s], strlen(site_text[s]));

   uint64_t n = 0;
   ag_tw_thread(&w, 0);
   for (unsigned t = 1; t <= k && n < events; t++, n++) ag_tw_fork(&w, 0, t, SITE_FORK);
   worker *wk = calloc(k + 1, sizeof *wk);
   const uint64_t body = 2 + txn + 2;      /* begin, txn events, end, 2 unary */
   uint64_t join_at = events > k ? events - k : 0;
   while (n < join_at) {
      ag_tid t = 1 + rnd(k);
      worker *x = &wk[t];
      int s = x->step;
      if (s == 0) ag_tw_begin(&w, t, SITE_BEGIN);
      else if ((uint64_t)s == 1 + txn) {
         if (x->held) {                    /* close the lock section first */
            ag_tw_release(&w, t, 0x5000 + 64 * (x->held - 1), x->shared_held, SITE_REL);
            x->held = 0;
            n++;
            continue;
         }
         ag_tw_end(&w, t, SITE_END);
      } else if (x->held && x->lock_left == 0) {
         ag_tw_release(&w, t, 0x5000 + 64 * (x->held - 1), x->shared_held, SITE_REL);
         x->held = 0;
         n++;
         continue;                         /* does not advance the body */
      } else if (!x->held && s <= (int)txn && rnd(6) == 0) {
         x->held = 1 + rnd(nlocks);
         x->shared_held = rnd(4) == 0;
         x->lock_left = 1 + rnd(3);
         ag_tw_acquire(&w, t, 0x5000 + 64 * (x->held - 1), x->shared_held, SITE_ACQ);
         n++;
         continue;
      } else {
         int wr = rnd(10) < 3;
         if (x->shared_held) wr = 0;
         ag_addr a;
         unsigned size = 8;
         if (rnd(100) < shared_pct) a = 0x10000 + 8ull * rnd(nshared);
         else a = 0x1000000ull * t + 8ull * rnd(npriv);
         if (rnd(8) == 0) { size = 4; a += 4 * rnd(2); }
         uint64_t site = (uint64_t)s > 1 + txn ? SITE_UNARY : wr ? SITE_WR : SITE_RD;
         ag_tw_access(&w, t, a, size, wr ? AG_WRITE : 0, site);
         if (x->held) x->lock_left--;
      }
      n++;
      x->step = (int)((s + 1) % body);
   }
   /* close what is open, then join everyone */
   for (unsigned t = 1; t <= k; t++) {
      if (wk[t].held) ag_tw_release(&w, t, 0x5000 + 64 * (wk[t].held - 1), wk[t].shared_held, SITE_REL);
      if (wk[t].step >= 1 && (uint64_t)wk[t].step <= 1 + txn) ag_tw_end(&w, t, SITE_END);
   }
   for (unsigned t = 1; t <= k; t++) ag_tw_join(&w, 0, t, SITE_JOIN);
   if (ag_tw_flush(&w) || (fd != 1 && close(fd) != 0)) {
      fprintf(stderr, "gen_trace: write error\n");
      return 2;
   }
   free(wk);
   return 0;
}
