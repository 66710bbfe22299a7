/* ag_sampler.h -- RPT window chooser (online, n unknown).
 *
 * RPT (the race property tester of DESIGN.md §6) analyses only random
 * windows -- contiguous runs of events -- of the execution, each from fresh
 * engine state.  This module decides WHICH events are analysed; it knows
 * nothing about engines.  The front-end counts events (in batches is fine)
 * and switches the dispatcher with ag_engine_set_active().
 *
 * Parameters (epsilon, delta in (0,1)):
 *   m = 4|T| + 2h      |T| threads seen so far, h most locks held at once
 *                      (in total, over all threads) seen so far
 *   k = ceil(4m/eps)   window length
 *   r = ceil(15 ln(1/delta) / (2 eps))
 *
 * Time is measured in events: position p is the event that follows the
 * first p events (so dispatcher event number p+1).  A window [a, b) covers
 * positions a..b-1.
 *
 * The choice (all random draws come from one xoshiro256** seeded from
 * `seed`, so a run is reproducible given the event counts):
 *   - Time is cut into slots.  Slot j (j = 0, 1, 2, ...) starts where slot
 *     j-1 ends (slot 0 at 0) and is k_j long, k_j being k as computed at
 *     the slot's start from the |T| and h known then.
 *   - Slot j is accepted independently with probability p_j = min(1, r/j)
 *     (j <= r always).  An accepted slot gets one window starting at a
 *     uniformly random offset in [0, k_j) of the slot, k_j long (so it may
 *     reach into the next slot).  If k grows while the window is open, the
 *     window is lengthened to the new k.
 *   - The whole-run prefix: positions [0, P) with P = max(3k, end of slot
 *     r's window) are analysed whole (3k >= 12m/eps, the paper's whole-run
 *     threshold; the prefix contains every window of slots 0..r).  A run no
 *     longer than P is therefore analysed entirely.
 *   - Overlapping or adjacent windows are merged: the analysed set is the
 *     union of the prefix and all windows, and each maximal interval of it
 *     is analysed from fresh state at its start.
 *
 * Guarantee.  Fix the run's length n > P and assume k (i.e. |T| and h) no
 * longer changes after the prefix.  Then for every position i < n the
 * window [i, i+k) is contained in one analysed interval with probability at
 * least r/n, and these events are independent for positions in different
 * slots (within a slot at most one window starts):
 *   - i in a slot j < r: [i, i+k) lies inside the prefix (probability 1);
 *   - i in slot j >= r: P(a window starts at i) = p_j / k >= r/(j k) > r/n,
 *     because j k <= i < n.
 * So if S is the set of positions whose k-window contains an HB race,
 * P(no analysed interval contains such a window) <= prod_j (1 - p_j|S_j|/k)
 * <= exp(-r |S| / n).  RPT's Theorem 1 gives |S| >= 2 eps n / 15 when the
 * trace is eps-far from race-free and n >= 12m/eps, hence the miss
 * probability is at most exp(-r 2 eps/15) <= delta -- the paper's bound,
 * without knowing n in advance.  Races whose two events are more than one
 * window apart are found only by luck (the prefix, merged windows).
 * Analysing an interval that contains a window finds every race that
 * analysing the window alone finds (an HB race depends only on the events
 * between its two accesses; the engine's suffix-monotonicity is tested).
 * If |T| or h grow after the prefix, windows of earlier slots are shorter
 * than the final k: the bound then holds for the part of the run after the
 * last growth, with the positions before it counted as unsampled.
 *
 * Cost.  E[accepted slots] = r + 1 + sum_{r<j<=n/k} r/j ~= r (1 + ln(n/(r k))),
 * each at most k analysed events: O(1) in n up to the logarithm.
 *
 * Online use.  ag_sampler_next_change() is the event count at which the
 * front-end must next call ag_sampler_advance() -- where a window starts or
 * ends, or a slot boundary (about one every k events, where the state may
 * not change).  advance(now) may be called late (batched counting): every
 * point <= now is processed in order, and a window whose start was passed
 * is opened at `now`.  Call ag_sampler_active() after advance() and after
 * the note_* calls, and re-read next_change() after either.
 */
#ifndef AG_SAMPLER_H
#define AG_SAMPLER_H

#include <stdint.h>

#define AG_SAMPLER_NEVER (~(uint64_t)0)

typedef struct ag_sampler {
   /* parameters */
   double epsilon, delta;
   uint64_t r;               /* windows to sample */
   uint64_t k;               /* current window length */
   uint64_t k_fixed;         /* nonzero: override of k (tests) */
   uint32_t threads, locks;  /* |T| and h so far */
   uint64_t rng[4];          /* xoshiro256** */
   /* timeline */
   uint64_t now;             /* events counted so far */
   uint64_t slot;            /* index of the current slot */
   uint64_t slot_end;        /* where the next slot starts */
   uint64_t pend;            /* start of the current slot's window, or NEVER */
   int active;
   int prefix;               /* the active interval is the whole-run prefix */
   uint64_t act_from;        /* current analysed interval [act_from, act_to) */
   uint64_t act_to;          /* NEVER while slot r is not reached yet */
   uint64_t win;             /* start of the last window merged into it */
   /* counters */
   uint64_t windows;         /* analysed intervals opened (activations) */
   uint64_t accepted;        /* slots accepted (windows sampled, incl. prefix) */
   uint64_t analysed_done;   /* events in closed intervals */
} ag_sampler;

/* Returns 0, or -1 if epsilon or delta is outside (0,1) (s is then set up
   with epsilon = 0.01, delta = 0.1).  The sampler starts active. */
int ag_sampler_init(ag_sampler *s, double epsilon, double delta, uint64_t seed);

/* Tests: fix k and/or r instead of deriving them (0 keeps the derived one).
   Call right after init, before any event. */
void ag_sampler_override(ag_sampler *s, uint64_t r, uint64_t k);

/* The front-end reports |T| (threads created so far) and the number of
   locks currently held (all threads together); both are kept as maxima. */
void ag_sampler_note_threads(ag_sampler *s, uint32_t nthreads);
void ag_sampler_note_locks_held(ag_sampler *s, uint32_t held);

uint64_t ag_sampler_next_change(const ag_sampler *s);
int ag_sampler_advance(ag_sampler *s, uint64_t now);    /* returns active */
int ag_sampler_active(const ag_sampler *s);

uint64_t ag_sampler_m(const ag_sampler *s);
uint64_t ag_sampler_windows(const ag_sampler *s);   /* intervals opened */
uint64_t ag_sampler_accepted(const ag_sampler *s);  /* slots accepted */
uint64_t ag_sampler_analysed(const ag_sampler *s);  /* events analysed up to now */

/* Helpers (no libm in the tool), exported for tests. */
double ag_sampler_ln(double x);
uint64_t ag_sampler_ceil(double x);
uint64_t ag_sampler_rand_below(ag_sampler *s, uint64_t n);   /* uniform [0,n) */

#endif
