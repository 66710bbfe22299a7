/* A lock's memory freed and reused for a new lock, which a racing access
 * holds: the race report says where the new lock was first acquired, not
 * the old one (gone with its memory, as its lock orders are).  The mutex
 * lives in a heap object and is set up by assignment, as C++'s std::mutex
 * is (no init, no destroy).  Thread #2 locks and unlocks the first one;
 * the object is freed, a new one gets the same block (printed otherwise);
 * thread #3 writes x holding the new mutex, and main writes x later with
 * no lock and no order: one race, the lock thread #3 held first acquired
 * by thread #3. */
#include "common.h"

struct obj { pthread_mutex_t m; long pad[4]; };
static struct obj *p;
static int x;

static struct obj *new_obj(void)
{
   struct obj *o = malloc(sizeof *o);
   pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
   o->m = init;
   return o;
}

static void *first(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&p->m);
   pthread_mutex_unlock(&p->m);
   return NULL;
}

static void *second(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&p->m);
   x = 1;
   pthread_mutex_unlock(&p->m);
   return NULL;
}

int main(void)
{
   p = new_obj();
   pthread_join(spawn(first, NULL), NULL);
   void *old = p;
   free(p);
   p = new_obj();
   if ((void *)p != old) printf("not at the same address\n");
   pthread_t t = spawn(second, NULL);
   ms_sleep(500);
   x = 2;
   pthread_join(t, NULL);
   free(p);
   printf("done\n");
   return 0;
}
