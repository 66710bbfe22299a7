/* fork() from a multithreaded program, selected by argv[1]:
 *   clean  a detached thread is still running (sleeping) at the fork;
 *          the child starts a thread (glibc gives it the vanished thread's
 *          stack) and joins it                                        -> clean
 *   racy   the same, and the child's two threads both bump a counter   -> race
 * Run with --trace-children=yes: the child's report is the one that
 * counts.  In the child only the forking thread exists. */
#include "common.h"
#include <sys/wait.h>
#include <unistd.h>

static long counter;

static void *sleeper(void *arg)
{
   (void)arg;
   ms_sleep(2000);
   return NULL;
}

static void *bump(void *arg)
{
   (void)arg;
   for (int i = 0; i < 100; i++) counter++;
   return NULL;
}

int main(int argc, char **argv)
{
   int racy = argc > 1 && !strcmp(argv[1], "racy");
   pthread_t s = spawn(sleeper, NULL);
   pthread_detach(s);
   ms_sleep(100);                       /* the sleeper runs */
   pid_t pid = fork();
   if (pid == 0) {
      pthread_t a = spawn(bump, NULL);
      if (racy) {
         pthread_t b = spawn(bump, NULL);
         pthread_join(b, NULL);
      }
      pthread_join(a, NULL);
      _exit(0);
   }
   int status;
   if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
   return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
