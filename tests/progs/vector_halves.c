/* A 16-byte vector load whose second half another thread writes: the
 * owner table's test looks at each 8-byte slot an access spans, so the
 * load and the stores are scheduling points (tests/test_sched_points.py,
 * VectorHalves).  "private": the worker writes a word of its own instead,
 * and nothing is shared. */
#include <emmintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static long pair[2] __attribute__((aligned(16)));   /* main's word, then the worker's */
static long own[2];
static volatile long *target = &pair[1];

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < 20000; i++) (*target)++;
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc != 2 || (strcmp(argv[1], "shared") != 0 && strcmp(argv[1], "private") != 0)) {
      fprintf(stderr, "usage: vector_halves shared|private\n");
      return 2;
   }
   if (strcmp(argv[1], "private") == 0) target = &own[1];
   pair[0] = 1;
   pthread_t t;
   pthread_create(&t, NULL, worker, NULL);
   long sum = 0;
   for (int i = 0; i < 20000; i++) {
      __m128i v = _mm_load_si128((const __m128i *)(void *)pair);
      sum += _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
   }
   pthread_join(t, NULL);
   printf("%s\n", sum >= 0 ? "done" : "?");
   return 0;
}
