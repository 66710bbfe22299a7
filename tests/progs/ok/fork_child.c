/* Correct: a multithreaded program that forks a child (which runs on
 * alone, single-threaded, and exits) while its other threads run locked
 * regions.
 *
 * The workers' regions hold the mutex throughout; the forking thread
 * waits for the child with waitpid (a blocking system call) outside any
 * region.  The child copies the parent's memory: it shares nothing with
 * the parent's threads afterwards.  Nothing can interleave a region, and
 * the run must not hang on the child or the wait.
 * Native check: the count, and the child's exit status. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/atomgrind.h>

#define THREADS 2
#define ITERS 200

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count;

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      count++;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   pid_t pid = fork();
   if (pid == 0) {
      long s = 0;
      for (int i = 0; i < 10000; i++) s += i;
      _exit(s == 49995000L ? 7 : 1);
   }
   int status = 0;
   waitpid(pid, &status, 0);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   int ok = count == (long)THREADS * ITERS && WIFEXITED(status) && WEXITSTATUS(status) == 7;
   printf("%s\n", ok ? "consistent" : "INCONSISTENT");
   return 0;
}
