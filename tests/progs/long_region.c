/* Two threads, each in one long atomic region of 100,000 accesses to its
 * own half of a shared array (no conflict).  The scheduler's preemptions
 * inside a region decay with the region's length, so the run costs a few
 * hundred switches, not one per four accesses. */
#include "common.h"

#define N 100000

static int data[2][64];

static void *worker(void *arg)
{
   long me = (long)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   for (int i = 0; i < N; i++) data[me][i & 63] += i;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(worker, (void *)0), b = spawn(worker, (void *)1);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
