/* ag_schedrace.c -- race-directed postponement: the learned sites and
 * which thread waits for which (see ag_schedrace.h): plain C, its state
 * in the policy's struct. */
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
   unsigned long g = a >> 3 | 1UL << 63;          /* never 0 */
   unsigned i = (unsigned)((g ^ g >> 12) % AG_SR_LAST);
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

static void ag_sr_post(ag_schedpol *p, unsigned t, unsigned long g, unsigned long ip,
                       unsigned long long hold)
{
   ag_sp_thread *th = &p->th[t];
   if (th->post_addr == 0) p->race.npost++;
   th->post_addr = g;
   th->post_ip = ip;
   th->post_until = p->points + hold;
}

/* A postponed thread other than self waiting at granule g, at another
   site than ip (0: none); several: a random one.  Two threads at one
   site (the same store in two threads) are the same race either way
   round: they wait together for a third.  A lock's site is the lock
   itself (a == ip), whatever code takes it: two threads waiting for one
   lock race. */
static unsigned ag_sr_waiting_at(ag_schedpol *p, unsigned self, unsigned long g, unsigned long ip,
                                 int lock)
{
   unsigned n = 0, pick = 0;
   for (unsigned t = 1; t < p->nth; t++)
      if (t != self && p->th[t].enabled && p->th[t].post_addr == g && (lock || p->th[t].post_ip != ip)
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

int ag_sr_shared(ag_schedpol *p, unsigned self, unsigned long a, unsigned long ip, int learned)
{
   struct ag_sr_state *r = &p->race;
   unsigned long g = a >> 3 | 1UL << 63;
   if (r->npost > 0) {
      unsigned u = ag_sr_waiting_at(p, self, g, ip, a == ip);
      if (u != 0) {
         /* the race is here: which of the two goes first is drawn */
         if (ag_sp_one_in(p, 2)) return 0;        /* self; u stays postponed */
         /* u, then self: self waits for u's access only, not for a
            partner of its own (a reader after the writer reads on) */
         ag_sr_post(p, self, g, ip, 1);
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
   ag_sr_post(p, self, g, ip, AG_SR_HOLD);
   return 1;
}
