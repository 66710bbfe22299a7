/* Bug: a locked append whose buffer is reset by another thread without
 * the lock.
 *
 * Loggers append to a shared buffer inside a region that holds the
 * mutex: check for room, store the entry, advance `len`.  The flusher
 * empties the buffer by writing len = 0 WITHOUT taking the mutex (it
 * "only writes one word").  The flusher's write lands between a logger's
 * check and its update: the entry is stored at the old position and
 * `len` jumps back past the reset.  The breaking access is outside any
 * region (a single-event transaction).  Interleaving: L reads len = 5,
 * F writes len = 0, L writes len = 6.  Cycle: L's read of `len` precedes
 * F's write (L -> F), F's write precedes L's write (F -> L).
 * Data: `len`, `entries`.  Native symptom: "miscounted" > 0. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define LOGGERS 2
#define ITERS 300
#define CAP 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long entries[CAP];
static int len;
static long appended, flushed_total;
static int loggers_done;

static void append(long v)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   int n = len;
   if (n < CAP) {
      entries[n] = v;
      len = n + 1;
      appended++;
   }
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
}

static void *logger(void *arg)
{
   long id = (long)arg;
   for (long i = 0; i < ITERS; i++)
      append(id * 1000 + i);
   return NULL;
}

static void *flusher(void *arg)
{
   (void)arg;
   while (!__atomic_load_n(&loggers_done, __ATOMIC_ACQUIRE)) {
      int n = __atomic_load_n(&len, __ATOMIC_RELAXED);
      if (n >= CAP / 2) {
         flushed_total += n;
         __atomic_store_n(&len, 0, __ATOMIC_RELAXED);   /* no lock: "one word" */
      } else {
         sched_yield();                                  /* poll again later */
      }
   }
   return NULL;
}

int main(void)
{
   pthread_t t[LOGGERS], f;
   for (long i = 0; i < LOGGERS; i++)
      pthread_create(&t[i], NULL, logger, (void *)i);
   pthread_create(&f, NULL, flusher, NULL);
   for (int i = 0; i < LOGGERS; i++)
      pthread_join(t[i], NULL);
   __atomic_store_n(&loggers_done, 1, __ATOMIC_RELEASE);
   pthread_join(f, NULL);
   long miscount = flushed_total + len - appended;
   printf("miscounted %ld\n", miscount < 0 ? -miscount : miscount);
   return 0;
}
