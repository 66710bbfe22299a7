/* Correct: producer/consumer on a condition variable, with the regions
 * after the waits.
 *
 * put() and get() lock the mutex, wait (while full / while empty), and
 * only then open the region, which closes before the unlock.  A region
 * therefore runs entirely inside one hold of the mutex that protects
 * every access to the buffer, so regions never interleave.  (Opening the
 * region before the wait would be the bug in bugs/cond_wait_region.c.)
 * Native check: the consumers' sum is the producers'. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define CAP 4
#define PRODUCERS 2
#define CONSUMERS 2
#define ITEMS 150                      /* per producer */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long buf[CAP];
static unsigned head, tail, count;
static long consumed[CONSUMERS];

static void put(long item)
{
   pthread_mutex_lock(&mu);
   while (count == CAP)
      pthread_cond_wait(&not_full, &mu);
   ATOMGRIND_ATOMIC_BEGIN();
   buf[tail % CAP] = item;
   tail++;
   count++;
   ATOMGRIND_ATOMIC_END();
   pthread_cond_signal(&not_empty);
   pthread_mutex_unlock(&mu);
}

static long get(void)
{
   pthread_mutex_lock(&mu);
   while (count == 0)
      pthread_cond_wait(&not_empty, &mu);
   ATOMGRIND_ATOMIC_BEGIN();
   long item = buf[head % CAP];
   head++;
   count--;
   ATOMGRIND_ATOMIC_END();
   pthread_cond_signal(&not_full);
   pthread_mutex_unlock(&mu);
   return item;
}

static void *producer(void *arg)
{
   long base = (long)arg;
   for (long i = 1; i <= ITEMS; i++)
      put(base + i);
   return NULL;
}

static void *consumer(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < PRODUCERS * ITEMS / CONSUMERS; i++)
      consumed[id] += get();
   return NULL;
}

int main(void)
{
   pthread_t p[PRODUCERS], c[CONSUMERS];
   long expected = 0, sum = 0;
   for (long i = 0; i < PRODUCERS; i++) {
      pthread_create(&p[i], NULL, producer, (void *)(i * 1000));
      for (long k = 1; k <= ITEMS; k++) expected += i * 1000 + k;
   }
   for (long i = 0; i < CONSUMERS; i++)
      pthread_create(&c[i], NULL, consumer, (void *)i);
   for (int i = 0; i < PRODUCERS; i++)
      pthread_join(p[i], NULL);
   for (int i = 0; i < CONSUMERS; i++) {
      pthread_join(c[i], NULL);
      sum += consumed[i];
   }
   printf("%s\n", sum == expected ? "consistent" : "INCONSISTENT");
   return 0;
}
