/* ag_objects.c -- which loaded objects are atomgrind's own, Valgrind's
 * preloads or the dynamic linker: their code is not the program. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"  /* VG_(next_DebugInfo), file and soname */
#include "pub_tool_libcbase.h"   /* VG_(strncmp), VG_(strcmp) */
#include "ag_objects.h"

/* Is di a Valgrind preload object whose file name starts with `prefix`?
   (They have no soname.) */
static Bool ag_is_preload(const DebugInfo *di, const HChar *prefix)
{
   const HChar *f = VG_(DebugInfo_get_filename)(di);
   if (!f) return False;
   const HChar *base = VG_(strrchr)(f, '/');
   return VG_(strncmp)(base ? base + 1 : f, prefix, VG_(strlen)(prefix)) == 0;
}

/* Is vgpreload_atomgrind mapped?  Not in a statically linked program,
   where nothing can wrap pthread functions or replace malloc. */
Bool ag_preload_present(void)
{
   for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di))
      if (ag_is_preload(di, "vgpreload_atomgrind")) return True;
   return False;
}

/* Is the code at a our preload's string functions (ag_strmem.c)?  They
   stand for libc's, and are checked as libc's code. */
static Bool ag_is_strmem(DebugInfo *di, Addr a)
{
   const HChar *file;
   return ag_is_preload(di, "vgpreload_atomgrind")
          && VG_(get_filename)(VG_(current_DiEpoch)(), a, &file)
          && VG_(strcmp)(file, "ag_strmem.c") == 0;
}

static Bool ag_is_ldso(DebugInfo *di)
{
   const HChar *so = VG_(DebugInfo_get_soname)(di);
   return so && VG_(strncmp)(so, "ld-linux", 8) == 0;
}

/* Code of the dynamic linker and of Valgrind's preload objects is not the
   program: its accesses (GOT updates, our own wrappers) are not checked. */
Bool ag_object_skipped(Addr a)
{
   DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (!di) return False;
   if (ag_is_preload(di, "vgpreload_")) return !ag_is_strmem(di, a);
   return ag_is_ldso(di);
}

/* Code of the C runtime (libc, libpthread, libm, libgcc_s, and the string
   functions standing for libc's): correct, and its races are by design (a
   thread's start, stdio's locks), so its accesses are no scheduling points
   (ag_shared.c); the program's are. */
static Bool ag_is_system(DebugInfo *di, Addr a)
{
   static const HChar *const names[] = { "libc.so", "libpthread.so", "libm.so", "libgcc_s.so" };
   const HChar *so = di ? VG_(DebugInfo_get_soname)(di) : NULL;
   if (!so) return di && ag_is_strmem(di, a);
   for (UInt i = 0; i < sizeof names / sizeof names[0]; i++)
      if (VG_(strncmp)(so, names[i], VG_(strlen)(names[i])) == 0) return True;
   return False;
}

Bool ag_object_system(Addr a)
{
   return ag_is_system(VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a), a);
}

Bool ag_object_runtime(Addr a)
{
   DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   return ag_is_system(di, a) || (di && ag_is_ldso(di));
}

/* Is the code at a a memory-block function (memcpy, memmove, mempcpy,
   memset, and glibc's variants of them: __memcpy_avx_unaligned_erms, ...)?
   A loop over a block with no call and no synchronisation in it. */
Bool ag_object_block_fn(Addr a)
{
   static const HChar *const names[] = { "memcpy", "memmove", "mempcpy", "memset" };
   const HChar *fn;
   if (!VG_(get_fnname)(VG_(current_DiEpoch)(), a, &fn)) return False;
   while (*fn == '_') fn++;
   if (VG_(strncmp)(fn, "GI_", 3) == 0) fn += 3;
   for (UInt i = 0; i < sizeof names / sizeof names[0]; i++) {
      SizeT n = VG_(strlen)(names[i]);
      if (VG_(strncmp)(fn, names[i], n) == 0 && (fn[n] == 0 || fn[n] == '_')) return True;
   }
   return False;
}
