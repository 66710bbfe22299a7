/* Hundreds of threads over the life of the program (argv[1], default
 * 400), a few at a time, each running a locked region.  Clean, and no
 * crash. */
#include "common.h"

#define BATCH 8
static long TOTAL = 400;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long sum;

static void *worker(void *arg)
{
   long v = (long)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   sum += v;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[BATCH];
   if (argc > 1) TOTAL = atol(argv[1]);
   for (long i = 0; i < TOTAL; i += BATCH) {
      for (int j = 0; j < BATCH; j++) t[j] = spawn(worker, (void *)(i + j));
      for (int j = 0; j < BATCH; j++) pthread_join(t[j], NULL);
   }
   printf("sum %ld\n", sum);
   return sum == TOTAL * (TOTAL - 1) / 2 ? 0 : 1;
}
