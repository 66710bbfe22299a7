// Bug: a container's size read under the lock, then an element indexed by
// it under a second hold of the lock.
//
// take_last() asks the work list for its size, unlocks, then locks again
// and takes element [size-1].  Between the two holds another thread may
// take that element: the index is stale, past the end (natively the bound
// check below skips it, and the work is left undone).  Interleaving: A
// reads size 5, B reads size 5 and pops, A indexes [4].  Cycle: A's read
// of the vector's end pointer precedes B's pop writing it (A -> B), B's
// write precedes A's second read (B -> A).
// Data: the std::vector `work` (its end pointer and elements).
// Native symptom: "stale index" > 0 and "left" > 0.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int THREADS = 3, ITEMS = 600;
static std::mutex mu;
static std::vector<int> work;
static int stale, taken;
static long sum;

static size_t work_size()
{
   std::lock_guard<std::mutex> g(mu);
   return work.size();
}

static bool take_last()
{
   bool got = false;
   ATOMGRIND_ATOMIC_BEGIN();
   size_t n = work_size();
   if (n > 0) {
      std::lock_guard<std::mutex> g(mu);
      if (n - 1 < work.size()) {       // without this bound it would crash natively
         sum += work[n - 1];
         work.erase(work.begin() + (n - 1));
         taken++;
         got = true;
      } else {
         stale++;
      }
   }
   ATOMGRIND_ATOMIC_END();
   return got;
}

int main()
{
   for (int i = 0; i < ITEMS; i++) work.push_back(i);
   std::vector<std::thread> ts;
   for (int t = 0; t < THREADS; t++)
      ts.emplace_back([] {
         for (int i = 0; i < ITEMS / THREADS; i++) take_last();
      });
   for (auto &t : ts) t.join();
   std::printf("taken %d, stale index %d, left %zu\n", taken, stale, work.size());
   return 0;
}
