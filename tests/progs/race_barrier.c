/* Barrier generations, selected by argv[1] (2 threads, a barrier of 2):
 *   clean  in each round a thread writes its own slot, and after the next
 *          barrier reads the other's                                -> clean
 *   racy   in each round both threads write the round's one slot
 *          (concurrent within a generation; a barrier orders only across
 *          generations)                                              -> race
 * A late thread's departure from round r must not be ordered after the
 * other thread's arrival at round r+1: the racy writes sit in between. */
#include "common.h"

#define ROUNDS 4
static pthread_barrier_t bar;
static int slot[2][ROUNDS], shared[ROUNDS];
static int racy;

static void *worker(void *arg)
{
   long id = (long)arg;
   int sum = 0;
   pthread_barrier_wait(&bar);
   for (int r = 0; r < ROUNDS; r++) {
      if (racy) shared[r] = (int)id;
      else slot[id][r] = r;
      pthread_barrier_wait(&bar);
      if (!racy) sum += slot[1 - id][r];
   }
   return (void *)(long)sum;
}

int main(int argc, char **argv)
{
   racy = argc > 1 && !strcmp(argv[1], "racy");
   pthread_barrier_init(&bar, NULL, 2);
   pthread_t a = spawn(worker, (void *)0), b = spawn(worker, (void *)1);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   pthread_barrier_destroy(&bar);
   return 0;
}
