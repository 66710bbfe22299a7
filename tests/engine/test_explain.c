/* test_explain.c -- what a report closed by a lock says: the other
 * thread's access behind the cycle (atomsanitizer) and where each thread
 * held the lock (the dispatcher, every engine).  Hand traces; sites are
 * 100 + the event's index, so event k has site 99 + k.
 *
 * Build: cc -I atomgrind/engine -I tests/engine atomgrind/engine/ag_*.c
 *   (not ag_shim_host.c) tests/engine/ag_test_shim.c tests/engine/test_explain.c
 */
#include "ag_check.h"

enum { L = 0, X = 0, Y = 8 };

static const char *const engines[] = { "atomsanitizer", "velodrome", "aerodrome" };

/* the one report of tr under engine */
static ag_violation one_report(const char *engine, const char *name, const ev *tr, int n)
{
   reports r;
   run_named(engine, tr, n, 2, &r);
   CHECK(r.n == 1, "%s/%s: %d reports, want 1", engine, name, r.n);
   return r.v[0];
}

#define EQ(name, field, want) CHECK(v.field == (want), "%s: " #field " = %llu, want %llu", \
                                    name, (unsigned long long)v.field, (unsigned long long)(want))

int main(void)
{
   /* T0 reads x under L in its region and lets L go; T1 writes x under L;
      T0 takes L again: the write is what changed under the region */
   static const ev locked[] = {
      {'b', 0}, {'a', 0, L}, {'r', 0, X, 4}, {'l', 0, L},      /* 1-4 */
      {'a', 1, L}, {'w', 1, X, 4}, {'l', 1, L},                /* 5-7 */
      {'a', 0, L},                                             /* 8: closes */
   };
   for (int i = 0; i < N(engines); i++) {
      ag_violation v = one_report(engines[i], "locked", locked, N(locked));
      EQ(engines[i], event, 8);
      EQ(engines[i], lock, LOCK + L);
      EQ(engines[i], other_tid, 1);
      EQ(engines[i], lock_acq_event, 5);
      EQ(engines[i], lock_acq_site, 104);
      EQ(engines[i], lock_rel_event, 7);
      EQ(engines[i], lock_rel_site, 106);
      EQ(engines[i], own_rel_event, 4);
      EQ(engines[i], own_rel_site, 103);
   }
   ag_violation v = one_report("atomsanitizer", "locked", locked, N(locked));
   EQ("locked", other_event, 6);
   EQ("locked", other_site, 105);
   EQ("locked", other_flags, AG_WRITE);
   EQ("locked", other_addr, BASE + X);
   EQ("locked", other_size, 4);
   EQ("locked", own_event, 3);
   EQ("locked", own_site, 102);
   EQ("locked", own_flags, 0);
   EQ("locked", own_addr, BASE + X);

   /* a cycle through the lock alone (both only read x): the other
      thread's read under the lock of what the region read */
   static const ev readonly[] = {
      {'b', 0}, {'a', 0, L}, {'r', 0, X, 4}, {'l', 0, L},
      {'a', 1, L}, {'r', 1, Y, 4}, {'r', 1, X, 4}, {'l', 1, L},
      {'a', 0, L},
   };
   v = one_report("atomsanitizer", "readonly", readonly, N(readonly));
   EQ("readonly", event, 9);
   EQ("readonly", other_event, 7);
   EQ("readonly", other_flags, 0);
   EQ("readonly", own_event, 3);

   /* a conflicting write outside the lock (before it, in T1's order) is
      preferred to a mere read under it */
   static const ev outside[] = {
      {'b', 0}, {'r', 0, Y, 4}, {'a', 0, L}, {'r', 0, X, 4}, {'l', 0, L},
      {'w', 1, Y, 4}, {'a', 1, L}, {'r', 1, X, 4}, {'l', 1, L},
      {'a', 0, L},
   };
   v = one_report("atomsanitizer", "outside", outside, N(outside));
   EQ("outside", event, 10);
   EQ("outside", other_event, 6);
   EQ("outside", other_addr, BASE + Y);
   EQ("outside", own_event, 2);

   /* T1's write after its release is not on a cycle with the acquire
      (T1 is in no region): not named, nor is anything else */
   static const ev after[] = {
      {'b', 0}, {'a', 0, L}, {'r', 0, X, 4}, {'l', 0, L},
      {'a', 1, L}, {'l', 1, L}, {'w', 1, X, 4},
      {'a', 0, L},
   };
   reports r;
   run_named("atomsanitizer", after, N(after), 2, &r);
   CHECK(r.n == 1, "after: %d reports, want 1", r.n);
   v = r.v[0];
   EQ("after", event, 8);
   EQ("after", own_event, 0);
   EQ("after", other_event, 0);
   EQ("after", lock_rel_event, 6);

   /* the same inside T1's region: the write is in the transaction that
      released the lock, so it is named */
   static const ev inregion[] = {
      {'b', 0}, {'a', 0, L}, {'r', 0, X, 4}, {'l', 0, L},
      {'b', 1}, {'a', 1, L}, {'l', 1, L}, {'w', 1, X, 4},
      {'a', 0, L}, {'e', 1},
   };
   run_named("atomsanitizer", inregion, N(inregion), 2, &r);
   CHECK(r.n == 1, "inregion: %d reports, want 1", r.n);
   v = r.v[0];
   EQ("inregion", event, 9);
   EQ("inregion", other_event, 8);
   EQ("inregion", own_event, 3);

   printf("test_explain: %d checks, %d failed\n", checks, failures);
   return failures != 0;
}
