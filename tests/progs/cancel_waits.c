/* cancel_waits.c -- threads cancelled inside the wrapped cancellation
 * points (condvar waits, including the GLIBC_2.2.5 compat version;
 * sem_wait; pthread_join) and a thread leaving by pthread_exit.  Each runs
 * a cleanup handler of its own that touches shared data under the mutex,
 * as real programs do.  Under atomgrind there must be no misuse report
 * (the mutex a cancelled condvar wait re-acquires is known to be held when
 * the handler unlocks it) and no race.
 *
 * Prints "cancel_waits: ok" and exits 0.
 * Build: cc -O0 -g -pthread -I<atomgrind dir> cancel_waits.c
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static int failures;
#define CHECK(c)                                                           \
   do {                                                                    \
      if (!(c)) {                                                          \
         fprintf(stderr, "cancel_waits: line %d: check failed: %s\n",      \
                 __LINE__, #c);                                            \
         failures++;                                                       \
      }                                                                    \
   } while (0)

typedef struct { void *cond; } old_cond_t;  /* pthread_cond_2_0_t */
int old_cond_wait(old_cond_t *, pthread_mutex_t *);
int old_cond_destroy(old_cond_t *);
__asm__(".symver old_cond_wait, pthread_cond_wait@GLIBC_2.2.5");
__asm__(".symver old_cond_destroy, pthread_cond_destroy@GLIBC_2.2.5");

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static old_cond_t old_cv;
static sem_t ready, never, release_sleeper;
static int cleanups;              /* under mu */
static int never_true;            /* under mu */

static void unlock_and_count(void *arg)
{
   (void)arg;
   cleanups++;                    /* mu is held again here */
   pthread_mutex_unlock(&mu);
}

static void count_locked(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&mu);
   cleanups++;
   pthread_mutex_unlock(&mu);
}

enum { WAIT, TIMEDWAIT, CLOCKWAIT, OLDWAIT };

static void *cond_waiter(void *arg)
{
   long how = (long)arg;
   struct timespec ts;
   pthread_mutex_lock(&mu);
   pthread_cleanup_push(unlock_and_count, NULL);
   sem_post(&ready);              /* mu is released only inside the wait */
   while (!never_true) {
      switch (how) {
      case WAIT:
         pthread_cond_wait(&cv, &mu);
         break;
      case TIMEDWAIT:
         clock_gettime(CLOCK_REALTIME, &ts);
         ts.tv_sec += 600;
         pthread_cond_timedwait(&cv, &mu, &ts);
         break;
      case CLOCKWAIT:
         clock_gettime(CLOCK_MONOTONIC, &ts);
         ts.tv_sec += 600;
         pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &ts);
         break;
      default:
         old_cond_wait(&old_cv, &mu);
         break;
      }
   }
   pthread_cleanup_pop(1);
   return NULL;
}

static void *sem_waiter(void *arg)
{
   (void)arg;
   pthread_cleanup_push(count_locked, NULL);
   sem_post(&ready);
   sem_wait(&never);
   pthread_cleanup_pop(1);
   return NULL;
}

static void *sleeper(void *arg)
{
   (void)arg;
   sem_wait(&release_sleeper);
   return NULL;
}

static void *joiner(void *arg)
{
   pthread_t t = *(pthread_t *)arg;
   pthread_cleanup_push(count_locked, NULL);
   sem_post(&ready);
   pthread_join(t, NULL);
   pthread_cleanup_pop(1);
   return NULL;
}

static void leave_inner(void)
{
   pthread_exit((void *)42);
}

static void leave_outer(void)
{
   leave_inner();
}

static void *exiter(void *arg)
{
   (void)arg;
   pthread_cleanup_push(count_locked, NULL);
   leave_outer();
   pthread_cleanup_pop(0);
   return NULL;
}

/* start, wait until it is blocked where it should be, cancel, join */
static void cancel_blocked(void *(*fn)(void *), void *arg, int cond)
{
   pthread_t t;
   void *ret;
   CHECK(pthread_create(&t, NULL, fn, arg) == 0);
   sem_wait(&ready);
   if (cond) {
      /* holding mu proves the waiter is inside the wait */
      pthread_mutex_lock(&mu);
      pthread_mutex_unlock(&mu);
   } else {
      struct timespec d = { 0, 20 * 1000 * 1000 };
      nanosleep(&d, NULL);         /* cancellation is pending if not yet blocked */
   }
   CHECK(pthread_cancel(t) == 0);
   CHECK(pthread_join(t, &ret) == 0);
   CHECK(ret == PTHREAD_CANCELED);
}

int main(void)
{
   pthread_t s, t;
   void *ret;

   sem_init(&ready, 0, 0);
   sem_init(&never, 0, 0);
   sem_init(&release_sleeper, 0, 0);

   for (long how = WAIT; how <= OLDWAIT; how++)
      cancel_blocked(cond_waiter, (void *)how, 1);
   cancel_blocked(sem_waiter, NULL, 0);

   CHECK(pthread_create(&s, NULL, sleeper, NULL) == 0);
   cancel_blocked(joiner, &s, 0);
   sem_post(&release_sleeper);
   CHECK(pthread_join(s, NULL) == 0);

   CHECK(pthread_create(&t, NULL, exiter, NULL) == 0);
   CHECK(pthread_join(t, &ret) == 0);
   CHECK(ret == (void *)42);

   pthread_mutex_lock(&mu);        /* nobody left it locked */
   CHECK(cleanups == 7);
   pthread_mutex_unlock(&mu);
   CHECK(old_cond_destroy(&old_cv) == 0);
   if (failures) {
      fprintf(stderr, "cancel_waits: %d checks failed\n", failures);
      return 1;
   }
   printf("cancel_waits: ok\n");
   return 0;
}
