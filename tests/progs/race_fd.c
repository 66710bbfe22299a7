/* Ordering through file descriptors, selected by argv[1]; "X_racy" is
 * the same program with the shared data written after the call that
 * would have ordered it (so the other thread's read races):
 *   pipe        data, then write() a byte; the reader read()s it, then data  -> clean
 *   socketpair  the same with send/recv on a socketpair                     -> clean
 *   socket      data, then connect(); the server accept()s, then data        -> clean
 *   epoll       data, then epoll_ctl(ADD) of a ready eventfd; epoll_wait'er  -> clean
 *   close       a thread writes to a pipe; main joins it, then closes it    -> clean
 *   close_racy  the other thread closes the pipe with no ordering             -> race
 *   dup2        the other thread dup2()s onto the used descriptor: the kernel
 *               replaces it at once (ThreadSanitizer's fd_dup_norace2)       -> clean
 *   dup2_racy   a thread dup2()s onto a descriptor the other one closes     -> race
 * Sleeps make the racy forms' order certain; they order nothing. */
#include "common.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *mode;
static int racy;
static int fds[2], efd, epfd, lfd;
static long data;
static struct sockaddr_un addr;

static void *producer(void *arg)
{
   (void)arg;
   char c = 'x';
   if (!racy) data = 42;
   if (!strncmp(mode, "pipe", 4) || !strncmp(mode, "socketpair", 10)) {
      if (mode[0] == 'p') { if (write(fds[1], &c, 1) != 1) exit(2); }
      else if (send(fds[1], &c, 1, 0) != 1) exit(2);
   } else if (!strncmp(mode, "socket", 6)) {
      int s = socket(AF_UNIX, SOCK_STREAM, 0);
      ms_sleep(100);                   /* the server listens */
      if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) exit(3);
      if (racy) data = 42;
      ms_sleep(300);
      close(s);
      return NULL;
   } else if (!strncmp(mode, "epoll", 5)) {
      uint64_t one = 1;
      if (write(efd, &one, sizeof one) != sizeof one) exit(2);
      struct epoll_event ev = { .events = EPOLLIN, .data.fd = efd };
      if (epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) != 0) exit(4);
   }
   if (racy) data = 42;
   return NULL;
}

static void *consumer(void *arg)
{
   (void)arg;
   char c;
   if (!strncmp(mode, "pipe", 4)) {
      if (read(fds[0], &c, 1) != 1) exit(2);
   } else if (!strncmp(mode, "socketpair", 10)) {
      if (recv(fds[0], &c, 1, 0) != 1) exit(2);
   } else if (!strncmp(mode, "socket", 6)) {
      int s = accept(lfd, NULL, NULL);
      if (s < 0) exit(3);
      close(s);
   } else if (!strncmp(mode, "epoll", 5)) {
      struct epoll_event ev;
      if (epoll_wait(epfd, &ev, 1, -1) != 1) exit(4);
   }
   ms_sleep(200);                      /* the racy producer writes first */
   return (void *)data;
}

/* close/dup2: a user of the pipe's write end, and one that closes it */
static void *user(void *arg)
{
   (void)arg;
   if (!strcmp(mode, "dup2_racy")) {
      if (dup2(fds[0], fds[1]) != fds[1]) exit(2);
   } else if (write(fds[1], "u", 1) != 1) exit(2);
   return NULL;
}

static void *closer(void *arg)
{
   (void)arg;
   ms_sleep(300);
   if (!strcmp(mode, "dup2")) dup2(fds[0], fds[1]);
   else close(fds[1]);
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "pipe";
   racy = strstr(mode, "_racy") != NULL;
   if (!strncmp(mode, "socketpair", 10)) {
      if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) exit(1);
   } else if (!strncmp(mode, "socket", 6)) {
      addr.sun_family = AF_UNIX;
      snprintf(addr.sun_path, sizeof addr.sun_path, "/tmp/ag_race_fd_%d", (int)getpid());
      lfd = socket(AF_UNIX, SOCK_STREAM, 0);
      if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 1) != 0) exit(1);
   } else if (!strncmp(mode, "epoll", 5)) {
      efd = eventfd(0, 0);
      epfd = epoll_create1(0);
   } else if (pipe(fds) != 0) exit(1);

   if (!strncmp(mode, "close", 5) || !strncmp(mode, "dup2", 4)) {
      pthread_t u = spawn(user, NULL);
      if (!strcmp(mode, "close")) {
         pthread_join(u, NULL);
         close(fds[1]);
      } else {
         pthread_t c = spawn(closer, NULL);
         pthread_join(u, NULL);
         pthread_join(c, NULL);
      }
      return 0;
   }
   pthread_t c = spawn(consumer, NULL), p = spawn(producer, NULL);
   pthread_join(p, NULL);
   pthread_join(c, NULL);
   if (lfd) unlink(addr.sun_path);
   return 0;
}
