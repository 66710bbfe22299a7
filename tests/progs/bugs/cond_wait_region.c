/* Bug: an atomic region that spans a condition wait.
 *
 * A bounded buffer's put() reads the tail index, then waits while the
 * buffer is full, then stores at the index it read before waiting.  The
 * wait releases the mutex, so another producer can store at the same
 * index meanwhile: one item overwrites the other.  Interleaving: P1 reads
 * tail = 5 and waits; the consumer frees a slot; P2 reads tail = 5, stores
 * buf[5], tail = 6; P1 wakes, stores buf[5] again, tail = 6.  Cycle: P1's
 * read of `tail` precedes P2's write (P1 -> P2), P2's write precedes P1's
 * write (P2 -> P1).  Data: `tail`, `buf`.
 * Native symptom: "checksum" differs from "expected". */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define CAP 2
#define PRODUCERS 2
#define ITEMS 150                  /* per producer */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long buf[CAP];
static unsigned head, tail, count;

static void put(long item)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   unsigned slot = tail;                  /* read before the wait: stale after it */
   while (count == CAP)
      pthread_cond_wait(&not_full, &mu);
   buf[slot % CAP] = item;
   tail = slot + 1;
   count++;
   pthread_cond_signal(&not_empty);
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
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
   pthread_cond_broadcast(&not_full);
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

int main(void)
{
   pthread_t t[PRODUCERS];
   long expected = 0, sum = 0;
   for (long p = 0; p < PRODUCERS; p++) {
      pthread_create(&t[p], NULL, producer, (void *)(p * 1000));
      for (long i = 1; i <= ITEMS; i++) expected += p * 1000 + i;
   }
   for (int i = 0; i < PRODUCERS * ITEMS; i++)
      sum += get();
   for (int i = 0; i < PRODUCERS; i++)
      pthread_join(t[i], NULL);
   printf("checksum %ld expected %ld\n", sum, expected);
   return 0;
}
