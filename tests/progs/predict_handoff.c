/* A hand-off through a lock-protected queue, as in lbzip2 and xz: the
 * producer updates a block inside its atomic region, then enqueues it; the
 * consumer dequeues it and only then updates the block.  The consumer
 * reaches the block through what it read of the queue, so no reordering
 * puts its write inside the producer's region: no report, observed or
 * predicted.  (Prediction once reported every block: lock edges are not
 * in its happens-before, and it did not keep what the consumer read.) */
#include <sched.h>
#include "common.h"

#define N 200

static struct { long left, pad[7]; } blk[N];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int queue[N], head, tail;

static void *producer(void *arg)
{
   (void)arg;
   for (int i = 0; i < N; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      blk[i].left = blk[i].left + 1;       /* read, then write, in the region */
      ATOMGRIND_ATOMIC_END();
      pthread_mutex_lock(&mu);
      queue[tail] = i;
      tail++;
      pthread_mutex_unlock(&mu);
   }
   return NULL;
}

static void *consumer(void *arg)
{
   (void)arg;
   for (int got = 0; got < N;) {
      pthread_mutex_lock(&mu);
      if (head < tail) {
         int i = queue[head++];
         pthread_mutex_unlock(&mu);
         blk[i].left += 10;                /* after the hand-off */
         got++;
      } else {
         pthread_mutex_unlock(&mu);
         sched_yield();
      }
   }
   return NULL;
}

int main(void)
{
   pthread_t p = spawn(producer, NULL), c = spawn(consumer, NULL);
   pthread_join(p, NULL);
   pthread_join(c, NULL);
   for (int i = 0; i < N; i++)
      if (blk[i].left != 11) return 1;
   return 0;
}
