/* ag_stacks.c -- see ag_stacks.h.  A stack with no unnamed inlined frame
 * is printed by Valgrind itself; one with such a frame by a copy of its
 * printer (m_stacktrace.c's: "   at"/"   by" lines, XML <frame>s) in which
 * the frame's name is substituted.  Suppressions and --gen-suppressions
 * still see Valgrind's names (the core matches them, not the tool). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* VG_(new_IIPC), VG_(describe_IP) */
#include "pub_tool_execontext.h"   /* VG_(apply_ExeContext), VG_(pp_ExeContext) */
#include "pub_tool_libcbase.h"     /* VG_(strstr), VG_(strlen), VG_(memmove) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(printf_xml), VG_(snprintf) */
#include "pub_tool_machine.h"      /* VG_(get_IP) */
#include "pub_tool_stacktrace.h"   /* VG_(get_StackTrace): the program's frame */
#include "pub_tool_options.h"      /* VG_(clo_xml) */
#include "ag_stacks.h"
#include "ag_inline.h"             /* the frames at an address, named */
#include "ag_ltonames.h"           /* AG_LTO_UNKNOWN */

/* the name as describe_IP puts it, in text and in XML */
#define AG_SK_TEXT ": " AG_LTO_UNKNOWN " "
#define AG_SK_XML "<fn>" AG_LTO_UNKNOWN "</fn>"

static void ag_sk_any(UInt n, DiEpoch ep, Addr ip, void *found)
{
   (void)n;
   InlIPCursor *iipc = VG_(new_IIPC)(ep, ip);
   do {
      const HChar *line = VG_(describe_IP)(ep, ip, iipc);
      if (VG_(strstr)(line, AG_SK_TEXT) || VG_(strstr)(line, AG_SK_XML)) *(Bool *)found = True;
   } while (!*(Bool *)found && VG_(next_IIPC)(iipc));
   VG_(delete_IIPC)(iipc);
}

/* One line of the stack, with name in place of Valgrind's (NULL: as is). */
static void ag_sk_line(UInt n, const HChar *line, const HChar *name)
{
   static HChar buf[4096];
   const HChar *at = NULL, *mark = VG_(clo_xml) ? AG_SK_XML : AG_SK_TEXT;
   /* XML needs the name escaped: C++ names with '<' or '&' stay as they are */
   if (name && !(VG_(clo_xml) && (VG_(strchr)(name, '<') || VG_(strchr)(name, '&'))))
      at = VG_(strstr)(line, mark);
   if (at) {   /* (Valgrind's printf has no "%.*s") */
      Int pre = at - line;
      VG_(snprintf)(buf, sizeof buf, VG_(clo_xml) ? "%s<fn>%s</fn>%s" : "%s: %s %s", "",
                    name, at + VG_(strlen)(mark));
      if (pre + VG_(strlen)(buf) + 1 < sizeof buf) {
         VG_(memmove)(buf + pre, buf, VG_(strlen)(buf) + 1);
         VG_(memcpy)(buf, line, pre);
         line = buf;
      }
   }
   if (VG_(clo_xml)) VG_(printf_xml)("    %s\n", line);
   else VG_(umsg)("   %s %s\n", n == 0 ? "at" : "by", line);
}

static void ag_sk_frame(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
   (void)opaque;
   const HChar *names[AG_INLINE_MAX];
   Int nn = ag_inline_frames(ip, names, NULL, AG_INLINE_MAX), k = 0, lines = 0;
   InlIPCursor *iipc = VG_(new_IIPC)(ep, ip);
   do lines++; while (VG_(next_IIPC)(iipc));
   VG_(delete_IIPC)(iipc);
   iipc = VG_(new_IIPC)(ep, ip);
   do {
      const HChar *line = VG_(describe_IP)(ep, ip, iipc);
      /* the names line up with the lines only when every line has one */
      const HChar *name = nn == lines && VG_(strcmp)(names[k], AG_LTO_UNKNOWN) != 0
                          ? names[k] : NULL;
      ag_sk_line(n, line, name);
      n++;
      k++;
   } while (VG_(next_IIPC)(iipc));
   VG_(delete_IIPC)(iipc);
}

void ag_stacks_pp(ExeContext *ec)
{
   Bool found = False;
   VG_(apply_ExeContext)(ag_sk_any, &found, ec);
   if (!found) {
      VG_(pp_ExeContext)(ec);
      return;
   }
   if (VG_(clo_xml)) VG_(printf_xml)("  <stack>\n");
   VG_(apply_ExeContext)(ag_sk_frame, NULL, ec);
   if (VG_(clo_xml)) VG_(printf_xml)("  </stack>\n");
}

static void ag_stacks_first_ip(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
   (void)ep;
   if (n == 0) *(Addr *)opaque = ip;
}

Addr ag_stacks_top(ExeContext *ec)
{
   Addr ip = 0;
   if (ec) VG_(apply_ExeContext)(ag_stacks_first_ip, &ip, ec);
   return ip;
}

/* Where thread vgtid is now, in the program: the first frame outside
   atomgrind's preload library (a lock event is seen inside its
   pthread wrapper; the program's call of it is what explains the drop). */
Addr ag_stacks_program_ip(ThreadId vgtid)
{
   Addr ips[8];
   const HChar *obj;
   UInt n = VG_(get_StackTrace)(vgtid, ips, 8, NULL, NULL, 0);
   for (UInt i = 0; i < n; i++)
      if (!VG_(get_objname)(VG_(current_DiEpoch)(), ips[i], &obj)
          || !VG_(strstr)(obj, "vgpreload_atomgrind"))
         return ips[i];
   return VG_(get_IP)(vgtid);
}
