/* A buffer handed back and forth between two threads through a mutex and
 * a condition variable, as a compressor's job queue does: each side fills
 * or reads all of it while it is its turn.  No access races, so none
 * should be a scheduling point (tests/test_sched_points.py, HandOvers).
 * "racy": the worker also bumps a counter at every word, which main reads
 * meanwhile, outside the lock: those accesses race and stay points.
 * argv[2]: hand-overs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 4096

static long buf[WORDS];
static int turn;                     /* 0: main's, 1: the worker's */
static volatile long bumps;
static int racy, rounds;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void wait_turn(int me)
{
   pthread_mutex_lock(&m);
   while (turn != me) pthread_cond_wait(&c, &m);
   pthread_mutex_unlock(&m);
}

static void pass_turn(int other)
{
   pthread_mutex_lock(&m);
   turn = other;
   pthread_cond_signal(&c);
   pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
   (void)arg;
   for (int r = 0; r < rounds; r++) {
      wait_turn(1);
      long sum = 0;
      for (int i = 0; i < WORDS; i++) sum += buf[i];
      for (int i = 0; i < WORDS; i++) {
         buf[i] = sum + i;
         if (racy) bumps = bumps + 1;
      }
      pass_turn(0);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   racy = argc > 1 && strcmp(argv[1], "racy") == 0;
   rounds = argc > 2 ? atoi(argv[2]) : 50;
   pthread_t t;
   pthread_create(&t, NULL, worker, NULL);
   long seen = 0;
   for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < WORDS; i++) buf[i] = r + i;
      pass_turn(1);
      for (int i = 0; racy && i < WORDS; i++)
         seen += bumps;            /* while the worker bumps it */
      wait_turn(0);
   }
   pthread_join(t, NULL);
   printf("done %ld %ld\n", buf[WORDS - 1], seen);
   return 0;
}
