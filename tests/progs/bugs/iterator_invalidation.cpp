// Bug: iterating a container across lock holds while another thread
// inserts into it (iterator invalidation).
//
// The reader sums a std::vector element by element, taking the lock for
// each step so the writer is not held up; the writer inserts at the front
// and drops the last element (under the lock).  An insert invalidates
// every iterator at or after the insertion point: the reader's iterator
// now points at a shifted element, so it reads one value twice and skips
// another.  (Capacity is reserved, so the stale iterator still points into
// the buffer and the program does not crash natively; the sum is wrong.)
// Interleaving: the reader reads elements 0..k, the writer shifts the
// array, the reader reads k+1..end.  Cycle: the reader's read of element 0
// precedes the writer's write of it (R -> W), the writer's write of
// element k+1 precedes the reader's read of it (W -> R).
// Data: the std::vector `list` (its elements).
// Native symptom: "torn sums" > 0 (every insert keeps the sum unchanged).
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int LEN = 16, ROUNDS = 80;
static std::mutex mu;
static std::vector<long> list;
static long expected;
static int torn;

static void reader()
{
   for (int r = 0; r < ROUNDS; r++) {
      long sum = 0;
      ATOMGRIND_ATOMIC_BEGIN();
      std::vector<long>::iterator it;
      {
         std::lock_guard<std::mutex> g(mu);
         it = list.begin();
      }
      for (int i = 0; i < LEN; i++) {
         std::lock_guard<std::mutex> g(mu);
         sum += *it++;
      }
      ATOMGRIND_ATOMIC_END();
      if (sum != expected) torn++;
   }
}

static void writer()
{
   for (int r = 0; r < ROUNDS * 2; r++) {
      std::lock_guard<std::mutex> g(mu);
      long last = list.back();
      list.pop_back();
      list.insert(list.begin(), last);   // rotate: the sum stays the same
   }
}

int main()
{
   list.reserve(LEN + 1);
   for (int i = 0; i < LEN; i++) {
      list.push_back(i * i);
      expected += i * i;
   }
   std::thread a(reader), b(writer);
   a.join();
   b.join();
   std::printf("torn sums %d\n", torn);
   return 0;
}
