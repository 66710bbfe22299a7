/* The last thread that could run ends (pthread_exit or a return) and
 * leaves the others blocked in waits that are not made in slices (a
 * barrier, a mutex, a rwlock): no thread announces anything afterwards.
 * Each deadlock mode hangs natively; the test expects a report instead.
 *
 *   barrier_main     main ends with pthread_exit; T waits at a barrier of
 *                    two that nobody else will reach.
 *   barrier_return   main and T1 wait at a barrier of three; T2, the third,
 *                    returns without reaching it.
 *   mutex_ended      T locks A and returns holding it; main (no join)
 *                    waits for A.
 *   mutex_blocked    T1 locks A, then waits at a barrier of two; main waits
 *                    for A; T2, which should reach the barrier, returns.
 *   rwlock_ended     T write-locks R and returns holding it; main waits to
 *                    read-lock R.
 *   rwlock_reader    T read-locks R and returns holding it; main waits to
 *                    write-lock R.
 *   ok_sleep         correct: main ends; T1 waits at a barrier of three
 *                    that T2 reaches after sleeping 2 s and T3 after a
 *                    second of computing -> "done".
 *   ok_tsd           correct: main ends; T1 waits at a barrier of two; T2
 *                    returns, and its TSD destructor reaches the barrier
 *                    (it runs after the thread's code: before its exit
 *                    system call, where the check is) -> "done".
 *   ok_tsd_unlock    correct: T locks A, returns, and its TSD destructor
 *                    unlocks A, which main waits for -> "main done".
 *   ok_cleanup       correct: T locks A, sleeps, and leaves by
 *                    pthread_exit; its cleanup handler unlocks A, which
 *                    main waits for -> "main done".
 *   ok_read          correct: main ends; T1 waits at a barrier of two that
 *                    T2 reaches after a blocking read, which T3 feeds 2 s
 *                    later before it returns -> "done".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <semaphore.h>

static pthread_barrier_t bar;
static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t R = PTHREAD_RWLOCK_INITIALIZER;
static sem_t held;
static int fds[2];

static void *at_barrier(void *arg)
{
   (void)arg;
   pthread_barrier_wait(&bar);                       /* T waits here */
   printf("done\n");
   return NULL;
}

static void *ends_early(void *arg)
{
   (void)arg;
   usleep(300 * 1000);         /* after the others block (either order deadlocks) */
   return NULL;                                      /* T2 returns */
}

static void *lock_and_return(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);                           /* T takes A */
   sem_post(&held);
   usleep(300 * 1000);
   return NULL;
}

static void *lock_then_barrier(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);                           /* T1 takes A */
   sem_post(&held);
   pthread_barrier_wait(&bar);                       /* T1 waits here */
   pthread_mutex_unlock(&A);
   return NULL;
}

static void *wrlock_and_return(void *arg)
{
   (void)arg;
   pthread_rwlock_wrlock(&R);                        /* T takes R */
   sem_post(&held);
   usleep(300 * 1000);
   return NULL;
}

static void *rdlock_and_return(void *arg)
{
   (void)arg;
   pthread_rwlock_rdlock(&R);                        /* T reads R */
   sem_post(&held);
   usleep(300 * 1000);
   return NULL;
}

static void *sleep_then_barrier(void *arg)
{
   (void)arg;
   sleep(2);
   pthread_barrier_wait(&bar);
   return NULL;
}

static volatile unsigned long sink;

static void *compute_then_barrier(void *arg)
{
   struct timespec t0, t;
   (void)arg;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   do {
      for (int i = 0; i < 100000; i++) sink += i;
      clock_gettime(CLOCK_MONOTONIC, &t);
   } while (t.tv_sec - t0.tv_sec < 1);
   pthread_barrier_wait(&bar);
   return NULL;
}

static void *read_then_barrier(void *arg)
{
   char c;
   (void)arg;
   if (read(fds[0], &c, 1) != 1) return NULL;
   pthread_barrier_wait(&bar);
   return NULL;
}

static void *write_later(void *arg)
{
   (void)arg;
   sleep(2);
   if (write(fds[1], "x", 1) != 1) perror("write");
   return NULL;
}

static pthread_key_t key;

static void reach_barrier(void *value)
{
   (void)value;
   pthread_barrier_wait(&bar);
}

static void *tsd_then_return(void *arg)
{
   (void)arg;
   usleep(300 * 1000);
   pthread_setspecific(key, &key);
   return NULL;
}

static void unlock_a(void *m)
{
   pthread_mutex_unlock(m);
}

static void *lock_tsd_return(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   pthread_setspecific(key, &A);
   sem_post(&held);
   usleep(300 * 1000);
   return NULL;
}

static void *lock_then_exit(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&A);
   pthread_cleanup_push(unlock_a, &A);
   sem_post(&held);
   usleep(300 * 1000);
   pthread_exit(NULL);
   pthread_cleanup_pop(0);
   return NULL;
}

static void spawn(void *(*fn)(void *))
{
   pthread_t t;
   pthread_create(&t, NULL, fn, NULL);
   pthread_detach(t);
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "barrier_main";
   sem_init(&held, 0, 0);
   if (strcmp(mode, "barrier_main") == 0) {
      pthread_barrier_init(&bar, NULL, 2);
      spawn(at_barrier);
      pthread_exit(NULL);                            /* main ends */
   } else if (strcmp(mode, "barrier_return") == 0) {
      pthread_barrier_init(&bar, NULL, 3);
      spawn(at_barrier);
      spawn(ends_early);
      pthread_barrier_wait(&bar);                    /* main waits here */
   } else if (strcmp(mode, "mutex_ended") == 0) {
      spawn(lock_and_return);
      sem_wait(&held);
      pthread_mutex_lock(&A);                        /* main waits for A */
   } else if (strcmp(mode, "mutex_blocked") == 0) {
      pthread_barrier_init(&bar, NULL, 2);
      spawn(lock_then_barrier);
      sem_wait(&held);
      spawn(ends_early);
      pthread_mutex_lock(&A);              /* main waits for A, T1 blocked */
   } else if (strcmp(mode, "rwlock_ended") == 0) {
      spawn(wrlock_and_return);
      sem_wait(&held);
      pthread_rwlock_rdlock(&R);                     /* main waits for R */
   } else if (strcmp(mode, "rwlock_reader") == 0) {
      spawn(rdlock_and_return);
      sem_wait(&held);
      pthread_rwlock_wrlock(&R);                     /* main waits to write R */
   } else if (strcmp(mode, "ok_sleep") == 0) {
      pthread_barrier_init(&bar, NULL, 3);
      spawn(at_barrier);
      spawn(sleep_then_barrier);
      spawn(compute_then_barrier);
      pthread_exit(NULL);
   } else if (strcmp(mode, "ok_tsd") == 0) {
      pthread_barrier_init(&bar, NULL, 2);
      pthread_key_create(&key, reach_barrier);
      spawn(at_barrier);
      spawn(tsd_then_return);
      pthread_exit(NULL);
   } else if (strcmp(mode, "ok_tsd_unlock") == 0) {
      pthread_key_create(&key, unlock_a);
      spawn(lock_tsd_return);
      sem_wait(&held);
      pthread_mutex_lock(&A);
   } else if (strcmp(mode, "ok_cleanup") == 0) {
      spawn(lock_then_exit);
      sem_wait(&held);
      pthread_mutex_lock(&A);
   } else if (strcmp(mode, "ok_read") == 0) {
      if (pipe(fds) != 0) return 2;
      pthread_barrier_init(&bar, NULL, 2);
      spawn(at_barrier);
      spawn(read_then_barrier);
      spawn(write_later);
      pthread_exit(NULL);
   } else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
   }
   printf("main done\n");
   return 0;
}
