/* ag_schedrace.c -- race-directed postponement: the learned sites and
 * which thread waits for which (see ag_schedrace.h): plain C, its state
 * in the policy's struct. */
#include <stddef.h>         /* NULL */
#include "ag_schedrace.h"

static unsigned ag_sr_hash(unsigned long ip)
{
   unsigned long long h = (unsigned long long)ip * 0x9e3779b97f4a7c15ULL;
   return (unsigned)(h >> 40) % AG_SR_SLOTS;
}

/* The slot of ip, or of the empty one where it would go. */
static unsigned ag_sr_find(const struct ag_sr_state *r, unsigned long ip)
{
   unsigned i = ag_sr_hash(ip);
   while (r->site[i] != 0 && r->site[i] != ip) i = (i + 1) % AG_SR_SLOTS;
   return i;
}

int ag_sr_has(const ag_schedpol *p, unsigned long ip)
{
   const struct ag_sr_state *r = &p->race;
   return r->nsites > 0 && ip != 0 && r->site[ag_sr_find(r, ip)] == ip;
}

int ag_sr_add(ag_schedpol *p, unsigned long ip)
{
   struct ag_sr_state *r = &p->race;
   if (ip == 0 || r->nsites >= AG_SR_MAX) return 0;
   unsigned i = ag_sr_find(r, ip);
   if (r->site[i] == ip) return 0;
   r->site[i] = ip;
   r->nsites++;
   return 1;
}

void ag_sr_born(ag_schedpol *p, unsigned char tag, unsigned char parent)
{
   if (tag > AG_SP_TAGS) return;
   p->race.parent[tag] = parent;
   p->race.born[tag] = p->points;
}

/* An address's granule (never 0), and its slot in last[] and other[]. */
static unsigned long ag_sr_granule(unsigned long a) { return a >> 3 | 1UL << 63; }
static unsigned ag_sr_slot(unsigned long g) { return (unsigned)((g ^ g >> 12) % AG_SR_LAST); }

/* The caller takes the last access, another thread's, as ordered before
   this one. */
static int ag_sr_ordered(const struct ag_sr_state *r, const ag_sr_last *l)
{
   return r->ordered && !(l->stamp & AG_SR_UNORDERED) && r->ordered(l->stamp);
}

/* Learn the pair of l, an earlier access to granule g, and this one. */
static void ag_sr_pair(ag_schedpol *p, const ag_sr_last *l, unsigned long g, unsigned long ip,
                       unsigned char tag, int write)
{
   struct ag_sr_state *r = &p->race;
   unsigned char last = (unsigned char)l->stamp;
   int set_up = tag <= AG_SP_TAGS && last == r->parent[tag] && l->at <= r->born[tag];
   if (l->addr == g && last != tag && (write || l->write) && !set_up && !ag_sr_ordered(r, l)) {
      r->learned += ag_sr_add(p, l->ip);
      r->learned += ag_sr_add(p, ip);
   }
}

int ag_sr_access(ag_schedpol *p, unsigned long a, unsigned long ip, unsigned stamp, int write)
{
   struct ag_sr_state *r = &p->race;
   unsigned char tag = (unsigned char)stamp;
   unsigned long g = ag_sr_granule(a);
   unsigned i = ag_sr_slot(g);
   ag_sr_last *l = &r->last[i], *o = &r->other[i];
   ag_sr_pair(p, l, g, ip, tag, write);
   /* (not an atomic instruction's: a LOCK'd decrement meeting the poll
      of another thread before its own read taught a site where the
      poller waited until the decrements were done, config_reload) */
   if (!(stamp & AG_SR_ATOMIC)) ag_sr_pair(p, o, g, ip, tag, write);
   if (l->addr != g) o->addr = 0;
   else if ((unsigned char)l->stamp != tag) *o = *l;
   l->addr = g;
   l->ip = ip;
   l->at = p->points;
   l->stamp = stamp;
   l->write = (unsigned char)!!write;
   return ag_sr_has(p, ip);
}

/* The last accesses recorded at slot i, if they fall in granules [g0, g1]. */
static void ag_sr_clear(struct ag_sr_state *r, unsigned i, unsigned long g0, unsigned long g1)
{
   if (r->last[i].addr >= g0 && r->last[i].addr <= g1) r->last[i].addr = 0;
   if (r->other[i].addr >= g0 && r->other[i].addr <= g1) r->other[i].addr = 0;
}

void ag_sr_fresh(ag_schedpol *p, unsigned long a, unsigned long len)
{
   struct ag_sr_state *r = &p->race;
   if (len == 0) return;
   unsigned long g0 = ag_sr_granule(a), g1 = ag_sr_granule(a + len - 1);
   if (g1 - g0 >= AG_SR_LAST) {             /* a big block: every slot */
      for (unsigned i = 0; i < AG_SR_LAST; i++) ag_sr_clear(r, i, g0, g1);
      return;
   }
   for (unsigned long g = g0; g <= g1; g++) ag_sr_clear(r, ag_sr_slot(g), g0, g1);
}

static void ag_sr_post(ag_schedpol *p, unsigned t, unsigned long g, unsigned long ip, int write,
                       unsigned long long hold)
{
   ag_sp_thread *th = &p->th[t];
   if (th->post_addr == 0) p->race.npost++;
   th->post_addr = g;
   th->post_ip = ip;
   th->post_write = (unsigned char)!!write;
   th->post_until = p->points + hold;
}

/* A postponed thread other than self waiting at granule g, at another
   site than ip, for an access that conflicts with self's (one of the two
   a store) (0: none); several: a random one.  Two threads at one site
   (the same store in two threads) are the same race either way round:
   they wait together for a third.  Two loads do not race: a reader
   stays postponed for the store (SCTBench's qsort_mt: the allocator
   reads the idle worker's state, then writes it).  A lock's site is the
   lock itself (a == ip), whatever code takes it: two threads waiting for
   one lock race. */
static unsigned ag_sr_waiting_at(ag_schedpol *p, unsigned self, unsigned long g, unsigned long ip,
                                 int write, int lock)
{
   unsigned n = 0, pick = 0;
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && p->th[t].post_addr == g && (lock || p->th[t].post_ip != ip)
          && (write || p->th[t].post_write)
          && ag_sp_postponed(p, t)
          && ag_sp_rand(p) % ++n == 0)
         pick = t;
   return pick;
}

/* Is a thread other than self free to run (enabled, not postponed, not
   waiting to exit)?  With none, self runs on past a learned site where
   nobody waits: the threads postponed elsewhere may be waiting for what
   it does next, and stopping it would only release one of them at random
   -- or the exit, which would end self before its next step (SCTBench's
   token_ring_bad: the checker stopped at its read of a flag, killed by
   main's return). */
static int ag_sr_free_other(const ag_schedpol *p, unsigned self)
{
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && !ag_sp_postponed(p, t) && !ag_sp_exiting(p, t))
         return 1;
   return 0;
}

/* ---- lock-order coverage ---- */

static unsigned ag_so_hash(unsigned long from, unsigned long to)
{
   unsigned long long h = (unsigned long long)from * 0x9e3779b97f4a7c15ULL
                          ^ (unsigned long long)to * 0xc2b2ae3d27d4eb4fULL;
   return (unsigned)(h >> 40) % AG_SO_SLOTS;
}

/* The pair's slot, or the empty one where it would go. */
static unsigned ag_so_find(const struct ag_sr_state *r, unsigned long from, unsigned long to)
{
   unsigned i = ag_so_hash(from, to);
   while (r->order[i].from != 0 && (r->order[i].from != from || r->order[i].to != to))
      i = (i + 1) % AG_SO_SLOTS;
   return i;
}

/* The pair's entry, made if there is room (NULL: the set is full). */
static ag_so_pair *ag_so_get(struct ag_sr_state *r, unsigned long from, unsigned long to)
{
   ag_so_pair *e = &r->order[ag_so_find(r, from, to)];
   if (e->from == 0) {
      if (r->norder >= AG_SO_MAX) return NULL;
      e->from = from;
      e->to = to;
      r->norder++;
   }
   return e;
}

int ag_so_load(ag_schedpol *p, unsigned long from, unsigned long to, unsigned runs)
{
   ag_so_pair *e = from != 0 && to != 0 && from != to ? ag_so_get(&p->race, from, to) : NULL;
   if (e == NULL) return 0;
   e->runs += runs;
   return 1;
}

unsigned ag_so_runs(const ag_schedpol *p, unsigned long from, unsigned long to)
{
   const ag_so_pair *e = &p->race.order[ag_so_find(&p->race, from, to)];
   return e->from != 0 ? e->runs + e->now : 0;
}

void ag_so_taken(ag_schedpol *p, unsigned long lock, unsigned long site, unsigned char tag)
{
   struct ag_sr_state *r = &p->race;
   if (lock == 0 || site == 0) return;
   ag_so_takers *k = &r->takers[(lock ^ lock >> 12) % AG_SO_LOCKS];
   if (k->lock != lock) {
      for (unsigned i = 0; i < AG_SO_TAKERS; i++) k->site[i] = 0;
      k->lock = lock;
   }
   unsigned at = AG_SO_TAKERS - 1;       /* where this site was, else the oldest */
   for (unsigned i = 0; i < AG_SO_TAKERS; i++) {
      if (k->site[i] == site) at = i;
      else if (k->site[i] != 0 && k->tag[i] != tag) {
         ag_so_pair *e = ag_so_get(r, k->site[i], site);
         if (e) e->now = 1;
      }
   }
   for (unsigned i = at; i > 0; i--) {   /* the latest first */
      k->site[i] = k->site[i - 1];
      k->tag[i] = k->tag[i - 1];
   }
   k->site[0] = site;
   k->tag[0] = tag;
}

/* self and u are both about to take one lock: does self go first?  The
   order seen in fewer runs is favoured in proportion: with self's order
   seen in a runs and u's in b, self goes first with probability
   b / (a + b) -- the order never seen surely, two orders seen alike 1/2
   each.  Always the rarer one would make each meeting's order follow the
   counts in lockstep, and a bug that needs two meetings each in the
   rarer order than the other's counts say would never show
   (stringbuffer's length, erase, getChars). */
static int ag_so_self_first(ag_schedpol *p, unsigned self, unsigned u)
{
   unsigned long s = p->th[self].lock_site, o = p->th[u].lock_site;
   if (s == 0 || o == 0 || s == o) return ag_sp_one_in(p, 2);
   unsigned a = ag_so_runs(p, s, o), b = ag_so_runs(p, o, s);
   if (a == b) return ag_sp_one_in(p, 2);
   p->race.steered++;
   return a == 0 || b == 0 ? a == 0 : ag_sp_rand(p) % (a + b) < b;
}

int ag_sr_shared(ag_schedpol *p, unsigned self, unsigned long a, unsigned long ip, int write,
                 int learned)
{
   struct ag_sr_state *r = &p->race;
   unsigned long g = ag_sr_granule(a);
   if (r->npost > 0) {
      unsigned u = ag_sr_waiting_at(p, self, g, ip, write, a == ip);
      if (u != 0) {
         /* the race is here: which of the two goes first is drawn (two
            lock sites favour the order fewer runs have seen) */
         if (a == ip ? ag_so_self_first(p, self, u) : ag_sp_one_in(p, 2))
            return 0;                              /* self; u stays postponed */
         /* u, then self: self waits for u's access only, not for a
            partner of its own (a reader after the writer reads on) */
         ag_sr_post(p, self, g, ip, write, 1);
         ag_sp_unpost(p, u);
         r->release = u;
         return 1;
      }
   }
   if (!learned || r->postponed >= AG_SR_PER_RUN || !ag_sr_free_other(p, self)) return 0;
   /* counted per site and thread (hashed together): each of many threads
      that run one code (setters, workers) stops there, a loop does not */
   unsigned char *used = &r->used[ag_sr_hash(ip ^ (unsigned long)self << 40)];
   if (*used >= AG_SR_PER_SITE) return 0;
   ++*used;
   r->postponed++;
   ag_sr_post(p, self, g, ip, write, AG_SR_HOLD);
   return 1;
}
