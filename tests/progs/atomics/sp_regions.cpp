// sp_regions.cpp -- atomic functions (--atomic-fns=use) that copy and drop
// the standard library's reference-counted objects while other threads do
// the same: the counts' updates commute and are no conflict.  One mode per
// run (argv[1]); tests/test_atomics.py holds the verdicts.  -O2.
//   copy_drop   use(): copy a global shared_ptr, read through it, drop it;
//               three threads                                    -> clean
//   weak_lock   use(): lock a global weak_ptr, read through it, drop it;
//               three threads, the last owner (main) drops it meanwhile
//                                                                -> clean
//   locale      use(): copy a global locale (not the classic one, whose
//               count is not kept), ask it for a facet; three threads
//                                                                -> clean
//   stdio       use(): fprintf to a FILE the threads share          -> clean
//   snapshot    use(): copy the global shared_ptr (under its mutex), read
//               a; sleep; copy it again, read b, while another thread
//               replaces it (under the mutex) in between         -> violation
#include <cstdio>
#include <cstring>
#include <locale>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <unistd.h>

struct cfg { long a, b; };
static const char *mode;
static std::shared_ptr<cfg> g;
static std::weak_ptr<cfg> wg;
static std::mutex gm;
static long sink;
static FILE *out;
struct comma : std::numpunct<char> { char do_decimal_point() const override { return ','; } };
static std::locale gloc;

static std::shared_ptr<cfg> snap()
{
   std::lock_guard<std::mutex> l(gm);
   return g;
}

__attribute__((noinline)) long use(int i)
{
   if (!strcmp(mode, "copy_drop")) {
      std::shared_ptr<cfg> p = g;
      return p->a + p->b;
   }
   if (!strcmp(mode, "weak_lock")) {
      std::shared_ptr<cfg> p = wg.lock();
      return p ? p->a : 0;
   }
   if (!strcmp(mode, "locale")) {
      std::locale loc(gloc);
      return std::use_facet<std::numpunct<char> >(loc).decimal_point() == ',' ? i : 0;
   }
   if (!strcmp(mode, "stdio")) return fprintf(out, "%d\n", i);
   long a = snap()->a;                // snapshot: the bug
   usleep(200000);
   return a + snap()->b;              // another thread replaced g meanwhile
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: sp_regions MODE\n"); return 2; }
   mode = argv[1];
   g = std::make_shared<cfg>(cfg{1, 2});
   wg = g;
   gloc = std::locale(std::locale::classic(), new comma);
   out = fopen("/dev/null", "w");
   std::vector<std::thread> ts;
   int n = !strcmp(mode, "snapshot") ? 1 : 3, iters = !strcmp(mode, "snapshot") ? 1 : 40;
   for (int t = 0; t < n; t++)
      ts.emplace_back([iters] { for (int i = 0; i < iters; i++) sink += use(i) & 0; });
   if (!strcmp(mode, "snapshot")) {
      usleep(100000);
      std::lock_guard<std::mutex> l(gm);
      g = std::make_shared<cfg>(cfg{3, 4});
   } else if (!strcmp(mode, "weak_lock")) {
      usleep(1000);
      g.reset();                       // the weak_ptr expires while they lock it
   }
   for (auto &t : ts) t.join();
   return 0;
}
