/* Two races in a fixed order, for the exact text of race reports: thread
 * #2 writes `shared` under a lock and a heap block (allocated by main, #1)
 * without one, then lets thread #3 go by a SysV message (which atomgrind
 * does not model: a pipe would order them, ag_fd.c); thread #3 writes both
 * with no lock.  Thread #2 no longer holds the lock when thread #3's
 * writes are reported: the locks shown for it are those of its access. */
#include "common.h"
#include <sys/msg.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int shared;
static long *block;
static int go;                       /* a SysV message queue */

static void *first(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&mu);
   shared = 1;
   pthread_mutex_unlock(&mu);
   block[2] = 1;
   struct { long type; char c; } m = { 1, 0 };
   if (msgsnd(go, &m, 1, 0) != 0) exit(1);
   return NULL;
}

static void *second(void *arg)
{
   (void)arg;
   struct { long type; char c; } m;
   if (msgrcv(go, &m, 1, 0, 0) != 1) exit(1);
   shared = 2;
   block[2] = 2;
   return NULL;
}

int main(void)
{
   block = malloc(8 * sizeof *block);
   if (!block || (go = msgget(IPC_PRIVATE, 0600)) < 0) return 1;
   pthread_t a = spawn(first, NULL), b = spawn(second, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   free(block); msgctl(go, IPC_RMID, NULL);
   return 0;
}
