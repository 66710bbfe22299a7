/* ag_inline.c -- see ag_inline.h.  The core gives inlined frames only as
 * text (VG_(describe_IP) over an inline cursor); the function's name is the
 * part between the address and the trailing "(file:line)" or "(in obj)". */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* VG_(new_IIPC), VG_(describe_IP) */
#include "pub_tool_libcbase.h"     /* VG_(strlen), VG_(strncpy), VG_(strcpy), VG_(strtoll10) */
#include "pub_tool_libcprint.h"    /* VG_(snprintf) */
#include "pub_tool_options.h"      /* VG_(clo_xml): describe_IP's format */
#include "ag_inline.h"
#include "ag_ltonames.h"           /* names Valgrind cannot read (-flto) */

#define AG_IN_BUF 4096

static HChar ag_in_buf[AG_IN_BUF];

/* The function name in one describe_IP line, copied to dst (of room bytes);
   its length, 0 when the line has no name ("???").  *where: the location
   after it, "(file:line)" or "(in obj)" ("" when none), pointing into line. */
static Int ag_in_name(const HChar *line, HChar *dst, Int room, const HChar **where)
{
   const HChar *s = line;
   while (*s && !(s[0] == ':' && s[1] == ' ')) s++;   /* past "0x...:" */
   if (!*s) return 0;
   s += 2;
   Int len = VG_(strlen)(s);
   *where = s + len;
   /* the location is the last " (" whose ")" ends the line */
   if (len > 0 && s[len - 1] == ')') {
      Int i;
      for (i = len - 2; i > 0; i--)
         if (s[i] == '(' && s[i - 1] == ' ') { *where = s + i; len = i - 1; break; }
   }
   if (len <= 0 || len >= room || (len == 3 && s[0] == '?')) return 0;
   VG_(strncpy)(dst, s, len);
   dst[len] = 0;
   return len;
}

Int ag_inline_chain(Addr ip, const HChar **names, Int max)
{
   return ag_inline_frames(ip, names, NULL, max);
}

Int ag_inline_line(const HChar *where)
{
   const HChar *colon = VG_(strrchr)(where, ':');
   if (where[0] != '(' || VG_(strncmp)(where, "(in ", 4) == 0 || !colon) return 0;
   return (Int)VG_(strtoll10)(colon + 1, NULL);
}

/* Names the frames Valgrind calls UnknownInlinedFun (the chain of n is
   whole): frame i has n - 2 - i inlined frames around it, and frame i + 1
   gives the line it was called from. */
static void ag_in_name_unknown(Addr ip, const HChar **names, const HChar **wheres, Int n)
{
   for (Int i = 0; i + 1 < n; i++) {
      if (VG_(strcmp)(names[i], AG_LTO_UNKNOWN) != 0) continue;
      const HChar *name = ag_lto_name(ip, n - 2 - i, ag_inline_line(wheres[i + 1]));
      if (name) names[i] = name;
   }
}

/* Code Valgrind reads no inline records for (Clang's): the helper's
   inlined frames before the one Valgrind gives, each frame after the
   innermost located by the line it called from ("(:LINE)"), written into
   ag_in_buf from used on. */
static Int ag_in_helper_frames(Addr ip, const HChar **names, const HChar **wheres, Int used,
                               Int max)
{
   const HChar *inl[AG_INLINE_MAX];
   Int lines[AG_INLINE_MAX];
   Int k = ag_lto_frames(ip, inl, lines, (max < AG_INLINE_MAX ? max : AG_INLINE_MAX) - 1);
   if (k == 0) return 1;
   names[k] = names[0];                    /* the function that holds the code */
   for (Int i = k - 1; i >= 0; i--) {
      names[i] = inl[i];
      Int len = VG_(snprintf)(ag_in_buf + used, AG_IN_BUF - used, "(:%d)", lines[i]);
      if (used + len + 1 >= AG_IN_BUF) return 1;
      wheres[i + 1] = ag_in_buf + used;
      used += len + 1;
   }
   return k + 1;
}

Int ag_inline_frames(Addr ip, const HChar **names, const HChar **wheres, Int max)
{
   const HChar *own[AG_INLINE_MAX];
   Bool cut = False, unknown = False;
   if (!wheres && max <= AG_INLINE_MAX) wheres = own;   /* to name unknown frames */
   DiEpoch ep = VG_(current_DiEpoch)();
   /* describe_IP writes XML frames under --xml=yes: ask for text */
   Bool xml = VG_(clo_xml);
   VG_(clo_xml) = False;
   InlIPCursor *iipc = VG_(new_IIPC)(ep, ip);
   Int n = 0, used = 0;
   do {
      const HChar *line = VG_(describe_IP)(ep, ip, iipc), *where = "";
      Int len = ag_in_name(line, ag_in_buf + used, AG_IN_BUF - used, &where);
      Int wlen = VG_(strlen)(where);
      if (len > 0 && n < max && (!wheres || used + len + wlen + 2 <= AG_IN_BUF)) {
         names[n] = ag_in_buf + used;
         used += len + 1;
         if (wheres) {   /* describe_IP's buffer is reused: copy */
            VG_(strcpy)(ag_in_buf + used, where);
            wheres[n] = ag_in_buf + used;
            used += wlen + 1;
         }
         unknown |= VG_(strcmp)(names[n], AG_LTO_UNKNOWN) == 0;
         n++;
      } else {
         cut = True;     /* a frame left out: depths no longer line up */
      }
   } while (VG_(next_IIPC)(iipc));
   VG_(delete_IIPC)(iipc);
   VG_(clo_xml) = xml;
   if (unknown && !cut && wheres) ag_in_name_unknown(ip, names, wheres, n);
   if (n == 1 && wheres && ag_lto_blind(ip)) n = ag_in_helper_frames(ip, names, wheres, used, max);
   return n;
}
