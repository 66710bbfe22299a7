/* A lock's memory freed and reused for a new lock: the new lock is not the
 * old one, so its acquire is not ordered after the old one's release.
 * Thread A's region locks and unlocks the mutex of a heap object, frees the
 * object, and later reads y; thread B meanwhile gets the same block back
 * (printed: the test checks the address is reused), makes a new mutex
 * there -- with pthread_mutex_init, or with "static" by assigning
 * PTHREAD_MUTEX_INITIALIZER -- locks it and writes y.  B's write breaks
 * nothing A's region depends on through that lock: no violation. */
#include "common.h"

struct obj { pthread_mutex_t m; long pad[4]; };
static int y, use_static;

static void *a_thread(void *arg)
{
   (void)arg;
   struct obj *p = malloc(sizeof *p);
   pthread_mutex_init(&p->m, NULL);
   printf("first %p\n", (void *)p);
   fflush(stdout);
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&p->m);
   pthread_mutex_unlock(&p->m);
   free(p);
   ms_sleep(800);
   int v = y;
   ATOMGRIND_ATOMIC_END();
   return (void *)(long)v;
}

static void *b_thread(void *arg)
{
   (void)arg;
   ms_sleep(300);
   struct obj *q = malloc(sizeof *q);
   if (use_static) {
      pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
      q->m = init;
   } else {
      pthread_mutex_init(&q->m, NULL);
   }
   pthread_mutex_lock(&q->m);
   y = 1;
   pthread_mutex_unlock(&q->m);
   printf("second %p\n", (void *)q);
   free(q);
   return NULL;
}

int main(int argc, char **argv)
{
   use_static = argc > 1 && strcmp(argv[1], "static") == 0;
   pthread_t a = spawn(a_thread, NULL), b = spawn(b_thread, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
