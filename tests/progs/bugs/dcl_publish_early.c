/* Bug: double-checked initialisation done wrong: the pointer is published
 * before the object it points to is filled in.
 *
 * get_config(i) checks the pointer without the lock; if it is NULL it
 * takes the lock, checks again, allocates, stores the pointer, and only
 * then fills the object.  A thread whose unlocked check sees the new
 * pointer uses the object before it is filled.  Interleaving: A stores
 * cfg[i] and has not yet written ->limit; B reads cfg[i] (not NULL) and
 * reads ->limit (0); A writes ->limit.  Cycle: A's write of cfg[i]
 * precedes B's read of it (A -> B), B's read of ->limit precedes A's write
 * of it (B -> A).  Data: the array `cfg` and the objects' `limit` fields.
 * Native symptom: "saw unfilled" > 0 (rare natively). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define CONFIGS 150

struct config { long limit; long scale; };
static struct config *cfg[CONFIGS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int unfilled[THREADS];

static long config_limit(int i)
{
   long limit;
   ATOMGRIND_ATOMIC_BEGIN();
   struct config *c = cfg[i];
   if (c == NULL) {
      pthread_mutex_lock(&mu);
      c = cfg[i];
      if (c == NULL) {
         c = calloc(1, sizeof *c);
         cfg[i] = c;                     /* published too early */
         c->scale = 10;
         c->limit = 100 + i;
      }
      pthread_mutex_unlock(&mu);
   }
   limit = c->limit;
   ATOMGRIND_ATOMIC_END();
   return limit;
}

static void *user(void *arg)
{
   long self = (long)arg;
   for (int i = 0; i < CONFIGS; i++)
      if (config_limit(i) == 0) unfilled[self]++;
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, user, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   int n = 0;
   for (int i = 0; i < THREADS; i++) n += unfilled[i];
   printf("saw unfilled %d\n", n);
   return 0;
}
