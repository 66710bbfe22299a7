/* Data races and their absence, selected by argv[1]:
 *   counter   two threads increment a counter with no lock       -> race
 *   onesided  one thread locks, the other does not               -> race
 *   locked    both lock                                          -> clean
 *   bytes     adjacent bytes, one per thread                     -> clean
 *   atomics   both use __atomic_fetch_add                        -> clean
 *   mixed     one atomic add, one plain write of half the counter  -> race
 *             (a plain write of the whole counter is an atomic store of
 *             an atomic object, as a relaxed or release store compiles)
 *   sync      ordered by: semaphore, condvar, barrier, rwlock, once, join -> clean
 */
#include "common.h"
#include <semaphore.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static char bytes[2];
static const char *mode;

static sem_t sem;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flag;
static pthread_barrier_t bar;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static long sdata[6];

static void init_once(void) { sdata[4] = 1; }

static void *worker(void *arg)
{
   long id = (long)arg;
   if (!strcmp(mode, "counter")) {
      for (int i = 0; i < 1000; i++) counter++;
   } else if (!strcmp(mode, "onesided")) {
      for (int i = 0; i < 1000; i++) {
         if (id == 0) pthread_mutex_lock(&mu);
         counter++;
         if (id == 0) pthread_mutex_unlock(&mu);
      }
   } else if (!strcmp(mode, "locked")) {
      for (int i = 0; i < 1000; i++) {
         pthread_mutex_lock(&mu);
         counter++;
         pthread_mutex_unlock(&mu);
      }
   } else if (!strcmp(mode, "bytes")) {
      for (int i = 0; i < 1000; i++) bytes[id]++;
   } else if (!strcmp(mode, "atomics")) {
      for (int i = 0; i < 1000; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
   } else if (!strcmp(mode, "mixed")) {
      if (id == 0) for (int i = 0; i < 1000; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
      else { ms_sleep(100); *(volatile int *)&counter = 5; }
   } else if (!strcmp(mode, "sync")) {
      if (id == 0) {
         sdata[0] = 1; sem_post(&sem);                       /* semaphore */
         pthread_mutex_lock(&mu); sdata[1] = 1; flag = 1;    /* condvar */
         pthread_cond_signal(&cv); pthread_mutex_unlock(&mu);
         sdata[2] = 1; pthread_barrier_wait(&bar);           /* barrier */
         pthread_rwlock_wrlock(&rw); sdata[3] = 1; pthread_rwlock_unlock(&rw);
         pthread_once(&once, init_once);
      } else {
         sem_wait(&sem); sdata[0]++;
         pthread_mutex_lock(&mu);
         while (!flag) pthread_cond_wait(&cv, &mu);
         pthread_mutex_unlock(&mu);
         sdata[1]++;
         pthread_barrier_wait(&bar); sdata[2]++;
         pthread_rwlock_rdlock(&rw); long v = sdata[3]; pthread_rwlock_unlock(&rw);
         pthread_once(&once, init_once);
         sdata[5] = v + sdata[4];
      }
   }
   return NULL;
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "counter";
   sem_init(&sem, 0, 0);
   pthread_barrier_init(&bar, NULL, 2);
   pthread_t a = spawn(worker, (void *)0L), b = spawn(worker, (void *)1L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   counter++;                  /* ordered after both by the joins */
   sdata[5]++;
   printf("%s %ld\n", mode, counter);
   return 0;
}
