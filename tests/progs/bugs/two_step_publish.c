/* Bug: a two-field update published in two steps.
 *
 * The writer moves a rectangle: it updates `x` under the lock, unlocks,
 * then updates `y` under the lock again, so readers can see the new x with
 * the old y (a position the rectangle never had).  The writer's region is
 * the whole move; a reader's region (one lock hold, reading both) is
 * atomic by itself.  Interleaving: W writes x; R reads x and y; W writes
 * y.  Cycle: W's write of x precedes R's read (W -> R), R's read of y
 * precedes W's write (R -> W).  Data: the global struct `pos`.
 * Native symptom: "torn reads" > 0 (x == y is the invariant). */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define MOVES 300
#define READERS 2

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct { long x, y; } pos;
static int torn[READERS];

static void set_x(long v) { pthread_mutex_lock(&mu); pos.x = v; pthread_mutex_unlock(&mu); }
static void set_y(long v) { pthread_mutex_lock(&mu); pos.y = v; pthread_mutex_unlock(&mu); }

static void *mover(void *arg)
{
   (void)arg;
   for (long i = 1; i <= MOVES; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      set_x(i);
      set_y(i);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *viewer(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < MOVES; i++) {
      long x, y;
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      x = pos.x;
      y = pos.y;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
      if (x != y) torn[id]++;
   }
   return NULL;
}

int main(void)
{
   pthread_t w, r[READERS];
   pthread_create(&w, NULL, mover, NULL);
   for (long i = 0; i < READERS; i++)
      pthread_create(&r[i], NULL, viewer, (void *)i);
   pthread_join(w, NULL);
   int n = 0;
   for (int i = 0; i < READERS; i++) {
      pthread_join(r[i], NULL);
      n += torn[i];
   }
   printf("torn reads %d\n", n);
   return 0;
}
