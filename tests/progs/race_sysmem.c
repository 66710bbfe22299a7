/* Memory that system calls read and write, selected by argv[1]:
 *   read        a thread read()s a file into buf; main joins it, reads buf  -> clean
 *   read_racy   another thread reads buf while nothing orders the read()    -> race
 *   write       main fills buf, then a thread write()s it to /dev/null      -> clean
 *   write_racy  another thread changes buf after the write() with no order  -> race
 *   stat_racy   fstat() fills a shared struct another thread reads         -> race
 * The kernel's accesses are the calling thread's, at the call. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *mode;
static char buf[64];
static struct stat st;

static void *caller(void *arg)
{
   (void)arg;
   if (!strncmp(mode, "read", 4)) {
      int fd = open("/proc/self/exe", O_RDONLY);
      if (fd < 0 || read(fd, buf, sizeof buf) != sizeof buf) exit(2);
      close(fd);
   } else if (!strncmp(mode, "write", 5)) {
      int fd = open("/dev/null", O_WRONLY);
      if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf) exit(2);
      close(fd);
   } else if (!strncmp(mode, "stat", 4)) {
      if (fstat(0, &st) != 0) exit(2);
   }
   return NULL;
}

static void *other(void *arg)
{
   (void)arg;
   ms_sleep(300);                     /* after the call; nothing orders it */
   if (!strcmp(mode, "read_racy")) return (void *)(long)buf[1];
   if (!strcmp(mode, "write_racy")) buf[2] = 'w';
   if (!strcmp(mode, "stat_racy")) return (void *)(long)st.st_mode;
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "read";
   if (!strcmp(mode, "write")) memset(buf, 'm', sizeof buf);
   pthread_t c = spawn(caller, NULL), o = spawn(other, NULL);
   pthread_join(c, NULL);
   pthread_join(o, NULL);
   return buf[1] == 'q';       /* main reads what the calls did */
}
