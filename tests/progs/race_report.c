/* Two races in a fixed order, for the exact text of race reports: thread
 * #2 writes `shared` under a lock and a heap block (allocated by main,
 * thread #1) without one, then lets thread #3 go through a pipe (which
 * orders nothing for a happens-before detector); thread #3 writes both
 * with no lock.  Thread #2 no longer holds the lock when thread #3's
 * writes are reported: the locks shown for it are those of its access. */
#include "common.h"
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int shared;
static long *block;
static int go[2];

static void *first(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&mu);
   shared = 1;
   pthread_mutex_unlock(&mu);
   block[2] = 1;
   char c = 0;
   if (write(go[1], &c, 1) != 1) exit(1);
   return NULL;
}

static void *second(void *arg)
{
   (void)arg;
   char c;
   if (read(go[0], &c, 1) != 1) exit(1);
   shared = 2;
   block[2] = 2;
   return NULL;
}

int main(void)
{
   block = malloc(8 * sizeof *block);
   if (!block || pipe(go) != 0) return 1;
   pthread_t a = spawn(first, NULL), b = spawn(second, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   free(block);
   return 0;
}
