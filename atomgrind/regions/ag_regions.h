/* ag_regions.h -- the one owner of atomic regions: source markers, calls
 * of atomic functions, their inlined instances, and the frames that end
 * them (return, longjmp, exception, thread exit) all open and close
 * regions here, and only here are the analysis and the scheduler told
 * (ag_regions.c). */
#ifndef AG_REGIONS_H
#define AG_REGIONS_H

#include "pub_tool_basics.h"     /* ThreadId, Addr, Bool */

void ag_regions_init(Bool track_frames);
void ag_regions_fini(void);             /* -v: what opened */
/* Frames on all stacks: generated code reads it before testing SP's rises. */
extern UInt ag_rg_open_frames;

/* ATOMGRIND_ATOMIC_BEGIN / END (a client request: the thread may wait). */
void ag_rg_marker_begin(ThreadId vgtid);
void ag_rg_marker_end(ThreadId vgtid);
/* The first instruction of atomic function fn, SP at its return address. */
void ag_rg_fn_enter(ThreadId vgtid, Int fn, Addr sp);
/* The running thread's SP rose from old_sp to new_sp: frames end. */
void ag_rg_sp_rise(ThreadId vgtid, Addr old_sp, Addr new_sp);
/* Its code moves into inline chain `chain` (ag_instances.h) other than by a
   call or a return: instances it leaves close, those it enters open.
   block_start: at a superblock's start (else between two instructions of
   one block, where the caller's own code may be scheduled in between);
   ip: the instruction's address. */
void ag_rg_inline_switch(ThreadId vgtid, UInt chain, Bool block_start, Addr ip);
/* An access of the running thread while it is ignored (ag_instrument.c):
   kept, if it is in a gap between the instructions of an inlined instance. */
void ag_rg_gap_access(Addr a, UWord szfl, Addr ip);
/* Code of an inline chain calls out; slot: SP, at the return address.  The
   instances stay open until the callee returns. */
void ag_rg_inline_call(ThreadId vgtid, Addr slot);
/* A thread ends: its function and inline regions close; then, as a debug
   check, the depths of the regions, the engines and the scheduler agree. */
void ag_rg_thread_exit(ThreadId vgtid);
UInt ag_rg_depth(ThreadId vgtid);

#endif
