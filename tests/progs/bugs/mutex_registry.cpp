// Bug: "insert if absent" built from two std::mutex-protected calls.
//
// The registry's contains() and add() each take a std::lock_guard, so
// each call is safe, but register_name() = "if (!contains(k)) add(k)" is a
// check-then-act across two lock holds: two threads registering the same
// name both see it absent and both add it.  Interleaving: A's contains(k)
// is false, B's contains(k) is false and B adds k, A adds k.  Cycle: A's
// read of the vector precedes B's append (A -> B), B's append precedes A's
// append (B -> A).  Data: the registry's std::vector `names`.
// Native symptom: "duplicates" > 0.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

class Registry {
public:
   bool contains(int k)
   {
      std::lock_guard<std::mutex> g(mu_);
      return std::find(names_.begin(), names_.end(), k) != names_.end();
   }
   void add(int k)
   {
      std::lock_guard<std::mutex> g(mu_);
      names_.push_back(k);
   }
   size_t size()
   {
      std::lock_guard<std::mutex> g(mu_);
      return names_.size();
   }
   void register_name(int k)
   {
      ATOMGRIND_ATOMIC_BEGIN();
      if (!contains(k)) add(k);
      ATOMGRIND_ATOMIC_END();
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
   std::printf("duplicates %zu\n", reg.size() - NAMES);
   return 0;
}
