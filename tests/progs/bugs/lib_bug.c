/* Bug in a shared library: the program calls libagstats (lib_stats.c,
 * built as a .so), whose entry point stats_record() is a read-modify-write
 * split across two lock holds (see lib_stats.c for the interleaving).
 * This file only calls it from two threads.
 * Native symptom: "lost samples" > 0. */
#include <pthread.h>
#include <stdio.h>
#include "lib_stats.h"

#define THREADS 2
#define SAMPLES 400

static void *sampler(void *arg)
{
   long base = (long)arg;
   for (long i = 0; i < SAMPLES; i++)
      stats_record(base + i);
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, sampler, (void *)(i * 10));
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("lost samples %ld\n", (long)THREADS * SAMPLES - stats_count());
   return 0;
}
