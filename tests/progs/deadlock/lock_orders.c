/* Lock orders, none of which deadlocks in this run (the orders run one
 * after the other, a join between them).
 *
 *   inversion   T1 takes A then B; joined; T2 takes B then A.  A possible
 *               deadlock: reported as a lock-order violation.
 *   cycle3      T1: A then B, T2: B then C, T3: C then A (one at a time).
 *               Reported: the cycle goes through three orders.
 *   gate        T1: G, A, B; T2: G, B, A.  Both hold G: they cannot
 *               deadlock.  Not reported.
 *   trylock     T1: A then B; T2: B then trylock A (backs off when
 *               busy).  A trylock cannot wait: not reported.
 *   timed       as trylock, with pthread_mutex_timedlock.  Not reported.
 *   one_thread  main takes A then B, later B then A: a thread does not
 *               wait for itself.  Not reported.
 *   readers     rwlocks: T1 read-locks R then S, T2 S then R.  Readers do
 *               not exclude readers.  Not reported.
 *   rd_mutex    T1 read-locks R, then takes A; T2 takes A, then
 *               read-locks R.  R does not block T2: not reported.
 *   rw_mutex    as rd_mutex, but T2 write-locks R: T1's read hold
 *               blocks it.  Reported.
 *   rw_gate     T1: read-locks R, then A, B; T2: read-locks R, then B, A.
 *               Both can hold R at once: it is no gate.  Reported.
 *   reinit      T1: A then B; A destroyed and initialised again (a new
 *               lock); T2: B then A.  Not reported.
 *   heap_reuse  T1: H then B, H a mutex in a malloc'd block, set up by
 *               assignment as C++'s std::mutex is (no init, no destroy);
 *               the block freed, a new one at the same address; T2: B
 *               then the new H.  A different lock: not reported.
 *   fork_held   T1 holds A while main forks.  In the child (T1 is not
 *               there) A is initialised again, the child's first thread
 *               (which gets T1's Valgrind thread slot) takes B, then main
 *               takes B then A.  Nothing there takes A before B: not
 *               reported, in either process.
 *   exit_held   T1 ends holding RA, a robust mutex; T2 (in T1's Valgrind
 *               thread slot) takes B; then main takes B, then RA (as its
 *               new owner: EOWNERDEAD).  Nobody takes RA before B: not
 *               reported.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <semaphore.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../common.h"

static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t B = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t C = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t G = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t R = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t S = PTHREAD_RWLOCK_INITIALIZER;
static const char *mode;

static void take2(pthread_mutex_t *x, pthread_mutex_t *y)
{
   pthread_mutex_lock(x);
   pthread_mutex_lock(y);
   pthread_mutex_unlock(y);
   pthread_mutex_unlock(x);
}

static void *ab(void *arg) { (void)arg; take2(&A, &B); return NULL; }
static void *ba(void *arg) { (void)arg; take2(&B, &A); return NULL; }
static void *bc(void *arg) { (void)arg; take2(&B, &C); return NULL; }
static void *ca(void *arg) { (void)arg; take2(&C, &A); return NULL; }

static void *gab(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&G);
   take2(&A, &B);
   pthread_mutex_unlock(&G);
   return NULL;
}

static void *gba(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&G);
   take2(&B, &A);
   pthread_mutex_unlock(&G);
   return NULL;
}

static void *b_try_a(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&B);
   int rc;
   if (strcmp(mode, "timed") == 0) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 1;
      rc = pthread_mutex_timedlock(&A, &ts);
   } else {
      rc = pthread_mutex_trylock(&A);
   }
   if (rc == 0) pthread_mutex_unlock(&A);
   pthread_mutex_unlock(&B);
   return NULL;
}

static void rd2(pthread_rwlock_t *x, pthread_rwlock_t *y)
{
   pthread_rwlock_rdlock(x);
   pthread_rwlock_rdlock(y);
   pthread_rwlock_unlock(y);
   pthread_rwlock_unlock(x);
}
static void *rs(void *arg) { (void)arg; rd2(&R, &S); return NULL; }
static void *sr(void *arg) { (void)arg; rd2(&S, &R); return NULL; }

static void *r_a(void *arg)
{
   (void)arg;
   pthread_rwlock_rdlock(&R);
   pthread_mutex_lock(&A);
   pthread_mutex_unlock(&A);
   pthread_rwlock_unlock(&R);
   return NULL;
}

static void *a_r(void *arg)              /* arg: write-lock R */
{
   pthread_mutex_lock(&A);
   if (arg) pthread_rwlock_wrlock(&R);
   else pthread_rwlock_rdlock(&R);
   pthread_rwlock_unlock(&R);
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *r_gate(void *arg)           /* arg: B before A */
{
   pthread_rwlock_rdlock(&R);
   if (arg) take2(&B, &A);
   else take2(&A, &B);
   pthread_rwlock_unlock(&R);
   return NULL;
}

static pthread_mutex_t *H;

static void *hb(void *arg) { (void)arg; take2(H, &B); return NULL; }
static void *bh(void *arg) { (void)arg; take2(&B, H); return NULL; }

static pthread_mutex_t *new_heap_mutex(void)
{
   pthread_mutex_t *m = malloc(sizeof *m);
   pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
   *m = init;
   return m;
}

static sem_t a_held, may_release;

static void *hold_a(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   sem_post(&a_held);
   sem_wait(&may_release);
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *b_only(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&B);
   pthread_mutex_unlock(&B);
   return NULL;
}

static pthread_mutex_t RA;

static void *end_holding_ra(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&RA);
   return NULL;                          /* RA still held */
}

static void exit_held(void)
{
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
   pthread_mutex_init(&RA, &a);
   pthread_join(spawn(end_holding_ra, NULL), NULL);
   pthread_join(spawn(b_only, NULL), NULL);
   pthread_mutex_lock(&B);
   if (pthread_mutex_lock(&RA) == EOWNERDEAD) pthread_mutex_consistent(&RA);
   pthread_mutex_unlock(&RA);
   pthread_mutex_unlock(&B);
}

static void fork_held(void)
{
   sem_init(&a_held, 0, 0);
   sem_init(&may_release, 0, 0);
   pthread_t t1 = spawn(hold_a, NULL);
   sem_wait(&a_held);
   pid_t pid = fork();
   if (pid == 0) {
      pthread_mutex_init(&A, NULL);      /* its holder is not in this process */
      pthread_join(spawn(b_only, NULL), NULL);
      take2(&B, &A);
      exit(0);
   }
   sem_post(&may_release);
   pthread_join(t1, NULL);
   int status;
   waitpid(pid, &status, 0);
}

static void one_after_other(void *(*f)(void *), void *(*g)(void *))
{
   pthread_join(spawn(f, NULL), NULL);
   pthread_join(spawn(g, NULL), NULL);
}

int main(int argc, char **argv)
{
   mode = argc > 1 ? argv[1] : "inversion";
   if (strcmp(mode, "inversion") == 0) {
      one_after_other(ab, ba);
   } else if (strcmp(mode, "cycle3") == 0) {
      one_after_other(ab, bc);
      pthread_join(spawn(ca, NULL), NULL);
   } else if (strcmp(mode, "gate") == 0) {
      one_after_other(gab, gba);
   } else if (strcmp(mode, "trylock") == 0 || strcmp(mode, "timed") == 0) {
      one_after_other(ab, b_try_a);
   } else if (strcmp(mode, "one_thread") == 0) {
      take2(&A, &B);
      take2(&B, &A);
   } else if (strcmp(mode, "readers") == 0) {
      one_after_other(rs, sr);
   } else if (strcmp(mode, "rd_mutex") == 0 || strcmp(mode, "rw_mutex") == 0) {
      pthread_join(spawn(r_a, NULL), NULL);
      pthread_join(spawn(a_r, strcmp(mode, "rw_mutex") == 0 ? &A : NULL), NULL);
   } else if (strcmp(mode, "rw_gate") == 0) {
      pthread_join(spawn(r_gate, NULL), NULL);
      pthread_join(spawn(r_gate, &A), NULL);
   } else if (strcmp(mode, "heap_reuse") == 0) {
      H = new_heap_mutex();
      void *first = H;
      pthread_join(spawn(hb, NULL), NULL);
      free(H);
      H = new_heap_mutex();
      if ((void *)H != first) printf("heap_reuse: not at the same address\n");
      pthread_join(spawn(bh, NULL), NULL);
      free(H);
   } else if (strcmp(mode, "reinit") == 0) {
      pthread_join(spawn(ab, NULL), NULL);
      pthread_mutex_destroy(&A);
      pthread_mutex_init(&A, NULL);
      pthread_join(spawn(ba, NULL), NULL);
   } else if (strcmp(mode, "fork_held") == 0) {
      fork_held();
   } else if (strcmp(mode, "exit_held") == 0) {
      exit_held();
   }
   printf("done\n");
   return 0;
}
