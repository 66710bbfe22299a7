/* sync_zoo.c -- every pthread/semaphore primitive that atomgrind's preload
 * library wraps, used correctly, with deterministic outcomes (the paths
 * that must fail -- EBUSY, ETIMEDOUT, EDEADLK, EPERM, EAGAIN -- are forced
 * by handshakes, not by timing luck).
 *
 * (Also pthread_exit, which the preload wraps too.)
 *
 * Every shared variable is protected by the primitive being exercised, so
 * under atomgrind the program has no data race and no atomicity
 * violation: the atomic regions it marks each hold one critical section
 * (or one barrier phase's private work) and must all be serializable.
 *
 * Prints "sync_zoo: ok" and exits 0; on any unexpected result prints the
 * failing check and exits 1.
 *
 * Build: cc -O0 -g -pthread -I<atomgrind dir> sync_zoo.c -o sync_zoo
 * (the include dir holds atomgrind.h; <valgrind/valgrind.h> must be found)
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomgrind.h"

static int failures;

#define CHECK(cond)                                                        \
   do {                                                                    \
      if (!(cond)) {                                                       \
         fprintf(stderr, "sync_zoo: %s:%d: check failed: %s\n",            \
                 __FILE__, __LINE__, #cond);                               \
         failures++;                                                       \
      }                                                                    \
   } while (0)

#define CHECK_RC(expr, want)                                               \
   do {                                                                    \
      int rc_ = (expr);                                                    \
      if (rc_ != (want)) {                                                 \
         fprintf(stderr, "sync_zoo: %s:%d: %s returned %d (%s), want %s\n",\
                 __FILE__, __LINE__, #expr, rc_, strerror(rc_), #want);    \
         failures++;                                                       \
      }                                                                    \
   } while (0)

/* sem_* report errors through errno */
#define CHECK_SEM(expr, want_errno)                                        \
   do {                                                                    \
      int rc_ = (expr), e_ = rc_ == 0 ? 0 : errno;                         \
      if (e_ != (want_errno)) {                                            \
         fprintf(stderr, "sync_zoo: %s:%d: %s gave errno %d (%s), want %s\n",\
                 __FILE__, __LINE__, #expr, e_, strerror(e_), #want_errno);\
         failures++;                                                       \
      }                                                                    \
   } while (0)

enum { NTHREADS = 4, ROUNDS = 50 };

/* absolute time `ms` milliseconds from now on `clock` */
static struct timespec deadline(clockid_t clock, long ms)
{
   struct timespec ts;
   clock_gettime(clock, &ts);
   ts.tv_sec += ms / 1000;
   ts.tv_nsec += (ms % 1000) * 1000000L;
   if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
   }
   return ts;
}

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
   int rc = pthread_create(t, NULL, fn, arg);
   if (rc != 0) {              /* nothing sensible can follow */
      fprintf(stderr, "sync_zoo: pthread_create: %s\n", strerror(rc));
      exit(1);
   }
}

static void join(pthread_t t)
{
   CHECK_RC(pthread_join(t, NULL), 0);
}

/* A one-shot handshake built on a semaphore: the zoo's way to force
   "the other thread is now inside X" without sleeping. */
static sem_t hs_go, hs_done;

/* ------------------------------------------------------------------ */
/* mutexes                                                              */
/* ------------------------------------------------------------------ */

static pthread_mutex_t mu_plain = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mu_dyn, mu_rec, mu_err;
static long mu_counter;         /* under mu_dyn */
static long rec_counter;        /* under mu_rec */

static void *mutex_worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ROUNDS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      CHECK_RC(pthread_mutex_lock(&mu_dyn), 0);
      mu_counter++;
      CHECK_RC(pthread_mutex_unlock(&mu_dyn), 0);
      ATOMGRIND_ATOMIC_END();

      /* trylock until it succeeds */
      while (pthread_mutex_trylock(&mu_dyn) != 0)
         sched_yield();
      mu_counter++;
      CHECK_RC(pthread_mutex_unlock(&mu_dyn), 0);

      struct timespec ts = deadline(CLOCK_REALTIME, 60000);
      CHECK_RC(pthread_mutex_timedlock(&mu_dyn, &ts), 0);
      mu_counter++;
      CHECK_RC(pthread_mutex_unlock(&mu_dyn), 0);

      ts = deadline(CLOCK_MONOTONIC, 60000);
      CHECK_RC(pthread_mutex_clocklock(&mu_dyn, CLOCK_MONOTONIC, &ts), 0);
      mu_counter++;
      CHECK_RC(pthread_mutex_unlock(&mu_dyn), 0);

      /* recursive: nested acquisition in one region */
      ATOMGRIND_ATOMIC_BEGIN();
      CHECK_RC(pthread_mutex_lock(&mu_rec), 0);
      CHECK_RC(pthread_mutex_lock(&mu_rec), 0);
      CHECK_RC(pthread_mutex_trylock(&mu_rec), 0);
      rec_counter++;
      CHECK_RC(pthread_mutex_unlock(&mu_rec), 0);
      CHECK_RC(pthread_mutex_unlock(&mu_rec), 0);
      CHECK_RC(pthread_mutex_unlock(&mu_rec), 0);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

/* holds mu_plain while the main thread's trylock / timed locks fail */
static void *mutex_holder(void *arg)
{
   (void)arg;
   CHECK_RC(pthread_mutex_lock(&mu_plain), 0);
   sem_post(&hs_go);                 /* "I hold it" */
   sem_wait(&hs_done);               /* main has seen it busy */
   CHECK_RC(pthread_mutex_unlock(&mu_plain), 0);
   return NULL;
}

static void test_mutexes(void)
{
   pthread_mutexattr_t a;
   pthread_t t[NTHREADS], h;

   CHECK_RC(pthread_mutex_init(&mu_dyn, NULL), 0);
   CHECK_RC(pthread_mutexattr_init(&a), 0);
   CHECK_RC(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE), 0);
   CHECK_RC(pthread_mutex_init(&mu_rec, &a), 0);
   CHECK_RC(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK), 0);
   CHECK_RC(pthread_mutex_init(&mu_err, &a), 0);
   CHECK_RC(pthread_mutexattr_destroy(&a), 0);

   for (int i = 0; i < NTHREADS; i++) spawn(&t[i], mutex_worker, NULL);
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   CHECK(mu_counter == (long)NTHREADS * ROUNDS * 4);
   CHECK(rec_counter == (long)NTHREADS * ROUNDS);

   /* error-checking: relock -> EDEADLK, foreign/extra unlock -> EPERM */
   CHECK_RC(pthread_mutex_lock(&mu_err), 0);
   CHECK_RC(pthread_mutex_lock(&mu_err), EDEADLK);
   CHECK_RC(pthread_mutex_unlock(&mu_err), 0);
   CHECK_RC(pthread_mutex_unlock(&mu_err), EPERM);

   /* failing trylock / timedlock / clocklock on a mutex held elsewhere */
   spawn(&h, mutex_holder, NULL);
   sem_wait(&hs_go);
   CHECK_RC(pthread_mutex_trylock(&mu_plain), EBUSY);
   struct timespec ts = deadline(CLOCK_REALTIME, 20);
   CHECK_RC(pthread_mutex_timedlock(&mu_plain, &ts), ETIMEDOUT);
   ts = deadline(CLOCK_MONOTONIC, 20);
   CHECK_RC(pthread_mutex_clocklock(&mu_plain, CLOCK_MONOTONIC, &ts), ETIMEDOUT);
   sem_post(&hs_done);
   join(h);
   CHECK_RC(pthread_mutex_lock(&mu_plain), 0);
   CHECK_RC(pthread_mutex_unlock(&mu_plain), 0);

   CHECK_RC(pthread_mutex_destroy(&mu_dyn), 0);
   CHECK_RC(pthread_mutex_destroy(&mu_rec), 0);
   CHECK_RC(pthread_mutex_destroy(&mu_err), 0);
   CHECK_RC(pthread_mutex_destroy(&mu_plain), 0);
}

/* ------------------------------------------------------------------ */
/* spin locks                                                           */
/* ------------------------------------------------------------------ */

static pthread_spinlock_t spin;
static long spin_counter;

static void *spin_worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ROUNDS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      CHECK_RC(pthread_spin_lock(&spin), 0);
      spin_counter++;
      CHECK_RC(pthread_spin_unlock(&spin), 0);
      ATOMGRIND_ATOMIC_END();

      while (pthread_spin_trylock(&spin) != 0)
         sched_yield();
      spin_counter++;
      CHECK_RC(pthread_spin_unlock(&spin), 0);
   }
   return NULL;
}

static void test_spinlocks(void)
{
   pthread_t t[NTHREADS];
   CHECK_RC(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE), 0);
   CHECK_RC(pthread_spin_lock(&spin), 0);
   CHECK_RC(pthread_spin_trylock(&spin), EBUSY);
   CHECK_RC(pthread_spin_unlock(&spin), 0);
   for (int i = 0; i < NTHREADS; i++) spawn(&t[i], spin_worker, NULL);
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   CHECK(spin_counter == (long)NTHREADS * ROUNDS * 2);
   CHECK_RC(pthread_spin_destroy(&spin), 0);
}

/* ------------------------------------------------------------------ */
/* reader-writer locks                                                  */
/* ------------------------------------------------------------------ */

static pthread_rwlock_t rw_static = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t rw;
static long rw_data[2];

static void *rwlock_worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ROUNDS; i++) {
      struct timespec ts;
      long sum;

      ATOMGRIND_ATOMIC_BEGIN();
      CHECK_RC(pthread_rwlock_wrlock(&rw), 0);
      rw_data[0]++;
      rw_data[1]++;
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);
      ATOMGRIND_ATOMIC_END();

      ATOMGRIND_ATOMIC_BEGIN();
      CHECK_RC(pthread_rwlock_rdlock(&rw), 0);
      CHECK(rw_data[0] == rw_data[1]);
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);
      ATOMGRIND_ATOMIC_END();

      while (pthread_rwlock_tryrdlock(&rw) != 0)
         sched_yield();
      sum = rw_data[0] - rw_data[1];
      CHECK(sum == 0);
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);

      while (pthread_rwlock_trywrlock(&rw) != 0)
         sched_yield();
      rw_data[id & 1] += 0;
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);

      ts = deadline(CLOCK_REALTIME, 60000);
      CHECK_RC(pthread_rwlock_timedrdlock(&rw, &ts), 0);
      CHECK(rw_data[0] == rw_data[1]);
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);

      ts = deadline(CLOCK_REALTIME, 60000);
      CHECK_RC(pthread_rwlock_timedwrlock(&rw, &ts), 0);
      rw_data[0]++;
      rw_data[1]++;
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);

      ts = deadline(CLOCK_MONOTONIC, 60000);
      CHECK_RC(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts), 0);
      CHECK(rw_data[0] == rw_data[1]);
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);

      ts = deadline(CLOCK_MONOTONIC, 60000);
      CHECK_RC(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts), 0);
      rw_data[0]++;
      rw_data[1]++;
      CHECK_RC(pthread_rwlock_unlock(&rw), 0);
   }
   return NULL;
}

/* holds rw_static for reading while main's writer attempts fail */
static void *rwlock_reader_holder(void *arg)
{
   (void)arg;
   CHECK_RC(pthread_rwlock_rdlock(&rw_static), 0);
   sem_post(&hs_go);
   sem_wait(&hs_done);
   CHECK_RC(pthread_rwlock_unlock(&rw_static), 0);
   return NULL;
}

static void test_rwlocks(void)
{
   pthread_t t[NTHREADS], h;
   struct timespec ts;

   CHECK_RC(pthread_rwlock_init(&rw, NULL), 0);
   for (long i = 0; i < NTHREADS; i++) spawn(&t[i], rwlock_worker, (void *)i);
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   CHECK(rw_data[0] == (long)NTHREADS * ROUNDS * 3 && rw_data[1] == rw_data[0]);
   CHECK_RC(pthread_rwlock_destroy(&rw), 0);

   /* readers share; writers fail while a reader holds it */
   spawn(&h, rwlock_reader_holder, NULL);
   sem_wait(&hs_go);
   CHECK_RC(pthread_rwlock_tryrdlock(&rw_static), 0);        /* shared */
   CHECK_RC(pthread_rwlock_unlock(&rw_static), 0);
   CHECK_RC(pthread_rwlock_trywrlock(&rw_static), EBUSY);
   ts = deadline(CLOCK_REALTIME, 20);
   CHECK_RC(pthread_rwlock_timedwrlock(&rw_static, &ts), ETIMEDOUT);
   ts = deadline(CLOCK_MONOTONIC, 20);
   CHECK_RC(pthread_rwlock_clockwrlock(&rw_static, CLOCK_MONOTONIC, &ts), ETIMEDOUT);
   sem_post(&hs_done);
   join(h);
   CHECK_RC(pthread_rwlock_wrlock(&rw_static), 0);
   CHECK_RC(pthread_rwlock_tryrdlock(&rw_static), EBUSY);
   ts = deadline(CLOCK_REALTIME, 1);
   CHECK_RC(pthread_rwlock_timedrdlock(&rw_static, &ts), EDEADLK);
   CHECK_RC(pthread_rwlock_unlock(&rw_static), 0);
   CHECK_RC(pthread_rwlock_destroy(&rw_static), 0);
}

/* ------------------------------------------------------------------ */
/* condition variables                                                  */
/* ------------------------------------------------------------------ */

static pthread_mutex_t cv_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_static = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cv_items, cv_space;
static int cv_queue, cv_consumed, cv_released;
enum { CV_ITEMS = 40, CV_CAP = 3 };

/* bounded buffer: one producer, one consumer; the three wait flavours */
static void *cv_producer(void *arg)
{
   (void)arg;
   for (int i = 0; i < CV_ITEMS; i++) {
      CHECK_RC(pthread_mutex_lock(&cv_mu), 0);
      while (cv_queue == CV_CAP) {
         if (i % 2 == 0) {
            CHECK_RC(pthread_cond_wait(&cv_space, &cv_mu), 0);
         } else {
            struct timespec ts = deadline(CLOCK_MONOTONIC, 60000);
            CHECK_RC(pthread_cond_clockwait(&cv_space, &cv_mu, CLOCK_MONOTONIC, &ts), 0);
         }
      }
      cv_queue++;
      CHECK_RC(pthread_cond_signal(&cv_items), 0);
      CHECK_RC(pthread_mutex_unlock(&cv_mu), 0);
   }
   return NULL;
}

static void *cv_consumer(void *arg)
{
   (void)arg;
   for (int i = 0; i < CV_ITEMS; i++) {
      CHECK_RC(pthread_mutex_lock(&cv_mu), 0);
      while (cv_queue == 0) {
         struct timespec ts = deadline(CLOCK_REALTIME, 60000);
         CHECK_RC(pthread_cond_timedwait(&cv_items, &cv_mu, &ts), 0);
      }
      cv_queue--;
      cv_consumed++;
      CHECK_RC(pthread_cond_signal(&cv_space), 0);
      CHECK_RC(pthread_mutex_unlock(&cv_mu), 0);
   }
   return NULL;
}

/* waits on the static condvar until main broadcasts */
static void *cv_waiter(void *arg)
{
   (void)arg;
   CHECK_RC(pthread_mutex_lock(&cv_mu), 0);
   sem_post(&hs_go);
   while (!cv_released)
      CHECK_RC(pthread_cond_wait(&cv_static, &cv_mu), 0);
   CHECK_RC(pthread_mutex_unlock(&cv_mu), 0);
   return NULL;
}

static void test_condvars(void)
{
   pthread_condattr_t a;
   pthread_t p, c, w[NTHREADS];
   struct timespec ts;

   CHECK_RC(pthread_cond_init(&cv_items, NULL), 0);
   CHECK_RC(pthread_condattr_init(&a), 0);
   CHECK_RC(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
   CHECK_RC(pthread_cond_init(&cv_space, &a), 0);
   CHECK_RC(pthread_condattr_destroy(&a), 0);

   spawn(&p, cv_producer, NULL);
   spawn(&c, cv_consumer, NULL);
   join(p);
   join(c);
   CHECK(cv_consumed == CV_ITEMS && cv_queue == 0);

   /* time-outs: nobody signals */
   CHECK_RC(pthread_mutex_lock(&cv_mu), 0);
   ts = deadline(CLOCK_REALTIME, 20);
   CHECK_RC(pthread_cond_timedwait(&cv_items, &cv_mu, &ts), ETIMEDOUT);
   ts = deadline(CLOCK_MONOTONIC, 20);
   CHECK_RC(pthread_cond_clockwait(&cv_items, &cv_mu, CLOCK_MONOTONIC, &ts), ETIMEDOUT);
   CHECK_RC(pthread_mutex_unlock(&cv_mu), 0);

   /* broadcast wakes every waiter */
   for (int i = 0; i < NTHREADS; i++) spawn(&w[i], cv_waiter, NULL);
   for (int i = 0; i < NTHREADS; i++) sem_wait(&hs_go);
   CHECK_RC(pthread_mutex_lock(&cv_mu), 0);   /* all are waiting now */
   cv_released = 1;
   CHECK_RC(pthread_cond_broadcast(&cv_static), 0);
   CHECK_RC(pthread_mutex_unlock(&cv_mu), 0);
   for (int i = 0; i < NTHREADS; i++) join(w[i]);

   CHECK_RC(pthread_cond_destroy(&cv_items), 0);
   CHECK_RC(pthread_cond_destroy(&cv_space), 0);
   CHECK_RC(pthread_cond_destroy(&cv_static), 0);
}

/* ------------------------------------------------------------------ */
/* semaphores                                                           */
/* ------------------------------------------------------------------ */

static sem_t sem_items;
static int sem_slot[NTHREADS * 4];
static int sem_taken;
static sem_t *sem_named;

/* each worker hands one value per flavour of wait to main */
static void *sem_worker(void *arg)
{
   long id = (long)arg;
   for (int k = 0; k < 4; k++) {
      sem_slot[id * 4 + k] = (int)(id * 4 + k + 1);
      CHECK_SEM(sem_post(&sem_items), 0);
   }
   return NULL;
}

static void test_semaphores(void)
{
   pthread_t t[NTHREADS];
   struct timespec ts;
   char name[64];

   CHECK_SEM(sem_init(&sem_items, 0, 0), 0);
   CHECK_SEM(sem_trywait(&sem_items), EAGAIN);
   ts = deadline(CLOCK_REALTIME, 20);
   CHECK_SEM(sem_timedwait(&sem_items, &ts), ETIMEDOUT);
   ts = deadline(CLOCK_MONOTONIC, 20);
   CHECK_SEM(sem_clockwait(&sem_items, CLOCK_MONOTONIC, &ts), ETIMEDOUT);

   for (long i = 0; i < NTHREADS; i++) spawn(&t[i], sem_worker, (void *)i);
   for (int n = 0; n < NTHREADS * 4; n++) {
      switch (n % 4) {
      case 0:
         CHECK_SEM(sem_wait(&sem_items), 0);
         break;
      case 1:
         ts = deadline(CLOCK_REALTIME, 60000);
         CHECK_SEM(sem_timedwait(&sem_items, &ts), 0);
         break;
      case 2:
         ts = deadline(CLOCK_MONOTONIC, 60000);
         CHECK_SEM(sem_clockwait(&sem_items, CLOCK_MONOTONIC, &ts), 0);
         break;
      default:
         while (sem_trywait(&sem_items) != 0)
            sched_yield();
         break;
      }
      sem_taken++;
   }
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   for (int i = 0; i < NTHREADS * 4; i++) CHECK(sem_slot[i] == i + 1);
   CHECK(sem_taken == NTHREADS * 4);
   CHECK_SEM(sem_destroy(&sem_items), 0);

   /* a named semaphore: posts and waits go through the same wrappers */
   snprintf(name, sizeof name, "/sync_zoo.%ld", (long)getpid());
   sem_named = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
   if (sem_named == SEM_FAILED) {
      fprintf(stderr, "sync_zoo: sem_open(%s): %s (skipped)\n", name, strerror(errno));
      return;
   }
   CHECK_SEM(sem_wait(sem_named), 0);
   CHECK_SEM(sem_trywait(sem_named), EAGAIN);
   CHECK_SEM(sem_post(sem_named), 0);
   CHECK_SEM(sem_trywait(sem_named), 0);
   CHECK_SEM(sem_post(sem_named), 0);
   CHECK_SEM(sem_close(sem_named), 0);
   CHECK_SEM(sem_unlink(name), 0);
}

/* ------------------------------------------------------------------ */
/* barriers                                                             */
/* ------------------------------------------------------------------ */

static pthread_barrier_t bar;
static long bar_cell[NTHREADS];
static int bar_serial;
static pthread_mutex_t bar_mu = PTHREAD_MUTEX_INITIALIZER;

/* phase 1: each writes its own cell; phase 2: each reads all cells */
static void *barrier_worker(void *arg)
{
   long id = (long)arg, sum = 0;
   ATOMGRIND_ATOMIC_BEGIN();
   bar_cell[id] = id + 1;
   ATOMGRIND_ATOMIC_END();
   int rc = pthread_barrier_wait(&bar);
   CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
   if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
      CHECK_RC(pthread_mutex_lock(&bar_mu), 0);
      bar_serial++;
      CHECK_RC(pthread_mutex_unlock(&bar_mu), 0);
   }
   for (int i = 0; i < NTHREADS; i++) sum += bar_cell[i];
   CHECK(sum == (long)NTHREADS * (NTHREADS + 1) / 2);
   rc = pthread_barrier_wait(&bar);    /* nobody writes before all read */
   CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
   bar_cell[id] = 0;
   return NULL;
}

static void test_barriers(void)
{
   pthread_t t[NTHREADS];
   CHECK_RC(pthread_barrier_init(&bar, NULL, NTHREADS), 0);
   for (long i = 0; i < NTHREADS; i++) spawn(&t[i], barrier_worker, (void *)i);
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   CHECK(bar_serial == 1);
   CHECK_RC(pthread_barrier_destroy(&bar), 0);
}

/* ------------------------------------------------------------------ */
/* pthread_once                                                         */
/* ------------------------------------------------------------------ */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static int *once_table;

static void once_init(void)
{
   once_runs++;
   once_table = calloc(8, sizeof *once_table);
   for (int i = 0; i < 8; i++) once_table[i] = i * i;
}

static void *once_worker(void *arg)
{
   (void)arg;
   CHECK_RC(pthread_once(&once, once_init), 0);
   CHECK(once_table != NULL && once_table[7] == 49);
   return NULL;
}

static void test_once(void)
{
   pthread_t t[NTHREADS];
   for (int i = 0; i < NTHREADS; i++) spawn(&t[i], once_worker, NULL);
   for (int i = 0; i < NTHREADS; i++) join(t[i]);
   CHECK_RC(pthread_once(&once, once_init), 0);
   CHECK(once_runs == 1);
   free(once_table);
}

/* ------------------------------------------------------------------ */
/* thread creation, joining, detaching                                  */
/* ------------------------------------------------------------------ */

static sem_t detached_done;
static long child_value[5];

static void *child_returns(void *arg)
{
   long id = (long)arg;
   child_value[id] = 100 + id;
   return (void *)(100 + id);
}

/* blocks until main has seen pthread_tryjoin_np fail with EBUSY */
static void *child_blocks(void *arg)
{
   (void)arg;
   sem_wait(&hs_go);
   child_value[3] = 103;
   return (void *)103;
}

static void *child_exits(void *arg)
{
   child_value[(long)arg] = 104;
   pthread_exit((void *)104);
   return NULL;               /* not reached */
}

static void *child_detached(void *arg)
{
   (void)arg;
   sem_post(&detached_done);
   return NULL;
}

static void test_threads(void)
{
   pthread_t t;
   pthread_attr_t a;
   void *ret;
   struct timespec ts;

   spawn(&t, child_returns, (void *)0);
   CHECK_RC(pthread_join(t, &ret), 0);
   CHECK(ret == (void *)100 && child_value[0] == 100);

   spawn(&t, child_returns, (void *)1);
   ts = deadline(CLOCK_REALTIME, 60000);
   CHECK_RC(pthread_timedjoin_np(t, &ret, &ts), 0);
   CHECK(ret == (void *)101 && child_value[1] == 101);

   spawn(&t, child_returns, (void *)2);
   ts = deadline(CLOCK_MONOTONIC, 60000);
   CHECK_RC(pthread_clockjoin_np(t, &ret, CLOCK_MONOTONIC, &ts), 0);
   CHECK(ret == (void *)102 && child_value[2] == 102);

   spawn(&t, child_exits, (void *)4);
   CHECK_RC(pthread_join(t, &ret), 0);
   CHECK(ret == (void *)104 && child_value[4] == 104);

   /* tryjoin: busy while the child is blocked, then succeeds */
   spawn(&t, child_blocks, NULL);
   CHECK_RC(pthread_tryjoin_np(t, &ret), EBUSY);
   ts = deadline(CLOCK_REALTIME, 20);
   CHECK_RC(pthread_timedjoin_np(t, &ret, &ts), ETIMEDOUT);
   sem_post(&hs_go);
   int rc;
   while ((rc = pthread_tryjoin_np(t, &ret)) == EBUSY)
      sched_yield();
   CHECK_RC(rc, 0);
   CHECK(ret == (void *)103 && child_value[3] == 103);

   /* detached by call and by attribute */
   CHECK_SEM(sem_init(&detached_done, 0, 0), 0);
   spawn(&t, child_detached, NULL);
   CHECK_RC(pthread_detach(t), 0);
   CHECK_RC(pthread_attr_init(&a), 0);
   CHECK_RC(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED), 0);
   if (pthread_create(&t, &a, child_detached, NULL) != 0) {
      fprintf(stderr, "sync_zoo: pthread_create (detached) failed\n");
      exit(1);
   }
   CHECK_RC(pthread_attr_destroy(&a), 0);
   CHECK_SEM(sem_wait(&detached_done), 0);
   CHECK_SEM(sem_wait(&detached_done), 0);
   CHECK_SEM(sem_destroy(&detached_done), 0);
}

int main(void)
{
   CHECK_SEM(sem_init(&hs_go, 0, 0), 0);
   CHECK_SEM(sem_init(&hs_done, 0, 0), 0);

   test_threads();
   test_mutexes();
   test_spinlocks();
   test_rwlocks();
   test_condvars();
   test_semaphores();
   test_barriers();
   test_once();

   CHECK_SEM(sem_destroy(&hs_go), 0);
   CHECK_SEM(sem_destroy(&hs_done), 0);
   if (failures) {
      fprintf(stderr, "sync_zoo: %d checks failed\n", failures);
      return 1;
   }
   printf("sync_zoo: ok\n");
   return 0;
}
