/* atomgrind-inlines -- the inlined subroutines of an object, named.
 *
 *   atomgrind-inlines OBJECT
 *
 * Run by the atomgrind tool (ag_ltonames.c) for an object whose inlined
 * frames Valgrind 3.19 could not name: under link-time optimisation GCC
 * keeps an inlined function's name in another compilation unit and refers
 * to it across units (DW_FORM_ref_addr), which Valgrind's reader does not
 * follow.  elfutils' libdw does.  Prints one line per address range of
 * each inlined instance:
 *
 *   LO HI DEPTH CALL_LINE NAME
 *
 * and "end" after the last.  LO and HI (hex, HI excluded) are the
 * object's own (unrelocated) addresses; DEPTH counts the inlined instances
 * around this one in its function (0: inlined straight into the
 * function); CALL_LINE is the line of the inlined call (0 when unknown);
 * NAME is the abstract origin's DW_AT_name, the form Valgrind gives the
 * inlined frames it can name.
 * The debug information may be in the object or in a separate file
 * (.gnu_debuglink, /usr/lib/debug/.build-id).  Exit status: 0 done,
 * 1 no debug information, 2 usage or unreadable object.
 */
#include <dwarf.h>               /* DW_TAG_*, DW_AT_* */
#include <elfutils/libdw.h>      /* Dwarf_Die, dwarf_child, dwarf_ranges */
#include <elfutils/libdwfl.h>    /* Dwfl: finds separate debug files */
#include <inttypes.h>            /* PRIx64 */
#include <stdio.h>               /* printf */
#include <string.h>              /* strchr */

/* every address range of one inlined instance */
static void print_ranges(Dwarf_Die *die, int depth)
{
   Dwarf_Attribute attr;
   Dwarf_Word line = 0;
   const char *name = dwarf_diename(die);   /* follows abstract_origin across units */
   if (!name || !*name || strchr(name, '\n')) return;
   if (dwarf_attr(die, DW_AT_call_line, &attr)) dwarf_formudata(&attr, &line);
   Dwarf_Addr base, lo, hi;
   ptrdiff_t off = 0;
   while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
      if (hi > lo)
         printf("%" PRIx64 " %" PRIx64 " %d %" PRIu64 " %s\n",
                (uint64_t)lo, (uint64_t)hi, depth, (uint64_t)line, name);
}

/* the inlined instances under die, depth of them around it */
static void walk(Dwarf_Die *die, int depth)
{
   Dwarf_Die child;
   if (dwarf_child(die, &child) != 0) return;
   do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_inlined_subroutine) {
         print_ranges(&child, depth);
         walk(&child, depth + 1);
      } else if (tag == DW_TAG_subprogram) {
         walk(&child, 0);            /* a nested function starts again */
      } else {
         walk(&child, depth);        /* lexical blocks, namespaces, classes */
      }
   } while (dwarf_siblingof(&child, &child) == 0);
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
   .find_elf = dwfl_build_id_find_elf,
   .find_debuginfo = dwfl_standard_find_debuginfo,
   .debuginfo_path = &debuginfo_path,
};

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: atomgrind-inlines OBJECT\n");
      return 2;
   }
   Dwfl *dwfl = dwfl_begin(&callbacks);
   if (!dwfl) return 2;
   Dwfl_Module *mod = dwfl_report_offline(dwfl, argv[1], argv[1], -1);
   dwfl_report_end(dwfl, NULL, NULL);
   if (!mod) {
      fprintf(stderr, "atomgrind-inlines: %s: %s\n", argv[1], dwfl_errmsg(-1));
      dwfl_end(dwfl);
      return 2;
   }
   /* the ranges are printed as the DWARF gives them (the object's own
      addresses, also in a separate debug file), not where dwfl placed it */
   Dwarf_Addr bias;
   Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
   if (!dw) {
      fprintf(stderr, "atomgrind-inlines: %s: no debug information\n", argv[1]);
      dwfl_end(dwfl);
      return 1;
   }
   Dwarf_Off off = 0, next;
   size_t hsize;
   while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dw, off + hsize, &cu)) walk(&cu, 0);
      off = next;
   }
   dwfl_end(dwfl);
   printf("end\n");                        /* the reader knows the list is whole */
   return fflush(stdout) == 0 ? 0 : 2;
}
