/* Atomic regions that print on a shared FILE from three threads, one
 * stdio call per region, selected by argv[1] (run with
 * --atomic-fns=log_line; "marked" has its own regions):
 *   printf, puts, putchar         to stdout (buffered)            -> clean
 *   fprintf, fputs                to stderr (unbuffered)          -> clean
 *   fwrite, file                  to a FILE the program opened    -> clean
 *   marked   fprintf to that FILE in ATOMGRIND_ATOMIC_BEGIN/END   -> clean
 *   unlocked putc_unlocked on that FILE, no flockfile: the program's
 *            own (inlined) code races on the FILE's buffer pointer -> race
 *   bug      fprintf to that FILE, between a read of a shared count
 *            under a mutex and its write back under the mutex: a lost
 *            update, whatever stdio does                          -> reported
 * glibc's stdio takes the FILE's recursive lock inline (no function call
 * the tool can intercept), and tests the lock's owner before taking it. */
#include "common.h"

static const char *mode;
static FILE *out;
static long count;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* One stdio call per region: two calls in one region that another
   thread's output comes between are a real violation (the lines are
   interleaved), as two critical sections of one mutex would be. */
__attribute__((noinline)) void log_line(long id, int i)
{
   long v = 0;
   if (!strcmp(mode, "bug")) { pthread_mutex_lock(&mu); v = count; pthread_mutex_unlock(&mu); }
   if (!strcmp(mode, "printf")) printf("thread %ld line %d\n", id, i);
   else if (!strcmp(mode, "puts")) puts("a line from puts");
   else if (!strcmp(mode, "putchar")) putchar('x');
   else if (!strcmp(mode, "fprintf")) fprintf(stderr, "thread %ld line %d\n", id, i);
   else if (!strcmp(mode, "fputs")) fputs("a line from fputs\n", stderr);
   else if (!strcmp(mode, "fwrite")) fwrite("a line from fwrite\n", 1, 19, out);
   else if (!strcmp(mode, "unlocked")) { putc_unlocked('x', out); putc_unlocked('\n', out); }
   else fprintf(out, "thread %ld line %d\n", id, i);
   if (!strcmp(mode, "bug")) { pthread_mutex_lock(&mu); count = v + 1; pthread_mutex_unlock(&mu); }
}

static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < 20; i++) {
      if (!strcmp(mode, "marked")) {
         ATOMGRIND_ATOMIC_BEGIN();
         fprintf(out, "thread %ld line %d\n", id, i);
         ATOMGRIND_ATOMIC_END();
      } else {
         log_line(id, i);
      }
   }
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "printf";
   out = fopen("/dev/null", "w");
   if (!out) { perror("fopen"); return 1; }
   pthread_t t[3];
   for (long i = 0; i < 3; i++) t[i] = spawn(worker, (void *)i);
   for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
   fclose(out);
   fprintf(stderr, "count %ld\n", count);
   return 0;
}
