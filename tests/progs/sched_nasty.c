/* Programs that could hang a scheduler that makes threads wait for their
 * turn: spin-waits on flags (with and without scheduling points in the
 * loop), producer/consumer, barriers, a thread pool, signals, fork in a
 * threaded program, many threads, sleeps and pipes inside regions.  Every
 * region is atomic in every interleaving (thread-local data, or all of it
 * under one lock): no report is right.  Usage: sched_nasty MODE. */
#include "common.h"
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_int flag;
static long counter;

/* a region on this thread's own data */
static void local_region(long *mine)
{
   ATOMGRIND_ATOMIC_BEGIN();
   (*mine)++;
   ATOMGRIND_ATOMIC_END();
}

/* a region that holds the lock throughout */
static void locked_region(void)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   counter++;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
}

/* ---- spin: a pure spin on an atomic flag, no point in the loop ---- */
static void *spin_setter(void *arg)
{
   long mine = 0;
   for (int i = 0; i < 50; i++) local_region(&mine);
   atomic_store(&flag, 1);
   (void)arg;
   return NULL;
}

static int spin(void)
{
   long mine = 0;
   pthread_t t = spawn(spin_setter, NULL);
   local_region(&mine);
   while (!atomic_load(&flag)) {}
   pthread_join(t, NULL);
   return 0;
}

/* ---- spin_regions: every spin iteration is a region (points) ---- */
static void *spinr_waiter(void *arg)
{
   long mine = 0;
   int seen = 0;
   while (!seen) {
      ATOMGRIND_ATOMIC_BEGIN();
      seen = atomic_load(&flag);
      mine++;
      ATOMGRIND_ATOMIC_END();
   }
   (void)arg;
   return NULL;
}

static int spin_regions(void)
{
   pthread_t a = spawn(spinr_waiter, NULL), b = spawn(spinr_waiter, NULL);
   long mine = 0;
   for (int i = 0; i < 20; i++) local_region(&mine);
   atomic_store(&flag, 1);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}

/* ---- spin_lock: poll a flag under a lock (points, a lock hand-off) ---- */
static int done_flag;
static void *spinl_waiter(void *arg)
{
   for (;;) {
      pthread_mutex_lock(&mu);
      int d = done_flag;
      pthread_mutex_unlock(&mu);
      if (d) break;
   }
   (void)arg;
   return NULL;
}

static int spin_lock(void)
{
   pthread_t a = spawn(spinl_waiter, NULL), b = spawn(spinl_waiter, NULL);
   for (int i = 0; i < 30; i++) locked_region();
   pthread_mutex_lock(&mu);
   done_flag = 1;
   pthread_mutex_unlock(&mu);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}

/* ---- prodcons: a bounded queue with two condition variables ---- */
#define QCAP 4
#define ITEMS 400
static int q[QCAP], qn, qhead;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg)
{
   for (int i = 0; i < ITEMS; i++) {
      pthread_mutex_lock(&mu);
      while (qn == QCAP) pthread_cond_wait(&notfull, &mu);
      ATOMGRIND_ATOMIC_BEGIN();          /* not across the wait: that is a bug */
      q[(qhead + qn++) % QCAP] = i;
      pthread_cond_signal(&cv);
      ATOMGRIND_ATOMIC_END();
      pthread_mutex_unlock(&mu);
   }
   (void)arg;
   return NULL;
}

static void *consumer(void *arg)
{
   long sum = 0;
   for (int i = 0; i < ITEMS; i++) {
      pthread_mutex_lock(&mu);
      while (qn == 0) pthread_cond_wait(&cv, &mu);
      sum += q[qhead];
      qhead = (qhead + 1) % QCAP;
      qn--;
      pthread_cond_signal(&notfull);
      pthread_mutex_unlock(&mu);
   }
   *(long *)arg = sum;
   return NULL;
}

static int prodcons(void)
{
   long sum = 0;
   pthread_t p = spawn(producer, NULL), c = spawn(consumer, &sum);
   pthread_join(p, NULL);
   pthread_join(c, NULL);
   return sum == (long)ITEMS * (ITEMS - 1) / 2 ? 0 : 1;
}

/* ---- barrier: rounds of regions separated by a barrier ---- */
#define BTHREADS 4
static pthread_barrier_t bar;
static void *barrier_worker(void *arg)
{
   long mine = 0;
   for (int r = 0; r < 40; r++) {
      local_region(&mine);
      locked_region();
      pthread_barrier_wait(&bar);
   }
   (void)arg;
   return NULL;
}

static int barrier(void)
{
   pthread_t t[BTHREADS];
   pthread_barrier_init(&bar, NULL, BTHREADS);
   for (int i = 0; i < BTHREADS; i++) t[i] = spawn(barrier_worker, NULL);
   for (int i = 0; i < BTHREADS; i++) pthread_join(t[i], NULL);
   return counter == BTHREADS * 40 ? 0 : 1;
}

/* ---- pool: workers take tasks from a queue until told to stop ---- */
#define WORKERS 6
#define TASKS 300
static int tasks_left, stop_pool;
static void *pool_worker(void *arg)
{
   long mine = 0;
   for (;;) {
      pthread_mutex_lock(&mu);
      while (tasks_left == 0 && !stop_pool) pthread_cond_wait(&cv, &mu);
      if (tasks_left == 0) { pthread_mutex_unlock(&mu); break; }
      tasks_left--;
      pthread_mutex_unlock(&mu);
      local_region(&mine);
      locked_region();
   }
   (void)arg;
   return NULL;
}

static int pool(void)
{
   pthread_t t[WORKERS];
   for (int i = 0; i < WORKERS; i++) t[i] = spawn(pool_worker, NULL);
   for (int i = 0; i < TASKS; i++) {
      pthread_mutex_lock(&mu);
      tasks_left++;
      pthread_cond_signal(&cv);
      pthread_mutex_unlock(&mu);
   }
   pthread_mutex_lock(&mu);
   stop_pool = 1;
   pthread_cond_broadcast(&cv);
   pthread_mutex_unlock(&mu);
   for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
   return counter == TASKS ? 0 : 1;
}

/* ---- signals: handlers run in threads that are inside regions ---- */
/* per thread: a count shared by the handlers of two threads would be a real
   race, and hits++ a read and a write that the other thread's handler could
   come between (prediction reports it) */
static _Thread_local volatile sig_atomic_t hits;
static void on_usr1(int s) { (void)s; hits++; }
static void *sig_worker(void *arg)
{
   long mine = 0;
   while (!atomic_load(&flag)) local_region(&mine);
   (void)arg;
   return NULL;
}

static int signals(void)
{
   signal(SIGUSR1, on_usr1);
   pthread_t a = spawn(sig_worker, NULL), b = spawn(sig_worker, NULL);
   for (int i = 0; i < 20; i++) {
      pthread_kill(i % 2 ? a : b, SIGUSR1);
      locked_region();
      ms_sleep(1);
   }
   atomic_store(&flag, 1);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}

static void *short_worker_local(void *arg)
{
   long mine = 0;
   for (int i = 0; i < 50; i++) local_region(&mine);
   (void)arg;
   return NULL;
}

/* ---- fork: fork while other threads run regions; the child has threads ---- */
static void *fork_worker(void *arg)
{
   long mine = 0;
   for (int i = 0; i < 200; i++) { local_region(&mine); locked_region(); }
   (void)arg;
   return NULL;
}

static int forking(void)
{
   pthread_t a = spawn(fork_worker, NULL), b = spawn(fork_worker, NULL);
   locked_region();
   pid_t pid = fork();
   if (pid == 0) {
      /* mu may have been held by a worker at the fork: not used here */
      pthread_t c = spawn(short_worker_local, NULL);
      long mine = 0;
      for (int i = 0; i < 50; i++) local_region(&mine);
      pthread_join(c, NULL);
      _exit(0);
   }
   int st = 1;
   waitpid(pid, &st, 0);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* ---- many: 1000 threads in waves of 50, each runs a few regions ---- */
static void *short_worker(void *arg)
{
   long mine = 0;
   for (int i = 0; i < 3; i++) local_region(&mine);
   locked_region();
   (void)arg;
   return NULL;
}

static int many(void)
{
   pthread_t t[50];
   for (int w = 0; w < 20; w++) {
      for (int i = 0; i < 50; i++) t[i] = spawn(short_worker, NULL);
      for (int i = 0; i < 50; i++) pthread_join(t[i], NULL);
   }
   return 0;
}

/* ---- sleep: sleeps and a pipe read inside regions ---- */
static int pfd[2];
static void *sleeper(void *arg)
{
   long mine = 0;
   for (int i = 0; i < 5; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      mine++;
      ms_sleep(3);
      ATOMGRIND_ATOMIC_END();
   }
   (void)arg;
   return NULL;
}

static void *reader(void *arg)
{
   char c;
   ATOMGRIND_ATOMIC_BEGIN();
   ssize_t n = read(pfd[0], &c, 1);     /* blocks until main writes */
   ATOMGRIND_ATOMIC_END();
   *(int *)arg = n == 1 && c == 'x';
   return NULL;
}

static int sleeping(void)
{
   int got = 0;
   if (pipe(pfd) != 0) return 1;
   pthread_t a = spawn(sleeper, NULL), b = spawn(sleeper, NULL), r = spawn(reader, &got);
   long mine = 0;
   for (int i = 0; i < 100; i++) local_region(&mine);
   ms_sleep(20);
   if (write(pfd[1], "x", 1) != 1) return 1;
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   pthread_join(r, NULL);
   return got ? 0 : 1;
}

int main(int argc, char **argv)
{
   static const struct { const char *name; int (*fn)(void); } modes[] = {
      { "spin", spin }, { "spin_regions", spin_regions }, { "spin_lock", spin_lock },
      { "prodcons", prodcons }, { "barrier", barrier }, { "pool", pool },
      { "signals", signals }, { "fork", forking }, { "many", many },
      { "sleep", sleeping },
   };
   for (unsigned i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
      if (strcmp(argv[1], modes[i].name) == 0) {
         int rc = modes[i].fn();
         printf("%s %s\n", argv[1], rc == 0 ? "ok" : "WRONG");
         return rc;
      }
   fprintf(stderr, "usage: sched_nasty MODE\n");
   return 2;
}
