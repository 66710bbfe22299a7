/* Correct: transfers and audits under two-phase locking.
 *
 * Each account has its own mutex.  A transfer locks both accounts (lower
 * index first, so no deadlock), moves the money, then unlocks both; the
 * auditor locks every account in index order, sums, then unlocks them
 * all.  No region acquires a lock after releasing one and every access to
 * acct[i] holds lock[i], so every interleaving is conflict-serializable
 * (in the order of the regions' lock points).
 * Native check: every audit sees the same total. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define ACCOUNTS 4
#define TRANSFERS 200
#define START 1000

static pthread_mutex_t lock[ACCOUNTS];
static long acct[ACCOUNTS];
static int bad_audits;

static void transfer(int from, int to, long amount)
{
   int lo = from < to ? from : to, hi = from < to ? to : from;
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&lock[lo]);
   pthread_mutex_lock(&lock[hi]);
   acct[from] -= amount;
   acct[to] += amount;
   pthread_mutex_unlock(&lock[hi]);
   pthread_mutex_unlock(&lock[lo]);
   ATOMGRIND_ATOMIC_END();
}

static long audit(void)
{
   long sum = 0;
   ATOMGRIND_ATOMIC_BEGIN();
   for (int i = 0; i < ACCOUNTS; i++)
      pthread_mutex_lock(&lock[i]);
   for (int i = 0; i < ACCOUNTS; i++)
      sum += acct[i];
   for (int i = ACCOUNTS - 1; i >= 0; i--)
      pthread_mutex_unlock(&lock[i]);
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
   printf("%s\n", bad_audits == 0 && acct[0] + acct[1] + acct[2] + acct[3] == ACCOUNTS * START
          ? "consistent" : "INCONSISTENT");
   return 0;
}
