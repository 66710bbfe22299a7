/* Two threads each read a file into a buffer of their own with read()
 * and scan it byte by byte, three times: the buffer is the thread's,
 * as if it had written it, so the scans are no scheduling points
 * (sched/ag_shared.c, ag_shared_written; tests/test_sched_points.py,
 * SystemCallBuffers).  Before, each of its words was met as a first
 * touch while the other thread could run: a point at each access until
 * a draw claimed it, some 16,000 points in all.  argv[1]: the file. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SIZE (32 << 10)

static const char *path;
static volatile unsigned long sums[2];

static void *scan(void *arg)
{
   long k = (long)arg;
   char *buf = malloc(SIZE);
   int fd = open(path, O_RDONLY);
   ssize_t n = fd < 0 ? -1 : read(fd, buf, SIZE);
   if (n <= 0) {
      perror(path);
      exit(1);
   }
   close(fd);
   for (int round = 0; round < 3; round++)
      for (ssize_t i = 0; i < n; i++) sums[k] += (unsigned char)buf[i];
   free(buf);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   path = argc > 1 ? argv[1] : argv[0];
   for (long k = 0; k < 2; k++) pthread_create(&t[k], NULL, scan, (void *)k);
   for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
   printf("sums %lu %lu\n", sums[0], sums[1]);
   return 0;
}
