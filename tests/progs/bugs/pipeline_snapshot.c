/* Bug: a snapshot of the two ends of a pipeline, read in two lock holds
 * (a violation that needs three threads in a particular order).
 *
 * Items flow intake -> middle queue -> output; each hand-off is a region
 * holding both locks it touches (atomic by itself).  The monitor computes
 * "in flight = entered - finished": it reads `entered` under the intake
 * lock, unlocks, then reads `finished` under the output lock.  If an item
 * enters AND leaves between its two reads, the monitor sees it finished
 * but not entered (in flight < 0).  Interleaving: M reads entered; the
 * intake thread takes an item (entered++, mid++); the output thread moves
 * it (mid--, finished++); M reads finished.  Cycle: through all three,
 * M's read of `entered` precedes I's write (M -> I), I's write of `mid`
 * precedes O's read of it (I -> O), O's write of `finished` precedes M's
 * read (O -> M).  Data: `entered`, `mid`, `finished`.
 * Native symptom: "negative snapshots" > 0. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define ITEMS 300
#define SNAPSHOTS 150

static pthread_mutex_t in_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mid_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static long entered, mid, finished;
static int negative;

static void *intake(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITEMS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&in_mu);
      pthread_mutex_lock(&mid_mu);
      entered++;
      mid++;
      pthread_mutex_unlock(&mid_mu);
      pthread_mutex_unlock(&in_mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *output(void *arg)
{
   (void)arg;
   long moved = 0;
   while (moved < ITEMS) {
      long before = moved;
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mid_mu);
      pthread_mutex_lock(&out_mu);
      if (mid > 0) {
         mid--;
         finished++;
         moved++;
      }
      pthread_mutex_unlock(&out_mu);
      pthread_mutex_unlock(&mid_mu);
      ATOMGRIND_ATOMIC_END();
      if (moved == before) sched_yield();              /* nothing to move yet */
   }
   return NULL;
}

static void *monitor(void *arg)
{
   (void)arg;
   for (int i = 0; i < SNAPSHOTS; i++) {
      long e, f;
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&in_mu);
      e = entered;
      pthread_mutex_unlock(&in_mu);
      pthread_mutex_lock(&out_mu);
      f = finished;
      pthread_mutex_unlock(&out_mu);
      ATOMGRIND_ATOMIC_END();
      if (e - f < 0) negative++;
   }
   return NULL;
}

int main(void)
{
   pthread_t t[3];
   pthread_create(&t[0], NULL, monitor, NULL);
   pthread_create(&t[1], NULL, intake, NULL);
   pthread_create(&t[2], NULL, output, NULL);
   for (int i = 0; i < 3; i++)
      pthread_join(t[i], NULL);
   printf("negative snapshots %d\n", negative);
   return 0;
}
