/* Bug: check-then-act where each step holds the lock.
 *
 * A ticket office sells seats: "if a seat is left, sell one".  The check
 * (seats > 0) and the act (seats--) each take the mutex, but the lock is
 * dropped between them, so the region is not atomic although there is no
 * data race.  Interleaving that breaks it: thread A checks (1 seat left),
 * thread B checks (1 seat left) and sells, A sells: the last seat is sold
 * twice and `seats` goes negative.  Cycle: A's read of `seats` precedes
 * B's write (A -> B), B's write precedes A's write (B -> A).
 * Data: the global `seats`.  Native symptom: "oversold" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ROUNDS 60          /* the office is refilled this many times */
#define SEATS 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int seats;
static int sold[THREADS];
static pthread_barrier_t refill;

static int seats_left(void)
{
   pthread_mutex_lock(&mu);
   int n = seats;
   pthread_mutex_unlock(&mu);
   return n;
}

static void take_seat(void)
{
   pthread_mutex_lock(&mu);
   seats--;
   pthread_mutex_unlock(&mu);
}

static void *clerk(void *arg)
{
   long id = (long)arg;
   for (int r = 0; r < ROUNDS; r++) {
      pthread_barrier_wait(&refill);     /* main refills between rounds */
      for (int i = 0; i < SEATS; i++) {
         ATOMGRIND_ATOMIC_BEGIN();
         if (seats_left() > 0) {
            take_seat();
            sold[id]++;
         }
         ATOMGRIND_ATOMIC_END();
      }
      pthread_barrier_wait(&refill);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   pthread_barrier_init(&refill, NULL, THREADS + 1);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, clerk, (void *)i);
   int oversold = 0;
   for (int r = 0; r < ROUNDS; r++) {
      seats = SEATS;
      pthread_barrier_wait(&refill);
      pthread_barrier_wait(&refill);
      if (seats < 0) oversold += -seats;
   }
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("oversold %d\n", oversold);
   return 0;
}
