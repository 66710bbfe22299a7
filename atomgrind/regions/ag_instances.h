/* ag_instances.h -- inlined instances of atomic functions: which matched
 * instances the code at an address belongs to, as a small chain id made at
 * translation time and read back when regions open and close (ag_instances.c). */
#ifndef AG_INSTANCES_H
#define AG_INSTANCES_H

#include "pub_tool_basics.h"     /* Addr, UInt, Int, Bool */
#include "ag_inline.h"           /* AG_INLINE_MAX */

typedef struct {
   UInt n;                       /* matched instances, outermost first */
   UInt id[AG_INLINE_MAX];       /* each one's identity (its name and call sites) */
   Int fn[AG_INLINE_MAX];        /* its function (ag_fnspec) */
   UInt starts;                  /* bit i: instance i begins anew here (a copy's entry) */
   UInt plain;                   /* the same chain with no bit of starts set */
} ag_inst_chain;

void ag_instances_init(Bool on);     /* on: some function may be atomic */
Bool ag_instances_on(void);
/* At translation time: the chain of matched inlined instances at ip (0: none). */
UInt ag_inst_at(Addr ip);
const ag_inst_chain *ag_inst_chain_of(UInt chain);   /* 0: the empty chain */
/* Is the code at chain b the same instances as at chain a, none begun
   anew?  entered: which of a's instances have passed their copy's entry
   (an entry reached before that is the copy's own, not the next one's). */
Bool ag_inst_continues(UInt a, UInt b, UInt entered);
void ag_instances_fini(void);        /* --stats */

#endif
