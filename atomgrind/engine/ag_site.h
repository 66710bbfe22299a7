/* ag_site.h -- what a "site" is: the one 64-bit encoding of where an
 * event happened, and the only code that builds one or takes one apart.
 *
 * Engines keep sites with the events they remember and hand them back in
 * reports (ag_violation's *_site fields) without looking inside; a front
 * end builds them (the tool: ag_analysis.c, ag_locksets.c, ag_dcl.c,
 * ag_record.c) and reads them (ag_errors.c).  Layout:
 *
 *    63 ............ 48 | 47 | 46 ........................ 0
 *    lock-set id        | S  | payload
 *
 *  - S = 0: the payload is an address -- a code address (an access's
 *    instruction; a recorded trace's site), or, in the fields that hold a
 *    region's begin and a lock operation (begin_site, other_begin_site,
 *    lock_acq/rel_site, own_rel_site, the sync sites of acquire and
 *    release), a front end's stack handle (the tool: an ExeContext *).
 *    Both lie below 2^47 on amd64 (user space, and Valgrind's own heap),
 *    so S is free.  Which of the two a field holds is fixed by the field:
 *    no bit tells them apart, so that a site keeps the value the engines
 *    hash and the recorded traces carry.
 *  - S = 1: the payload is a stack id (the tool: an ExeContext's unique
 *    number, ECU), an access's whole stack (--history-level=full, race
 *    engine only).
 *  - lock-set id: the race engine's access sites only, the set of locks
 *    the thread held (ag_locksets.c; 0 the empty set).  The engine keeps
 *    a site per remembered access, so the earlier access of a race
 *    carries its own locks at no cost per location.
 *
 * 0 is no site.  A RAPID text trace's LOC numbers are that trace's own
 * sites (any 64 bits, negative ones too): atomgrind-trace only prints
 * them and never decodes them. */
#ifndef AG_SITE_H
#define AG_SITE_H

#include <stdint.h>                /* uint64_t, uintptr_t */

typedef uint64_t ag_site;

#define AG_SITE_NONE        ((ag_site)0)
#define AG_SITE_ADDR_BITS   47
#define AG_SITE_ADDR_MASK   ((UINT64_C(1) << AG_SITE_ADDR_BITS) - 1)
#define AG_SITE_STACK_BIT   47
#define AG_SITE_STACK       (UINT64_C(1) << AG_SITE_STACK_BIT)
#define AG_SITE_LS_SHIFT    48
#define AG_SITE_LS_BITS     16
#define AG_SITE_LS_UNKNOWN  0xffffu   /* the lock set is not known */

_Static_assert(sizeof(ag_site) == 8, "a site is 64 bits");
_Static_assert(AG_SITE_STACK_BIT == AG_SITE_ADDR_BITS, "S sits right above the payload");
_Static_assert(AG_SITE_STACK_BIT < AG_SITE_LS_SHIFT, "S lies below the lock set");
_Static_assert(AG_SITE_LS_SHIFT + AG_SITE_LS_BITS == 64, "the lock set fills the top");
_Static_assert(sizeof(void *) <= sizeof(ag_site), "a handle fits");
_Static_assert(AG_SITE_LS_UNKNOWN == (1u << AG_SITE_LS_BITS) - 1, "unknown is the last id");

/* ---- building ----------------------------------------------------------- */

/* Does an address fit a site's payload? (a front end checks its handles
   and code addresses once, where it can say what went wrong) */
static inline int ag_site_fits(uint64_t a) { return (a & ~AG_SITE_ADDR_MASK) == 0; }

static inline ag_site ag_site_code(uint64_t ip) { return (ag_site)ip; }
static inline ag_site ag_site_handle(const void *h) { return (ag_site)(uintptr_t)h; }
static inline ag_site ag_site_stack(uint32_t id) { return AG_SITE_STACK | id; }

/* The bits that give a site lock set id: kept precomputed per thread, so
   the access path adds them with one OR (ag_site_with_locks). */
static inline ag_site ag_site_locks(uint32_t id) { return (ag_site)id << AG_SITE_LS_SHIFT; }
static inline ag_site ag_site_with_locks(ag_site s, ag_site locks) { return s | locks; }

/* ---- taking apart -------------------------------------------------------- */

static inline int ag_site_is_stack(ag_site s) { return (s & AG_SITE_STACK) != 0; }

/* The lock set id (0 when the site carries none). */
static inline uint32_t ag_site_lockset(ag_site s) { return (uint32_t)(s >> AG_SITE_LS_SHIFT); }

/* The code address of a site that is not a stack, else 0. */
static inline uint64_t ag_site_code_of(ag_site s)
{
   return ag_site_is_stack(s) ? 0 : s & AG_SITE_ADDR_MASK;
}

/* The stack id of a stack site, else 0. */
static inline uint32_t ag_site_stack_of(ag_site s)
{
   return ag_site_is_stack(s) ? (uint32_t)(s & AG_SITE_ADDR_MASK) : 0;
}

/* The handle of a begin or lock site; NULL for a site with a tag or a
   lock set, which no handle has (so a stack id or an access site is
   never taken for a pointer). */
static inline const void *ag_site_handle_of(ag_site s)
{
   return ag_site_fits(s) ? (const void *)(uintptr_t)s : 0;
}

#endif
