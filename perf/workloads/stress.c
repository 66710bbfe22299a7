/* stress.c -- synthetic multithreaded workload for perf/vg_bench.py.
 *
 * Each of T threads runs N iterations of:
 *   - thread-local work: a mixing pass over a private heap buffer and a
 *     small stack array (most of the memory traffic, as in real programs);
 *   - a short atomic region (ATOMGRIND_ATOMIC_BEGIN/END) that takes the
 *     lock of one shared bucket, updates it, and releases it;
 *   - every 8th iteration a longer region that holds two bucket locks (in
 *     address order, two-phase) and moves an amount between them.
 * Every region holds its locks for its whole extent (two-phase locking), so
 * every execution is conflict-serializable and race-free: atomgrind (any
 * engine, --check=races too), Helgrind and DRD must report nothing.
 * The program checks its own totals at the end and exits 1 if they are off.
 *
 *   stress [-t THREADS] [-n ITERS] [-w WORDS] [-b BUCKETS]
 *
 * Build: cc -O2 -g -pthread -I atomgrind perf/workloads/stress.c -o stress
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomgrind.h"

typedef struct {
   pthread_mutex_t lock;
   long balance;
   long ops;
   uint64_t hash;
   char pad[64];
} bucket_t;

static bucket_t *buckets;
static int nbuckets = 16;
static int nthreads = 4;
static long iters = 20000;
static int words = 256;            /* words of private heap data per thread */

typedef struct {
   int id;
   uint64_t checksum;             /* thread-local result, read after join */
   long local_ops;
} worker_t;

static uint64_t mix(uint64_t x)
{
   x ^= x >> 31; x *= 0x7fb5d329728ea185ULL;
   x ^= x >> 27; x *= 0x81dadef4bc2dd44dULL;
   return x ^ (x >> 33);
}

static void *worker(void *arg)
{
   worker_t *w = arg;
   uint64_t *priv = malloc(words * sizeof *priv);
   uint64_t rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->id + 1);
   uint64_t sum = 0;
   if (!priv) abort();
   for (int i = 0; i < words; i++) priv[i] = mix(rng + i);

   for (long it = 0; it < iters; it++) {
      /* thread-local work: a pass over part of the private buffer and a
         little stack array */
      uint64_t stk[16];
      int start = (int)(it % 8) * (words / 8);
      for (int i = 0; i < 16; i++) stk[i] = priv[(start + i) % words] + it;
      for (int i = start; i < start + words / 8; i++) {
         priv[i] = mix(priv[i] ^ stk[i & 15]);
         sum += priv[i] & 0xff;
      }

      rng = mix(rng + it);
      int b = (int)(rng % (uint64_t)nbuckets);
      if (it % 8 != 7) {
         /* short region: one bucket */
         ATOMGRIND_ATOMIC_BEGIN();
         pthread_mutex_lock(&buckets[b].lock);
         buckets[b].ops++;
         buckets[b].hash = mix(buckets[b].hash ^ sum);
         pthread_mutex_unlock(&buckets[b].lock);
         ATOMGRIND_ATOMIC_END();
      } else {
         /* transfer: two buckets, locks in index order, held throughout */
         int c = (int)((rng >> 32) % (uint64_t)nbuckets);
         if (c == b) c = (b + 1) % nbuckets;
         int lo = b < c ? b : c, hi = b < c ? c : b;
         long amount = (long)(rng & 63);
         ATOMGRIND_ATOMIC_BEGIN();
         pthread_mutex_lock(&buckets[lo].lock);
         pthread_mutex_lock(&buckets[hi].lock);
         if (buckets[b].balance >= amount) {
            buckets[b].balance -= amount;
            buckets[c].balance += amount;
         }
         buckets[b].ops++;
         buckets[c].ops++;
         pthread_mutex_unlock(&buckets[hi].lock);
         pthread_mutex_unlock(&buckets[lo].lock);
         ATOMGRIND_ATOMIC_END();
         w->local_ops++;
      }
      w->local_ops++;
   }
   w->checksum = sum;
   free(priv);
   return NULL;
}

int main(int argc, char **argv)
{
   int opt;
   while ((opt = getopt(argc, argv, "t:n:w:b:")) != -1) {
      switch (opt) {
      case 't': nthreads = atoi(optarg); break;
      case 'n': iters = atol(optarg); break;
      case 'w': words = atoi(optarg); break;
      case 'b': nbuckets = atoi(optarg); break;
      default:
         fprintf(stderr, "usage: %s [-t THREADS] [-n ITERS] [-w WORDS] [-b BUCKETS]\n", argv[0]);
         return 2;
      }
   }
   if (nthreads < 1 || iters < 1 || words < 16 || nbuckets < 2) {
      fprintf(stderr, "stress: bad parameters\n");
      return 2;
   }
   words &= ~7;

   buckets = calloc(nbuckets, sizeof *buckets);
   pthread_t *tids = calloc(nthreads, sizeof *tids);
   worker_t *ws = calloc(nthreads, sizeof *ws);
   if (!buckets || !tids || !ws) abort();
   for (int i = 0; i < nbuckets; i++) {
      pthread_mutex_init(&buckets[i].lock, NULL);
      buckets[i].balance = 1000;
   }
   for (int i = 0; i < nthreads; i++) {
      ws[i].id = i;
      if (pthread_create(&tids[i], NULL, worker, &ws[i]) != 0) abort();
   }
   uint64_t checksum = 0;
   long local_ops = 0;
   for (int i = 0; i < nthreads; i++) {
      pthread_join(tids[i], NULL);
      checksum += ws[i].checksum;
      local_ops += ws[i].local_ops;
   }
   long total = 0, ops = 0;
   for (int i = 0; i < nbuckets; i++) {
      total += buckets[i].balance;
      ops += buckets[i].ops;
      pthread_mutex_destroy(&buckets[i].lock);
   }
   int ok = total == 1000L * nbuckets && ops == local_ops;
   printf("stress: %d threads x %ld iterations, %d words, %d buckets: "
          "balance %ld ops %ld checksum %016llx %s\n", nthreads, iters, words,
          nbuckets, total, ops, (unsigned long long)checksum, ok ? "ok" : "WRONG");
   free(buckets);
   free(tids);
   free(ws);
   return ok ? 0 : 1;
}
