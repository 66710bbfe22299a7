/* ag_stacks.h -- reports' stacks, printed as Valgrind prints them but with
 * the inlined frames it could not name (-flto) named (ag_stacks.c). */
#ifndef AG_STACKS_H
#define AG_STACKS_H

#include "pub_tool_basics.h"     /* (for pub_tool_execontext.h) */
#include "pub_tool_execontext.h" /* ExeContext */

/* VG_(pp_ExeContext)(ec), text or XML; a frame Valgrind calls
   UnknownInlinedFun is printed with its function's name when
   atomgrind-inlines can read it. */
void ag_stacks_pp(ExeContext *ec);
/* The code address ec starts at (0 for none): reports compare where
   they were made by it. */
Addr ag_stacks_top(ExeContext *ec);
/* Where thread vgtid is now, in the program: the first frame outside
   atomgrind's preload library (its pthread wrappers). */
Addr ag_stacks_program_ip(ThreadId vgtid);

#endif
