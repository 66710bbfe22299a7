/* Lock-order coverage counts a lock's taker at the program's call that
 * took it.  main's relock of an error-checking mutex it holds waits for
 * it and fails (EDEADLK); the trylock of another lock that follows is
 * counted at the trylock's call, not at the failed wait's
 * (tests/test_sched_points.py, LockOrderCoverage). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t l1, l2 = PTHREAD_MUTEX_INITIALIZER;

static void *other(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&l1);
   pthread_mutex_unlock(&l1);
   pthread_mutex_lock(&l2);
   pthread_mutex_unlock(&l2);
   return NULL;
}

int main(void)
{
   pthread_mutexattr_t a;
   pthread_t t;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
   pthread_mutex_init(&l1, &a);
   pthread_create(&t, NULL, other, NULL);
   pthread_mutex_lock(&l1);
   int again = pthread_mutex_lock(&l1);        /* RELOCK: fails */
   pthread_mutex_unlock(&l1);
   if (pthread_mutex_trylock(&l2) == 0)        /* TRY */
      pthread_mutex_unlock(&l2);
   pthread_join(t, NULL);
   printf("relock %s\n", again == EDEADLK ? "refused" : "taken");
   return 0;
}
