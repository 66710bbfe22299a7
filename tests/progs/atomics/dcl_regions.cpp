// dcl_regions.cpp -- double-checked locking in an atomic function
// (--atomic-fns=get), two threads.  One mode per run (argv[1]);
// tests/test_atomics.py holds the verdicts.  -O2.  Thread 1 initialises,
// sleeping inside the lock (a second: thread 2, started 100 ms after it,
// may start late on a loaded machine -- 200 ms were once too few); thread
// 2 checks while it sleeps.
//   correct     acquire load; lock; re-check (relaxed); new; release
//               store; unlock: thread 2 blocks on the lock    -> clean
//   correct_late  the same, thread 2 taking the lock only after thread 1
//               let it go                                      -> clean
//   no_recheck  acquire load; lock; new; store; unlock: thread 2
//               initialises again                              -> violation
//   outside     acquire load; re-check before the lock; lock; new;
//               store; unlock: thread 2 initialises again     -> violation
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <unistd.h>

struct conf { long a, b; };
static const char *mode;
static std::atomic<conf *> cf{nullptr};
static std::mutex mu;
static std::atomic<int> inits{0};
static const useconds_t init_us = 1000000;          // thread 1 inside the lock

static conf *make()
{
   usleep(init_us);                   // thread 2 checks meanwhile
   inits++;
   return new conf{1, 2};
}

__attribute__((noinline)) conf *get(int me)
{
   conf *c = cf.load(std::memory_order_acquire);
   if (c) return c;
   if (!strcmp(mode, "correct_late") && me == 2) usleep(init_us + 500000);
   if (!strcmp(mode, "outside")) {
      c = cf.load(std::memory_order_acquire);
      if (c) return c;
   }
   std::lock_guard<std::mutex> g(mu);
   if (strcmp(mode, "no_recheck") && strcmp(mode, "outside")) {
      c = cf.load(std::memory_order_relaxed);
      if (c) return c;
   }
   c = make();
   cf.store(c, std::memory_order_release);
   return c;
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: dcl_regions MODE\n"); return 2; }
   mode = argv[1];
   long s = 0;
   std::thread a([&s] { s += get(1)->a; });
   usleep(100000);
   std::thread b([&s] { s += get(2)->b; });
   a.join();
   b.join();
   printf("inits %d\n", inits.load());
   return 0;
}
