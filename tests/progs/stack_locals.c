/* Threads that work on their own stacks, as -O0 code does with every
 * local: the first touch of each stack word is no scheduling point, since
 * no other thread can be next there (tests/test_sched_points.py,
 * OwnStack).  "waves": ten waves of two threads, each wave joined before
 * the next starts, so that glibc gives the next wave the stacks of the
 * last.  "pointer": the worker also bumps a word of main's stack, through
 * a pointer, while main reads it outside any lock: those accesses race
 * and stay points.  argv[2]: rounds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long total;
static int rounds;
static volatile long *shared_word;   /* main's local, in "pointer" mode */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* 17 frames of 64 locals each: about 1,100 words of stack per call */
static long work(int depth)
{
   volatile long buf[64];
   for (int i = 0; i < 64; i++) {
      buf[i] = i * depth;
      if (shared_word) (*shared_word)++;
   }
   long s = 0;
   for (int i = 0; i < 64; i++) s += buf[i];
   return depth > 0 ? s + work(depth - 1) : s;
}

static void *worker(void *arg)
{
   (void)arg;
   long s = 0;
   for (int r = 0; r < rounds; r++) s += work(16);
   pthread_mutex_lock(&m);
   total += s;
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc == 3 ? argv[1] : "";
   if (strcmp(mode, "ok") != 0 && strcmp(mode, "waves") != 0 && strcmp(mode, "pointer") != 0) {
      fprintf(stderr, "usage: stack_locals ok|waves|pointer ROUNDS\n");
      return 2;
   }
   rounds = atoi(argv[2]);
   volatile long word = 0;
   if (strcmp(mode, "pointer") == 0) shared_word = &word;
   long seen = 0;
   for (int wave = 0; wave < (strcmp(mode, "waves") == 0 ? 10 : 1); wave++) {
      pthread_t t[2];
      for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
      if (shared_word)
         for (int i = 0; i < 20000; i++) seen += word;
      for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
   }
   printf("total %ld (%s)\n", total, seen >= 0 ? "done" : "?");
   return 0;
}
