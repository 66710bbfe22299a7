/* ag_schedpol.c -- the scheduler's policy at shared accesses and budgets
 * (see ag_schedpol.h): plain C, its state in one struct. */
#include "ag_schedpol.h"

void ag_sp_init(ag_schedpol *p, unsigned long long seed)
{
   unsigned char *b = (unsigned char *)p;
   for (unsigned long i = 0; i < sizeof *p; i++) b[i] = 0;
   p->rng = seed;
}

/* splitmix64: small, fast, and the same sequence for the same seed. */
unsigned long long ag_sp_rand(ag_schedpol *p)
{
   unsigned long long z = (p->rng += 0x9e3779b97f4a7c15ULL);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}

/* r % n == 0 without a 64-bit division (it was half the cost of a point):
   for n = m 2^k, m odd, r is a multiple of n iff r times m's inverse mod
   2^64, rotated right by k, is at most (2^64 - 1) / n (Hacker's Delight,
   10-17).  n changes seldom: the last one's constants are kept. */
static void ag_sp_div_set(ag_schedpol *p, unsigned n)
{
   unsigned k = (unsigned)__builtin_ctz(n);
   unsigned long long m = n >> k, inv = m;          /* right to 3 bits */
   for (int i = 0; i < 5; i++) inv *= 2 - m * inv;   /* Newton: 96 bits */
   p->div_n = n;
   p->div_k = k;
   p->div_inv = inv;
   p->div_max = ~0ULL / n;
}

int ag_sp_one_in(ag_schedpol *p, unsigned n)
{
   unsigned long long r = ag_sp_rand(p);
   if (n == 0) n = 1;
   if (n != p->div_n) ag_sp_div_set(p, n);
   unsigned long long q = r * p->div_inv;
   if (p->div_k) q = q >> p->div_k | q << (64 - p->div_k);
   return q <= p->div_max;
}

int ag_sp_claim(ag_schedpol *p, int others_wait)
{
   if (!others_wait) return 1;
   return ++p->tries > AG_SP_TRIES || ag_sp_one_in(p, AG_SP_CLAIM);
}

unsigned char ag_sp_slot_after(ag_schedpol *p, unsigned char slot, unsigned char me, int write,
                               int others_wait, int *point)
{
   *point = 0;
   if (slot == me) return slot;
   if (slot == 0 || slot == (me | AG_SP_TRY)) {   /* this thread's so far */
      if (ag_sp_claim(p, others_wait)) return me;
      *point = 1;
      return (unsigned char)(me | AG_SP_TRY);
   }
   if (slot == AG_SP_READ && !write) return slot;
   *point = 1;
   if (slot == AG_SP_BOTH) return slot;
   return write || slot == AG_SP_READ ? AG_SP_BOTH : AG_SP_READ;
}

static unsigned ag_sp_cap(unsigned long long d)
{
   return d > AG_SP_DAMP_MAX ? AG_SP_DAMP_MAX : d ? (unsigned)d : 1;
}

void ag_sp_shared_point(ag_schedpol *p) { p->shared_points++; }

int ag_sp_shared_preempts(ag_schedpol *p, unsigned long ip, int others_wait)
{
   unsigned *n = &p->ip_runs[(ip ^ ip >> 12) % AG_SP_IP_SLOTS];
   if (*n < ~0U) (*n)++;
   unsigned damp = ag_sp_cap(*n / AG_SP_KNEE);
   unsigned run = ag_sp_cap(1 + p->shared_points / AG_SP_SHARED_KNEE);
   if (run > damp) damp = run;
   return others_wait && ag_sp_one_in(p, AG_SP_SHARED_RATE * damp);
}

long long ag_sp_budget(ag_schedpol *p)
{
   unsigned long long k = p->budgets / AG_SP_KNEE_BUDGETS;
   unsigned long long d = 1ULL << (k < AG_SP_DOUBLINGS ? k : AG_SP_DOUBLINGS);
   return (long long)(1 + ag_sp_rand(p) % (2 * AG_SP_QUANTUM * d));
}

void ag_sp_budget_out(ag_schedpol *p) { p->budgets++; }

void ag_sp_pct_init(ag_schedpol *p, unsigned depth, unsigned long long k)
{
   p->nchange = depth > 1 ? depth - 1 : 0;
   if (p->nchange > AG_SP_MAX_CHANGE) p->nchange = AG_SP_MAX_CHANGE;
   if (k == 0) k = 1;
   for (unsigned i = 0; i < p->nchange; i++) p->change[i] = 1 + ag_sp_rand(p) % k;
}

int ag_sp_pct_change(const ag_schedpol *p, unsigned long long n)
{
   for (unsigned i = 0; i < p->nchange; i++)
      if (p->change[i] == n) return 1;
   return 0;
}
