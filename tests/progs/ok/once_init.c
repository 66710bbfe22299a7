/* Correct: pthread_once initialisation inside a region, then reads.
 *
 * Every region calls pthread_once (whose routine fills the shared table)
 * and then reads the table.  The routine runs exactly once and every
 * other caller returns from pthread_once only after it finished, so every
 * region's reads follow the one write phase; after that the table is
 * read-only (reads do not conflict).  Per-thread results in own slots.
 * Native check: the sums. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 200
#define N 32

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int table[N];
static long result[THREADS];

static void fill(void)
{
   for (int i = 0; i < N; i++) table[i] = i + 1;
}

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_once(&once, fill);
      result[id] += table[i % N];
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   long want = 0, sum = 0;
   for (int i = 0; i < ITERS; i++) want += i % N + 1;
   int ok = 1;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      ok &= result[i] == want;
      sum += result[i];
   }
   printf("%s\n", ok ? "consistent" : "INCONSISTENT");
   return 0;
}
