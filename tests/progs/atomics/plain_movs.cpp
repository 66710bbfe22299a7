// plain_movs.cpp -- std::atomic loads and stores that x86 compiles to plain
// movs, with no spin loop and no atomic instruction on the flag: only where
// their code comes from (std::atomic's functions, inlined) says they are
// atomic.  --check=races, one mode per run (argv[1]); tests/test_atomics.py
// holds the verdicts.  -O2.
//   flag_before   data, then flag.store(release); the reader starts after
//                 that and reads flag (acquire) once, then data     -> clean
//   relaxed_fence data; release fence; flag.store(relaxed); the reader:
//                 flag.load(relaxed); acquire fence; data          -> clean
//   ptr_publish   a node built, published by std::atomic<T*> store(release),
//                 read through load(acquire) by a later reader      -> clean
//   race_after    data written after the release store            -> race
//   plain_flag    the same hand-off through a plain bool          -> race
//   init_race     a std::atomic constructed (a plain store: its value is
//                 not initialised atomically) with no ordering before a
//                 later reader's load(relaxed)                  -> race
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <pthread.h>
#include <unistd.h>

static const char *mode;
static long data;
static std::atomic<bool> flag{false};
static bool pflag;
struct node { long a, b; };
static std::atomic<node *> head{nullptr};
alignas(8) static char cell[sizeof(std::atomic<long>)];

static void *writer(void *)
{
   if (!strcmp(mode, "relaxed_fence")) {
      data = 42;
      std::atomic_thread_fence(std::memory_order_release);
      flag.store(true, std::memory_order_relaxed);
   } else if (!strcmp(mode, "ptr_publish")) {
      node *n = new node{1, 2};
      head.store(n, std::memory_order_release);
   } else if (!strcmp(mode, "race_after")) {
      flag.store(true, std::memory_order_release);
      data = 42;
   } else if (!strcmp(mode, "init_race")) {
      new (cell) std::atomic<long>(7);
   } else if (!strcmp(mode, "plain_flag")) {
      data = 42;
      *(volatile bool *)&pflag = true;
   } else {
      data = 42;
      flag.store(true, std::memory_order_release);
   }
   return nullptr;
}

static void *reader(void *)
{
   long v = 0;
   if (!strcmp(mode, "relaxed_fence")) {
      if (flag.load(std::memory_order_relaxed)) {
         std::atomic_thread_fence(std::memory_order_acquire);
         v = data;
      }
   } else if (!strcmp(mode, "ptr_publish")) {
      node *n = head.load(std::memory_order_acquire);
      if (n) v = n->a + n->b;
   } else if (!strcmp(mode, "init_race")) {
      v = reinterpret_cast<std::atomic<long> *>(cell)->load(std::memory_order_relaxed);
   } else if (!strcmp(mode, "plain_flag")) {
      if (*(volatile bool *)&pflag) v = data;
   } else if (flag.load(std::memory_order_acquire)) {
      v = data;
   }
   return (void *)v;
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: plain_movs MODE\n"); return 2; }
   mode = argv[1];
   pthread_t w, r;
   pthread_create(&w, nullptr, writer, nullptr);
   usleep(300000);                    // the writer is done: no spin loop waits
   pthread_create(&r, nullptr, reader, nullptr);
   void *v;
   pthread_join(r, &v);
   pthread_join(w, nullptr);
   return v ? 0 : 1;
}
