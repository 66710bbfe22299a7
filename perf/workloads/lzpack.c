/* lzpack.c -- a small multithreaded block compressor, for measuring what
 * inline regions cost on real -O2 code (perf/inline_cost.py).
 *
 * The input is cut into 64 KiB blocks; T workers take block numbers from a
 * shared counter (next_block, under a mutex), compress each with a greedy
 * LZ77 over a hash table of 4-byte prefixes, and add its size to shared
 * totals (record_block, under the same mutex).  next_block and
 * record_block are small static functions that -O2 inlines into the
 * worker: --atomic-fns=next_block,record_block makes those inlined copies
 * the program's atomic regions.  The output (the compressed size, and a
 * checksum) goes to stdout; the compressed data itself is discarded.
 *
 *   lzpack [-t THREADS] FILE
 *
 * Build: cc $(dpkg-buildflags --get CFLAGS) -pthread perf/workloads/lzpack.c -o lzpack */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (64 * 1024)
#define HBITS 14

static const unsigned char *data;
static size_t size, nblocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t next, total_out, blocks_done;
static uint64_t checksum;

static long next_block(void)
{
   pthread_mutex_lock(&lock);
   long b = next < nblocks ? (long)next++ : -1;
   pthread_mutex_unlock(&lock);
   return b;
}

static void record_block(size_t out, uint64_t sum)
{
   pthread_mutex_lock(&lock);
   total_out += out;
   checksum ^= sum + blocks_done++;
   pthread_mutex_unlock(&lock);
}

static uint32_t hash4(const unsigned char *p)
{
   uint32_t v;
   memcpy(&v, p, 4);
   return (v * 2654435761u) >> (32 - HBITS);
}

/* Greedy LZ77: the compressed size of in[0..n) and a checksum of the
   tokens (literal bytes, match lengths and distances). */
static size_t compress_block(const unsigned char *in, size_t n, uint32_t *table, uint64_t *sum)
{
   size_t i = 0, out = 0;
   uint64_t h = 1469598103934665603ULL;
   memset(table, 0xff, sizeof(uint32_t) << HBITS);
   while (i + 4 <= n) {
      uint32_t k = hash4(in + i), cand = table[k];
      table[k] = (uint32_t)i;
      size_t len = 0;
      if (cand != 0xffffffffu && i - cand < 65536)
         while (i + len < n && len < 258 && in[cand + len] == in[i + len]) len++;
      if (len >= 4) {
         h = (h ^ (len << 16 | (i - cand))) * 1099511628211ULL;
         out += 3;
         i += len;
      } else {
         h = (h ^ in[i]) * 1099511628211ULL;
         out += 1;
         i++;
      }
   }
   *sum = h;
   return out + (n - i);
}

static void *worker(void *arg)
{
   (void)arg;
   uint32_t *table = malloc(sizeof(uint32_t) << HBITS);
   long b;
   while ((b = next_block()) >= 0) {
      size_t off = (size_t)b * BLOCK, n = size - off < BLOCK ? size - off : BLOCK;
      uint64_t sum;
      size_t out = compress_block(data + off, n, table, &sum);
      record_block(out, sum);
   }
   free(table);
   return NULL;
}

int main(int argc, char **argv)
{
   int threads = 2, a = 1;
   if (argc > 2 && strcmp(argv[1], "-t") == 0) { threads = atoi(argv[2]); a = 3; }
   if (a >= argc || threads < 1 || threads > 64) {
      fprintf(stderr, "usage: lzpack [-t THREADS] FILE\n");
      return 2;
   }
   FILE *f = fopen(argv[a], "rb");
   if (!f) { perror(argv[a]); return 1; }
   fseek(f, 0, SEEK_END);
   size = (size_t)ftell(f);
   fseek(f, 0, SEEK_SET);
   unsigned char *buf = malloc(size ? size : 1);
   if (fread(buf, 1, size, f) != size) { perror("read"); return 1; }
   fclose(f);
   data = buf;
   nblocks = (size + BLOCK - 1) / BLOCK;
   pthread_t t[64];
   for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
   printf("%zu -> %zu bytes in %zu blocks, checksum %016llx\n", size, total_out,
          blocks_done, (unsigned long long)checksum);
   free(buf);
   return 0;
}
