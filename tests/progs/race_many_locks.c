/* A thread that holds more locks at once than lock sets record (64):
 * its write of `x` under 70 locks races with thread #3's, whose report
 * says the earlier access's locks are not known; its write of `y` after
 * it released them all says none again.  A pipe orders the threads
 * without ordering their accesses (see race_report.c). */
#include "common.h"
#include <unistd.h>

#define NLOCKS 70
static pthread_mutex_t mu[NLOCKS];
static int x, y;
static int go[2];

static void *first(void *arg)
{
   (void)arg;
   for (int i = 0; i < NLOCKS; i++) pthread_mutex_lock(&mu[i]);
   x = 1;
   for (int i = NLOCKS - 1; i >= 0; i--) pthread_mutex_unlock(&mu[i]);
   y = 1;
   char c = 0;
   if (write(go[1], &c, 1) != 1) exit(1);
   return NULL;
}

static void *second(void *arg)
{
   (void)arg;
   char c;
   if (read(go[0], &c, 1) != 1) exit(1);
   x = 2;
   y = 2;
   return NULL;
}

int main(void)
{
   for (int i = 0; i < NLOCKS; i++) pthread_mutex_init(&mu[i], NULL);
   if (pipe(go) != 0) return 1;
   pthread_t a = spawn(first, NULL), b = spawn(second, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
