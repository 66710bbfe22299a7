/* Correct: a binary semaphore used as a lock around each region.
 *
 * sem_wait before the region, sem_post after it: at most one thread is
 * inside a region at a time, so the regions run one after the other in
 * every interleaving.  Native check: the queue's counters agree. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 250

static sem_t sem;
static struct { long pushed, popped, size; } q;

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      sem_wait(&sem);
      ATOMGRIND_ATOMIC_BEGIN();
      if ((i + id) % 3 != 0 || q.size == 0) {
         q.pushed++;
         q.size++;
      } else {
         q.popped++;
         q.size--;
      }
      ATOMGRIND_ATOMIC_END();
      sem_post(&sem);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   sem_init(&sem, 0, 1);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", q.pushed - q.popped == q.size ? "consistent" : "INCONSISTENT");
   return 0;
}
