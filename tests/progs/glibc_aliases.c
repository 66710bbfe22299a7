/* glibc_aliases.c -- synchronisation that reaches the pthread functions by
 * the paths other than a plain call to the current symbol version:
 *
 *  - the GLIBC_2.2.5 compatibility versions of pthread_cond_* (binaries
 *    older than glibc 2.3.2), which take a pointer-sized condvar and
 *    tail-call the current version: two wrappers run, one inside the
 *    other, and atomgrind must see the wait/signal once;
 *  - C11 <threads.h> (mtx_*, cnd_*, thrd_*, call_once), which glibc
 *    implements by internal calls to the pthread functions.
 *
 * Correctly synchronised; prints "glibc_aliases: ok" and exits 0.
 * Build: cc -O0 -g -pthread -I<atomgrind dir> glibc_aliases.c
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

#include "atomgrind.h"

static int failures;
#define CHECK(c)                                                           \
   do {                                                                    \
      if (!(c)) {                                                          \
         fprintf(stderr, "glibc_aliases: line %d: check failed: %s\n",     \
                 __LINE__, #c);                                            \
         failures++;                                                       \
      }                                                                    \
   } while (0)

/* ---- the GLIBC_2.2.5 condition variable ABI ------------------------ */

typedef struct { void *cond; } old_cond_t;  /* pthread_cond_2_0_t */

int old_cond_init(old_cond_t *, const pthread_condattr_t *);
int old_cond_destroy(old_cond_t *);
int old_cond_wait(old_cond_t *, pthread_mutex_t *);
int old_cond_timedwait(old_cond_t *, pthread_mutex_t *, const struct timespec *);
int old_cond_signal(old_cond_t *);
int old_cond_broadcast(old_cond_t *);
__asm__(".symver old_cond_init, pthread_cond_init@GLIBC_2.2.5");
__asm__(".symver old_cond_destroy, pthread_cond_destroy@GLIBC_2.2.5");
__asm__(".symver old_cond_wait, pthread_cond_wait@GLIBC_2.2.5");
__asm__(".symver old_cond_timedwait, pthread_cond_timedwait@GLIBC_2.2.5");
__asm__(".symver old_cond_signal, pthread_cond_signal@GLIBC_2.2.5");
__asm__(".symver old_cond_broadcast, pthread_cond_broadcast@GLIBC_2.2.5");

enum { ITEMS = 30 };
static pthread_mutex_t old_mu = PTHREAD_MUTEX_INITIALIZER;
static old_cond_t old_nonempty, old_nonfull;
static int old_queue, old_taken, old_done;

static void *old_producer(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITEMS; i++) {
      pthread_mutex_lock(&old_mu);
      while (old_queue == 2)
         CHECK(old_cond_wait(&old_nonfull, &old_mu) == 0);
      old_queue++;
      CHECK(old_cond_signal(&old_nonempty) == 0);
      pthread_mutex_unlock(&old_mu);
   }
   return NULL;
}

static void *old_consumer(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITEMS; i++) {
      pthread_mutex_lock(&old_mu);
      while (old_queue == 0) {
         struct timespec ts;
         clock_gettime(CLOCK_REALTIME, &ts);
         ts.tv_sec += 60;
         CHECK(old_cond_timedwait(&old_nonempty, &old_mu, &ts) == 0);
      }
      old_queue--;
      old_taken++;
      CHECK(old_cond_broadcast(&old_nonfull) == 0);
      pthread_mutex_unlock(&old_mu);
   }
   pthread_mutex_lock(&old_mu);
   old_done = 1;
   pthread_mutex_unlock(&old_mu);
   return NULL;
}

static void test_old_condvars(void)
{
   pthread_t p, c;
   CHECK(old_cond_init(&old_nonempty, NULL) == 0);
   CHECK(old_cond_init(&old_nonfull, NULL) == 0);
   CHECK(pthread_create(&p, NULL, old_producer, NULL) == 0);
   CHECK(pthread_create(&c, NULL, old_consumer, NULL) == 0);
   pthread_join(p, NULL);
   pthread_join(c, NULL);
   CHECK(old_taken == ITEMS && old_queue == 0 && old_done);
   CHECK(old_cond_destroy(&old_nonempty) == 0);
   CHECK(old_cond_destroy(&old_nonfull) == 0);
}

/* ---- C11 threads --------------------------------------------------- */

static mtx_t c11_mu;
static cnd_t c11_cv;
static once_flag c11_once = ONCE_FLAG_INIT;
static int c11_inits, c11_count, c11_turn;

static void c11_init(void)
{
   c11_inits++;
}

static int c11_worker(void *arg)
{
   int id = (int)(long)arg;
   call_once(&c11_once, c11_init);
   for (int i = 0; i < 10; i++) {
      CHECK(mtx_lock(&c11_mu) == thrd_success);
      while (c11_turn != id)              /* strict alternation */
         CHECK(cnd_wait(&c11_cv, &c11_mu) == thrd_success);
      ATOMGRIND_ATOMIC_BEGIN();
      c11_count++;
      ATOMGRIND_ATOMIC_END();
      c11_turn = 1 - id;
      CHECK(cnd_broadcast(&c11_cv) == thrd_success);
      CHECK(mtx_unlock(&c11_mu) == thrd_success);
   }
   return id + 10;
}

static void test_c11(void)
{
   thrd_t t[2];
   int res;
   CHECK(mtx_init(&c11_mu, mtx_plain) == thrd_success);
   CHECK(cnd_init(&c11_cv) == thrd_success);
   for (long i = 0; i < 2; i++)
      CHECK(thrd_create(&t[i], c11_worker, (void *)i) == thrd_success);
   for (int i = 0; i < 2; i++) {
      CHECK(thrd_join(t[i], &res) == thrd_success);
      CHECK(res == i + 10);
   }
   CHECK(c11_inits == 1 && c11_count == 20);
   CHECK(mtx_trylock(&c11_mu) == thrd_success);
   CHECK(mtx_unlock(&c11_mu) == thrd_success);
   cnd_destroy(&c11_cv);
   mtx_destroy(&c11_mu);
}

int main(void)
{
   test_old_condvars();
   test_c11();
   if (failures) {
      fprintf(stderr, "glibc_aliases: %d checks failed\n", failures);
      return 1;
   }
   printf("glibc_aliases: ok\n");
   return 0;
}
