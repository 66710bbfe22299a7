/* test_lock_forget.c -- a lock whose memory is freed or re-initialised
 * (ag_ev_forget over its address) is a new lock: its old releases no
 * longer order later acquires, for every engine.  Each trace runs with and
 * without the forget; only the ordering through the lock differs.
 *
 * Build: cc -I atomgrind/engine -I tests/engine atomgrind/engine/ag_*.c
 *   (not ag_shim_host.c) tests/engine/ag_test_shim.c tests/engine/test_lock_forget.c
 */
#include "ag_check.h"
#include "ag_map.h"            /* ag_map_foreach_in, the range visit forgets use */
#include <string.h>

enum { L = 0, L2 = 8, Y = 0 };

/* Run tr, dropping its 'K' events unless `forget`; the number of reports. */
static int reports_of(const char *engine, const ev *tr, int n, int forget)
{
   reports r;
   ag_engine *e = new_engine_named(engine, &r, 2);
   for (int i = 0; i < n; i++)
      if (tr[i].op != 'K' || forget) feed(e, &tr[i], 100 + i);
   ag_engine_delete(e);
   return r.n;
}

/* ag_map_foreach_in against a scan of every key: keys in a few pages
   (and at the top of the address space), ranges within a page, across
   pages, empty and wide. */
typedef struct { uint64_t lo, hi, n, sum; } visit;

static void count_key(void *arg, uint64_t key, void *rec)
{
   visit *v = arg;
   CHECK(key >= v->lo && key < v->hi, "key %llx visited outside [%llx, %llx)",
         (unsigned long long)key, (unsigned long long)v->lo, (unsigned long long)v->hi);
   CHECK(*(uint64_t *)rec == key, "record of %llx is not its own", (unsigned long long)key);
   v->n++;
   v->sum += key;
}

static void map_ranges(void)
{
   static const uint64_t pages[] = { 0x10, 0x11, 0x4000, 0x4002, 0xfffffffffffffull };
   uint64_t seed = 12345, keys[200];
   ag_map *m = ag_map_new(sizeof(uint64_t));
   for (int round = 0; round < 2000; round++) {
      int nk = (int)ag_map_count(m);
      if (round % 10 == 0 && nk < 200) {       /* one more key (maybe a repeat) */
         seed = seed * 6364136223846793005ull + 1442695040888963407ull;
         uint64_t k = (pages[(seed >> 33) % 5] << 12) | ((seed >> 20) & 0xfff);
         int created;
         *(uint64_t *)ag_map_lookup(m, k, &created) = k;
         if (created) keys[nk] = k;
      }
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t lo = (pages[(seed >> 33) % 5] << 12) + ((seed >> 8) & 0x1fff) - 0x800;
      uint64_t len = (seed >> 40) % 4 == 0 ? (seed >> 24) % 0x80000 : (seed >> 24) % 300;
      uint64_t hi = lo + len < lo ? ~0ull : lo + len;
      visit v = { lo, hi, 0, 0 }, want = { lo, hi, 0, 0 };
      ag_map_foreach_in(m, lo, hi, count_key, &v);
      for (int i = 0; i < (int)ag_map_count(m); i++)
         if (keys[i] >= lo && keys[i] < hi) { want.n++; want.sum += keys[i]; }
      CHECK(v.n == want.n && v.sum == want.sum, "[%llx, %llx): %llu keys visited, %llu in it",
            (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)v.n,
            (unsigned long long)want.n);
   }
   ag_map_delete(m);
}

int main(void)
{
   map_ranges();
   /* T0's region releases L; T1 acquires it (so follows T0), writes y;
      T0 reads y: a cycle -- unless L was re-initialised in between */
   static const ev cycle[] = {
      {'b', 0}, {'a', 0, L}, {'l', 0, L}, {'K', 0, L},
      {'a', 1, L}, {'w', 1, Y}, {'l', 1, L}, {'r', 0, Y}, {'e', 0},
   };
   /* the same, L's memory freed as part of a larger block (the dispatcher
      then visits its locks rather than probing each byte) */
   static const ev freed[] = {
      {'b', 0}, {'a', 0, L}, {'l', 0, L}, {'F', 0, LOCK - BASE - 64, 4096},
      {'a', 1, L}, {'w', 1, Y}, {'l', 1, L}, {'r', 0, Y}, {'e', 0},
   };
   /* forgetting another lock, or memory next to L, changes nothing */
   static const ev other[] = {
      {'b', 0}, {'a', 0, L}, {'l', 0, L}, {'a', 0, L2}, {'l', 0, L2}, {'K', 0, L2},
      {'F', 0, LOCK - BASE + 1, 7},
      {'a', 1, L}, {'w', 1, Y}, {'l', 1, L}, {'r', 0, Y}, {'e', 0},
   };
   /* T0 writes y and releases L; T1 acquires L and reads y: ordered,
      unless L was re-initialised in between (then a race) */
   static const ev race[] = {
      {'w', 0, Y}, {'a', 0, L}, {'l', 0, L}, {'K', 0, L}, {'a', 1, L}, {'r', 1, Y}, {'l', 1, L},
   };
   static const char *const atomicity[] = { "atomsanitizer", "aerodrome", "velodrome" };
   for (int i = 0; i < N(atomicity); i++) {
      const char *eng = atomicity[i];
      CHECK(reports_of(eng, cycle, N(cycle), 0) == 1, "%s: cycle through L not reported", eng);
      CHECK(reports_of(eng, cycle, N(cycle), 1) == 0, "%s: forgotten L still orders", eng);
      CHECK(reports_of(eng, freed, N(freed), 1) == 0, "%s: freed L still orders", eng);
      CHECK(reports_of(eng, other, N(other), 1) == 1, "%s: forgetting L2 or L+1.. dropped L", eng);
   }
   CHECK(reports_of("fasttrack", race, N(race), 0) == 0, "fasttrack: L does not order");
   CHECK(reports_of("fasttrack", race, N(race), 1) == 1, "fasttrack: forgotten L still orders");
   printf("lock forget: %d checks, %d failed\n", checks, failures);
   return failures != 0;
}
