/* stdio_threads -- what glibc's stdio costs under the tool (ag_stdio.c):
 * THREADS threads each format and write LINES lines to one shared FILE
 * (/dev/null), each line in an atomic function (log_line), as a program
 * that logs from its workers does.
 *
 *     stdio_threads [THREADS [LINES]]      (defaults 3, 20000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *out;
static long lines = 20000;

__attribute__((noinline)) void log_line(long id, long i)
{
   fprintf(out, "thread %ld line %ld: %s\n", id, i, "some text to format");
}

static void *worker(void *arg)
{
   for (long i = 0; i < lines; i++) log_line((long)arg, i);
   return NULL;
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 3;
   if (argc > 2) lines = atol(argv[2]);
   if (n < 1 || n > 64 || lines < 0) { fprintf(stderr, "usage: stdio_threads [THREADS [LINES]]\n"); return 2; }
   out = fopen("/dev/null", "w");
   if (!out) { perror("/dev/null"); return 1; }
   pthread_t t[64];
   for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
   fclose(out);
   printf("%d threads, %ld lines each\n", n, lines);
   return 0;
}
