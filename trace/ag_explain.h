/* ag_explain.h -- the cycle behind one report of a trace, computed
 * offline (atomgrind-trace --explain=N) and drawn as text, DOT, SVG or
 * HTML. */
#ifndef AG_EXPLAIN_H
#define AG_EXPLAIN_H

#include <stdio.h>
#include <stdlib.h>
#include "ag_replay.h"

typedef struct ag_explain ag_explain;

enum { AG_EXPLAIN_TEXT, AG_EXPLAIN_DOT, AG_EXPLAIN_SVG, AG_EXPLAIN_HTML };

/* Keeps the last `window` events (0: 4096) to look for the cycle in. */
ag_explain *ag_explain_new(uint32_t window);
void ag_explain_delete(ag_explain *x);
/* Give it every event (opts.on_event) ... */
void ag_explain_event(ag_explain *x, const ag_replay_event *ev);
/* ... and, at the report, draw its cycle to f.  Returns 0, or -1 if no
   cycle through the reporting transaction was found in the window (a
   message says so). */
int ag_explain_report(ag_explain *x, ag_replay *rp, const ag_violation *v, int format, FILE *f);

#endif
