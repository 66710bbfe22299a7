/* test_vclock.c -- the laws of the shared vector clock (ag_vclock.h) at
 * both widths the engines use: join is the least upper bound (an upper
 * bound, idempotent, commutative, no larger than needed), growth keeps the
 * absent entries 0, get beyond n is 0, tick adds one to one entry.
 * Built with -DVCT_BROKEN_JOIN it checks a join that drops the source's
 * last entry instead, and must fail (tests/test_vclock.py). */
#include <stdio.h>
#include <stdlib.h>
#include "ag_vclock.h"

AG_VCLOCK(vc32, vc32, uint32_t)
AG_VCLOCK(vc64, vc64, uint64_t)

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
   fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
   fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#ifdef VCT_BROKEN_JOIN
/* The mutation the laws must catch: the last entry is never joined. */
#define JOIN(P, d, s) do { P##_join(d, s); \
   uint32_t k_ = (s)->n; while (k_ && (s)->c[k_ - 1] == 0) k_--; \
   if (k_ && (d)->c[k_ - 1] == (s)->c[k_ - 1]) (d)->c[k_ - 1] = 0; } while (0)
#else
#define JOIN(P, d, s) P##_join(d, s)
#endif

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

#define MAXT 40   /* beyond several doublings from 4 */

/* The laws for one width: a macro, since the types differ only in entry.
   Random clocks of up to MAXT threads with zero runs and trailing zeros
   (the case the join's trimming skips). */
#define LAWS(P, T, name, big)                                                  \
static void laws_##P(void)                                                     \
{                                                                              \
   for (int round = 0; round < 2000; round++) {                                \
      T a = { 0, NULL }, b = { 0, NULL }, ab = { 0, NULL }, ba = { 0, NULL }; \
      uint32_t na = next() % MAXT, nb = next() % MAXT;                         \
      for (uint32_t i = 0; i < na; i++)                                        \
         if (next() % 3) { P##_grow(&a, i + 1); a.c[i] = (next() % 5) + ((next() & 1) ? (big) : 0); } \
      for (uint32_t i = 0; i < nb; i++)                                        \
         if (next() % 3) { P##_grow(&b, i + 1); b.c[i] = (next() % 5) + ((next() & 1) ? (big) : 0); } \
      JOIN(P, &ab, &a); JOIN(P, &ab, &b);                                      \
      JOIN(P, &ba, &b); JOIN(P, &ba, &a);                                      \
      for (uint32_t i = 0; i < MAXT + 8; i++) {                                \
         uint64_t x = P##_get(&a, i), y = P##_get(&b, i), m = x > y ? x : y;   \
         CHECK(P##_get(&ab, i) >= x && P##_get(&ab, i) >= y,                   \
               "%s: a|b bounds a and b at %u", name, i);                       \
         CHECK(P##_get(&ab, i) == m, "%s: a|b is the least bound at %u", name, i); \
         CHECK(P##_get(&ab, i) == P##_get(&ba, i), "%s: a|b == b|a at %u", name, i); \
      }                                                                        \
      uint64_t orig[MAXT + 8];                                                 \
      for (uint32_t i = 0; i < MAXT + 8; i++) orig[i] = P##_get(&a, i);        \
      T aa = { 0, NULL };                                                      \
      JOIN(P, &aa, &a);                                                        \
      JOIN(P, &aa, &a);                                                        \
      JOIN(P, &a, &a);                                                         \
      for (uint32_t i = 0; i < MAXT + 8; i++)                                  \
         CHECK(P##_get(&aa, i) == orig[i] && P##_get(&a, i) == orig[i],        \
               "%s: 0|a|a == a|a == a at %u", name, i);                        \
      P##_free(&a); P##_free(&b); P##_free(&ab); P##_free(&ba); P##_free(&aa); \
   }                                                                           \
}                                                                              \
                                                                               \
static void shape_##P(void)                                                    \
{                                                                              \
   T v = { 0, NULL };                                                          \
   CHECK(P##_get(&v, 0) == 0 && P##_get(&v, 1000000) == 0, "%s: zero clock", name); \
   P##_tick(&v, 2);                                                            \
   CHECK(v.n == 4, "%s: the first growth is to 4, not %u", name, v.n);         \
   CHECK(P##_get(&v, 2) == 1 && P##_get(&v, 1) == 0 && P##_get(&v, 3) == 0,    \
         "%s: tick adds one to one entry", name);                              \
   P##_tick(&v, 2);                                                            \
   CHECK(P##_get(&v, 2) == 2, "%s: tick again", name);                         \
   v.c[2] = (big);                                                             \
   P##_tick(&v, 2);                                                            \
   CHECK(P##_get(&v, 2) == (big) + 1, "%s: tick keeps the width", name);       \
   P##_tick(&v, 9);                                                            \
   CHECK(v.n == 16, "%s: growth doubles (16, not %u)", name, v.n);             \
   for (uint32_t i = 0; i < v.n; i++)                                          \
      CHECK(v.c[i] == (i == 2 ? (big) + 1 : i == 9 ? 1 : 0),                   \
            "%s: growth keeps absent entries 0 (%u)", name, i);                \
   CHECK(P##_get(&v, v.n) == 0 && P##_get(&v, UINT32_MAX) == 0,                \
         "%s: beyond n is 0", name);                                           \
   T w = { 0, NULL };                                                          \
   P##_grow(&w, 64);                                                           \
   JOIN(P, &v, &w);                                                            \
   CHECK(v.n == 16, "%s: a zero source does not grow the destination", name);  \
   w.c[20] = 7;                                                                \
   JOIN(P, &v, &w);                                                            \
   CHECK(v.n == 32 && P##_get(&v, 20) == 7 && P##_get(&v, 2) == (big) + 1,     \
         "%s: join grows as far as the source's last nonzero entry", name);    \
   P##_clear(&v);                                                              \
   for (uint32_t i = 0; i < v.n; i++) CHECK(v.c[i] == 0, "%s: clear", name);   \
   CHECK(v.n == 32, "%s: clear keeps the memory", name);                       \
   P##_free(&v); P##_free(&w);                                                 \
   CHECK(v.n == 0 && v.c == NULL, "%s: free leaves the zero clock", name);     \
}

LAWS(vc32, vc32, "32-bit", UINT32_C(0xfffffff0))
LAWS(vc64, vc64, "64-bit", UINT64_C(0xfffffff000))   /* past 32 bits */

int main(void)
{
   laws_vc32(); shape_vc32();
   laws_vc64(); shape_vc64();
   if (failures) { fprintf(stderr, "%d of %d checks failed\n", failures, checks); return 1; }
   printf("ok: %d checks\n", checks);
   return 0;
}
