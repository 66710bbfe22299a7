/* A thread that holds more locks at once than lock sets record (64):
 * its write of `x` under 70 locks races with thread #3's, whose report
 * says the earlier access's locks are not known; its write of `y` after
 * it released them all says none again.  A SysV message orders the
 * threads without ordering their accesses (see race_report.c). */
#include "common.h"
#include <sys/msg.h>

#define NLOCKS 70
static pthread_mutex_t mu[NLOCKS];
static int x, y;
static int go;

static void *first(void *arg)
{
   (void)arg;
   for (int i = 0; i < NLOCKS; i++) pthread_mutex_lock(&mu[i]);
   x = 1;
   for (int i = NLOCKS - 1; i >= 0; i--) pthread_mutex_unlock(&mu[i]);
   y = 1;
   struct { long type; char c; } m = { 1, 0 };
   if (msgsnd(go, &m, 1, 0) != 0) exit(1);
   return NULL;
}

static void *second(void *arg)
{
   (void)arg;
   struct { long type; char c; } m;
   if (msgrcv(go, &m, 1, 0, 0) != 1) exit(1);
   x = 2;
   y = 2;
   return NULL;
}

int main(void)
{
   for (int i = 0; i < NLOCKS; i++) pthread_mutex_init(&mu[i], NULL);
   if ((go = msgget(IPC_PRIVATE, 0600)) < 0) return 1;
   pthread_t a = spawn(first, NULL), b = spawn(second, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   msgctl(go, IPC_RMID, NULL);
   return 0;
}
