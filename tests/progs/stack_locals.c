/* Threads that work on their own stacks, as -O0 code does with every
 * local: the first touch of each stack word is no scheduling point, since
 * no other thread can be next there (tests/test_sched_points.py,
 * OwnStack).  "waves": ten waves of two threads, each wave joined before
 * the next starts, so that glibc gives the next wave the stacks of the
 * last.  "pointer": the worker also bumps a word of main's stack, through
 * a pointer, while main reads it outside any lock: those accesses race
 * and stay points.  "sp" (built -O2): main reads a local of its own
 * through SP 100,000 times, after a worker's first write to it through a
 * pointer; the worker writes it 2,000 times: the worker's writes are
 * points, main's reads through SP are not.  argv[2]: rounds. */
#include <pthread.h>
#include <sched.h>
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

static int started;

/* "sp": the first write is made before main reads */
static void *writer(void *arg)
{
   (void)arg;
   for (int i = 0; i < 2000; i++) {
      (*shared_word)++;
      if (i == 0) __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
   }
   return NULL;
}

static int through_sp(void)
{
   volatile long word = 0;
   long seen = 0;
   pthread_t t;
   shared_word = &word;
   pthread_create(&t, NULL, writer, NULL);
   while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) sched_yield();
   for (int i = 0; i < 100000; i++) seen += word;
   pthread_join(t, NULL);
   printf("word %ld (%s)\n", word, seen >= 0 ? "done" : "?");
   return 0;
}

int main(int argc, char **argv)
{
   const char *mode = argc == 3 ? argv[1] : "";
   if (strcmp(mode, "sp") == 0) return through_sp();
   if (strcmp(mode, "ok") != 0 && strcmp(mode, "waves") != 0 && strcmp(mode, "pointer") != 0) {
      fprintf(stderr, "usage: stack_locals ok|waves|pointer|sp ROUNDS\n");
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
