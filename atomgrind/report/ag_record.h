/* ag_record.h -- --record-trace=FILE: the events the engines are given,
 * written for atomgrind-trace (ag_record.c).  Each call does nothing when
 * no trace is recorded. */
#ifndef AG_RECORD_H
#define AG_RECORD_H

#include "pub_tool_basics.h"     /* Addr, SizeT, Bool, UInt */
#include "ag_engine.h"           /* ag_tid */

void ag_record_init(void);
void ag_record_fini(void);
void ag_rec_thread(ag_tid t);
void ag_rec_exit(ag_tid t);
void ag_rec_begin(ag_tid t, Addr ip);
void ag_rec_end(ag_tid t, Addr ip);
void ag_rec_fork(ag_tid parent, ag_tid child);
void ag_rec_join(ag_tid joiner, ag_tid child);
void ag_rec_forget(Addr a, SizeT len);
void ag_rec_acquire(ag_tid t, Addr lock, Bool shared);
void ag_rec_release(ag_tid t, Addr lock, Bool shared);
void ag_rec_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip);

#endif
