/* At a preemption inside a region the scheduler wakes the thread it hands
 * the turn to on the preempted thread's CPU, narrowing the woken thread's
 * CPU affinity until it runs.  The program must never see that: a thread
 * that pinned itself keeps its own set, the others keep the process's, and
 * a forked child inherits the forking thread's.  Two threads run regions
 * of a few hundred accesses (preempted among them), then each compares
 * its affinity with what it set. */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

#define ITERS 100
#define LEN 50

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count;
static long work[2][LEN];
static cpu_set_t all, pinned;
static int bad;

static void check(const cpu_set_t *want, const char *who)
{
   cpu_set_t now;
   CPU_ZERO(&now);
   if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, want)) {
      printf("%s: affinity changed (%d CPUs, wanted %d)\n", who, CPU_COUNT(&now), CPU_COUNT(want));
      __atomic_store_n(&bad, 1, __ATOMIC_SEQ_CST);
   }
}

static void *worker(void *arg)
{
   int pin = arg != NULL;
   if (pin && sched_setaffinity(0, sizeof pinned, &pinned) != 0) perror("sched_setaffinity");
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      for (int j = 0; j < LEN; j++) work[pin][j] += j;
      pthread_mutex_lock(&mu);
      count++;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   check(pin ? &pinned : &all, pin ? "pinned thread" : "thread");
   return NULL;
}

int main(void)
{
   if (sched_getaffinity(0, sizeof all, &all) != 0) { perror("sched_getaffinity"); return 1; }
   CPU_ZERO(&pinned);
   for (int c = CPU_SETSIZE - 1; c >= 0; c--)   /* the last CPU allowed */
      if (CPU_ISSET(c, &all)) { CPU_SET(c, &pinned); break; }
   pthread_t a = spawn(worker, NULL), b = spawn(worker, &pinned);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   check(&all, "main");
   pid_t pid = fork();
   if (pid == 0) {
      check(&all, "child");
      _exit(bad);
   }
   int status = 0;
   waitpid(pid, &status, 0);
   if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) bad = 1;
   printf("%s, %ld\n", bad ? "affinity changed" : "affinity kept", count);
   return 0;
}
