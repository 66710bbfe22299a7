/* Correct: readers and a writer on a pthread rwlock, each region holding
 * its lock throughout.
 *
 * Readers take the read lock, read both fields of `range`, and release;
 * the writer takes the write lock, updates both fields, releases.  Every
 * region holds the rwlock for all its accesses: readers only read (reads
 * do not conflict with reads) and a writer excludes everybody, so every
 * interleaving is serializable.  Native check: lo <= hi always. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define READERS 3
#define ITERS 300

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static struct { long lo, hi; } range = { 0, 10 };
static int bad[READERS];

static void *reader(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      long lo, hi;
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_rwlock_rdlock(&rw);
      lo = range.lo;
      hi = range.hi;
      pthread_rwlock_unlock(&rw);
      ATOMGRIND_ATOMIC_END();
      if (lo > hi) bad[id]++;
   }
   return NULL;
}

static void *writer(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS / 2; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_rwlock_wrlock(&rw);
      range.hi += 5;
      range.lo = range.hi - 3;
      pthread_rwlock_unlock(&rw);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t r[READERS], w;
   for (long i = 0; i < READERS; i++)
      pthread_create(&r[i], NULL, reader, (void *)i);
   pthread_create(&w, NULL, writer, NULL);
   int n = 0;
   for (int i = 0; i < READERS; i++) {
      pthread_join(r[i], NULL);
      n += bad[i];
   }
   pthread_join(w, NULL);
   printf("%s\n", n == 0 ? "consistent" : "INCONSISTENT");
   return 0;
}
