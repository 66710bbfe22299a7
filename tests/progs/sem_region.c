/* A region that waits on a semaphore: another thread changes the data the
 * region read, then posts; the region's wait returns after it.  One
 * violation, closed by the wait. */
#include "common.h"
#include <semaphore.h>

static sem_t go;
static int level;

static void *waiter(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   int seen = level;
   sem_wait(&go);
   level = seen + 1;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *poster(void *arg)
{
   (void)arg;
   ms_sleep(300);
   level = 10;
   sem_post(&go);
   return NULL;
}

int main(void)
{
   sem_init(&go, 0, 0);
   pthread_t w = spawn(waiter, NULL), p = spawn(poster, NULL);
   pthread_join(w, NULL);
   pthread_join(p, NULL);
   printf("level %d\n", level);
   return 0;
}
