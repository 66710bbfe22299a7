// waits.cpp -- C++20's atomic waits hand data over: libstdc++'s semaphores,
// latches, barriers and atomic<T>::wait load the waited-on word with
// __atomic builtins in its own headers (plain movs) and sleep in futex
// calls on it.  --check=races, one mode per run (argv[1]);
// tests/test_atomics.py holds the verdicts.  -O2 -std=c++20.
//   semaphore    data, then release(); main acquire()s, reads data -> clean
//   latch        data, then count_down(); main wait()s, reads data -> clean
//   barrier      each thread writes its half, arrive_and_wait(), reads
//                the other's half                                  -> clean
//   atomic_wait  data, then flag.store(1) and notify_one(); main
//                flag.wait(0), reads data                          -> clean
//   race_after   data written after release()                      -> race
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstring>
#include <latch>
#include <semaphore>
#include <thread>

static long data;
static std::binary_semaphore sem(0);
static std::latch done(1);
static std::atomic<int> flag{0};

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "semaphore";
   long seen = 0;
   if (!strcmp(mode, "semaphore") || !strcmp(mode, "race_after")) {
      bool late = !strcmp(mode, "race_after");
      std::thread t([late] {
         if (!late) data = 1;
         sem.release();
         if (late) data = 1;
      });
      sem.acquire();
      seen = data;
      t.join();
   } else if (!strcmp(mode, "latch")) {
      std::thread t([] { data = 2; done.count_down(); });
      done.wait();
      seen = data;
      t.join();
   } else if (!strcmp(mode, "barrier")) {
      long half[2] = {0, 0};
      std::barrier bar(2);
      std::thread t([&] { half[1] = 3; bar.arrive_and_wait(); data = half[0]; });
      half[0] = 4;
      bar.arrive_and_wait();
      seen = half[1];
      t.join();
      seen += data;
   } else if (!strcmp(mode, "atomic_wait")) {
      std::thread t([] { data = 5; flag.store(1); flag.notify_one(); });
      flag.wait(0);
      seen = data;
      t.join();
   } else {
      std::fprintf(stderr, "waits: unknown mode %s\n", mode);
      return 2;
   }
   std::printf("%s %ld\n", mode, seen);
   return 0;
}
