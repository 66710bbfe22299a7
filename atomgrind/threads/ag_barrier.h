/* ag_barrier.h -- pthread barriers: generations of arrivals and
 * departures, and the misuses Helgrind names (ag_barrier.c). */
#ifndef AG_BARRIER_H
#define AG_BARRIER_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, UInt */

void ag_bar_init(void);
void ag_bar_arrive(ThreadId vgtid, Addr b);
void ag_bar_depart(ThreadId vgtid, Addr b);
/* Before pthread_barrier_init / _destroy run: report their misuses. */
void ag_bar_init_pre(ThreadId vgtid, Addr b, UInt count);
void ag_bar_destroy_pre(ThreadId vgtid, Addr b);
/* pthread_barrier_destroy returned: glibc's waits for the threads at the
   barrier to leave, so the caller is after their arrivals. */
void ag_bar_destroyed(ThreadId vgtid, Addr b);
/* After a successful init (inited) or an init or destroy (not). */
void ag_bar_set_inited(Addr b, Bool inited);
/* Was b initialised or destroyed while threads waited at it?  (Its
   memory is then no longer a place for races: the misuse was reported.) */
Bool ag_bar_misused(Addr b);
/* Memory freed: the barriers in it are gone. */
void ag_bar_forget_range(Addr a, SizeT len);

#endif
