/* Signals order: installing a handler and sending a signal happen before
 * the handler runs.  argv[1]:
 *   clean   main sets x, installs the handler, then pthread_kill's the
 *           worker; the handler (in the worker) reads x          -> clean
 *   setuid  the same after a setuid() from main: glibc's setxid
 *           handler reads the command main wrote before its tgkill -> clean
 *   racy    the handler writes y; main reads it after a sleep, with
 *           nothing ordering the two                              -> race
 * Sleeps order the racy form; they are no synchronisation. */
#include "common.h"
#include <signal.h>
#include <unistd.h>

static int x, y, seen;
static volatile sig_atomic_t done;

static void handler(int sig)
{
   (void)sig;
   seen = x;
   y = 1;
   done = 1;
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < 200 && !done; i++) ms_sleep(5);
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "clean";
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = handler;
   pthread_t t = spawn(worker, NULL);
   x = 42;                               /* after the spawn: only the signal orders it */
   sigaction(SIGUSR1, &sa, NULL);
   if (!strcmp(mode, "setuid") && setuid(getuid()) != 0) return 1;
   pthread_kill(t, SIGUSR1);
   if (!strcmp(mode, "racy")) {
      ms_sleep(300);
      if (y != 1) return 1;
   }
   pthread_join(t, NULL);
   return seen != 42;
}
