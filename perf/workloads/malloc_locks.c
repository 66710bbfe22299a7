/* malloc_locks.c -- the worst cases of race mode's report data (issue 14,
 * item 5): two threads that only malloc and free (a stack recorded per
 * block) or only lock and unlock pairs of four mutexes (a lock-set change
 * per acquire and release).  Race-free.
 *
 *   malloc_locks malloc|locks
 *
 * Build: cc -O0 -g -pthread perf/workloads/malloc_locks.c -o malloc_locks
 * (-O0: an optimiser may delete a malloc whose block is freed unread). */
#include <pthread.h>
#include <stdlib.h>

#define ITERS 300000

static pthread_mutex_t mu[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static long sum[4];
static int mallocs;

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      if (mallocs) {
         char *p = malloc(16 + (i & 63));
         p[0] = (char)i;
         free(p);
         continue;
      }
      /* sum[i & 3] is guarded by mu[i & 3], one of the two taken */
      pthread_mutex_t *a = &mu[i & 3], *b = &mu[(i + 1 + id) & 3];
      if (a > b) { pthread_mutex_t *t = a; a = b; b = t; }
      pthread_mutex_lock(a);
      if (a != b) pthread_mutex_lock(b);
      sum[i & 3]++;
      if (a != b) pthread_mutex_unlock(b);
      pthread_mutex_unlock(a);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   mallocs = argc < 2 || argv[1][0] == 'm';
   pthread_t t[2];
   for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
   return 0;
}
