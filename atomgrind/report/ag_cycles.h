/* ag_cycles.h -- the cycle behind each atomicity report, drawn by the tool
 * from a ring of the last events (ag_cycles.c): --explain-dir=DIR, -v,
 * --xml=yes. */
#ifndef AG_CYCLES_H
#define AG_CYCLES_H

#include "pub_tool_basics.h"     /* Bool, Addr, ULong, UInt */
#include "ag_engine.h"           /* ag_tid, ag_violation */
#include "ag_explain_core.h"     /* AG_XE_*, ag_xp_cycle */

/* The ring is fed: one of the outputs above was asked for. */
extern Bool ag_cyc_on;

void ag_cycles_init(void);
/* What feeds the ring, when ag_cyc_on: an observer of the atomicity
   engine (ag_analysis.c registers it), told each event as the engine
   numbers it and each thread's exit. */
extern const ag_observer ag_cyc_observer;
/* The cycle of a report made just now, or NULL if it is not in the ring. */
ag_xp_cycle *ag_cyc_find(const ag_violation *v);
/* The end of a report: where its picture was written (the first time:
   *no is 0, and becomes its number), the text picture with -v, the
   <cycle> element in XML; for c NULL a line saying it was not found. */
void ag_cyc_pp(const ag_xp_cycle *c, UInt *no, Bool xml);

#endif
