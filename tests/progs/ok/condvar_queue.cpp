// Correct: a std::condition_variable job queue whose regions start after
// the wait.
//
// Workers wait on the condition variable with a std::unique_lock, and open
// the region only once the wait has returned (the mutex is held again);
// the region (take the job, mark it done) closes before the unlock.  Every
// access to the queue holds the mutex for the whole region, so regions
// never interleave.  Native check: every job done exactly once.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int WORKERS = 2, JOBS = 200;
static std::mutex mu;
static std::condition_variable cv;
static std::deque<int> queue;
static int done[JOBS];

static void worker(int n)
{
   for (int i = 0; i < n; i++) {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [] { return !queue.empty(); });
      ATOMGRIND_ATOMIC_BEGIN();
      int job = queue.front();
      queue.pop_front();
      done[job]++;
      ATOMGRIND_ATOMIC_END();
   }
}

int main()
{
   std::vector<std::thread> ts;
   for (int w = 0; w < WORKERS; w++)
      ts.emplace_back(worker, JOBS / WORKERS);
   for (int j = 0; j < JOBS; j++) {
      std::lock_guard<std::mutex> g(mu);
      ATOMGRIND_ATOMIC_BEGIN();
      queue.push_back(j);
      ATOMGRIND_ATOMIC_END();
      cv.notify_one();
   }
   for (auto &t : ts) t.join();
   int bad = 0;
   for (int j = 0; j < JOBS; j++) bad += done[j] != 1;
   std::printf("%s\n", bad == 0 ? "consistent" : "INCONSISTENT");
   return 0;
}
