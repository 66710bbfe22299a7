/* Correct: data written before the threads start, only read while they
 * run, then read again by main after the joins.
 *
 * main fills `table` before pthread_create (creation orders its writes
 * before the threads' events); the threads' regions only read the table
 * (reads never conflict with reads) and write their own slot of `found`.
 * main reads `found` after pthread_join.  No two concurrent regions
 * conflict, so every interleaving is serializable. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define N 256
#define LOOKUPS 300

static int table[N];
static long found[THREADS];

static void *reader(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < LOOKUPS; i++) {
      int key = (int)((i * 7 + id * 13) % N);
      ATOMGRIND_ATOMIC_BEGIN();
      int lo = 0, hi = N - 1;             /* binary search: several reads */
      while (lo < hi) {
         int mid = (lo + hi) / 2;
         if (table[mid] < key * 3) lo = mid + 1; else hi = mid;
      }
      if (table[lo] == key * 3) found[id]++;
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (int i = 0; i < N; i++) table[i] = i * 3;
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, reader, (void *)i);
   long total = 0;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      total += found[i];
   }
   printf("%s\n", total == (long)THREADS * LOOKUPS ? "consistent" : "INCONSISTENT");
   return 0;
}
