/* Bug: a cache whose rare miss path drops the lock to compute the value.
 *
 * lookup() holds the mutex across a hit.  On a miss (one key in 16 is
 * not cached) it unlocks to compute the value (slow), locks again and
 * inserts it, without checking whether another thread inserted the key
 * meanwhile, and bumps the shared `misses` counter from the value it read
 * before unlocking.  Only the miss path is broken, and misses are rare:
 * a schedule must preempt a thread exactly inside one of them.
 * Interleaving: A misses on key k, reads misses = 3, unlocks; B misses on
 * k, reads 3, inserts, writes misses = 4; A inserts again and writes
 * misses = 4.  Cycle: A's read of `misses` precedes B's write (A -> B),
 * B's write precedes A's write (B -> A).
 * Data: `misses` and the cache slots.  Native symptom: "lost misses" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 320
#define KEYS 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long cache[KEYS];             /* 0: not cached */
static long misses, computed;        /* computed: a correct count, for the symptom */

static long compute(int key)
{
   long v = 1;
   for (int i = 0; i < 50; i++) v = v * 31 + key;
   return v | 1;
}

static long lookup(int key)
{
   long v;
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   v = cache[key];
   if (v == 0) {
      long m = misses;
      pthread_mutex_unlock(&mu);
      v = compute(key);                /* slow: done without the lock */
      pthread_mutex_lock(&mu);
      cache[key] = v;
      misses = m + 1;
      computed++;
   }
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
   return v;
}

static void *worker(void *arg)
{
   long id = (long)arg, sum = 0;
   for (int i = 0; i < ITERS; i++) {
      int key = (int)((i * 5 + id * 7) % KEYS);
      sum += lookup(key);
      if (i % 16 == 15) {                      /* evict a key: the next lookup misses */
         pthread_mutex_lock(&mu);
         cache[(key + 1) % KEYS] = 0;
         pthread_mutex_unlock(&mu);
      }
   }
   return (void *)(sum & 1);
}

int main(void)
{
   pthread_t t[THREADS];
   for (int k = 0; k < KEYS; k++) cache[k] = compute(k);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("lost misses %ld\n", computed - misses);
   return 0;
}
