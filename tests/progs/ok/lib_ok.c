/* Correct: the program calls a correct entry point of a shared library
 * (lib_counter.c, built as a .so) from two threads; the region is inside
 * the library and holds its mutex throughout.  Native check: the count. */
#include <pthread.h>
#include <stdio.h>
#include "lib_counter.h"

#define THREADS 2
#define SAMPLES 400

static void *sampler(void *arg)
{
   long base = (long)arg;
   for (long i = 0; i < SAMPLES; i++)
      counter_record(base + i);
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, sampler, (void *)(i * 10));
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", counter_count() == (long)THREADS * SAMPLES ? "consistent" : "INCONSISTENT");
   return 0;
}
