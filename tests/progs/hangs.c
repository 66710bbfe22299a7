/* A program that never ends and is not deadlocked as atomgrind sees it: a
 * thread blocks reading a pipe that nobody writes (a system call, not a
 * lock), and main joins it.  A run of it is stopped by atomgrind-explore's
 * or atomgrind-infer's --timeout and counted as failing. */
#include <unistd.h>
#include "common.h"

static int fds[2];

static void *reader(void *arg)
{
   char c;
   (void)arg;
   if (read(fds[0], &c, 1) == 1) printf("never\n");
   return NULL;
}

int main(void)
{
   if (pipe(fds) != 0) return 2;
   pthread_t t = spawn(reader, NULL);
   pthread_join(t, NULL);
   printf("never\n");
   return 0;
}
