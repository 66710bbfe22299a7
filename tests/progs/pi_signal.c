/* A priority-inheritance mutex whose waiter gets a signal: Valgrind's
 * core returns the interrupted FUTEX_LOCK_PI as a success and glibc's
 * pthread_mutex_lock believes it, so the waiter runs on as a holder while
 * main still holds the mutex.  main's unlock is no misuse       -> clean
 * (DRD's pth_mutex_signal).  Sleeps give the order; no data is shared. */
#include "common.h"
#include <signal.h>

static pthread_mutex_t m;

static void handler(int sig) { (void)sig; }

static void *contender(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(void)
{
   pthread_mutexattr_t at;
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = handler;
   sigaction(SIGUSR1, &sa, NULL);
   pthread_mutexattr_init(&at);
   pthread_mutexattr_setprotocol(&at, PTHREAD_PRIO_INHERIT);
   pthread_mutex_init(&m, &at);
   pthread_mutex_lock(&m);
   pthread_t t = spawn(contender, NULL);
   ms_sleep(300);                       /* the contender waits in the lock */
   pthread_kill(t, SIGUSR1);
   ms_sleep(300);
   pthread_mutex_unlock(&m);
   pthread_join(t, NULL);
   pthread_mutex_destroy(&m);
   return 0;
}
