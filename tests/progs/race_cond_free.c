/* A waiter frees the condition variable it was woken on, selected by
 * argv[1] (ThreadSanitizer's cond_race):
 *   outside   the thread sets the flag under the mutex, unlocks, then
 *             signals; main, waiting, wakes and frees the struct: the
 *             signal may still be reading the condvar              -> race
 *   inside    the thread signals before it unlocks: main's relock orders
 *             the whole signal before the free                     -> clean
 * The thread sleeps first, so that main is waiting when it signals (the
 * wake-up is then what orders them, as far as it goes). */
#include "common.h"

struct ctx {
   pthread_mutex_t m;
   pthread_cond_t c;
   int done;
};

static int inside;

static void *signaller(void *arg)
{
   struct ctx *c = arg;
   ms_sleep(300);
   pthread_mutex_lock(&c->m);
   c->done = 1;
   if (inside) pthread_cond_signal(&c->c);
   pthread_mutex_unlock(&c->m);
   if (!inside) pthread_cond_signal(&c->c);
   return NULL;
}

int main(int argc, char **argv)
{
   inside = argc > 1 && !strcmp(argv[1], "inside");
   struct ctx *c = calloc(1, sizeof *c);
   pthread_mutex_init(&c->m, NULL);
   pthread_cond_init(&c->c, NULL);
   pthread_t t = spawn(signaller, c);
   pthread_mutex_lock(&c->m);
   while (!c->done) pthread_cond_wait(&c->c, &c->m);
   pthread_mutex_unlock(&c->m);
   free(c);
   pthread_join(t, NULL);
   return 0;
}
