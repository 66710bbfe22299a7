/* ag_schedrace.h -- race-directed postponement (RaceFuzzer, Sen PLDI'08),
 * part of the scheduler's policy (freestanding C, no Valgrind; used by
 * ag_sched.c and ag_shared.c, tested on the host by
 * tests/engine/test_schedrace.c).
 *
 * Learning: the code addresses ("sites") of two accesses by different
 * threads, one a write, that followed each other at one location with no
 * other shared access to it in between but the second thread's own (a
 * plain read-modify-write meets the read before its read), the first not
 * made by the other's creator before it created the other (a set-up the
 * thread reads).  Sites are learned during a run and kept per command between
 * runs (the mechanism reads and writes the file).
 *
 * Postponing: a thread about to make an access at a learned site is
 * stopped while another thread is free to run,
 * until another thread reaches an access to the same location (then
 * their order is drawn at random, and the second waits for the first's
 * access only), the postponement runs out (AG_SR_HOLD points), or nobody
 * else can run (the holder blocks, leaves, is postponed itself, or
 * yields, starves others or runs its budget out with no other thread to
 * hand the turn).  A thread created later thus gets to meet one stopped
 * between its paired accesses, and a thread that runs while all others
 * wait is not stopped: it may be what they wait for.
 *
 * Lock-order coverage (after Maple, Yu et al. OOPSLA'12, whose idioms it
 * narrows to lock orders): a learned lock's takers are known by their
 * site, the program's call that took it.  A run records which site took
 * the lock before which other site, in another thread; the pairs are kept
 * between runs with the number of runs that saw each.  When two threads
 * meet at a learned lock, the order fewer runs have seen is favoured in
 * proportion (ag_so_self_first), one never seen goes first surely: a
 * stopper that always took the lock after the worker's check and count
 * now comes first (SCTBench's bluetooth_driver). */
#ifndef AG_SCHEDRACE_H
#define AG_SCHEDRACE_H

#include "ag_schedpol.h"   /* ag_schedpol, ag_sp_thread */

/* Its sizes and state (struct ag_sr_state) are in ag_schedpol.h. */

/* Is ip a learned site?  Add one (1: it was new; 0: known or full). */
int ag_sr_has(const ag_schedpol *p, unsigned long ip);
int ag_sr_add(ag_schedpol *p, unsigned long ip);
/* The thread tagged `tag` was just created by the one tagged `parent`:
   what its creator did before is ordered before all it does, so no pair
   of the two is learned. */
void ag_sr_born(ag_schedpol *p, unsigned char tag, unsigned char parent);
/* An access by a thread (stamp, below) to address a at ip (write: a
   store) that reached the shared-access check: learns the pair if the
   location's last access was another thread's, one of the two writes,
   and the caller does not take the two as ordered (p->race.ordered).
   stamp: the accessing thread's tag (low byte) and clock, or'ed with
   AG_SR_UNORDERED where the order is the point (a lock handed over), and
   with AG_SR_ATOMIC for an atomic instruction's access (a LOCK'd
   read-modify-write): it meets the last access only.
   Returns: ip is a learned site. */
#define AG_SR_UNORDERED 0x10000u
#define AG_SR_ATOMIC    0x20000u
int ag_sr_access(ag_schedpol *p, unsigned long a, unsigned long ip, unsigned stamp, int write);
/* [a, a+len) is new memory (a heap block): accesses before it was made
   pair with none after. */
void ag_sr_fresh(ag_schedpol *p, unsigned long a, unsigned long len);
/* The holder self is about to access a at ip (write: a store, or a
   lock: a == ip; learned: ip is a site): 1 if it is to stop and another
   thread run instead (p->race.release names it when a postponed one is
   released). */
int ag_sr_shared(ag_schedpol *p, unsigned self, unsigned long a, unsigned long ip, int write,
                 int learned);

/* Lock-order coverage.  Load a pair (site `from` took a lock before site
   `to` took it in another thread) seen in `runs` earlier runs (1: it
   went in; 0: zero, equal sites or the set is full). */
int ag_so_load(ag_schedpol *p, unsigned long from, unsigned long to, unsigned runs);
/* The thread tagged tag took the learned lock at site: the pairs of the
   lock's last takers in other threads and this site are seen in this run. */
void ag_so_taken(ag_schedpol *p, unsigned long lock, unsigned long site, unsigned char tag);
/* The runs (earlier ones, and this one) that saw the pair. */
unsigned ag_so_runs(const ag_schedpol *p, unsigned long from, unsigned long to);
/* Thread t is about to wait for lock at this site (0: not known; both
   0: no wait). */
static inline void ag_so_waits_at(ag_schedpol *p, unsigned t, unsigned long lock,
                                  unsigned long site)
{
   p->th[t].lock_waited = lock;
   p->th[t].lock_site = site;
}
/* The site of t's last wait, if it was for lock (else 0: a trylock after
   a failed wait for another lock, an error-checking mutex's relock). */
static inline unsigned long ag_so_site_of(const ag_schedpol *p, unsigned t, unsigned long lock)
{
   return p->th[t].lock_waited == lock ? p->th[t].lock_site : 0;
}
#endif
