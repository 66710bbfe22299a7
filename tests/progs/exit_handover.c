/* A thread exits while main joins it and another thread is inside a long
 * atomic region.  The exit wakes main in the kernel, after the turn went
 * to the region's thread: where main comes back in that region's accesses
 * must follow the seed, not the time main took to come back. */
#include <semaphore.h>
#include "common.h"

#define N 200000

static int data[64];
static sem_t started;
static int quick_done;

static void *long_region(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   sem_post(&started);
   for (int i = 0; i < N; i++) data[i & 63] += i;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

/* Exits while the other thread is in its region.  It waits on a
   semaphore, not a sleep: the post is a scheduling point, where the
   waiter is let back, so when it runs follows the seed. */
static void *quick(void *arg)
{
   (void)arg;
   sem_wait(&started);
   quick_done = 1;
   return NULL;
}

int main(void)
{
   sem_init(&started, 0, 0);
   pthread_t w = spawn(long_region, NULL), q = spawn(quick, NULL);
   pthread_join(q, NULL);
   pthread_join(w, NULL);
   return quick_done - 1;
}
