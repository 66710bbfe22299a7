// idioms_cxx.cpp -- C++ atomics idioms for --check=races, one per mode
// (argv[1]); tests/test_atomics.py holds the verdict each must get.  -O2.
//   mp_seqcst     data, then ready = true (seq_cst store: xchg)       -> clean
//   mp_relacq     the same with store(release) (a plain mov)          -> clean (the
//                 reader's spin loop makes its loads acquire loads)
//   shared_ptr    copies dropped in three threads, the last deletes  -> clean
//   flag_lock     spinlock on std::atomic_flag guarding a counter    -> clean
//   load_store    std::atomic<long> load() then store() in a loop    -> clean
//   call_once     std::call_once initialises data                    -> clean
//   static_local  a function-local static initialised on first use   -> clean
//   dcl           double-checked init, std::atomic<T*> (seq_cst)     -> clean
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <unistd.h>

static const char *mode;
static long data;
static std::atomic<bool> ready{false};

static void mp()
{
   std::thread w([] {
      usleep(300000);                 // the reader spins meanwhile
      data = 42;
      if (!strcmp(mode, "mp_seqcst")) ready.store(true);
      else ready.store(true, std::memory_order_release);
   });
   std::thread r([] {
      while (!ready.load(std::memory_order_acquire)) {}
      if (data != 42) abort();
   });
   w.join();
   r.join();
}

struct payload { long v[4] = { 1, 2, 3, 4 }; ~payload() { v[0] = -1; } };

static void shared_ptrs()
{
   auto p = std::make_shared<payload>();
   std::vector<std::thread> ts;
   for (int i = 0; i < 3; i++)
      ts.emplace_back([q = p, i]() mutable {
         long s = 0;
         for (int k = 0; k < 100; k++) { auto c = q; s += c->v[k % 4]; }
         if (i == 2) usleep(20000);
         q.reset();
         return s;
      });
   p.reset();
   for (auto &t : ts) t.join();
}

static std::atomic_flag flk = ATOMIC_FLAG_INIT;
static long counter;

static void flag_lock()
{
   auto work = [] {
      for (int i = 0; i < 300; i++) {
         while (flk.test_and_set(std::memory_order_acquire)) {}
         counter++;
         flk.clear(std::memory_order_release);
      }
   };
   std::thread a(work), b(work);
   a.join();
   b.join();
   if (counter != 600) abort();
}

static std::atomic<long> acount{0};

static void load_store()
{
   auto work = [] { for (int i = 0; i < 1000; i++) acount.store(acount.load() + 1); };
   std::thread a(work), b(work);
   a.join();
   b.join();
}

static std::once_flag once;
static long config[4];

static void call_once()
{
   auto work = [] {
      std::call_once(once, [] { for (int i = 0; i < 4; i++) config[i] = i; });
      long s = 0;
      for (int i = 0; i < 4; i++) s += config[i];
      return s;
   };
   std::thread a(work), b(work);
   a.join();
   b.join();
}

struct table { long v[8]; table() { for (int i = 0; i < 8; i++) v[i] = i * i; } };

static __attribute__((noinline)) const table &the_table()
{
   static table t;
   return t;
}

static void static_local()
{
   auto work = [](int delay) { usleep(delay); return the_table().v[3]; };
   std::thread a(work, 0), b(work, 50000);
   a.join();
   b.join();
}

struct conf { long a, b; };
static std::atomic<conf *> cf{nullptr};
static std::mutex cf_mu;

static conf *get_conf()
{
   conf *c = cf.load();
   if (c) return c;
   std::lock_guard<std::mutex> g(cf_mu);
   c = cf.load(std::memory_order_relaxed);
   if (!c) { c = new conf{1, 2}; cf.store(c); }
   return c;
}

static void dcl()
{
   auto work = [](int delay) { usleep(delay); return get_conf()->a; };
   std::thread a(work, 0), b(work, 50000);
   a.join();
   b.join();
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: idioms_cxx MODE\n"); return 2; }
   mode = argv[1];
   if (!strncmp(mode, "mp_", 3)) mp();
   else if (!strcmp(mode, "shared_ptr")) shared_ptrs();
   else if (!strcmp(mode, "flag_lock")) flag_lock();
   else if (!strcmp(mode, "load_store")) load_store();
   else if (!strcmp(mode, "call_once")) call_once();
   else if (!strcmp(mode, "static_local")) static_local();
   else if (!strcmp(mode, "dcl")) dcl();
   else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
   return 0;
}
