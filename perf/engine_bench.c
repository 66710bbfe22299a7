/* engine_bench.c -- offline throughput and peak memory of the atomicity
 * engines on large generated traces (issue 3's performance item).
 *
 *   engine_bench [-n EVENTS] [-t 4,16,64] [-e eng1,eng2,...] [-l SECONDS] [-s SEED]
 *
 * For every thread count the same trace (same seed) is generated in
 * memory in a fresh child process per engine; the child feeds it through
 * the public ag_ev_* API and reports events/second and its peak memory
 * above the trace itself (VmHWM at the end minus VmRSS before feeding).
 * One process at a time: one core.
 *
 * The mix imitates a real program: mostly accesses to thread-private
 * arrays (sequential walks with jumps), short atomic regions, lock-
 * protected shared data, a little unprotected shared read-mostly data,
 * some 4- and 1-byte accesses, threads forked at the start and joined at
 * the end.  "atomsanitizer+inc" is AtomSanitizer's increasing-cycle mode;
 * "null" a do-nothing engine (one word per location): the cost of
 * the dispatcher and shadow memory alone.  Rates are per CPU second of the
 * feeding loop (the machine may be shared); peak memory excludes the trace. */
#define _GNU_SOURCE
#include "ag_engine_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

enum { OP_BEGIN, OP_END, OP_RD, OP_WR, OP_ACQ, OP_REL, OP_FORK, OP_JOIN };

/* one event in 8 bytes: op:4 tid:8 size:4 arg:48 */
typedef uint64_t bev;
static inline bev mk(int op, int tid, int size, uint64_t arg)
{
   return (uint64_t)op | (uint64_t)tid << 4 | (uint64_t)(size & 15) << 12 | arg << 16;
}
#define B_OP(e)   ((int)((e) & 15))
#define B_TID(e)  ((ag_tid)(((e) >> 4) & 255))
#define B_SIZE(e) ((unsigned)(((e) >> 12) & 15))
#define B_ARG(e)  ((e) >> 16)

static uint64_t rng;
static inline uint64_t rnd64(void)
{
   uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}
static inline unsigned rnd(unsigned n) { return (unsigned)(rnd64() % n); }

#define PRIV_WORDS 8192          /* 64 KiB private data per thread */
#define NLOCKS 16
#define LOCK_WORDS 64            /* shared words guarded by each lock */
#define SHARED_WORDS 256         /* unprotected shared, read-mostly */
#define HOT_WORDS 8              /* unprotected counters: read ... write in a region */
#define PRIV_BASE   0x10000000ULL
#define LOCKED_BASE 0x20000000ULL
#define SHARED_BASE 0x30000000ULL
#define LOCK_BASE   0x40000000ULL

typedef struct {
   int region_left;             /* events left in the open region, -1: none */
   int counter;                 /* check-then-act region on this hot word, -1: none */
   int lock, lock_left;         /* held lock (-1 none) and accesses left */
   uint32_t pos;                /* private walk position */
} gth;

static bev *generate(int nth, size_t n, size_t *outn, uint64_t seed)
{
   bev *tr = malloc((n + 4 * (size_t)nth + 16) * sizeof(bev));
   gth *th = calloc(nth, sizeof *th);
   int holder[NLOCKS];
   size_t k = 0;
   if (!tr || !th) { perror("malloc"); exit(1); }
   rng = seed;
   for (int l = 0; l < NLOCKS; l++) holder[l] = -1;
   for (int t = 0; t < nth; t++) { th[t].region_left = -1; th[t].counter = -1; th[t].lock = -1; th[t].pos = rnd(PRIV_WORDS); }
   for (int t = 1; t < nth; t++) tr[k++] = mk(OP_FORK, 0, 0, t);
   int t = 0, burst = 0;
   while (k < n) {
      if (burst-- <= 0) { t = rnd(nth); burst = 1 + rnd(40); }    /* scheduler */
      gth *g = &th[t];
      if (g->lock >= 0 && g->lock_left == 0) {
         tr[k++] = mk(OP_REL, t, 0, LOCK_BASE + 64 * g->lock);
         holder[g->lock] = -1;
         g->lock = -1;
         continue;
      }
      if (g->region_left == 0 && g->lock < 0) {
         if (g->counter >= 0) tr[k++] = mk(OP_WR, t, 8, SHARED_BASE + 8 * (uint64_t)(SHARED_WORDS + g->counter));
         g->counter = -1;
         tr[k++] = mk(OP_END, t, 0, 0);
         g->region_left = -1;
         continue;
      }
      if (g->region_left < 0 && g->lock < 0 && rnd(30) == 0) {
         tr[k++] = mk(OP_BEGIN, t, 0, 0);
         g->region_left = 2 + rnd(11);
         if (rnd(5) == 0) {        /* a check-then-act on a hot counter */
            g->counter = rnd(HOT_WORDS);
            tr[k++] = mk(OP_RD, t, 8, SHARED_BASE + 8 * (uint64_t)(SHARED_WORDS + g->counter));
         }
         continue;
      }
      if (g->lock < 0 && rnd(40) == 0) {
         int l = rnd(NLOCKS);
         if (holder[l] < 0) {
            holder[l] = t;
            g->lock = l;
            g->lock_left = 1 + rnd(6);
            tr[k++] = mk(OP_ACQ, t, 0, LOCK_BASE + 64 * l);
            continue;
         }
      }
      /* an access */
      uint64_t a;
      int wr, size = 8;
      unsigned r = rnd(100);
      if (g->lock >= 0) {
         a = LOCKED_BASE + 8 * ((uint64_t)g->lock * LOCK_WORDS + rnd(LOCK_WORDS));
         wr = rnd(2);
         g->lock_left--;
      } else if (r < 4) {
         a = SHARED_BASE + 8 * (uint64_t)rnd(SHARED_WORDS);
         wr = rnd(10) == 0;
      } else {
         if (rnd(16) == 0) g->pos = rnd(PRIV_WORDS); else g->pos = (g->pos + 1) % PRIV_WORDS;
         a = PRIV_BASE + (uint64_t)t * PRIV_WORDS * 8 + 8 * (uint64_t)g->pos;
         wr = rnd(10) < 3;
      }
      r = rnd(100);
      if (r < 6) { size = 4; a += 4 * rnd(2); }
      else if (r < 9) { size = 1; a += rnd(8); }
      tr[k++] = mk(wr ? OP_WR : OP_RD, t, size, a);
      if (g->region_left > 0) g->region_left--;
   }
   for (int u = 0; u < nth; u++) {
      if (th[u].lock >= 0) tr[k++] = mk(OP_REL, u, 0, LOCK_BASE + 64 * th[u].lock);
      if (th[u].region_left >= 0) {
         if (th[u].counter >= 0) tr[k++] = mk(OP_WR, u, 8, SHARED_BASE + 8 * (uint64_t)(SHARED_WORDS + th[u].counter));
         tr[k++] = mk(OP_END, u, 0, 0);
      }
   }
   for (int u = 1; u < nth; u++) tr[k++] = mk(OP_JOIN, 0, 0, u);
   free(th);
   *outn = k;
   return tr;
}

static long status_kb(const char *key)
{
   FILE *f = fopen("/proc/self/status", "r");
   char line[256];
   long v = -1;
   size_t kl = strlen(key);
   if (!f) return -1;
   while (fgets(line, sizeof line, f))
      if (!strncmp(line, key, kl) && line[kl] == ':') { v = atol(line + kl + 1); break; }
   fclose(f);
   return v;
}

static double clk(clockid_t id)
{
   struct timespec ts;
   clock_gettime(id, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static double now(void) { return clk(CLOCK_MONOTONIC); }
static double cpu(void) { return clk(CLOCK_PROCESS_CPUTIME_ID); }

/* The floor: a do-nothing engine with one word per location, to show what
   the dispatcher and shadow memory cost by themselves. */
static void *null_create(ag_ctx *c) { (void)c; static int x; return &x; }
static void null_destroy(void *s) { (void)s; }
static void null_loc(void *s, void *l) { (void)s; *(uint64_t *)l = 0; }
static void null_copy(void *s, void *d, const void *c) { (void)s; *(uint64_t *)d = *(const uint64_t *)c; }
static void null_fini(void *s, void *l) { (void)s; (void)l; }
static void null_t(void *s, ag_tid t) { (void)s; (void)t; }
static void null_start(void *s, ag_tid t, unsigned f) { (void)s; (void)t; (void)f; }
static void null_access(void *s, ag_tid t, void *l, ag_addr a, unsigned f)
{ (void)s; (void)a; (void)f; *(uint64_t *)l = t; }
static void null_lock(void *s, ag_tid t, ag_addr l, int sh) { (void)s; (void)t; (void)l; (void)sh; }
static void null_tt(void *s, ag_tid a, ag_tid b) { (void)s; (void)a; (void)b; }
static const ag_engine_ops null_ops = {
   .name = "null", .help = "", .kind = AG_KIND_ATOMICITY, .loc_size = 8,
   .create = null_create, .destroy = null_destroy,
   .loc_init = null_loc, .loc_copy = null_copy, .loc_fini = null_fini,
   .thread_new = null_t, .begin = null_t, .end = null_t,
   .access_start = null_start, .access = null_access,
   .acquire = null_lock, .release = null_lock, .fork = null_tt, .join = null_tt,
};

static uint64_t nreports;
static void count_report(void *c, const ag_violation *v) { (void)c; (void)v; nreports++; }

/* Runs in the child. */
static void bench_one(const char *name, int nth, size_t n, uint64_t seed, double limit)
{
   ag_config cfg = { 0 };
   char ename[64];
   snprintf(ename, sizeof ename, "%s", name);
   char *plus = strchr(ename, '+');
   if (plus) { *plus = 0; cfg.cycles_increasing = !strcmp(plus + 1, "inc"); }
   const ag_engine_ops *ops = !strcmp(ename, "null") ? &null_ops : ag_engine_find(ename);
   if (!ops) { printf("%-8d %-20s not registered\n", nth, name); return; }
   size_t len;
   bev *tr = generate(nth, n, &len, seed);
   long rss0 = status_kb("VmRSS");
   ag_engine *e = ag_engine_new(ops, &cfg, count_report, NULL);
   ag_ev_thread_new(e, 0);
   double t0 = now(), c0 = cpu();
   size_t i;
   int partial = 0;
   for (i = 0; i < len; i++) {
      bev x = tr[i];
      ag_tid t = B_TID(x);
      switch (B_OP(x)) {
      case OP_BEGIN: ag_ev_begin(e, t, 0); break;
      case OP_END:   ag_ev_end(e, t, 0); break;
      case OP_RD:    ag_ev_access(e, t, B_ARG(x), B_SIZE(x), 0, 0); break;
      case OP_WR:    ag_ev_access(e, t, B_ARG(x), B_SIZE(x), AG_WRITE, 0); break;
      case OP_ACQ:   ag_ev_acquire(e, t, B_ARG(x), 0, 0); break;
      case OP_REL:   ag_ev_release(e, t, B_ARG(x), 0, 0); break;
      case OP_FORK:  ag_ev_fork(e, t, (ag_tid)B_ARG(x), 0); break;
      case OP_JOIN:  ag_ev_join(e, t, (ag_tid)B_ARG(x), 0); break;
      }
      if ((i & 0xffff) == 0xffff && limit > 0 && now() - t0 > limit) { partial = 1; i++; break; }
   }
   double dt = now() - t0, dc = cpu() - c0;
   long hwm = status_kb("VmHWM");
   uint64_t shadow = ag_engine_shadow_bytes(e);
   ag_engine_delete(e);
   printf("%-8d %-20s %11zu %8.2f %8.2f %9.2f %10.1f %10.1f %10llu%s\n", nth, name, i, dt, dc,
          i / dc / 1e6, (hwm - rss0) / 1024.0, shadow / 1048576.0,
          (unsigned long long)nreports, partial ? "  (time limit: partial)" : "");
   fflush(stdout);
   free(tr);
}

int main(int argc, char **argv)
{
   size_t n = 10000000;
   const char *threads = "4,16,64", *engines = NULL;
   double limit = 600;
   uint64_t seed = 12345;
   int c;
   while ((c = getopt(argc, argv, "n:t:e:l:s:")) != -1) {
      switch (c) {
      case 'n': n = strtoull(optarg, NULL, 0); break;
      case 't': threads = optarg; break;
      case 'e': engines = optarg; break;
      case 'l': limit = atof(optarg); break;
      case 's': seed = strtoull(optarg, NULL, 0); break;
      default:
         fprintf(stderr, "usage: %s [-n events] [-t 4,16,64] [-e engines] [-l seconds] [-s seed]\n", argv[0]);
         return 2;
      }
   }
   /* engines: every registered atomicity engine, plus atomsanitizer+inc */
   char list[1024] = "null";
   if (engines) snprintf(list, sizeof list, "%s", engines);
   else {
      for (const ag_engine_ops *const *o = ag_engine_all(); *o; o++) {
         if ((*o)->kind != AG_KIND_ATOMICITY) continue;
         strcat(list, ",");
         strcat(list, (*o)->name);
         if (!strcmp((*o)->name, "atomsanitizer")) strcat(list, ",atomsanitizer+inc");
      }
   }
   printf("%-8s %-20s %11s %8s %8s %9s %10s %10s %10s\n", "threads", "engine", "events", "wall s",
          "cpu s", "Mev/cpu-s", "peak MiB", "shadow MiB", "reports");
   char tl[256];
   snprintf(tl, sizeof tl, "%s", threads);
   for (char *ts = strtok(tl, ","); ts; ts = strtok(NULL, ",")) {
      int nth = atoi(ts);
      if (nth < 1 || nth > 255) continue;
      char el[1024];
      snprintf(el, sizeof el, "%s", list);
      char *save;
      for (char *en = strtok_r(el, ",", &save); en; en = strtok_r(NULL, ",", &save)) {
         fflush(stdout);
         pid_t pid = fork();
         if (pid == 0) { bench_one(en, nth, n, seed + nth, limit); _exit(0); }
         int st;
         waitpid(pid, &st, 0);
         if (!WIFEXITED(st) || WEXITSTATUS(st))
            printf("%-8d %-20s failed (status 0x%x)\n", nth, en, st);
      }
   }
   return 0;
}
