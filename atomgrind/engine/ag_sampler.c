/* ag_sampler.c -- see ag_sampler.h.  Slots are laid lazily: slot j+1 is
 * drawn when time reaches the end of slot j, with k recomputed from the
 * |T| and h known then. */
#include "ag_sampler.h"
#include "ag_shim.h"

/* ---- arithmetic without libm ------------------------------------- */

uint64_t ag_sampler_ceil(double x)
{
   if (!(x > 0)) return 0;
   if (x >= 18446744073709551615.0) return AG_SAMPLER_NEVER - 1;
   uint64_t u = (uint64_t)x;
   return (double)u < x ? u + 1 : u;
}

/* ln x = e ln 2 + 2 atanh((f-1)/(f+1)), x = f 2^e, f in [1/sqrt2, sqrt2) */
double ag_sampler_ln(double x)
{
   static const double ln2 = 0.69314718055994530942;
   static const double sqrt2 = 1.41421356237309504880;
   if (!(x > 0)) return -1e300;
   int e = 0;
   while (x >= sqrt2) { x *= 0.5; e++; }
   while (x < sqrt2 * 0.5) { x *= 2.0; e--; }
   double z = (x - 1.0) / (x + 1.0), z2 = z * z, term = z, sum = 0;
   for (int i = 1; i < 60; i += 2) {      /* |z| <= 0.172: 2e-46 per step */
      sum += term / i;
      term *= z2;
   }
   return e * ln2 + 2.0 * sum;
}

/* ---- PRNG: xoshiro256**, seeded by splitmix64 --------------------- */

static uint64_t ag_splitmix(uint64_t *x)
{
   uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}

static inline uint64_t ag_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t ag_next(ag_sampler *s)
{
   uint64_t *q = s->rng;
   uint64_t res = ag_rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
   q[2] ^= q[0]; q[3] ^= q[1]; q[1] ^= q[2]; q[0] ^= q[3];
   q[2] ^= t;
   q[3] = ag_rotl(q[3], 45);
   return res;
}

uint64_t ag_sampler_rand_below(ag_sampler *s, uint64_t n)
{
   if (n <= 1) return 0;
   uint64_t lim = -n % n;                 /* 2^64 mod n: reject below */
   uint64_t x;
   do x = ag_next(s); while (x < lim);
   return x % n;
}

/* ---- parameters -------------------------------------------------- */

uint64_t ag_sampler_m(const ag_sampler *s)
{
   return 4 * (uint64_t)s->threads + 2 * (uint64_t)s->locks;
}

static uint64_t ag_k_now(const ag_sampler *s)
{
   if (s->k_fixed) return s->k_fixed;
   uint64_t k = ag_sampler_ceil(4.0 * (double)ag_sampler_m(s) / s->epsilon);
   return k ? k : 1;
}

static uint64_t ag_add(uint64_t a, uint64_t b)     /* saturating */
{
   return a + b < a ? AG_SAMPLER_NEVER - 1 : a + b;
}

static uint64_t ag_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

int ag_sampler_init(ag_sampler *s, double epsilon, double delta, uint64_t seed)
{
   int rc = 0;
   ag_memzero(s, sizeof *s);
   if (!(epsilon > 0 && epsilon < 1 && delta > 0 && delta < 1)) {
      epsilon = 0.01;
      delta = 0.1;
      rc = -1;
   }
   s->epsilon = epsilon;
   s->delta = delta;
   s->r = ag_sampler_ceil(15.0 * ag_sampler_ln(1.0 / delta) / (2.0 * epsilon));
   if (s->r == 0) s->r = 1;
   s->threads = 1;                        /* the main thread */
   uint64_t x = seed;
   for (int i = 0; i < 4; i++) s->rng[i] = ag_splitmix(&x);
   s->k = ag_k_now(s);
   /* slot 0 is accepted (p_0 = 1) and lies inside the prefix, which is
      active from the start and open-ended until slot r is drawn */
   s->slot = 0;
   s->slot_end = s->k;
   s->pend = AG_SAMPLER_NEVER;
   s->accepted = 1;
   s->active = 1;
   s->prefix = 1;
   s->act_from = 0;
   s->act_to = AG_SAMPLER_NEVER;
   s->win = 0;
   s->windows = 1;
   return rc;
}

/* The prefix's end once slot r's window is known: also >= 3k >= 12m/eps. */
static void ag_prefix_end(ag_sampler *s)
{
   if (s->prefix && s->act_to != AG_SAMPLER_NEVER)
      s->act_to = ag_max(s->act_to, ag_add(s->k, ag_add(s->k, s->k)));
}

void ag_sampler_override(ag_sampler *s, uint64_t r, uint64_t k)
{
   if (r) s->r = r;
   if (k) {
      s->k_fixed = k;
      s->k = k;
      s->slot_end = k;
   }
}

/* k may have grown: lengthen the open window and the prefix. */
static void ag_regrow(ag_sampler *s)
{
   uint64_t k = ag_k_now(s);
   if (k == s->k) return;
   s->k = k;
   if (s->active && s->act_to != AG_SAMPLER_NEVER) {
      s->act_to = ag_max(s->act_to, ag_add(s->win, k));
      ag_prefix_end(s);
   }
}

void ag_sampler_note_threads(ag_sampler *s, uint32_t nthreads)
{
   if (nthreads <= s->threads) return;
   s->threads = nthreads;
   ag_regrow(s);
}

void ag_sampler_note_locks_held(ag_sampler *s, uint32_t held)
{
   if (held <= s->locks) return;
   s->locks = held;
   ag_regrow(s);
}

/* ---- timeline ---------------------------------------------------- */

uint64_t ag_sampler_next_change(const ag_sampler *s)
{
   uint64_t t = s->slot_end;
   if (s->pend < t) t = s->pend;
   if (s->active && s->act_to < t) t = s->act_to;
   return t;
}

/* Open a window [start, start+k), merging it into the active interval.
   `now` >= start is when the front-end learns of it (late if batched). */
static void ag_window(ag_sampler *s, uint64_t start, uint64_t now)
{
   uint64_t end = ag_add(start, s->k);
   s->win = start;
   if (s->active) {
      if (s->act_to == AG_SAMPLER_NEVER) {           /* slot r in the prefix */
         if (s->slot >= s->r) {
            s->act_to = end;
            ag_prefix_end(s);
         }
      } else if (end > s->act_to) {
         s->act_to = end;
      }
      return;
   }
   if (end <= now) return;     /* passed entirely by a late advance */
   s->active = 1;
   s->act_from = now;
   s->act_to = end;
   s->windows++;
}

int ag_sampler_advance(ag_sampler *s, uint64_t now)
{
   if (now < s->now) now = s->now;
   for (;;) {
      uint64_t t = ag_sampler_next_change(s);
      if (t > now) break;
      if (t == s->slot_end) {                         /* next slot */
         s->k = ag_k_now(s);
         uint64_t j = ++s->slot;
         s->slot_end = ag_add(t, s->k);
         if (j <= s->r || ag_sampler_rand_below(s, j) < s->r) {
            s->accepted++;
            s->pend = t + ag_sampler_rand_below(s, s->k);
         }
      } else if (t == s->pend) {                      /* window starts */
         s->pend = AG_SAMPLER_NEVER;
         ag_window(s, t, now);
      } else {                                        /* interval ends */
         s->active = 0;
         s->prefix = 0;
         s->analysed_done += now - s->act_from;    /* now == t unless late */
      }
   }
   s->now = now;
   return s->active;
}

int ag_sampler_active(const ag_sampler *s) { return s->active; }
uint64_t ag_sampler_windows(const ag_sampler *s) { return s->windows; }
uint64_t ag_sampler_accepted(const ag_sampler *s) { return s->accepted; }

uint64_t ag_sampler_analysed(const ag_sampler *s)
{
   return s->analysed_done + (s->active ? s->now - s->act_from : 0);
}
