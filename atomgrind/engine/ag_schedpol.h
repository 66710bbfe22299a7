/* ag_schedpol.h -- the scheduler's policy (freestanding C, no Valgrind;
 * used by ag_sched.c and ag_shared.c, tested on the host by
 * tests/engine/test_schedpol*.c): the seeded random source, who owns an
 * owner-table slot after an access, whether a shared access preempts,
 * budgets of instructions, PCT's change points and priorities, the
 * damping of regions and the rule for rare ones, which thread holds the
 * turn after a point, and which postponed threads wait (race sites and
 * postponing: ag_schedrace.c).  All state is in one ag_schedpol
 * passed explicitly; the mechanism (ag_sched.c) tells it which threads
 * are enabled and applies its answers. */
#ifndef AG_SCHEDPOL_H
#define AG_SCHEDPOL_H

#include "ag_hbtags.h"         /* the tags */

/* Random: a shared access preempts 1 in AG_SP_SHARED_RATE times, damped
   per instruction (the first AG_SP_KNEE points of one get the full rate,
   then n / AG_SP_KNEE) and over the run (1 + shared points /
   AG_SP_SHARED_KNEE), at most AG_SP_DAMP_MAX.  Regions are damped alike:
   the first AG_SP_KNEE runs of a region site get the full rates, the n-th
   after that 1/(n/AG_SP_KNEE) of them; within one long run, its points and
   accesses over AG_SP_KNEE divide them too (at most AG_SP_DAMP_MAX): a
   loop of 100,000 regions costs O(KNEE log n) switches, not O(n). */
#define AG_SP_SHARED_RATE      4
#define AG_SP_KNEE           256
#define AG_SP_SHARED_KNEE   2048
#define AG_SP_DAMP_MAX      4096
#define AG_SP_IP_SLOTS      4096
/* A slot one thread touched while others waited becomes private 1 in
   AG_SP_CLAIM times; after the run's first AG_SP_TRIES draws, at once. */
#define AG_SP_CLAIM           16
#define AG_SP_TRIES        16384
/* Budgets of instructions: uniform in [1, 2 AG_SP_QUANTUM d], d doubling
   every AG_SP_KNEE_BUDGETS budgets run out, up to 2^AG_SP_DOUBLINGS. */
#define AG_SP_QUANTUM         64
#define AG_SP_KNEE_BUDGETS    64
#define AG_SP_DOUBLINGS       20
/* PCT: at most this many change points (depth - 1). */
#define AG_SP_MAX_CHANGE      16
/* PCT when the run's length is not known (no earlier run of the command):
   k is one of AG_SP_PCT_SCALES doublings of AG_SP_PCT_K0, drawn at random
   (ag_sp_pct_init): 16, 32, ..., 131072 points. */
#define AG_SP_PCT_K0          16
#define AG_SP_PCT_SCALES      14

/* Choosing the next holder.  A holder keeps the turn for at most
   AG_SP_MAX_RUN points in a row while others wait (spin loops of
   synchronisation calls end).  Random: a point inside a region (outside
   one) switches 1 in AG_SP_RANDOM_IN_REGION (AG_SP_RANDOM_OUTSIDE) times,
   damped; a thread preempted in a region is not chosen again for up to
   AG_SP_HOLD points (uniformly drawn), so the others get far enough to
   conflict with it. */
#define AG_SP_MAX_RUN        256
#define AG_SP_RANDOM_IN_REGION 4
#define AG_SP_RANDOM_OUTSIDE   4
#define AG_SP_HOLD           256
/* exit(): the other threads run first, for at most AG_SP_EXIT_HOLD
   points or until they run out AG_SP_EXIT_BUDGETS budgets of at least
   AG_SP_EXIT_SPENT units in all (a spinner; early budgets are short, and
   a thread that fails an assertion formats its message for thousands;
   2^20 superblocks are a few milliseconds natively, as long as a native
   exit's flush gives the other CPUs: 2^16 cut short a checker of 1,500
   formatted lines, and aget's download threads before their writes),
   except in 1 run of AG_SP_EXIT_NOW (ag_sp_exit_holds). */
#define AG_SP_EXIT_HOLD    10000
#define AG_SP_EXIT_NOW         4
#define AG_SP_EXIT_BUDGETS    16
#define AG_SP_EXIT_SPENT (1u << 20)
/* Random: 1 in AG_SP_RANDOM_ACCESS accesses inside a region preempts,
   damped.  While a thread waits to begin a region still rare (not yet
   damped) and the holder runs a damped one, the holder keeps the turn at
   region boundaries and hands it to the rare one after 1 in
   AG_SP_RARE_ACCESS accesses in its region, undamped: a rare region (a
   reload, a flush) breaks a frequent one only in the middle of it. */
#define AG_SP_RANDOM_ACCESS    4
#define AG_SP_RARE_ACCESS      2

/* Kinds of scheduling points (ag_sched.h's ag_point, in its order). */
enum {
   AG_SP_PT_BEGIN, AG_SP_PT_END, AG_SP_PT_SYNC_PRE, AG_SP_PT_SYNC_POST,
   AG_SP_PT_PREEMPT, AG_SP_PT_YIELD, AG_SP_PT_SHARED, AG_SP_PT_BLOCKS
};

/* Owner-table slot values (ag_shared.h says what they mean); the tags
   are the ones the owner table's happens-before stamps (ag_hbtags.h). */
#define AG_SP_TAGS           AG_HBT_TAGS
/* A thread's tag (in slots and race sites' last accesses), from the
   engine's thread number. */
static inline unsigned char ag_sp_tag(unsigned long t) { return (unsigned char)(1 + t % AG_SP_TAGS); }
#define AG_SP_READ           127
#define AG_SP_TRY            128
#define AG_SP_BOTH           255

/* Race-directed postponement (ag_schedrace.h): its sizes and state. */
/* The learned set: at most AG_SR_MAX sites (a hash set of AG_SR_SLOTS). */
#define AG_SR_SLOTS        1024
#define AG_SR_MAX           512
/* The last access to a location, per hashed granule of 8 bytes. */
#define AG_SR_LAST         4096
/* A run postpones a thread at most AG_SR_PER_SITE times per site, and
   AG_SR_PER_RUN times in all: a hot site (a compressor's shared counter)
   costs a few switches, not one per access. */
#define AG_SR_PER_SITE        4
#define AG_SR_PER_RUN       256
/* A postponed thread runs again after at most this many points of others. */
#define AG_SR_HOLD         1024
/* Lock-order coverage: at most AG_SO_MAX pairs of lock sites (a hash
   set of AG_SO_SLOTS); a lock's last AG_SO_TAKERS takers, for
   AG_SO_LOCKS locks (hashed). */
#define AG_SO_SLOTS        2048
#define AG_SO_MAX          1536
#define AG_SO_LOCKS         256
#define AG_SO_TAKERS          4

typedef struct {
   unsigned long addr;     /* granule address (a >> 3), 0: none */
   unsigned long ip;       /* the site of the last access */
   unsigned long long at;  /* when (the policy's point count) */
   unsigned stamp;         /* by whom: its tag (low byte), and its clock (ag_schedrace.h) */
   unsigned char write;
} ag_sr_last;

/* A lock site (the program's call that took a lock) seen before another
   one taking the same lock, in another thread: in how many runs. */
typedef struct {
   unsigned long from, to;    /* 0: empty */
   unsigned runs;             /* earlier runs that saw it */
   unsigned char now;         /* seen in this run too */
} ag_so_pair;

/* A lock's last takers in this run: their sites and threads' tags. */
typedef struct {
   unsigned long lock;        /* 0: none */
   unsigned long site[AG_SO_TAKERS];
   unsigned char tag[AG_SO_TAKERS];
} ag_so_takers;

struct ag_sr_state {
   unsigned long site[AG_SR_SLOTS];       /* learned sites, 0: empty */
   unsigned char used[AG_SR_SLOTS];       /* postponements per site and thread (hashed) */
   unsigned nsites;
   unsigned learned;                      /* sites added this run */
   unsigned postponed;                    /* postponements this run */
   unsigned npost;                        /* threads postponed now */
   unsigned release;                      /* the thread chosen next (0: none) */
   ag_sr_last last[AG_SR_LAST];
   /* per granule as last[]: the last access of another thread than the
      last one's (addr 0: none), which a plain access meets too -- a
      write after its own read (x += 1) meets the read before that */
   ag_sr_last other[AG_SR_LAST];
   /* is the pair of this access and the one stamped so no race to learn?
      (the caller's happens-before; NULL: every pair is) */
   int (*ordered)(unsigned stamp);
   ag_so_pair order[AG_SO_SLOTS];         /* lock-order coverage: pairs seen */
   unsigned norder;
   unsigned steered;                      /* meetings at a lock whose odds the pairs set */
   ag_so_takers takers[AG_SO_LOCKS];
   unsigned char parent[AG_SP_TAGS + 1];  /* per tag: its creator's tag (0: none) ... */
   unsigned long long born[AG_SP_TAGS + 1];  /* ... and when it was created */
};

/* What the policy knows of one thread (indexed by thread id, 0 unused). */
typedef struct {
   unsigned char enabled;        /* may be handed the turn */
   unsigned char rare;           /* waits at the BEGIN of a region not yet damped */
   unsigned run;                 /* points in a row holding the turn */
   unsigned depth;               /* region nesting */
   unsigned damp;                /* random: its region site's damping */
   unsigned long long points;    /* its points */
   unsigned long long begin_own; /* ... at its outermost BEGIN */
   unsigned long long accesses;  /* accesses since then (random) */
   unsigned long long prio;      /* PCT: the higher runs */
   unsigned long long held_until;  /* random: not chosen before this point number */
   unsigned long long exit_until;  /* random: waits to exit until then (ag_sp_exit_holds) */
   unsigned long post_addr;      /* postponed before an access to this granule (0: not) */
   unsigned long long post_until;  /* ... until this point number */
   unsigned long post_ip;        /* ... at this site */
   unsigned char post_write;     /* ... a store (or a lock) */
   unsigned long lock_waited;    /* the lock of its last wait (0: none) ... */
   unsigned long lock_site;      /* ... and the program's call of it (0: not known) */
} ag_sp_thread;

typedef struct {
   unsigned long long rng;                  /* splitmix64 state */
   unsigned div_n, div_k;                   /* ag_sp_one_in's last n ... */
   unsigned long long div_inv, div_max;     /* ... and its constants */
   unsigned ip_runs[AG_SP_IP_SLOTS];        /* shared points per instruction, hashed */
   unsigned long long shared_points;        /* points at shared accesses */
   unsigned long long budgets;              /* budgets run out */
   unsigned long long tries;                /* claim draws */
   unsigned long long change[AG_SP_MAX_CHANGE];  /* PCT's change points */
   unsigned nchange;
   int pct;                                 /* PCT, else random */
   ag_sp_thread *th;                        /* the threads (the caller's array) */
   unsigned cap;                            /* ... its length */
   unsigned nth;                            /* one past the highest id used so far: every
                                               loop over the threads stops there, not at
                                               Valgrind's 500 (a shared access asks twice) */
   unsigned enabled;                        /* threads enabled */
   unsigned rare_parked;                    /* threads with .rare set */
   unsigned in_regions;                     /* threads inside a region */
   unsigned long long points;               /* scheduling points so far */
   unsigned long long low_prio;             /* PCT: next priority for a change point */
   unsigned long long outside;              /* random: points outside regions */
   unsigned exit_budgets;                   /* random: budgets run out while an exit waits ... */
   unsigned long long exit_spent;           /* ... and their units */
   long long budget;                        /* the last budget given */
   struct ag_sr_state race;                 /* random: learned sites, postponements */
} ag_schedpol;

void ag_sp_init(ag_schedpol *p, unsigned long long seed);
unsigned long long ag_sp_rand(ag_schedpol *p);
int ag_sp_one_in(ag_schedpol *p, unsigned n);        /* ag_sp_rand() % n == 0 */

/* Is the slot the thread tagged me's so far, not yet claimed: untouched,
   or touched by it alone while others waited? */
static inline int ag_sp_unclaimed(unsigned char slot, unsigned char me)
{
   return slot == 0 || slot == (me | AG_SP_TRY);
}
/* The slot's value after an access by the thread tagged me (write: a
   store); *point: the access is a scheduling point.  claim() is asked
   only for a slot that thread alone touched so far. */
unsigned char ag_sp_slot_after(ag_schedpol *p, unsigned char slot, unsigned char me, int write,
                               int others_wait, int *point);
/* May a slot one thread touched become private to it? */
int ag_sp_claim(ag_schedpol *p, int others_wait);
/* A point at a shared access (counted before ag_sp_shared_preempts). */
void ag_sp_shared_point(ag_schedpol *p);
/* Random: does the shared access at instruction ip preempt the holder? */
int ag_sp_shared_preempts(ag_schedpol *p, unsigned long ip, int others_wait);
/* A budget of instructions for the next holder; ag_sp_budget_out counts
   one run out (before the next draw). */
long long ag_sp_budget(ag_schedpol *p);
void ag_sp_budget_out(ag_schedpol *p);
/* PCT: depth - 1 change points, each uniform in [1, k]; k 0 (the run's
   length not known) draws k among the doublings of AG_SP_PCT_K0.  Returns
   the k used.  Is point number n one? */
unsigned long long ag_sp_pct_init(ag_schedpol *p, unsigned depth, unsigned long long k);
int ag_sp_pct_change(const ag_schedpol *p, unsigned long long n);

/* The threads' table (zeroed, nth entries, kept by the caller) and the
   strategy; after ag_sp_init. */
void ag_sp_threads(ag_schedpol *p, ag_sp_thread *th, unsigned nth, int pct);
/* Thread t was created (the seen-th): a fresh entry, a PCT priority. */
void ag_sp_thread_new(ag_schedpol *p, unsigned t, unsigned seen);
/* A point of t: counted; its region opens (1) or closes (-1), or not (0). */
int ag_sp_count(ag_schedpol *p, unsigned t, int kind);
/* t opens a region (outermost) at a site that ran `runs` times. */
void ag_sp_region_site(ag_schedpol *p, unsigned t, unsigned runs);
/* t exited inside its regions; a fork child's: only t is left. */
void ag_sp_region_exit(ag_schedpol *p, unsigned t);
void ag_sp_fork_child(ag_schedpol *p, unsigned t);
/* Random: the rates in t's region are divided by this. */
unsigned ag_sp_damp(const ag_schedpol *p, unsigned t);
/* t, the holder, just opened a region (counted): stop it at once? */
int ag_sp_region_stop(ag_schedpol *p, unsigned t);
/* An access of t, the holder: inside a region, does it preempt? */
int ag_sp_access(ag_schedpol *p, unsigned t);
/* t became enabled (on) or not. */
void ag_sp_enable(ag_schedpol *p, unsigned t, int on);
/* t is about to park at a point of this kind (a rare region's BEGIN is
   marked), or runs again (unmarked). */
void ag_sp_parks(ag_schedpol *p, unsigned t, int kind);
void ag_sp_runs(ag_schedpol *p, unsigned t);
/* The turn: t took it (its run starts over), or kept it at a point. */
void ag_sp_took(ag_schedpol *p, unsigned t);
void ag_sp_kept(ag_schedpol *p, unsigned t);
/* Random: is a rare region waiting while t's damped one runs? */
int ag_sp_rare_first(const ag_schedpol *p, unsigned t);
/* Who holds the turn after self's point of this kind (self: keeps it;
   0: nobody else is enabled); stop_switch: at AG_SP_PT_SHARED, the access
   drew a switch. */
unsigned ag_sp_choose(ag_schedpol *p, unsigned self, int kind, int stop_switch);
/* self leaves or blocks: who gets the turn (0: nobody). */
unsigned ag_sp_pass(ag_schedpol *p, unsigned self);
/* self is about to exit() the process while others are enabled: does it
   let them run first (1: it is set aside -- random -- or demoted -- PCT --
   and should yield)? */
int ag_sp_exit_holds(ag_schedpol *p, unsigned self);
/* self was switched away from: in a region, random holds it back a while. */
void ag_sp_switched(ag_schedpol *p, unsigned self);
/* PCT at a shared access of the holder: a change point demotes it; does
   another enabled thread now outrank it? */
int ag_sp_pct_shared(ag_schedpol *p, unsigned self);
/* Postponed threads (race-directed postponement, ag_schedrace.h): is t
   one (and not yet run out)?  t runs on (it took or kept the turn): no
   longer.  A random one other than self, released (0: none). */
int ag_sp_postponed(const ag_schedpol *p, unsigned t);
void ag_sp_unpost(ag_schedpol *p, unsigned t);
unsigned ag_sp_release_postponed(ag_schedpol *p, unsigned self);
/* Random: does t wait to exit (ag_sp_exit_holds)? */
int ag_sp_exiting(const ag_schedpol *p, unsigned t);
/* Some chosen thread (tests): random_other, highest. */
unsigned ag_sp_random_other(ag_schedpol *p, unsigned self);
unsigned ag_sp_highest(const ag_schedpol *p, unsigned self, int self_too);

#endif
