/* fuzz_trace.c -- libFuzzer target for both trace readers (RAPID STD text
 * and atomgrind's binary format) and the engines behind them.  Each input
 * is read once without an engine and once per registered engine, through a
 * read callback that hands out small odd-sized chunks so that buffer
 * boundaries fall everywhere.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I atomgrind/engine \
 *     -I trace atomgrind/engine/ag_*.c trace/ag_replay.c \
 *     tests/fuzz/fuzz_trace.c -o /tmp/fuzz_trace
 *   /tmp/fuzz_trace -max_len=4096 tests/fuzz/corpus
 *
 * Without libFuzzer, tests/fuzz/fuzz_main.c replays files through it. */
#include "ag_replay.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct { const uint8_t *p; size_t n, pos; unsigned k; } fz_src;

static long fz_read(void *cookie, void *buf, size_t n)
{
   fz_src *s = cookie;
   size_t left = s->n - s->pos;
   size_t chunk = 1 + (s->k++ * 7) % 23;
   if (chunk > n) chunk = n;
   if (chunk > left) chunk = left;
   for (size_t i = 0; i < chunk; i++) ((uint8_t *)buf)[i] = s->p[s->pos + i];
   s->pos += chunk;
   return (long)chunk;
}

static FILE *fz_null(void)
{
   static FILE *f;
   if (!f) f = fopen("/dev/null", "w");
   return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const ag_engine_ops *const *all = ag_engine_all();
   int nall = 0;
   while (all[nall]) nall++;
   for (int pass = 0; pass < 2; pass++) {
      ag_replay_opts o = { 0 };
      o.ops = pass == 0 || !nall ? NULL : all[(size / 2) % (size_t)nall];
      o.cfg.cycles_increasing = (int)(size & 1);
      o.max_threads = 64;              /* engines may be O(k^2) in memory */
      o.max_forget = 1u << 24;
      o.max_warnings = -1;
      o.stats = 1;
      o.bufsize = 256;                 /* long lines and refills get exercised */
      o.err = fz_null();
      ag_replay *rp = ag_replay_new(&o);
      fz_src src = { data, size, 0, (unsigned)size };
      ag_replay_run(rp, "fuzz", fz_read, &src);
      ag_replay_delete(rp);
   }
   return 0;
}
