/* Serial-looking runs for --predict: withdraw()'s region (read the
 * balance, write it back) runs entirely before or after deposit()'s
 * unannotated update, so no interleaving is observed; whether one is
 * possible depends on the mode (argv[1]):
 *   after    deposit runs 300 ms after the region: predicted (default)
 *   before   deposit runs 300 ms before the region: predicted (main
 *            opens an empty region first: prediction starts at the run's
 *            first region, and deposit comes after that)
 *   locked   both hold one mutex, the region throughout: none
 *   created  the depositor is created after the region ends: none
 *   sem      deposit waits for a semaphore posted after the region: none
 *   atomic   both sides one atomic fetch-add, the region nothing else: none
 *   scratch  as after, the region first filling a 4 MiB scratch buffer
 *            word by word (prediction's state for 512 Ki locations, more
 *            than a small --predict-memory): predicted
 *   late     the region fills the buffer, reads and writes the balance,
 *            then sleeps 2 s; deposit's update, 1 s after the start,
 *            comes while the region is open, after 512 Ki of its
 *            accesses: predicted */
#include <semaphore.h>
#include "common.h"

static int balance = 100;
static const char *mode = "after";
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sem_t sem;
static long scratch[1 << 19];

static int is(const char *m) { return strcmp(mode, m) == 0; }

static void *withdraw(void *arg)
{
   (void)arg;
   if (is("before")) ms_sleep(300);
   if (is("locked")) pthread_mutex_lock(&mu);
   ATOMGRIND_ATOMIC_BEGIN();
   if (is("scratch") || is("late"))
      for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
         ((volatile long *)scratch)[i] = (long)i;
   if (is("atomic")) {
      __atomic_fetch_add(&balance, -10, __ATOMIC_SEQ_CST);
   } else {
      int b = balance;
      if (b >= 10) balance = b - 10;
   }
   if (is("late")) ms_sleep(2000);
   ATOMGRIND_ATOMIC_END();
   if (is("locked")) pthread_mutex_unlock(&mu);
   if (is("sem")) sem_post(&sem);
   return NULL;
}

static void *deposit(void *arg)
{
   (void)arg;
   if (is("after") || is("locked") || is("atomic") || is("scratch")) ms_sleep(300);
   if (is("late")) ms_sleep(1000);
   if (is("sem")) sem_wait(&sem);
   if (is("locked")) pthread_mutex_lock(&mu);
   if (is("atomic"))
      __atomic_fetch_add(&balance, 10, __ATOMIC_SEQ_CST);
   else
      balance += 10;
   if (is("locked")) pthread_mutex_unlock(&mu);
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 1) mode = argv[1];
   sem_init(&sem, 0, 0);
   if (is("before")) {
      ATOMGRIND_ATOMIC_BEGIN();
      ATOMGRIND_ATOMIC_END();
   }
   if (is("created")) {
      pthread_t a = spawn(withdraw, NULL);
      pthread_join(a, NULL);
      pthread_t b = spawn(deposit, NULL);
      pthread_join(b, NULL);
   } else {
      pthread_t a = spawn(withdraw, NULL), b = spawn(deposit, NULL);
      pthread_join(a, NULL);
      pthread_join(b, NULL);
   }
   printf("balance %d\n", balance);
   return 0;
}
