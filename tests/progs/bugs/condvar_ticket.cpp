// Bug: an atomic region spanning a std::condition_variable wait.
//
// A worker reserves the next job number, then waits until that job has
// been produced, then takes it and advances the counter.  cv.wait()
// releases the mutex, so another worker reads the same job number while
// the first is waiting: both process job k and job k+1 is never taken.
// Interleaving: W1 reads next = 4 and waits; W2 reads next = 4 and waits;
// the producer makes job 4; W1 takes it and sets next = 5; W2 takes job 4
// again and sets next = 5.  Cycle: W2's read of `next_job` precedes W1's
// write (W2 -> W1), W1's write precedes W2's write (W1 -> W2).
// Data: `next_job`, `done`.  Native symptom: "processed twice" > 0.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <valgrind/atomgrind.h>

static const int WORKERS = 2, PER_WORKER = 100, JOBS = WORKERS * PER_WORKER;
static std::mutex mu;
static std::condition_variable produced;
static int next_job, available;
static int done[JOBS];

static void take_job()
{
   ATOMGRIND_ATOMIC_BEGIN();
   std::unique_lock<std::mutex> lk(mu);
   int mine = next_job;                                  // reserved before waiting
   produced.wait(lk, [mine] { return available > mine; });
   done[mine]++;
   next_job = mine + 1;
   lk.unlock();
   ATOMGRIND_ATOMIC_END();
}

int main()
{
   std::vector<std::thread> ts;
   for (int w = 0; w < WORKERS; w++)
      ts.emplace_back([] {
         for (int i = 0; i < PER_WORKER; i++) take_job();
      });
   for (int j = 0; j < JOBS; j++) {
      std::lock_guard<std::mutex> g(mu);
      available++;
      produced.notify_all();
   }
   for (auto &t : ts) t.join();
   int twice = 0;
   for (int j = 0; j < JOBS; j++)
      if (done[j] > 1) twice += done[j] - 1;
   std::printf("processed twice %d\n", twice);
   return 0;
}
