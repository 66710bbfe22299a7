/* exit_holding_lock.c -- a thread ends holding a mutex (a path that
 * forgot its unlock); the next thread to lock it waits forever, and main
 * waits for that one in a join.  Every schedule deadlocks.
 *   ./exit_holding_lock          the plain mutex: a deadlock
 *   ./exit_holding_lock robust   a robust mutex: the lock after the
 *                                owner's end returns EOWNERDEAD, no deadlock
 */
#define _GNU_SOURCE
#include <errno.h>     /* EOWNERDEAD */
#include <pthread.h>   /* threads, mutexes */
#include <stdio.h>     /* printf */
#include <string.h>    /* strcmp */

static pthread_mutex_t m;
static int work;

static void *forgetful(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   work++;
   return NULL;                     /* BAD: returns with m held */
}

static void *worker(void *arg)
{
   (void)arg;
   int rc = pthread_mutex_lock(&m);   /* waits for good unless m is robust */
   if (rc == EOWNERDEAD) pthread_mutex_consistent(&m);
   work++;
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   if (argc > 1 && strcmp(argv[1], "robust") == 0)
      pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
   pthread_mutex_init(&m, &a);
   pthread_t f, w;
   pthread_create(&f, NULL, forgetful, NULL);
   pthread_join(f, NULL);           /* it has ended, m still held */
   pthread_create(&w, NULL, worker, NULL);
   pthread_join(w, NULL);
   printf("done %d\n", work);
   return 0;
}
