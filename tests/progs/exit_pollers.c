/* main returns while other threads still run: two poll a flag that is
 * never set, one yielding and one not, and one waits on a condition
 * variable that nobody signals.  The exit lets the others run first
 * (ag_sched.c: ag_sched_exit), but only for a while: pollers hand the
 * turn to each other forever, and the run must still end, cleanly. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static volatile int stop;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *yielder(void *arg)
{
   (void)arg;
   while (!stop) sched_yield();
   return NULL;
}

static void *spinner(void *arg)
{
   (void)arg;
   unsigned long n = 0;
   while (!stop) n++;
   return (void *)n;
}

static void *sleeper(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   while (!stop) pthread_cond_wait(&never, &m);
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(void)
{
   pthread_t t[4];
   pthread_create(&t[0], NULL, yielder, NULL);
   pthread_create(&t[1], NULL, yielder, NULL);
   pthread_create(&t[2], NULL, spinner, NULL);
   pthread_create(&t[3], NULL, sleeper, NULL);
   puts("main returns");
   return 0;
}
