/* Odd things a real process does: fork() with a region open in a thread,
 * a signal handler touching shared data, detached threads.  No crash and
 * no false report. */
#include "common.h"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void handler(int s) { (void)s; got++; }

static void *detached(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   ms_sleep(10);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(void)
{
   signal(SIGUSR1, handler);
   pthread_t t = spawn(detached, NULL);
   pthread_detach(t);
   pid_t pid = fork();
   if (pid == 0) {
      ATOMGRIND_ATOMIC_BEGIN();
      raise(SIGUSR1);
      ATOMGRIND_ATOMIC_END();
      _exit(got == 1 ? 0 : 3);
   }
   int st = 0;
   waitpid(pid, &st, 0);
   raise(SIGUSR1);
   ms_sleep(100);
   printf("child %d got %d\n", WEXITSTATUS(st), (int)got);
   return 0;
}
