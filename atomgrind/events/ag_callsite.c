/* ag_callsite.c -- see ag_callsite.h.  A few frames of unwinding and an
 * object-name lookup each: paid per system call or pthread call, never
 * per memory access. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* VG_(get_objname), VG_(get_fnname) */
#include "pub_tool_libcbase.h"     /* VG_(strstr), VG_(strcmp) */
#include "pub_tool_stacktrace.h"   /* VG_(get_StackTrace) */
#include "ag_callsite.h"

#define AG_CS_FRAMES 8

static Bool ag_cs_library(const HChar *obj)
{
   return VG_(strstr)(obj, "/libc.so") || VG_(strstr)(obj, "/ld-linux")
          || VG_(strstr)(obj, "/libpthread") || VG_(strstr)(obj, "/vgpreload_");
}

Addr ag_callsite_within(ThreadId vgtid, UInt frames)
{
   Addr ips[AG_CS_FRAMES];
   if (frames > AG_CS_FRAMES) frames = AG_CS_FRAMES;
   UInt n = VG_(get_StackTrace)(vgtid, ips, frames, NULL, NULL, 0);
   DiEpoch ep = VG_(current_DiEpoch)();
   for (UInt i = 0; i < n; i++) {
      const HChar *obj;
      if (!VG_(get_objname)(ep, ips[i], &obj) || !ag_cs_library(obj)) return ips[i];
   }
   return n > 0 ? ips[0] : 0;
}

Addr ag_callsite(ThreadId vgtid) { return ag_callsite_within(vgtid, AG_CS_FRAMES); }

Addr ag_callsite_sp(ThreadId vgtid)
{
   Addr ips[AG_CS_FRAMES], sps[AG_CS_FRAMES];
   UInt n = VG_(get_StackTrace)(vgtid, ips, AG_CS_FRAMES, sps, NULL, 0);
   DiEpoch ep = VG_(current_DiEpoch)();
   for (UInt i = 0; i < n; i++) {
      const HChar *obj;
      if (!VG_(get_objname)(ep, ips[i], &obj) || !ag_cs_library(obj)) return sps[i];
   }
   return 0;
}

Bool ag_callsite_under(ThreadId vgtid, const HChar *name)
{
   Addr ips[16];
   UInt n = VG_(get_StackTrace)(vgtid, ips, 16, NULL, NULL, 0);
   DiEpoch ep = VG_(current_DiEpoch)();
   for (UInt i = 0; i < n; i++) {
      const HChar *fn;
      if (VG_(get_fnname)(ep, ips[i], &fn) && VG_(strcmp)(fn, name) == 0) return True;
   }
   return False;
}
