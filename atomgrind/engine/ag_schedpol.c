/* ag_schedpol.c -- the scheduler's policy: shared accesses, budgets, PCT,
 * the choice of the next holder (see ag_schedpol.h): plain C, its state
 * in one struct. */
#include "ag_schedpol.h"

void ag_sp_init(ag_schedpol *p, unsigned long long seed)
{
   unsigned char *b = (unsigned char *)p;
   for (unsigned long i = 0; i < sizeof *p; i++) b[i] = 0;
   p->rng = seed;
   p->low_prio = 1ULL << 40;       /* below every thread's first priority */
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
   if (ag_sp_unclaimed(slot, me)) {
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
   p->budget = (long long)(1 + ag_sp_rand(p) % (2 * AG_SP_QUANTUM * d));
   return p->budget;
}

void ag_sp_budget_out(ag_schedpol *p)
{
   p->budgets++;
   p->exit_spent += (unsigned long long)p->budget;
}

/* Has a thread spun while an exit waits: run out enough budgets, long
   enough in all?  (This one counted.) */
static int ag_sp_exit_spun(ag_schedpol *p)
{
   return ++p->exit_budgets >= AG_SP_EXIT_BUDGETS && p->exit_spent >= AG_SP_EXIT_SPENT;
}

/* PCT (Burckhardt et al., ASPLOS 2010) draws its d-1 change points
   uniformly among the run's k steps, and then finds a bug of depth d with
   probability at least 1/(n k^(d-1)).  k must be known before the run
   starts: a change point is acted on when the run reaches it, and cannot
   be moved once the run has passed it.  When an earlier run of the same
   command recorded its length, that is k (ag_sched.c).  Otherwise no
   online rule can keep PCT's bound for every length K at once: a change
   point at step s with probability at least c/K for every K >= s needs
   probability c/s at s, and those sum to more than 1 unless c is about
   1/ln(K_max).  So a first run pays that log factor, and no more: k is
   one of the L = AG_SP_PCT_SCALES doublings 16, 32, ..., 16 * 2^(L-1),
   drawn uniformly, and the d-1 change points are uniform in [1, k] as
   PCT's.  For a run of K points (16 <= K <= 16 * 2^(L-1)) the drawn k is
   the first doubling at or above K with probability 1/L; that k is below
   2K, every tuple of d-1 steps within the run has probability at least
   (1/(2K))^(d-1) under it, and PCT's argument gives a bug of depth d
   probability at least 1/(n L (2K)^(d-1)).  (One k for all change points:
   drawn separately, the factor would be L^(d-1).)  The fixed first guess
   this replaces (2000 points) kept no bound: a run of 20,000 points never
   had a change point past its 2000th, and one of K < 2000 points had
   PCT's bound times K/2000. */
unsigned long long ag_sp_pct_init(ag_schedpol *p, unsigned depth, unsigned long long k)
{
   p->nchange = depth > 1 ? depth - 1 : 0;
   if (p->nchange > AG_SP_MAX_CHANGE) p->nchange = AG_SP_MAX_CHANGE;
   if (k == 0) k = (unsigned long long)AG_SP_PCT_K0 << (ag_sp_rand(p) % AG_SP_PCT_SCALES);
   for (unsigned i = 0; i < p->nchange; i++) p->change[i] = 1 + ag_sp_rand(p) % k;
   return k;
}

int ag_sp_pct_change(const ag_schedpol *p, unsigned long long n)
{
   for (unsigned i = 0; i < p->nchange; i++)
      if (p->change[i] == n) return 1;
   return 0;
}

/* ---- the threads and the choice of the next holder ---- */

void ag_sp_threads(ag_schedpol *p, ag_sp_thread *th, unsigned nth, int pct)
{
   p->th = th;
   p->cap = nth;
   p->nth = nth < 2 ? nth : 2;   /* the main thread, 1 */
   p->pct = pct;
}

/* Thread t is in use: the loops over the threads reach it. */
static void ag_sp_used(ag_schedpol *p, unsigned t)
{
   if (t >= p->nth && t < p->cap) p->nth = t + 1;
}

/* t is marked parked at a rare region's BEGIN, or not: rare_parked counts
   the marked. */
static void ag_sp_rare(ag_schedpol *p, unsigned t, int on)
{
   if (p->th[t].rare == !!on) return;
   p->th[t].rare = !!on;
   if (on) p->rare_parked++;
   else p->rare_parked--;
}

void ag_sp_thread_new(ag_schedpol *p, unsigned t, unsigned seen)
{
   ag_sp_thread *th = &p->th[t];
   ag_sp_used(p, t);
   ag_sp_rare(p, t, 0);
   th->run = 0;
   th->held_until = 0;
   th->exit_until = 0;
   ag_sp_unpost(p, t);           /* (a fork child's gone threads: not postponed) */
   th->depth = 0;              /* (not recounted in in_regions either) */
   th->damp = 1;
   th->points = th->begin_own = th->accesses = 0;
   th->lock_waited = th->lock_site = 0;
   /* distinct random priorities above every change-point priority */
   th->prio = (ag_sp_rand(p) >> 16 << 16 | seen) | (1ULL << 62);
}

void ag_sp_enable(ag_schedpol *p, unsigned t, int on)
{
   if (p->th[t].enabled == !!on) return;
   ag_sp_used(p, t);
   p->th[t].enabled = !!on;
   if (on) p->enabled++;
   else p->enabled--;
}

/* ---- postponed threads (ag_schedrace.c postpones them) ---- */

int ag_sp_postponed(const ag_schedpol *p, unsigned t)
{
   const ag_sp_thread *th = &p->th[t];
   return th->post_addr != 0 && th->post_until > p->points;
}

void ag_sp_unpost(ag_schedpol *p, unsigned t)
{
   ag_sp_thread *th = &p->th[t];
   if (th->post_addr != 0) p->race.npost--;
   th->post_addr = 0;
   if (p->race.release == t) p->race.release = 0;
}

/* Released when nobody else can run: a random site among those threads
   wait at, then a random thread there -- several threads at one store
   (the same code) count as one, so a lone reader gets its turn as often
   as they do. */
unsigned ag_sp_release_postponed(ag_schedpol *p, unsigned self)
{
   unsigned sites = 0, pick = 0;
   for (unsigned t = 1; t < p->nth; t++) {
      const ag_sp_thread *th = &p->th[t];
      if (t == self || !th->enabled || th->post_addr == 0) continue;
      unsigned first = 1, n = 0;      /* t first at its site? how many there */
      for (unsigned u = 1; u < p->nth; u++) {
         const ag_sp_thread *o = &p->th[u];
         if (u == self || !o->enabled || o->post_addr == 0 || o->post_ip != th->post_ip) continue;
         if (u < t) first = 0;
         n++;
      }
      if (first && ag_sp_rand(p) % ++sites == 0) {
         /* this site: a random thread of its n */
         unsigned k = (unsigned)(ag_sp_rand(p) % n);
         for (unsigned u = 1; u < p->nth; u++) {
            const ag_sp_thread *o = &p->th[u];
            if (u != self && o->enabled && o->post_addr != 0 && o->post_ip == th->post_ip
                && k-- == 0) {
               pick = u;
               break;
            }
         }
      }
   }
   if (pick) ag_sp_unpost(p, pick);
   return pick;
}

/* ---- regions: counting and damping ---- */

int ag_sp_count(ag_schedpol *p, unsigned t, int kind)
{
   ag_sp_thread *th = &p->th[t];
   p->points++;
   th->points++;
   if (kind == AG_SP_PT_BEGIN && th->depth++ == 0) {
      p->in_regions++;
      th->accesses = 0;
      th->begin_own = th->points;
      return 1;
   }
   if (kind == AG_SP_PT_END && th->depth > 0 && --th->depth == 0) {
      p->in_regions--;
      return -1;
   }
   return 0;
}

void ag_sp_region_site(ag_schedpol *p, unsigned t, unsigned runs)
{
   unsigned d = runs <= AG_SP_KNEE ? 1 : runs / AG_SP_KNEE;
   p->th[t].damp = d > AG_SP_DAMP_MAX ? AG_SP_DAMP_MAX : d;
}

void ag_sp_region_exit(ag_schedpol *p, unsigned t)
{
   if (p->th[t].depth > 0 && p->in_regions > 0) p->in_regions--;
   p->th[t].depth = 0;
}

/* The other threads are gone: one parked at a rare region's BEGIN in the
   parent is no longer waiting (else the child's damped regions would be
   preempted for a rare one that never comes, for the rest of its run). */
void ag_sp_fork_child(ag_schedpol *p, unsigned t)
{
   for (unsigned u = 1; u < p->nth; u++)
      if (u != t) {
         p->th[u].depth = 0;
         ag_sp_rare(p, u, 0);
      }
   p->in_regions = p->th[t].depth > 0;
}

/* The site's damping, and -- within one long run of a region (a spec'd
   function that runs the whole compression) -- its points and accesses
   so far over AG_SP_KNEE: the first ones get the full rates, a run of n
   costs O(KNEE log n) switches, not n/4. */
unsigned ag_sp_damp(const ag_schedpol *p, unsigned t)
{
   const ag_sp_thread *th = &p->th[t];
   unsigned long long n = (th->points - th->begin_own) + th->accesses;
   unsigned long long d = n / AG_SP_KNEE > th->damp ? n / AG_SP_KNEE : th->damp;
   return d > AG_SP_DAMP_MAX ? AG_SP_DAMP_MAX : d ? (unsigned)d : 1;
}

int ag_sp_region_stop(ag_schedpol *p, unsigned t)
{
   if (p->pct) return ag_sp_pct_change(p, p->points);
   return ag_sp_one_in(p, AG_SP_RANDOM_IN_REGION * ag_sp_damp(p, t));
}

int ag_sp_access(ag_schedpol *p, unsigned t)
{
   ag_sp_thread *th = &p->th[t];
   if (th->depth == 0) return 0;
   th->accesses++;
   if (p->enabled == 0) return 0;
   if (p->pct) {
      p->points++;                /* accesses in regions are PCT points too */
      return ag_sp_pct_change(p, p->points);
   }
   unsigned rate = ag_sp_rare_first(p, t) ? AG_SP_RARE_ACCESS
                                          : AG_SP_RANDOM_ACCESS * ag_sp_damp(p, t);
   return ag_sp_one_in(p, rate);
}

/* ---- rare regions ---- */

void ag_sp_parks(ag_schedpol *p, unsigned t, int kind)
{
   const ag_sp_thread *th = &p->th[t];
   if (kind == AG_SP_PT_BEGIN && th->depth == 1 && th->damp == 1) ag_sp_rare(p, t, 1);
}

void ag_sp_runs(ag_schedpol *p, unsigned t) { ag_sp_rare(p, t, 0); }

void ag_sp_took(ag_schedpol *p, unsigned t)
{
   p->th[t].run = 0;
   ag_sp_unpost(p, t);
}

void ag_sp_kept(ag_schedpol *p, unsigned t)
{
   p->th[t].run++;
   ag_sp_unpost(p, t);
}

int ag_sp_rare_first(const ag_schedpol *p, unsigned t)
{
   return p->rare_parked > 0 && ag_sp_damp(p, t) > 1;
}

static int ag_sp_held(const ag_schedpol *p, unsigned t) { return p->th[t].held_until > p->points; }
int ag_sp_exiting(const ag_schedpol *p, unsigned t) { return p->th[t].exit_until > p->points; }

/* An enabled thread other than self waiting to end the process (0: none):
   chosen only when the holder must leave the turn and nobody else can
   take it. */
static unsigned ag_sp_exiting_other(const ag_schedpol *p, unsigned self)
{
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && ag_sp_exiting(p, t)) return t;
   return 0;
}

/* A random enabled thread other than self; threads held back are chosen
   only if nobody else is enabled; one released at a race comes first.
   Postponed ones wait while self can run on: if nobody else is there, one
   is released only when self leaves or blocks (release) or is postponed
   itself. */
static unsigned ag_sp_other(ag_schedpol *p, unsigned self, int release)
{
   unsigned rel = p->race.release;
   if (rel != 0 && rel != self && p->th[rel].enabled) return rel;
   unsigned n = 0, free = 0;
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && !ag_sp_postponed(p, t) && !ag_sp_exiting(p, t)) {
         n++;
         free += !ag_sp_held(p, t);
      }
   if (n == 0) {
      unsigned t = release || ag_sp_postponed(p, self) ? ag_sp_release_postponed(p, self) : 0;
      return t == 0 && release ? ag_sp_exiting_other(p, self) : t;
   }
   int any = free == 0;
   unsigned i = (unsigned)(ag_sp_rand(p) % (any ? n : free));
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && !ag_sp_postponed(p, t) && !ag_sp_exiting(p, t)
          && (any || !ag_sp_held(p, t)) && i-- == 0)
         return t;
   return 0;
}

unsigned ag_sp_random_other(ag_schedpol *p, unsigned self) { return ag_sp_other(p, self, 0); }

/* A random thread parked at a rare region's BEGIN (rare_parked > 0). */
static unsigned ag_sp_rare_other(ag_schedpol *p, unsigned self)
{
   unsigned i = (unsigned)(ag_sp_rand(p) % p->rare_parked);
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].rare && p->th[t].enabled && i-- == 0) return t;
   return ag_sp_random_other(p, self);
}

/* The enabled thread of highest priority; self competes if it is at a point. */
unsigned ag_sp_highest(const ag_schedpol *p, unsigned self, int self_too)
{
   unsigned best = self_too ? self : 0;
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && (best == 0 || p->th[t].prio > p->th[best].prio))
         best = t;
   return best;
}

/* PCT: the holder drops below every priority given so far. */
static void ag_sp_demote(ag_schedpol *p, unsigned t) { p->th[t].prio = p->low_prio--; }

static unsigned ag_sp_choose_pct(ag_schedpol *p, unsigned self, int kind, int starving)
{
   if (kind == AG_SP_PT_SHARED) return ag_sp_highest(p, self, 1);   /* decided at the access */
   /* at BLOCKS a spin loop of the highest priority would keep the turn
      forever (its shared points show progress): it drops */
   if (starving || kind == AG_SP_PT_PREEMPT || kind == AG_SP_PT_YIELD
       || ag_sp_pct_change(p, p->points))
      ag_sp_demote(p, self);
   return ag_sp_highest(p, self, 1);
}

/* Random, outside regions: switches let the others start and catch up (a
   producer that runs ahead alone hides a consumer's bug), damped like a
   region site over all points outside regions. */
static unsigned ag_sp_choose_outside(ag_schedpol *p, unsigned self)
{
   p->outside++;
   unsigned long long damp = p->outside <= 16 * AG_SP_KNEE ? 1 : p->outside / (16 * AG_SP_KNEE);
   if (damp > AG_SP_DAMP_MAX) damp = AG_SP_DAMP_MAX;
   if (p->in_regions > 0) damp = 1;     /* this thread may break that region */
   return ag_sp_one_in(p, AG_SP_RANDOM_OUTSIDE * (unsigned)damp) ? ag_sp_random_other(p, self)
                                                                  : self;
}

unsigned ag_sp_choose(ag_schedpol *p, unsigned self, int kind, int stop_switch)
{
   int others = p->enabled > 0;
   int starving = others && p->th[self].run >= AG_SP_MAX_RUN;
   if (p->pct) return ag_sp_choose_pct(p, self, kind, starving);
   /* a thread that yields, keeps the turn for long, or spins (runs its
      budget out again and again) may wait for what only the exit brings:
      the exit goes on */
   if (kind == AG_SP_PT_BLOCKS || kind == AG_SP_PT_YIELD || starving) {
      unsigned x = ag_sp_exiting_other(p, self);
      if (x != 0 && (kind != AG_SP_PT_BLOCKS || ag_sp_exit_spun(p))) {
         p->th[x].exit_until = 0;
         return x;
      }
   }
   /* ran its budget out, yields or starves the others: another runs, a
      postponed one if nobody else can (a spin loop may wait for it) */
   if (kind == AG_SP_PT_BLOCKS) {
      unsigned t = others ? ag_sp_other(p, self, 1) : self;
      /* not yet to the exit, which waits until the spinning is long
         enough (above): it would end self (a failed assertion's message) */
      return t != 0 && ag_sp_exiting(p, t) ? self : t;
   }
   if (kind == AG_SP_PT_SHARED)          /* decided at the access */
      return stop_switch && others ? ag_sp_random_other(p, self) : self;
   if (!others) return self;
   if (starving || kind == AG_SP_PT_YIELD) return ag_sp_other(p, self, 1);
   int in_region = p->th[self].depth > 0 || kind == AG_SP_PT_END;
   if (in_region && ag_sp_rare_first(p, self))
      return kind == AG_SP_PT_PREEMPT ? ag_sp_rare_other(p, self) : self;
   if (kind == AG_SP_PT_PREEMPT) return ag_sp_random_other(p, self);
   if (in_region)
      return ag_sp_one_in(p, AG_SP_RANDOM_IN_REGION * ag_sp_damp(p, self))
             ? ag_sp_random_other(p, self) : self;
   return ag_sp_choose_outside(p, self);
}

unsigned ag_sp_pass(ag_schedpol *p, unsigned self)
{
   return p->pct ? ag_sp_highest(p, self, 0) : ag_sp_other(p, self, 1);
}

/* Natively, exit() takes a while (atexit handlers, stdio's flush) and
   the other threads run on meanwhile, on other CPUs: a checker that main
   started and never joined (SCTBench's account_bad, token_ring_bad) runs
   before the process ends.  Here the exit would end them at once.  So
   the exiting thread yields first (but in 1 run of AG_SP_EXIT_NOW: a
   thread killed mid-way by the exit is a bug too).  Random sets it aside:
   it gets the turn only when the holder must leave it and nobody else can
   take it, or when a thread yields, starves the others or runs out
   AG_SP_EXIT_BUDGETS budgets of AG_SP_EXIT_SPENT units in all (it may wait
   for what only the exit brings),
   or after AG_SP_EXIT_HOLD points (two pollers would hand the turn to
   each other forever); PCT demotes it below every other thread. */
int ag_sp_exit_holds(ag_schedpol *p, unsigned self)
{
   if (p->enabled == 0 || ag_sp_one_in(p, AG_SP_EXIT_NOW)) return 0;
   if (p->pct) ag_sp_demote(p, self);
   else p->th[self].exit_until = p->points + AG_SP_EXIT_HOLD;
   p->exit_budgets = 0;
   p->exit_spent = 0;
   return 1;
}

void ag_sp_switched(ag_schedpol *p, unsigned self)
{
   if (!p->pct && p->th[self].depth > 0) p->th[self].held_until = p->points + 1 + ag_sp_rand(p) % AG_SP_HOLD;
}

int ag_sp_pct_shared(ag_schedpol *p, unsigned self)
{
   if (ag_sp_pct_change(p, p->points)) ag_sp_demote(p, self);
   return p->enabled > 0 && ag_sp_highest(p, self, 1) != self;
}
