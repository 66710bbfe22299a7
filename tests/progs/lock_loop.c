/* Check-then-act in a loop, each step under the lock, with no sleeps:
 * only atomgrind's scheduler (a switch after an unlock inside a region)
 * makes the two threads' regions interleave under Valgrind.  Violations
 * expected with the default --sched=random. */
#include "common.h"
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int stock;
static pthread_barrier_t start;

static void *w(void *a) {
  pthread_barrier_wait(&start);     /* both threads exist before the loop */
  for (int i = 0; i < 2000; i++) {
    ATOMGRIND_ATOMIC_BEGIN();
    pthread_mutex_lock(&mu); int s = stock; pthread_mutex_unlock(&mu);
    pthread_mutex_lock(&mu); stock = s + 1; pthread_mutex_unlock(&mu);
    ATOMGRIND_ATOMIC_END();
  }
  return 0;
}
int main() { pthread_t a, b; pthread_barrier_init(&start, 0, 2); pthread_create(&a,0,w,0); pthread_create(&b,0,w,0); pthread_join(a,0); pthread_join(b,0); printf("%d\n", stock); return 0; }
