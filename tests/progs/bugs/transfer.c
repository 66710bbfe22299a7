/* Bug: a transfer between accounts with a lock per account, taken one at
 * a time.
 *
 * transfer(a, b) locks a, debits it, unlocks; then locks b, credits it,
 * unlocks.  Each access is locked, but the transfer is not atomic: an
 * auditor (or another transfer) that runs between the two halves sees the
 * money in neither account.  Interleaving: transfer 0->1 debits account 0;
 * transfer 1->0 debits 1 and credits 0; the first transfer credits 1.
 * Cycle: T1's write of acct[0] precedes T2's (T1 -> T2), T2's write of
 * acct[1] precedes T1's (T2 -> T1).  The auditor's region (locks each
 * account in turn, sums) breaks the same way.
 * Data: the global array `acct`.  Native symptom: "bad audits" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define ACCOUNTS 3
#define TRANSFERS 200
#define START 1000

static pthread_mutex_t lock[ACCOUNTS];
static long acct[ACCOUNTS];
static int bad_audits;

static void transfer(int from, int to, long amount)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&lock[from]);
   acct[from] -= amount;
   pthread_mutex_unlock(&lock[from]);
   pthread_mutex_lock(&lock[to]);
   acct[to] += amount;
   pthread_mutex_unlock(&lock[to]);
   ATOMGRIND_ATOMIC_END();
}

static long audit(void)
{
   long sum = 0;
   ATOMGRIND_ATOMIC_BEGIN();
   for (int i = 0; i < ACCOUNTS; i++) {
      pthread_mutex_lock(&lock[i]);
      sum += acct[i];
      pthread_mutex_unlock(&lock[i]);
   }
   ATOMGRIND_ATOMIC_END();
   return sum;
}

static void *teller(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < TRANSFERS; i++) {
      int from = (int)((id + i) % ACCOUNTS), to = (from + 1 + (int)id) % ACCOUNTS;
      if (from != to) transfer(from, to, 1 + i % 7);
   }
   return NULL;
}

static void *auditor(void *arg)
{
   (void)arg;
   for (int i = 0; i < TRANSFERS / 4; i++)
      if (audit() != ACCOUNTS * START) bad_audits++;
   return NULL;
}

int main(void)
{
   pthread_t t[3];
   for (int i = 0; i < ACCOUNTS; i++) {
      pthread_mutex_init(&lock[i], NULL);
      acct[i] = START;
   }
   pthread_create(&t[0], NULL, teller, (void *)0L);
   pthread_create(&t[1], NULL, teller, (void *)1L);
   pthread_create(&t[2], NULL, auditor, NULL);
   for (int i = 0; i < 3; i++)
      pthread_join(t[i], NULL);
   printf("bad audits %d, final total %ld\n", bad_audits, acct[0] + acct[1] + acct[2]);
   return 0;
}
