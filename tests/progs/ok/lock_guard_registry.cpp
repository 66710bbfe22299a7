// Correct: insert-if-absent with one std::lock_guard held across the check
// and the insert.
//
// register_name() takes the registry's std::mutex once, checks and appends
// under it; every access to `names_` holds that mutex for the whole
// region, so regions run one after the other in every interleaving.  The
// registry lives on main's stack and is reached by the threads through a
// reference (another thread's stack is checked like any shared memory).
// Native check: no duplicates.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

class Registry {
public:
   void register_name(int k)
   {
      ATOMGRIND_ATOMIC_BEGIN();
      {
         std::lock_guard<std::mutex> g(mu_);
         if (std::find(names_.begin(), names_.end(), k) == names_.end())
            names_.push_back(k);
      }
      ATOMGRIND_ATOMIC_END();
   }
   size_t size()
   {
      std::lock_guard<std::mutex> g(mu_);
      return names_.size();
   }
private:
   std::mutex mu_;
   std::vector<int> names_;
};

static const int THREADS = 3, NAMES = 120;

int main()
{
   Registry reg;
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([&reg] {
         for (int k = 0; k < NAMES; k++) reg.register_name(k);
      });
   for (auto &t : ts) t.join();
   std::printf("%s\n", reg.size() == (size_t)NAMES ? "consistent" : "INCONSISTENT");
   return 0;
}
