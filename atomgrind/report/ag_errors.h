/* ag_errors.h -- atomgrind's errors through Valgrind's error manager
 * (ag_errors.c). */
#ifndef AG_ERRORS_H
#define AG_ERRORS_H

#include "pub_tool_basics.h"     /* ThreadId, HChar, PRINTF_CHECK */
#include "ag_engine.h"           /* ag_violation */

void ag_errors_init(void);
/* vgtid: the Valgrind thread of the event that was reported. */
void ag_error_violation(ThreadId vgtid, const ag_violation *v);
void ag_error_misuse(ThreadId vgtid, const HChar *fmt, ...) PRINTF_CHECK(2, 3);

#endif
