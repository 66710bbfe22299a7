/* race_aio.c -- glibc's POSIX AIO: a helper thread runs the request.
 * --check=races, argv[1]:
 *   wait   aio_read, wait with aio_suspend, then read the buffer -> clean
 *          (glibc's own race on the request's state is suppressed:
 *          atomgrind.supp)
 *   early  read the buffer before the request is done           -> race
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[256];

int main(int argc, char **argv)
{
   int early = argc > 1 && strcmp(argv[1], "early") == 0;
   int fd = open("/proc/self/exe", O_RDONLY);
   if (fd < 0) return 1;
   struct aiocb cb;
   memset(&cb, 0, sizeof cb);
   cb.aio_fildes = fd;
   cb.aio_buf = buf;
   cb.aio_nbytes = sizeof buf;
   if (aio_read(&cb) != 0) return 1;
   int sum = 0;
   if (early)
      for (unsigned i = 0; i < sizeof buf; i++) sum += buf[i];
   const struct aiocb *list[1] = { &cb };
   while (aio_error(&cb) == EINPROGRESS) aio_suspend(list, 1, NULL);
   if (aio_return(&cb) <= 0) return 1;
   for (unsigned i = 0; i < sizeof buf; i++) sum += buf[i];
   printf("%d\n", sum != 0);
   close(fd);
   return 0;
}
