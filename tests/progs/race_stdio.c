/* Threads that print and use files, selected by argv[1]:
 *   printf    two threads printf/puts/putchar to stdout          -> clean
 *   fprintf   two threads fprintf to stderr (unbuffered)         -> clean
 *   flockfile two threads print lines under flockfile            -> clean
 *   file      two threads fwrite one FILE, then each fopen/fread -> clean
 *   read      two threads fgets/fread/getc from one FILE         -> clean
 *   exit      a detached thread prints forever; main returns while it
 *             does (exit flushes stdout without the FILE lock)    -> clean
 *   racy      as printf, and both bump an unlocked counter       -> race
 *   racybuf   one thread fills a buffer the other prints, no sync -> race
 *             (inside stdio's strlen/memcpy: the default
 *             suppressions must not hide the program's own data)
 * glibc's stdio works under its own lock (_IO_lock_t, and flockfile),
 * which the tool cannot see: without a model or a suppression every
 * program that prints from threads reports races inside libc. */
#include "common.h"
#include <unistd.h>

static const char *mode;
static long counter;
static FILE *shared;
static char text[64];

static void *worker(void *arg)
{
   long id = (long)arg;
   char name[64], buf[64];
   if (!strcmp(mode, "racybuf")) {
      if (id == 0) { ms_sleep(300); fputs(text, stdout); printf("%s\n", text); }
      else strcpy(text, "a line written without any ordering\n");
      return NULL;
   }
   if (!strcmp(mode, "exit")) {
      for (long i = 0;; i++) printf("thread %ld line %ld\n", id, i);
   }
   for (int i = 0; i < 20; i++) {
      if (!strcmp(mode, "printf") || !strcmp(mode, "racy")) {
         printf("thread %ld line %d\n", id, i);
         puts("puts");
         putchar('x'); putchar('\n');
         if (!strcmp(mode, "racy")) counter++;
      } else if (!strcmp(mode, "fprintf")) {
         fprintf(stderr, "thread %ld line %d\n", id, i);
         fputs("fputs\n", stderr);
      } else if (!strcmp(mode, "flockfile")) {
         flockfile(stdout);
         printf("thread %ld ", id);
         putchar_unlocked('y');
         printf(" line %d\n", i);
         funlockfile(stdout);
         fflush(stdout);
      } else if (!strcmp(mode, "file")) {
         fprintf(shared, "thread %ld line %d\n", id, i);
         fwrite("abc\n", 1, 4, shared);
      } else if (!strcmp(mode, "read")) {
         if (!fgets(buf, sizeof buf, shared)) exit(2);
         if (fread(buf, 1, 4, shared) != 4 || getc(shared) == EOF) exit(2);
      }
   }
   if (!strcmp(mode, "file")) {
      snprintf(name, sizeof name, "/tmp/ag_stdio_%d_%ld", (int)getpid(), id);
      FILE *f = fopen(name, "w+");
      fputs("hello\n", f);
      rewind(f);
      if (!fgets(buf, sizeof buf, f)) exit(2);
      fclose(f);
      unlink(name);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "printf";
   if (!strcmp(mode, "exit")) {
      pthread_detach(spawn(worker, (void *)0));
      ms_sleep(300);
      printf("main exits\n");
      return 0;
   }
   if (!strcmp(mode, "file") || !strcmp(mode, "read")) shared = tmpfile();
   if (!strcmp(mode, "read")) {
      for (int i = 0; i < 100; i++) fputs("0123456789\n", shared);
      rewind(shared);
   }
   pthread_t a = spawn(worker, (void *)0), b = spawn(worker, (void *)1);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (shared) fclose(shared);
   return 0;
}
