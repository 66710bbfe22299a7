// Correct: std::shared_mutex readers and writers, each region under one
// lock hold.
//
// Balance checks hold a std::shared_lock for the whole region; withdrawals
// check and subtract under one std::unique_lock (the fixed version of
// bugs/shared_mutex_upgrade.cpp).  Shared holders only read, an exclusive
// holder excludes everybody: every interleaving is serializable.
// Native check: the balance never goes negative.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int THREADS = 3, ROUNDS = 100;
static std::shared_mutex mu;
static long balance, withdrawn, deposited;
static std::atomic<int> negative;

static void withdraw(long amount)
{
   ATOMGRIND_ATOMIC_BEGIN();
   {
      std::unique_lock<std::shared_mutex> w(mu);
      if (balance >= amount) {
         balance -= amount;
         withdrawn += amount;
      }
   }
   ATOMGRIND_ATOMIC_END();
}

static bool look()
{
   bool ok;
   ATOMGRIND_ATOMIC_BEGIN();
   {
      std::shared_lock<std::shared_mutex> r(mu);      // readers only read
      ok = balance >= 0 && balance == deposited - withdrawn;
   }
   ATOMGRIND_ATOMIC_END();
   return ok;
}

int main()
{
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([t] {
         for (int i = 0; i < ROUNDS; i++) {
            if (t == 0) {
               ATOMGRIND_ATOMIC_BEGIN();
               {
                  std::unique_lock<std::shared_mutex> w(mu);
                  balance += 10;
                  deposited += 10;
               }
               ATOMGRIND_ATOMIC_END();
            }
            withdraw(10);
            if (!look()) negative++;      // outside the region
         }
      });
   for (auto &t : ts) t.join();
   std::printf("%s\n", negative == 0 ? "consistent" : "INCONSISTENT");
   return 0;
}
