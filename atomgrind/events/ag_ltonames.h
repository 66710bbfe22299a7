/* ag_ltonames.h -- what Valgrind 3.19's DWARF reader does not give about
 * inlined copies: the names of the frames it calls "UnknownInlinedFun"
 * (under link-time optimisation the name is in another compilation unit,
 * which it does not follow), and where each copy begins.  The
 * atomgrind-inlines helper (installed beside the tool, built with elfutils)
 * reads them, once per object that has such a frame or an inlined copy of
 * an atomic function (ag_ltonames.c). */
#ifndef AG_LTONAMES_H
#define AG_LTONAMES_H

#include "pub_tool_basics.h"     /* Addr, Int, HChar, Bool */

#define AG_LTO_UNKNOWN "UnknownInlinedFun"   /* Valgrind's name for them */

/* The name of the inlined instance at ip that has depth instances around
   it in its function (0: inlined straight into it) and was called from
   line call_line (0: do not check), or NULL when not known. */
const HChar *ag_lto_name(Addr ip, Int depth, Int call_line);

/* The full name of the function of the inlined instance at ip (depth and
   call_line as for ag_lto_name) whose bare name is name, as it is named
   out of line ("bank::Account::withdraw(int)": its mangled name,
   demangled; for C++ of internal linkage, which has none, its scopes and
   name: "(anonymous namespace)::f"), or NULL when it has neither (C) or
   it is not known.  Valgrind
   gives inlined frames the bare name only. */
const HChar *ag_lto_full_name(Addr ip, Int depth, Int call_line, const HChar *name);

/* A mangled name as Valgrind shows functions (demangled unless
   --demangle=no), in a buffer the next call reuses. */
const HChar *ag_lto_demangle(const HChar *mangled);

/* Is ip where a copy of the inlined function name at depth (as for
   ag_lto_name) begins?  1 yes, 0 no, -1 not known (the object's copies
   could not be read).  A loop the compiler unrolled repeats the copy of
   one call, under one DWARF record: only these entries tell the copies
   apart. */
Int ag_lto_entry(Addr ip, Int depth, Int call_line, const HChar *name);

/* Was the object at ip built by Clang?  Valgrind 3.19 reads none of the
   inline records of Clang's DWARF 5, so its inlined frames come from the
   helper (ag_lto_frames).  Read from the ELF file's .comment, once. */
Bool ag_lto_blind(Addr ip);

/* Was the object at ip built by GCC alone (its .comment names no other
   producer)?  GCC compiles no atomic operation to an instruction that
   reads and writes memory without a LOCK prefix; Clang does (an atomic
   load, an add and an atomic store fused into one add).  False when not
   known. */
Bool ag_lto_gcc_only(Addr ip);

/* The inlined frames at ip as the helper reads them, innermost first,
   at most max: names[i] and the line lines[i] it was called from (0 when
   unknown).  Returns how many (0: none, or not known). */
Int ag_lto_frames(Addr ip, const HChar **names, Int *lines, Int max);

/* Why some object's names could not be read ("" when none failed): a
   clause for the exit's explanation, valid for the run. */
const HChar *ag_lto_failure(void);

void ag_lto_fini(void);          /* --stats */

#endif
