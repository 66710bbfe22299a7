/* race_files.c -- what a program does with files from four threads at
 * once, each with its own file in the directory argv[1]: fopen, fprintf,
 * getline, read, stat, opendir/readdir, tmpfile, and strerror once a
 * locale is set (glibc's gettext loads its catalogue with a double-checked
 * test), with output to stdout, stderr and one log FILE shared by all.
 * Nothing here races: --check=races is clean.  (glibc's string functions
 * read past the end of a string in 16- or 32-byte steps, into a
 * neighbouring block that another thread may allocate later.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *dir;
static FILE *shared_log;

static long write_and_read(const char *path, long id)
{
   FILE *f = fopen(path, "w");
   if (!f) return 0;
   for (int i = 0; i < 50; i++) fprintf(f, "line %d of %ld %.1f\n", i, id, i * 1.5);
   fclose(f);
   f = fopen(path, "r");
   char *line = NULL;
   size_t cap = 0;
   long sum = 0;
   while (getline(&line, &cap, f) > 0) sum += strtol(line + 5, NULL, 10);
   free(line);
   fclose(f);
   return sum;
}

static void *worker(void *arg)
{
   long id = (long)arg;
   char path[512], buf[256];
   snprintf(path, sizeof path, "%s/race_files.%ld", dir, id);
   for (int round = 0; round < 10; round++) {
      long sum = write_and_read(path, id);
      int fd = open(path, O_RDONLY);
      ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
      if (fd >= 0) close(fd);
      struct stat st;
      long size = stat(path, &st) == 0 ? (long)st.st_size : -1;
      DIR *d = opendir(dir);
      int entries = 0;
      while (d && readdir(d)) entries++;
      if (d) closedir(d);
      FILE *tmp = tmpfile();
      if (tmp) {
         fputs("scratch", tmp);
         rewind(tmp);
         if (!fgets(buf, sizeof buf, tmp)) buf[0] = 0;
         fclose(tmp);
      }
      printf("thread %ld round %d: sum %ld, read %zd, size %ld, %d entries\n",
             id, round, sum, got, size, entries > 0 ? 1 : 0);
      fprintf(stderr, "thread %ld: %s\n", id, strerror(ENOENT));
      fprintf(shared_log, "thread %ld round %d\n", id, round);
      fflush(shared_log);
   }
   unlink(path);
   return NULL;
}

int main(int argc, char **argv)
{
   /* not "C": glibc's gettext looks for a catalogue (C.UTF-8 is built in) */
   if (!setlocale(LC_ALL, "C.UTF-8")) setlocale(LC_ALL, "");
   dir = argc > 1 ? argv[1] : "/tmp";
   char log[512];
   snprintf(log, sizeof log, "%s/race_files.log", dir);
   shared_log = fopen(log, "w");
   if (!shared_log) return 1;
   pthread_t t[4];
   for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
   fclose(shared_log);
   unlink(log);
   return 0;
}
