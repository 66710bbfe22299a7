/* ag_clientreq.h -- the tool's handler of client requests: the public
 * region markers and the preload library's reports (ag_clientreq.c). */
#ifndef AG_CLIENTREQ_H
#define AG_CLIENTREQ_H

#include "pub_tool_basics.h"     /* ThreadId, UWord, Bool */

Bool ag_handle_client_request(ThreadId vgtid, UWord *args, UWord *ret);

#endif
