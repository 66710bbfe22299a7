// Bug: a std::atomic read, then a store of a value computed from it.
//
// Each access to `next_id` is atomic, but "load, add one, store" is not a
// read-modify-write: two threads that load the same value hand out the
// same id.  Interleaving: A loads 41, B loads 41 and stores 42, A stores
// 42.  Cycle: A's load precedes B's store (A -> B), B's store precedes A's
// store (B -> A).  The fix is next_id.fetch_add(1).
// Data: the global std::atomic<int> `next_id`.  Native symptom: "duplicate ids" > 0.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int THREADS = 3, ITERS = 300;
static std::atomic<int> next_id{0};
static std::atomic<int> issued[THREADS * ITERS + 1];

static int new_id()
{
   ATOMGRIND_ATOMIC_BEGIN();
   int id = next_id.load();
   next_id.store(id + 1);
   ATOMGRIND_ATOMIC_END();
   return id;
}

int main()
{
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([] {
         for (int i = 0; i < ITERS; i++) {
            int id = new_id();
            if (id >= 0 && id < THREADS * ITERS) issued[id].fetch_add(1, std::memory_order_relaxed);
         }
      });
   for (auto &t : ts) t.join();
   int dup = 0;
   for (int i = 0; i < THREADS * ITERS; i++)
      if (issued[i].load() > 1) dup += issued[i].load() - 1;
   std::printf("duplicate ids %d\n", dup);
   return 0;
}
