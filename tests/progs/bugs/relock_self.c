/* relock_self.c -- a thread locks a mutex it already holds (a second
 * "begin" where an "end" was meant).  A normal mutex waits forever: every
 * schedule deadlocks.
 *   ./relock_self             normal mutex (the static initialiser): a deadlock
 *   ./relock_self recursive   a recursive mutex: counted, no deadlock
 *   ./relock_self errorcheck  an error-checking one: EDEADLK, no deadlock
 */
#define _GNU_SOURCE
#include <pthread.h>   /* threads, mutexes */
#include <stdio.h>     /* printf */
#include <string.h>    /* strcmp */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *step(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   count++;
   int rc = pthread_mutex_lock(&m);   /* BAD: meant pthread_mutex_unlock */
   count++;
   if (rc == 0) pthread_mutex_unlock(&m);
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 1) {
      pthread_mutexattr_t a;
      pthread_mutexattr_init(&a);
      pthread_mutexattr_settype(&a, strcmp(argv[1], "recursive") == 0
                                    ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_ERRORCHECK);
      pthread_mutex_init(&m, &a);
   }
   pthread_t t;
   pthread_create(&t, NULL, step, NULL);
   pthread_join(t, NULL);
   printf("done %d\n", count);
   return 0;
}
