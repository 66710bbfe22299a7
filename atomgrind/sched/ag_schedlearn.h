/* ag_schedlearn.h -- the race sites the scheduler learned, kept between
 * runs of one command (--sched-races=): read at start, snapshotted for
 * the exit line's repeat, merged back at exit (ag_schedlearn.c). */
#ifndef AG_SCHEDLEARN_H
#define AG_SCHEDLEARN_H

#include "pub_tool_basics.h"     /* HChar, UInt */
#include "ag_schedpol.h"         /* ag_schedpol: the set lives in the policy */

/* Start: load the sites --sched-races= names (cmd_path: this command's
   record, for auto) into p's set. */
void ag_sl_init(ag_schedpol *p, const HChar *cmd_path);
/* Exit: add p's sites to the command's record (not in a fork child). */
void ag_sl_fini(const ag_schedpol *p);
/* The file that holds the sites this run started with (NULL: none). */
const HChar *ag_sl_snapshot(void);
UInt ag_sl_loaded(void);

#endif
