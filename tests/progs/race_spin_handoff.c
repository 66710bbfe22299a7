/* Two threads hand a turn back and forth through a flag that each spins
 * on (acquire load) and passes on (a seq_cst store: xchg, an atomic
 * instruction even at the first hand-off, before any spin has shown the
 * flag to be atomic; a release store is a plain mov); the counter is only
 * touched by the thread whose turn it is, so nothing races.  Under
 * Valgrind one thread runs at a time, for a timeslice: the spinning
 * thread kept the other off the CPU for a whole slice at every hand-off
 * (20 ms each in race mode, and seconds under the core's unfair lock),
 * until atomgrind cut a spin loop's slice short (ag_spin.c).
 * Arguments: flag N: N hand-offs each way [20000]; count N: one thread
 * reads a volatile in a counted loop, 500 N times -- a loop that reads an
 * address it does not change, but goes round by its count, not to wait:
 * its slice is not cut. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int turn;      /* 0: main's, 1: the worker's */
static long counter;
static long rounds = 20000;
static volatile long one = 1;

static void *worker(void *arg)
{
   (void)arg;
   for (long i = 0; i < rounds; i++) {
      while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 1) ;
      counter++;
      __atomic_store_n(&turn, 0, __ATOMIC_SEQ_CST);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 2) rounds = atol(argv[2]);
   if (argc > 1 && strcmp(argv[1], "count") == 0) {
      for (long i = 0; i < 500 * rounds; i++) counter += one;
      printf("%ld\n", counter);
      return counter != 500 * rounds;
   }
   pthread_t t;
   pthread_create(&t, NULL, worker, NULL);
   for (long i = 0; i < rounds; i++) {
      while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 0) ;
      counter++;
      __atomic_store_n(&turn, 1, __ATOMIC_SEQ_CST);
   }
   pthread_join(t, NULL);
   printf("%ld\n", counter);
   return counter != 2 * rounds;
}
