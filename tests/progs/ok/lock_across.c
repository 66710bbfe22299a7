/* Correct: check-then-act with the mutex held across the whole region.
 *
 * Clerks sell seats ("if a seat is left, sell one") and a restocker adds
 * seats; every region takes the one mutex before its first access to
 * `seats` and releases it after its last, so regions on `seats` run one
 * after the other in every interleaving (a lock held across the region is
 * two-phase locking with one lock).  `sold` is a per-thread slot.
 * Native check: sold + left == stocked. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define CLERKS 3
#define ITERS 300

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int seats = 10, stocked = 10;
static int sold[CLERKS];

static void *clerk(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      if (seats > 0) {
         seats--;
         sold[id]++;
      }
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *restocker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS / 2; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      seats += 2;
      stocked += 2;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[CLERKS], r;
   for (long i = 0; i < CLERKS; i++)
      pthread_create(&t[i], NULL, clerk, (void *)i);
   pthread_create(&r, NULL, restocker, NULL);
   int total = 0;
   for (int i = 0; i < CLERKS; i++) {
      pthread_join(t[i], NULL);
      total += sold[i];
   }
   pthread_join(r, NULL);
   printf("%s\n", total + seats == stocked ? "consistent" : "INCONSISTENT");
   return 0;
}
