/* Polling loops that wait by sleeping or yielding: the polled load is an
 * acquire load in race mode (atomgrind/events/ag_poll.c), as a spin
 * loop's is.  The flag is reached with __atomic builtins on a plain int,
 * which x86 compiles to plain movs.  argv[1]:
 *   sleep   data, then the flag stored (release) while the reader polls
 *           it with usleep                                      -> clean
 *   yield   the same with relaxed accesses and fences, the reader polling
 *           with sched_yield, and two yields and a store of its own per
 *           round (ThreadSanitizer's signal_block)               -> clean
 *   select  the sleep mode's program, the reader waiting with select() on
 *           no descriptor (a timeout alone)                     -> clean
 *   racy    the flag stored first, data after it: the reader's read of
 *           data after its polling loop races                   -> race
 *   locked  the reader polls a value under a lock, sleeping between
 *           rounds: what it reads after the lock is no poll, and the
 *           writer's later store without the lock races         -> race
 * Sleeps let the reader poll several rounds; they are no synchronisation. */
#include "common.h"
#include <sched.h>
#include <sys/select.h>
#include <unistd.h>

static int ready, data, mine, q;
static const char *mode;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *arg)
{
   (void)arg;
   int v = 0;
   if (!strcmp(mode, "yield")) {
      while (!__atomic_load_n(&ready, __ATOMIC_RELAXED)) {
         sched_yield();
         mine++;
         sched_yield();
      }
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      v = data;
   } else if (!strcmp(mode, "locked")) {
      for (;;) {
         usleep(1000);
         pthread_mutex_lock(&m);
         v = q;
         pthread_mutex_unlock(&m);
         if (v) break;
      }
   } else if (!strcmp(mode, "select")) {
      while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
         struct timeval tv = { 0, 1000 };
         select(0, NULL, NULL, NULL, &tv);
      }
      v = data;
   } else {
      while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) usleep(1000);
      v = data;
   }
   return (void *)(long)v;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "sleep";
   pthread_t t = spawn(reader, NULL);
   ms_sleep(200);                       /* the reader polls meanwhile */
   if (!strcmp(mode, "yield")) {
      data = 42;
      __atomic_thread_fence(__ATOMIC_RELEASE);
      __atomic_store_n(&ready, 1, __ATOMIC_RELAXED);
   } else if (!strcmp(mode, "racy")) {
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
      data = 42;
   } else if (!strcmp(mode, "locked")) {
      pthread_mutex_lock(&m);
      q = 1;
      pthread_mutex_unlock(&m);
      ms_sleep(100);                    /* the reader has read q meanwhile */
      q = 2;
   } else {
      data = 42;
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
   }
   void *v;
   pthread_join(t, &v);
   return 0;
}
