/* ag_elf.h -- sections of an object's ELF file, read with the tool's own
 * file calls (the core gives tools no section contents): the debug
 * information's types (ag_atomictypes.c), the producers in .comment
 * (ag_ltonames.c). */
#ifndef AG_ELF_H
#define AG_ELF_H

#include "pub_tool_basics.h"     /* Int, ULong, UChar, HChar, Bool */

/* The named section of a 64-bit ELF file, read into memory (VG_(free) it),
   with its length in *len; NULL when missing, compressed or over max
   bytes. */
UChar *ag_elf_section(Int fd, const HChar *name, ULong *len, ULong max);

#endif
