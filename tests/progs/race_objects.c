/* The memory of pthread objects, selected by argv[1]:
 *   after_join      threads use a mutex, condvar, semaphore, barrier and rwlock;
 *                   main joins them, then destroys every object          -> clean
 *   last_user       the thread that waited last destroys, ordered by the
 *                   object itself (mutex, barrier's serial thread)        -> clean
 *   mutex_racy      a thread unlocks; main destroys the mutex unordered    -> race
 *   cond_racy       a thread signals; main destroys the condvar unordered  -> race
 *   barrier_racy    a thread passes a barrier of 1; main re-inits it       -> race
 *   free_racy       a thread unlocks a mutex in a heap struct; main frees  -> race
 *   use_destroyed   main destroys a mutex; a thread locks it later,
 *                   unordered                                            -> race
 *   use_freed       main frees a heap struct holding a mutex; a thread
 *                   locks that mutex later, unordered (the free's write
 *                   stays until the block is reused)                     -> race
 *   init_racy       a thread inits a mutex, locks and unlocks it; main
 *                   locks it later: only the lock would order the init  -> race
 * Sleeps order the racy forms; they are no synchronisation. */
#include "common.h"
#include <semaphore.h>

struct box { long pad; pthread_mutex_t m; };

static const char *mode;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mu2;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static struct box *box;
static int flag;

static void *worker(void *arg)
{
   long id = (long)arg;
   if (!strcmp(mode, "after_join") || !strcmp(mode, "last_user")) {
      pthread_mutex_lock(&mu);
      flag++;
      pthread_cond_broadcast(&cv);
      pthread_mutex_unlock(&mu);
      pthread_rwlock_rdlock(&rw);
      pthread_rwlock_unlock(&rw);
      if (id == 0) sem_post(&sem); else sem_wait(&sem);
      if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD
          && !strcmp(mode, "last_user"))
         pthread_barrier_destroy(&bar);
   } else if (!strcmp(mode, "mutex_racy")) {
      pthread_mutex_lock(&mu);
      pthread_mutex_unlock(&mu);
   } else if (!strcmp(mode, "cond_racy")) {
      pthread_cond_signal(&cv);
   } else if (!strcmp(mode, "barrier_racy")) {
      pthread_barrier_wait(&bar);
   } else if (!strcmp(mode, "free_racy")) {
      pthread_mutex_lock(&box->m);
      pthread_mutex_unlock(&box->m);
   } else if (!strcmp(mode, "use_freed")) {
      ms_sleep(300);                       /* main has freed box */
      pthread_mutex_lock(&box->m);
      pthread_mutex_unlock(&box->m);
   } else if (!strcmp(mode, "use_destroyed")) {
      ms_sleep(300);                       /* main has destroyed mu */
      pthread_mutex_lock(&mu);
      pthread_mutex_unlock(&mu);
   } else if (!strcmp(mode, "init_racy")) {
      pthread_mutex_init(&mu2, NULL);
      pthread_mutex_lock(&mu2);
      pthread_mutex_unlock(&mu2);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "after_join";
   int two = !strcmp(mode, "after_join") || !strcmp(mode, "last_user");
   pthread_barrier_init(&bar, NULL, two ? 2 : 1);
   sem_init(&sem, 0, 0);
   box = malloc(sizeof *box);
   pthread_mutex_init(&box->m, NULL);
   pthread_t a = spawn(worker, (void *)0), b = two ? spawn(worker, (void *)1) : 0;
   if (!strcmp(mode, "use_destroyed") || !strcmp(mode, "use_freed")) {
      if (mode[4] == 'd') pthread_mutex_destroy(&mu);
      else free(box);
      pthread_join(a, NULL);
      return 0;
   }
   if (!two) {
      ms_sleep(300);                       /* the thread is done; nothing says so */
      if (!strcmp(mode, "init_racy")) {
         pthread_mutex_lock(&mu2);
         pthread_mutex_unlock(&mu2);
      }
      if (!strcmp(mode, "mutex_racy")) pthread_mutex_destroy(&mu);
      if (!strcmp(mode, "cond_racy")) pthread_cond_destroy(&cv);
      if (!strcmp(mode, "barrier_racy")) pthread_barrier_init(&bar, NULL, 1);
      if (!strcmp(mode, "free_racy")) free(box);
      pthread_join(a, NULL);
      return 0;
   }
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   pthread_mutex_lock(&mu);                /* the last user: ordered by the mutex */
   pthread_mutex_unlock(&mu);
   pthread_mutex_destroy(&mu);
   pthread_cond_destroy(&cv);
   pthread_rwlock_destroy(&rw);
   sem_destroy(&sem);
   if (!strcmp(mode, "after_join")) pthread_barrier_destroy(&bar);
   pthread_mutex_destroy(&box->m);
   free(box);
   return flag != 2;
}
