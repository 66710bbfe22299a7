/* rss_of OUT CMD ARGS...: run CMD, write its peak RSS (KiB) to the file
 * OUT, exit with its status.  The kernel's peak RSS of a process keeps the
 * peak of the memory it had before its exec: measured as a child of the
 * test runner (Python, maybe hundreds of MiB), a run reports the runner's
 * size.  Forked from this small process it reports its own.  The run
 * dies with this process: a test's timeout kills only rss_of. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>            /* PR_SET_PDEATHSIG */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
   if (argc < 3) {
      fprintf(stderr, "usage: rss_of OUT CMD ARGS...\n");
      return 2;
   }
   pid_t self = getpid(), pid = fork();
   if (pid < 0) { perror("fork"); return 2; }
   if (pid == 0) {
      /* kept across exec; the check covers a parent gone before it */
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self) _exit(126);
      execvp(argv[2], argv + 2);
      perror(argv[2]);
      _exit(127);
   }
   int status;
   struct rusage ru;
   if (wait4(pid, &status, 0, &ru) < 0) { perror("wait4"); return 2; }
   FILE *f = fopen(argv[1], "w");
   if (!f) { perror(argv[1]); return 2; }
   fprintf(f, "%ld\n", ru.ru_maxrss);
   fclose(f);
   return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
