/* A region that waits on a condition variable: the wait releases the
 * mutex, another thread's region updates the shared queue meanwhile, and
 * the waiter then reads it again.  The waiting region is not atomic: one
 * violation. */
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int items, ready;

static void *consumer(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   int before = items;
   while (!ready) pthread_cond_wait(&cv, &mu);
   items = before + items;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *producer(void *arg)
{
   (void)arg;
   ms_sleep(400);
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   items += 5;
   ready = 1;
   pthread_cond_signal(&cv);
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(void)
{
   pthread_t c = spawn(consumer, NULL), p = spawn(producer, NULL);
   pthread_join(c, NULL);
   pthread_join(p, NULL);
   printf("items %d\n", items);
   return 0;
}
