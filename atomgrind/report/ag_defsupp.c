/* ag_defsupp.c -- loads atomgrind.supp, the suppressions every run wants
 * (glibc's stdio internals: see the file), as Helgrind and DRD have theirs
 * in default.supp.  A tool of its own cannot add to default.supp, so the
 * file sits beside it in the directory the launcher names (VALGRIND_LIB:
 * the install directory, or build/.in_place for ./vg-in-place). */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(snprintf) */
#include "pub_tool_libcfile.h"     /* VG_(open), VG_(close) */
#include "pub_tool_vki.h"          /* VKI_O_RDONLY */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_libcproc.h"     /* VG_(libdir) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "ag_defsupp.h"

/* Core-private, not in the tool headers (pub_core_errormgr.h,
   pub_core_options.h), but exported: queue a suppression file for the core
   to read after post_clo_init, and --default-suppressions. */
extern void VG_(add_suppression_file)(const HChar *filename);
extern Bool VG_(clo_default_supp);

#define AG_DS_NAME "atomgrind.supp"

void ag_defsupp_load(void)
{
   static HChar path[4096];
   if (!VG_(clo_default_supp)) return;
   VG_(snprintf)(path, sizeof path, "%s/%s", VG_(libdir), AG_DS_NAME);
   /* the core's loader exits on a file it cannot open: a broken install
      loses only the default suppressions, with a warning */
   SysRes fd = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) {
      if (VG_(clo_verbosity) >= 1)
         VG_(umsg)("atomgrind: warning: default suppressions %s not found "
                   "(races inside glibc's stdio may be reported)\n", path);
      return;
   }
   VG_(close)(sr_Res(fd));
   VG_(add_suppression_file)(path);
}
