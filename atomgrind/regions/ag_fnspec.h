/* ag_fnspec.h -- which functions are atomic: the patterns of --atomic-fns
 * and --atomic-spec, the functions they matched, and --infer-spec's
 * refinement of them (ag_fnspec.c). */
#ifndef AG_FNSPEC_H
#define AG_FNSPEC_H

#include "pub_tool_basics.h"     /* Addr, Bool, HChar, ULong */

#define AG_NO_FN (-1)

void ag_fnspec_init(void);              /* reads the options; bad input exits */
Bool ag_fnspec_given(void);             /* some function may be atomic */
/* At translation time: the function whose first instruction is at a, if
   its calls are atomic regions; else AG_NO_FN. */
Int  ag_fnspec_match(Addr a);
/* The same for a function by its name (an inlined instance of it), whose
   code is at a. */
Int  ag_fnspec_match_name(const HChar *name, Addr a);
/* Could a pattern name a function whose last name (as Valgrind names an
   inlined frame: "withdraw" of "bank::Account::withdraw(int)") is last,
   with code at a?  Then its full name is worth reading. */
Bool ag_fnspec_may_name(const HChar *last, Addr a);
Bool ag_fnspec_atomic(Int fn);          /* not dropped by --infer-spec */
Bool ag_fnspec_explicit(Int fn);        /* named by a pattern of its own name */
const HChar *ag_fnspec_name(Int fn);
void ag_fnspec_entered(Int fn, ULong site);  /* a call of fn opened a region (at site; 0: nested) */
void ag_fnspec_start_routine(Int fn);   /* fn was seen as a thread's start routine */
/* Code ran inlined from a function the debug info names in another unit
   (-flto), which Valgrind 3.19 does not read, and atomgrind-inlines could
   not name it either (ag_ltonames.h): the exit says so, and why. */
void ag_fnspec_unnamed_inline(void);
/* The function whose call opened the region that began at site, or AG_NO_FN
   (a region from source markers). */
Int  ag_fnspec_of_site(ULong site);
/* --infer-spec: fn stops being atomic; why says which report did it.
   False if it was not atomic any more (or inference is off). */
Bool ag_fnspec_drop(Int fn, const HChar *why);
Bool ag_fnspec_inferring(void);
void ag_fnspec_fini(void);              /* writes --infer-spec's file */

#endif
