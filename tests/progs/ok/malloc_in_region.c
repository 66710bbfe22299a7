/* Correct: regions that allocate, use and free their own memory.
 *
 * Each region mallocs a buffer, fills it, grows it with realloc, sums it
 * and frees it; calloc'd scratch too.  A block is used by one region only,
 * between its allocation and its free, and an address handed out again
 * belongs to a new block (a block's lifetime orders every use of its
 * address before the next owner's), so regions never conflict on program
 * data.  The allocator's bookkeeping, shared by all threads in reality,
 * is not program data.  Native check: the sums. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 200

static long result[THREADS];

static void *worker(void *arg)
{
   long id = (long)arg, total = 0;
   for (int i = 0; i < ITERS; i++) {
      int n = 8 + (int)((i + id) % 24);
      ATOMGRIND_ATOMIC_BEGIN();
      int *p = malloc(n * sizeof *p);
      for (int k = 0; k < n; k++) p[k] = k;
      p = realloc(p, 2 * n * sizeof *p);
      for (int k = n; k < 2 * n; k++) p[k] = k;
      long *scratch = calloc(4, sizeof *scratch);
      for (int k = 0; k < 2 * n; k++) scratch[k % 4] += p[k];
      total += scratch[0] + scratch[1] + scratch[2] + scratch[3];
      free(scratch);
      free(p);
      ATOMGRIND_ATOMIC_END();
   }
   result[id] = total;
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   int ok = 1;
   for (long id = 0; id < THREADS; id++) {
      pthread_join(t[id], NULL);
      long want = 0;
      for (int i = 0; i < ITERS; i++) {
         long n2 = 2 * (8 + (i + id) % 24);
         want += n2 * (n2 - 1) / 2;
      }
      ok &= result[id] == want;
   }
   printf("%s\n", ok ? "consistent" : "INCONSISTENT");
   return 0;
}
