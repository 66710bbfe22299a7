/* atomgrind-inlines -- the inlined subroutines of an object, named, and
 * where each copy begins.
 *
 *   atomgrind-inlines OBJECT
 *
 * Run by the atomgrind tool (ag_ltonames.c) for an object whose inlined
 * frames Valgrind 3.19 could not name, or that holds an inlined copy of an
 * atomic function: under link-time optimisation GCC keeps an inlined
 * function's name in another compilation unit and refers to it across
 * units (DW_FORM_ref_addr), which Valgrind's reader does not follow; and
 * copies of one call duplicated by the compiler (an unrolled loop) share
 * one DWARF record, told apart only by their entries in the line table,
 * which Valgrind does not give.  elfutils' libdw reads both.  Prints one
 * line per address range of each inlined instance, then, per unit, one
 * per entry of a copy (ADDR: its first instruction):
 *
 *   LO HI DEPTH CALL_LINE NAME[\tLINKAGE]
 *   e ADDR DEPTH CALL_LINE NAME
 *
 * and "end" after the last.  LO and HI (hex, HI excluded) are the
 * object's own (unrelocated) addresses; DEPTH counts the inlined instances
 * around this one in its function (0: inlined straight into the
 * function); CALL_LINE is the line of the inlined call (0 when unknown);
 * NAME is the abstract origin's DW_AT_name, the form Valgrind gives the
 * inlined frames it can name.  LINKAGE, when the function has one, is its
 * mangled name (DW_AT_linkage_name, through the origin and the in-class
 * declaration): the tool demangles it into the name the function has
 * out of line ("bank::Account::withdraw(int)"), which Valgrind does not
 * give inlined frames.  A C++ function of internal linkage has none: its
 * scopes and name then ("(anonymous namespace)::Account::withdraw").
 * The debug information may be in the object or in a separate file
 * (.gnu_debuglink, /usr/lib/debug/.build-id).  Exit status: 0 done,
 * 1 no debug information, 2 usage or unreadable object.
 */
#include <dwarf.h>               /* DW_TAG_*, DW_AT_* */
#include <elfutils/libdw.h>      /* Dwarf_Die, dwarf_child, dwarf_ranges */
#include <elfutils/libdwfl.h>    /* Dwfl: finds separate debug files */
#include <inttypes.h>            /* PRIx64 */
#include <stdio.h>               /* printf */
#include <stdlib.h>              /* realloc, qsort */
#include <string.h>              /* strchr, strrchr, strcmp */

/* one address range of an inlined instance, and where its function is
   declared (an entry of a copy is marked there in the line table) */
typedef struct {
   Dwarf_Addr lo, hi;
   int depth;
   Dwarf_Word line;
   const char *name;
   int decl_line, decl_col;     /* decl_col 0: unknown, no entries */
   const char *decl_file;
} copy_range;

static copy_range *ranges;       /* of the current unit */
static int cxx_unit;             /* the current unit is C++ */
static size_t nranges, cap;
static int max_depth;

static void add_range(const copy_range *r)
{
   if (nranges == cap) {
      cap = cap ? 2 * cap : 256;
      ranges = realloc(ranges, cap * sizeof *ranges);
      if (!ranges) exit(2);
   }
   ranges[nranges++] = *r;
   if (r->depth > max_depth) max_depth = r->depth;
}

/* The declaring DIE of an inlined instance's function: through its
   abstract origin, and the in-class (or in-namespace) declaration that a
   definition's DW_AT_specification names. */
static void declaration(Dwarf_Die *die, Dwarf_Die *decl)
{
   Dwarf_Attribute attr;
   Dwarf_Die next;
   *decl = *die;
   for (int i = 0; i < 16; i++) {
      if (!dwarf_attr(decl, DW_AT_abstract_origin, &attr)
          && !dwarf_attr(decl, DW_AT_specification, &attr))
         return;
      if (!dwarf_formref_die(&attr, &next)) return;
      *decl = next;
   }
}

/* "ns::Class::name" from the scopes around decl, into buf (C++ functions
   of internal linkage have no mangled name: "(anonymous namespace)::f");
   NULL when none is a namespace or a class. */
static const char *scoped_name(Dwarf_Die *decl, const char *name, char *buf, size_t n)
{
   Dwarf_Die *scopes;
   int ns = dwarf_getscopes_die(decl, &scopes), any = 0;
   size_t used = 0;
   buf[0] = 0;
   for (int i = ns - 1; i >= 1; i--) {
      int tag = dwarf_tag(&scopes[i]);
      if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type
          && tag != DW_TAG_union_type)
         continue;
      const char *part = dwarf_diename(&scopes[i]);
      if (!part) part = tag == DW_TAG_namespace ? "(anonymous namespace)" : "{unnamed type}";
      used += snprintf(buf + used, used < n ? n - used : 0, "%s::", part);
      any = 1;
   }
   free(ns > 0 ? scopes : NULL);
   if (!any) return NULL;
   used += snprintf(buf + used, used < n ? n - used : 0, "%s", name);
   return used < n && !strpbrk(buf, "\t\n") ? buf : NULL;
}

/* The full name of an inlined instance's function for the tool: its
   mangled name (DW_AT_linkage_name), or in C++ its scopes and name when
   it has none; NULL for a C function. */
static const char *full_name(Dwarf_Die *die, const char *name, int cxx, char *buf, size_t n)
{
   Dwarf_Attribute attr;
   const char *s = NULL;
   if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr)
       || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
      s = dwarf_formstring(&attr);
   if (s && *s && !strpbrk(s, "\t\n ")) return s;
   if (!cxx) return NULL;
   Dwarf_Die decl;
   declaration(die, &decl);
   return scoped_name(&decl, name, buf, n);
}

/* every address range of one inlined instance */
static void print_ranges(Dwarf_Die *die, int depth)
{
   Dwarf_Attribute attr;
   copy_range r = { .depth = depth };
   r.name = dwarf_diename(die);   /* follows abstract_origin across units */
   if (!r.name || !*r.name || strchr(r.name, '\n')) return;
   if (dwarf_attr(die, DW_AT_call_line, &attr)) dwarf_formudata(&attr, &r.line);
   /* (the origin's, through DW_AT_abstract_origin) */
   if (dwarf_decl_line(die, &r.decl_line) != 0 || dwarf_decl_column(die, &r.decl_col) != 0)
      r.decl_col = 0;
   r.decl_file = dwarf_decl_file(die);
   char buf[1024];
   const char *full = full_name(die, r.name, cxx_unit, buf, sizeof buf);
   Dwarf_Addr base, entry = 0, first = 0;
   int inside = 0;
   if (dwarf_entrypc(die, &entry) != 0) entry = 0;
   ptrdiff_t off = 0;
   while ((off = dwarf_ranges(die, off, &base, &r.lo, &r.hi)) > 0)
      if (r.hi > r.lo) {
         printf("%" PRIx64 " %" PRIx64 " %d %" PRIu64 " %s%s%s\n",
                (uint64_t)r.lo, (uint64_t)r.hi, depth, (uint64_t)r.line, r.name,
                full ? "\t" : "", full ? full : "");
         add_range(&r);
         inside |= entry >= r.lo && entry < r.hi;
         if (r.lo > entry && (first == 0 || r.lo < first)) first = r.lo;
      }
   /* the first copy's entry (DW_AT_entry_pc): its mark may sit on the
      caller's instruction just before the copy's code, which then begins
      there */
   if (entry && !inside && first && first - entry <= 64) entry = first;
   else if (!inside) entry = 0;
   if (entry)
      printf("e %" PRIx64 " %d %" PRIu64 " %s\n", (uint64_t)entry, depth, (uint64_t)r.line,
             r.name);
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

static int by_depth_lo(const void *a, const void *b)
{
   const copy_range *x = a, *y = b;
   if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
   return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* the range of depth holding addr, or NULL */
static const copy_range *range_at(Dwarf_Addr addr, int depth)
{
   size_t lo = 0, hi = nranges;           /* the first range past (depth, addr) */
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      const copy_range *r = &ranges[mid];
      if (r->depth < depth || (r->depth == depth && r->lo <= addr)) lo = mid + 1;
      else hi = mid;
   }
   if (lo == 0) return NULL;
   const copy_range *r = &ranges[lo - 1];
   return r->depth == depth && addr < r->hi ? r : NULL;
}

static const char *base_name(const char *path)
{
   const char *s = path ? strrchr(path, '/') : NULL;
   return s ? s + 1 : path ? path : "";
}

/* Where each copy begins: GCC marks an inlined copy's entry in the line
   table with the position of the function's declaration (its name's line
   and column), and copies the mark with the code when it duplicates a copy
   (an unrolled loop), while the DWARF keeps one DIE for all of them.  An
   entry belongs to the innermost copy around it of the function declared
   there.  Printed as "e ADDR DEPTH CALL_LINE NAME". */
static void print_entries(Dwarf_Die *cu)
{
   Dwarf_Lines *lines;
   size_t nlines;
   if (nranges == 0 || dwarf_getsrclines(cu, &lines, &nlines) != 0) return;
   qsort(ranges, nranges, sizeof *ranges, by_depth_lo);
   Dwarf_Addr last = 0;
   int last_depth = -1;
   for (size_t i = 0; i < nlines; i++) {
      Dwarf_Line *l = dwarf_onesrcline(lines, i);
      Dwarf_Addr addr;
      int line, col;
      if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0
          || dwarf_linecol(l, &col) != 0 || col <= 0)
         continue;
      for (int d = max_depth; d >= 0; d--) {
         const copy_range *r = range_at(addr, d);
         if (!r || r->decl_col != col || r->decl_line != line) continue;
         if (strcmp(base_name(dwarf_linesrc(l, NULL, NULL)), base_name(r->decl_file)) != 0)
            continue;
         if (addr != last || d != last_depth)   /* once per address */
            printf("e %" PRIx64 " %d %" PRIu64 " %s\n", (uint64_t)addr, d,
                   (uint64_t)r->line, r->name);
         last = addr;
         last_depth = d;
         break;
      }
   }
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
      nranges = 0;
      max_depth = 0;
      if (dwarf_offdie(dw, off + hsize, &cu)) {
         int lang = dwarf_srclang(&cu);
         cxx_unit = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03
                    || lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
         walk(&cu, 0);
         print_entries(&cu);
      }
      off = next;
   }
   dwfl_end(dwfl);
   printf("end\n");                        /* the reader knows the list is whole */
   return fflush(stdout) == 0 ? 0 : 2;
}
