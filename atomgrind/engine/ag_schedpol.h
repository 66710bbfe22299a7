/* ag_schedpol.h -- the scheduler's policy for the points it adds at
 * shared accesses and budgets (freestanding C, no Valgrind; used by
 * ag_sched.c and ag_shared.c, tested on the host by
 * tests/engine/test_schedpol.c): the seeded random source, who owns an
 * owner-table slot after an access, whether a shared access preempts,
 * budgets of instructions, and PCT's change points.  All state is in one
 * ag_schedpol passed explicitly. */
#ifndef AG_SCHEDPOL_H
#define AG_SCHEDPOL_H

/* Random: a shared access preempts 1 in AG_SP_SHARED_RATE times, damped
   per instruction (the first AG_SP_KNEE points of one get the full rate,
   then n / AG_SP_KNEE) and over the run (1 + shared points /
   AG_SP_SHARED_KNEE), at most AG_SP_DAMP_MAX. */
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

/* Owner-table slot values (ag_shared.h says what they mean). */
#define AG_SP_TAGS           126
#define AG_SP_READ           127
#define AG_SP_TRY            128
#define AG_SP_BOTH           255

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
} ag_schedpol;

void ag_sp_init(ag_schedpol *p, unsigned long long seed);
unsigned long long ag_sp_rand(ag_schedpol *p);
int ag_sp_one_in(ag_schedpol *p, unsigned n);        /* ag_sp_rand() % n == 0 */

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
/* PCT: depth - 1 change points, each uniform in [1, k]; is point number
   n one? */
void ag_sp_pct_init(ag_schedpol *p, unsigned depth, unsigned long long k);
int ag_sp_pct_change(const ag_schedpol *p, unsigned long long n);

#endif
