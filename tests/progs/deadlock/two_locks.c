/* Deadlocks (each run of this program hangs natively): the test runs it
 * under atomgrind with a timeout and expects a report, not a hang.
 *
 *   two_locks        T1 holds A and waits for B, T2 holds B and waits for
 *                    A (a barrier makes both hold their first lock first);
 *                    main joins them.
 *   join_lock        main holds A and joins T, which waits for A.
 *   cond_never       main joins T, which waits on a condition variable
 *                    nobody will signal (T2 has ended after signalling
 *                    too early: a lost wake-up).
 *   woken_mutex      T waits on a condition variable; main signals it but
 *                    keeps the mutex, then joins T.
 *   barrier_short    two threads wait at a barrier of three; main joins
 *                    them (the count is wrong).
 *   sem_never        main joins T, which waits on a semaphore of value 0
 *                    that nobody posts.
 *   sem_alarm        correct: main waits on a semaphore that a SIGALRM
 *                    handler posts a moment later; no deadlock (every
 *                    thread waits, but a signal can come from outside).
 *   exit_last        main joins T, which waits on a condition variable
 *                    for T2; T2 ends without signalling, after both
 *                    blocked: the last thread that could run ends.
 *   exit_main_cond   main ends (pthread_exit) without signalling the
 *                    detached T waiting on a condition variable: no join
 *                    is left to notice, T's wait itself must.
 *   exit_main_sem    the same with T waiting on a semaphore.
 *   slow_signal      correct: T waits on a condition variable that main
 *                    signals 2.5 s later (the wait spans slices) -> "done".
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include "../common.h"

static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t B = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t C = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static int ready;

static void *t1(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);       /* t1 takes A */
   pthread_barrier_wait(&bar);
   pthread_mutex_lock(&B);       /* t1 waits for B */
   pthread_mutex_unlock(&B);
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *t2(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&B);       /* t2 takes B */
   pthread_barrier_wait(&bar);
   pthread_mutex_lock(&A);       /* t2 waits for A */
   pthread_mutex_unlock(&A);
   pthread_mutex_unlock(&B);
   return NULL;
}

static void *lock_a(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *signal_early(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   pthread_cond_signal(&C);      /* nobody waits yet: lost */
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *wait_c(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   while (!ready)
      pthread_cond_wait(&C, &A);
   pthread_mutex_unlock(&A);
   return NULL;
}

static pthread_barrier_t three;

static void *wait_three(void *arg)
{
   (void)arg;
   pthread_barrier_wait(&three);
   return NULL;
}

static sem_t sem;

static void *wait_sem(void *arg)
{
   (void)arg;
   sem_wait(&sem);
   return NULL;
}

static void post_sem(int sig)
{
   (void)sig;
   sem_post(&sem);
}

static void *forget_to_signal(void *arg)
{
   (void)arg;
   ms_sleep(600);                /* main and T wait by now */
   return NULL;
}

static void *signal_late(void *arg)
{
   (void)arg;
   ms_sleep(2500);
   pthread_mutex_lock(&A);
   ready = 1;
   pthread_mutex_unlock(&A);
   pthread_cond_signal(&C);      /* (after the unlock: allowed) */
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "two_locks";
   if (strcmp(mode, "two_locks") == 0) {
      pthread_barrier_init(&bar, NULL, 2);
      pthread_t a = spawn(t1, NULL), b = spawn(t2, NULL);
      pthread_join(a, NULL);
      pthread_join(b, NULL);
   } else if (strcmp(mode, "join_lock") == 0) {
      pthread_mutex_lock(&A);
      pthread_t t = spawn(lock_a, NULL);
      ms_sleep(200);
      pthread_join(t, NULL);
      pthread_mutex_unlock(&A);
   } else if (strcmp(mode, "cond_never") == 0) {
      pthread_t s = spawn(signal_early, NULL);
      pthread_join(s, NULL);
      pthread_t w = spawn(wait_c, NULL);
      pthread_join(w, NULL);
   } else if (strcmp(mode, "woken_mutex") == 0) {
      pthread_t w = spawn(wait_c, NULL);
      ms_sleep(300);                /* it waits by now (else: a plain hang-free run) */
      pthread_mutex_lock(&A);
      ready = 1;
      pthread_cond_signal(&C);
      pthread_join(w, NULL);        /* still holding A */
      pthread_mutex_unlock(&A);
   } else if (strcmp(mode, "barrier_short") == 0) {
      pthread_barrier_init(&three, NULL, 3);
      pthread_t a = spawn(wait_three, NULL), b = spawn(wait_three, NULL);
      pthread_join(a, NULL);
      pthread_join(b, NULL);
   } else if (strcmp(mode, "sem_never") == 0) {
      sem_init(&sem, 0, 0);
      pthread_join(spawn(wait_sem, NULL), NULL);
   } else if (strcmp(mode, "sem_alarm") == 0) {
      sem_init(&sem, 0, 0);
      signal(SIGALRM, post_sem);
      alarm(1);
      while (sem_wait(&sem) != 0) {}     /* EINTR: the handler ran */
   } else if (strcmp(mode, "exit_last") == 0) {
      pthread_t w = spawn(wait_c, NULL);
      pthread_t f = spawn(forget_to_signal, NULL);
      pthread_detach(f);
      pthread_join(w, NULL);
   } else if (strcmp(mode, "exit_main_cond") == 0) {
      pthread_detach(spawn(wait_c, NULL));
      ms_sleep(300);
      pthread_exit(NULL);
   } else if (strcmp(mode, "exit_main_sem") == 0) {
      sem_init(&sem, 0, 0);
      pthread_detach(spawn(wait_sem, NULL));
      ms_sleep(300);
      pthread_exit(NULL);
   } else if (strcmp(mode, "slow_signal") == 0) {
      pthread_t s = spawn(signal_late, NULL);
      wait_c(NULL);
      pthread_join(s, NULL);
   }
   printf("done\n");
   return 0;
}
