/* c11_globals.c -- C11 _Atomic globals in --check=races, one mode per run
 * (argv[1]); tests/test_atomics.py holds the verdicts.  -O2.  The reader
 * starts after the writer is done, so no spin loop waits on the flag.
 *   seqcst    data; ready = 1 (a seq_cst store: xchg); the reader tests
 *             ready (a plain mov) once, then reads data        -> clean
 *   counter   hits++ from two threads (lock add), an unlocked read of
 *             hits in between, a read after the joins          -> clean
 *   relacq    data; atomic_store_explicit(release); the reader's
 *             atomic_load_explicit(acquire): both plain movs that no
 *             function frame marks, on a flag no atomic instruction
 *             touches: atomic by the debug info's type     -> clean
 *   relacq_late  the same with data written after the release
 *             store                                   -> race on data */
#include <stdatomic.h>
#include "../common.h"

static const char *mode;
static long data;
static _Atomic int ready;
static _Atomic long hits;

static void *writer(void *arg)
{
   (void)arg;
   if (!strcmp(mode, "counter")) {
      for (int i = 0; i < 100; i++) hits++;
      return NULL;
   }
   int late = !strcmp(mode, "relacq_late");
   if (!late) data = 42;
   if (!strncmp(mode, "relacq", 6)) atomic_store_explicit(&ready, 1, memory_order_release);
   else ready = 1;
   if (late) data = 42;
   return NULL;
}

static void *reader(void *arg)
{
   (void)arg;
   if (!strcmp(mode, "counter")) {
      long seen = hits;
      for (int i = 0; i < 100; i++) hits++;
      return (void *)(seen + 1);
   }
   int r = !strncmp(mode, "relacq", 6) ? atomic_load_explicit(&ready, memory_order_acquire) : ready;
   return r ? (void *)data : NULL;
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: c11_globals MODE\n"); return 2; }
   mode = argv[1];
   pthread_t w = spawn(writer, NULL);
   ms_sleep(300);
   pthread_t r = spawn(reader, NULL);
   void *v;
   pthread_join(r, &v);
   pthread_join(w, NULL);
   if (!strcmp(mode, "counter") && hits != 200) return 1;
   return v ? 0 : 1;
}
