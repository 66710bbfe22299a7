/* Correct: a region whose only shared access is one atomic
 * read-modify-write.
 *
 * Each region does one __atomic_fetch_add on the shared counter plus work
 * on the thread's own stack.  A single atomic instruction cannot be
 * interleaved, and a region with one shared event is trivially
 * serializable against anything; another thread also adds outside any
 * region (unary transactions).  Native check: the final count is exact. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 400

static long counter;

static void *worker(void *arg)
{
   long id = (long)arg;
   long mine[4] = { 0 };
   for (int i = 0; i < ITERS; i++) {
      if (id == 0) {
         __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);      /* outside regions */
         continue;
      }
      ATOMGRIND_ATOMIC_BEGIN();
      long before = __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
      mine[i % 4] += before & 1;
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%s\n", counter == (long)THREADS * ITERS ? "consistent" : "INCONSISTENT");
   return 0;
}
