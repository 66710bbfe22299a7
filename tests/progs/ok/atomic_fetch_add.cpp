// Correct: id allocation with std::atomic fetch_add, one shared access per
// region.
//
// new_id() is a region around a single next_id.fetch_add(1): one atomic
// instruction, so no interleaving can split it, and a region with one
// shared event is serializable against anything.  The issued ids are
// recorded in a per-thread vector (thread-private heap) and checked by main
// after the joins.  Native check: no duplicate ids.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int THREADS = 3, ITERS = 300;
static std::atomic<int> next_id{0};

static int new_id()
{
   ATOMGRIND_ATOMIC_BEGIN();
   int id = next_id.fetch_add(1);
   ATOMGRIND_ATOMIC_END();
   return id;
}

int main()
{
   std::vector<std::vector<int>> got(THREADS);
   for (auto &g : got) g.reserve(ITERS);
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([&got, t] {
         for (int i = 0; i < ITERS; i++) got[t].push_back(new_id());
      });
   for (auto &t : ts) t.join();
   std::vector<int> seen(THREADS * ITERS, 0);
   int dup = 0;
   for (auto &g : got)
      for (int id : g)
         if (seen.at(id)++) dup++;
   std::printf("%s\n", dup == 0 ? "consistent" : "INCONSISTENT");
   return 0;
}
