/* ag_hbtags.h -- happens-before between thread tags, for the scheduler's
 * owner table (ag_hbtags.c).
 *
 * The owner table (sched/ag_shared.c) stamps each slot with its owner's
 * tag and the low byte of the owner's clock.  When another thread meets
 * the slot, this says whether the owner's access there happened before
 * the thread's present: a buffer handed over through a lock, a queue or a
 * join then changes owner without being a scheduling point, and only
 * accesses with no common lock or happens-before edge are points.
 *
 * Vector clocks over the tags (1..AG_HBT_TAGS; threads beyond share
 * tags), each thread's clock ticking at its releases, a sync object's
 * clock the join of its releasers'.  A thread's creation is no edge here
 * (analysis/ag_handoff.c says why).  Plain C: built on the host for its
 * tests. */
#ifndef AG_HBTAGS_H
#define AG_HBTAGS_H

#include <stdint.h>

#define AG_HBT_TAGS 126

typedef struct ag_hbt ag_hbt;

/* The tag of thread number t (the scheduler's, ag_schedpol.h's ag_sp_tag) */
static inline unsigned ag_hbt_tag(unsigned long t) { return 1 + (unsigned)(t % AG_HBT_TAGS); }

ag_hbt *ag_hbt_new(void);
void ag_hbt_delete(ag_hbt *h);

/* Tags are 1..AG_HBT_TAGS (others are ignored); objects any non-zero key. */
void ag_hbt_acquire(ag_hbt *h, unsigned tag, uint64_t obj);
void ag_hbt_release(ag_hbt *h, unsigned tag, uint64_t obj);
void ag_hbt_join(ag_hbt *h, unsigned joiner, unsigned child);
/* A new thread takes tag: its clock moves past an earlier thread's of the
   same tag, whose joiner must not take the new one's accesses as known. */
void ag_hbt_start(ag_hbt *h, unsigned tag);

/* tag's own clock now, from 1 (it ticks at each release) */
uint32_t ag_hbt_clock(ag_hbt *h, unsigned tag);

/* Did other's access made when its clock's low byte was low8 happen
   before me's present?  The clock taken is the latest one with that low
   byte, so an old stamp errs towards "no": a point too many, never one
   missed through wrap-around. */
int ag_hbt_ordered(const ag_hbt *h, unsigned me, unsigned other, uint8_t low8);

#endif
