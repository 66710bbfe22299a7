/* ag_vclock.h -- the mutable vector clock FastTrack and prediction share.
 *
 * AG_VCLOCK(type, prefix, entry) defines `type`, a clock with `entry`-wide
 * entries changed in place, and static functions prefix_get, _grow, _join,
 * _tick, _clear and _free.  The width is a parameter because the engines
 * need different ones: FastTrack's epochs hold a 40-bit clock (64-bit
 * entries), prediction keeps 32 bits and so half the bytes per sync object
 * and per join.  AeroDrome's clocks are immutable shared snapshots, a
 * different structure (docs/vector-clocks.md).
 *
 * Entries at and beyond n are 0; a zeroed struct is the zero clock.
 * The functions are defined, not declared: they sit in the engines' hottest
 * paths (every acquire joins), and each engine instantiates its own.
 */
#ifndef AG_VCLOCK_H
#define AG_VCLOCK_H

#include <stdint.h>
#include "ag_shim.h"           /* ag_realloc, ag_free, ag_memzero */

/* get is inline (FastTrack calls it on every access), tick too (it is
   small); grow, join, clear and free are left to the compiler, as the
   engines' own copies were, and marked unused so an engine may
   instantiate more than it calls. */
#define AG_VCLOCK(type, prefix, entry)                                     \
typedef struct { uint32_t n; entry *c; } type;                             \
                                                                           \
static inline entry prefix##_get(const type *v, uint32_t u)               \
{                                                                          \
   return u < v->n ? v->c[u] : 0;                                          \
}                                                                          \
                                                                           \
/* Doubling, from 4: a thread's clock grows once per new thread seen. */  \
static __attribute__((unused)) void prefix##_grow(type *v, uint32_t n)    \
{                                                                          \
   if (n <= v->n) return;                                                  \
   uint32_t cap = v->n ? v->n : 4;                                         \
   while (cap < n) cap *= 2;                                               \
   v->c = ag_realloc(v->c, cap * sizeof(entry));                           \
   ag_memzero(v->c + v->n, (cap - v->n) * sizeof(entry));                  \
   v->n = cap;                                                             \
}                                                                          \
                                                                           \
/* d |= s.  The source's trailing zeros (capacity from doubling, threads  \
   it never heard of) neither grow d nor cost a compare. */                \
static __attribute__((unused)) void prefix##_join(type *d, const type *s) \
{                                                                          \
   uint32_t n = s->n;                                                      \
   while (n && s->c[n - 1] == 0) n--;                                      \
   prefix##_grow(d, n);                                                    \
   for (uint32_t i = 0; i < n; i++)                                        \
      if (s->c[i] > d->c[i]) d->c[i] = s->c[i];                            \
}                                                                          \
                                                                           \
/* v[t]++; the caller checks overflow where its width can reach it. */    \
static inline void prefix##_tick(type *v, uint32_t t)                     \
{                                                                          \
   prefix##_grow(v, t + 1);                                                \
   v->c[t]++;                                                              \
}                                                                          \
                                                                           \
/* The zero clock, keeping the memory (FastTrack's read releases). */     \
static __attribute__((unused)) void prefix##_clear(type *v)               \
{                                                                          \
   for (uint32_t i = 0; i < v->n; i++) v->c[i] = 0;                        \
}                                                                          \
                                                                           \
static __attribute__((unused)) void prefix##_free(type *v)                \
{                                                                          \
   ag_free(v->c);                                                          \
   v->c = NULL;                                                            \
   v->n = 0;                                                               \
}

#endif
