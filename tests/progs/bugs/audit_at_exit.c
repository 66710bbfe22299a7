/* Bug (unannotated, fails by assertion): a check that runs last.  main
 * starts an auditor, then a depositor and a fee thread, and returns
 * without joining them: the author took the auditor, started first, to run
 * first.  Once both updates are in, the auditor's expected balance (the
 * fee counted twice) is wrong.  Natively the exit ends the threads first,
 * mostly; it shows when the auditor runs after both updates, before the
 * process ends (SCTBench's account_bad and token_ring_bad have this
 * shape).  Symptom: the auditor's assertion. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100, deposited, charged;

static void *deposit(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   balance += 10;
   deposited = 1;
   pthread_mutex_unlock(&m);
   return NULL;
}

static void *fee(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   balance -= 3;
   charged = 1;
   pthread_mutex_unlock(&m);
   return NULL;
}

static void *audit(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&m);
   if (deposited && charged) assert(balance == 100 + 10 - 3 - 3);
   pthread_mutex_unlock(&m);
   return NULL;
}

int main(void)
{
   pthread_t a, d, f;
   pthread_create(&a, NULL, audit, NULL);
   pthread_create(&d, NULL, deposit, NULL);
   pthread_create(&f, NULL, fee, NULL);
   return 0;
}
