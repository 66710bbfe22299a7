// Bug: a check under a std::shared_mutex read lock, then an update under
// the write lock, without checking again (a lock "upgrade" that is not
// atomic).
//
// withdraw() checks the balance with a shared_lock, releases it, then
// takes a unique_lock and subtracts.  Two withdrawals can both pass the
// check: the account is overdrawn.  Interleaving: A reads balance 10 (read
// lock), B reads 10, B takes the write lock and withdraws 10, A withdraws
// 10.  Cycle: A's read of `balance` precedes B's write (A -> B), B's write
// precedes A's write (B -> A).  Data: the global `balance`.
// Native symptom: "overdrawn" > 0.
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int THREADS = 3, ROUNDS = 100;
static std::shared_mutex mu;
static long balance;
static int overdrawn;

static bool withdraw(long amount)
{
   bool ok = false;
   ATOMGRIND_ATOMIC_BEGIN();
   bool enough;
   {
      std::shared_lock<std::shared_mutex> r(mu);
      enough = balance >= amount;
   }
   if (enough) {
      std::unique_lock<std::shared_mutex> w(mu);
      balance -= amount;
      if (balance < 0) overdrawn++;
      ok = true;
   }
   ATOMGRIND_ATOMIC_END();
   return ok;
}

static void deposit(long amount)
{
   std::unique_lock<std::shared_mutex> w(mu);
   balance += amount;
}

int main()
{
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([t] {
         for (int i = 0; i < ROUNDS; i++) {
            if (t == 0) deposit(10);
            withdraw(10);
         }
      });
   for (auto &t : ts) t.join();
   std::printf("overdrawn %d, balance %ld\n", overdrawn, balance);
   return 0;
}
