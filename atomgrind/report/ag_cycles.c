/* ag_cycles.c -- the cycle behind each atomicity report, drawn by the
 * tool: the atomicity engine's events go into a ring of the last
 * --explain-window of them (engine/ag_explain_core.c), and when a report
 * is first recorded the cycle through its transaction is looked for
 * there.  Shown: as files in --explain-dir (HTML and text, as
 * atomgrind-trace --explain draws them), as text in the report with -v,
 * as a <cycle> element with --xml=yes.  Nothing is fed otherwise. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* data symbols name addresses */
#include "pub_tool_libcbase.h"     /* VG_(strlen), VG_(memcpy) */
#include "pub_tool_libcfile.h"     /* VG_(fd_open), VG_(write), VG_(stat) */
#include "pub_tool_libcassert.h"   /* VG_(exit) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(printf_xml) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity), VG_(clo_xml) */
#include "pub_tool_vki.h"          /* VKI_O_*, VKI_S_ISDIR */
#include "ag_cycles.h"
#include "ag_options.h"            /* --explain-dir, --explain-window */

Bool ag_cyc_on = False;
static ag_xp *ag_cyc_ring;
static const HChar *ag_cyc_dir;    /* --explain-dir, expanded */
static UInt ag_cyc_files;          /* pictures written */

void ag_cycles_init(void)
{
   if (ag_clo_explain_dir) {
      struct vg_stat st;
      if (!(ag_clo_check & AG_CHECK_ATOMICITY) || ag_clo_explain_window == 0) {
         VG_(fmsg)("atomgrind: --explain-dir draws atomicity reports' cycles: it needs "
                   "--check=atomicity or all, and --explain-window > 0\n");
         VG_(exit)(1);
      }
      ag_cyc_dir = VG_(expand_file_name)("--explain-dir", ag_clo_explain_dir);
      SysRes r = VG_(stat)(ag_cyc_dir, &st);
      if (sr_isError(r) || !VKI_S_ISDIR(st.mode)) {
         VG_(fmsg)("atomgrind: --explain-dir: '%s' is not a directory\n", ag_cyc_dir);
         VG_(exit)(1);
      }
   }
   ag_cyc_on = (ag_clo_check & AG_CHECK_ATOMICITY) && ag_clo_explain_window > 0
               && (ag_cyc_dir || VG_(clo_verbosity) > 1 || VG_(clo_xml));
   if (ag_cyc_on) ag_cyc_ring = ag_xp_new(ag_clo_explain_window);
}

static void ag_cyc_event(void *cookie, const ag_xp_event *ev)
{
   (void)cookie;
   ag_xp_feed(ag_cyc_ring, ev);
}

static void ag_cyc_exit(void *cookie, ag_tid t)
{
   (void)cookie;
   ag_xp_thread_exit(ag_cyc_ring, t);
}

const ag_observer ag_cyc_observer = { ag_cyc_event, ag_cyc_exit, NULL };

ag_xp_cycle *ag_cyc_find(const ag_violation *v)
{
   return ag_cyc_on ? ag_xp_find(ag_cyc_ring, v->event, v->tid) : NULL;
}

/* ---- names and output ---------------------------------------------- */

static const HChar *ag_cyc_thread(void *cookie, ag_tid t)
{
   static HChar buf[24];
   (void)cookie;
   VG_(snprintf)(buf, sizeof buf, "Thread #%u", t + 1);
   return buf;
}

/* A global's name (+offset), else NULL: the address. */
static const HChar *ag_cyc_sym(void *cookie, uint64_t a)
{
   static HChar buf[96];
   const HChar *name;
   PtrdiffT off;
   (void)cookie;
   if (!VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), (Addr)a, &name, &off)) return NULL;
   if (off == 0) VG_(snprintf)(buf, sizeof buf, "%s", name);
   else VG_(snprintf)(buf, sizeof buf, "%s+%ld", name, (long)off);
   return buf;
}

/* Where the picture goes: a file, the log, or the XML. */
typedef enum { AG_CYC_FILE, AG_CYC_LOG, AG_CYC_XML } ag_cyc_to;
typedef struct { ag_cyc_to to; Int fd; Bool failed; } ag_cyc_dest;

static void ag_cyc_put(void *cookie, const char *s, size_t n)
{
   ag_cyc_dest *d = cookie;
   HChar buf[513];
   if (d->to == AG_CYC_FILE) {
      if (!d->failed && VG_(write)(d->fd, s, (Int)n) != (Int)n) d->failed = True;
      return;
   }
   while (n) {          /* the log prints NUL-terminated text */
      SizeT k = n < sizeof buf - 1 ? n : sizeof buf - 1;
      VG_(memcpy)(buf, s, k);
      buf[k] = 0;
      if (d->to == AG_CYC_XML) VG_(printf_xml)("%s", buf);
      else VG_(umsg)("%s", buf);
      s += k;
      n -= k;
   }
}

static void ag_cyc_draw(const ag_xp_cycle *c, int format, ag_cyc_dest *d)
{
   ag_xp_out o = { ag_cyc_thread, ag_cyc_sym, ag_cyc_sym, "event", ag_cyc_put, d };
   ag_xp_draw(c, format, &o);
}

/* DIR/cycle-N.EXT; False (said once) if it cannot be written */
static Bool ag_cyc_file(const ag_xp_cycle *c, UInt no, const HChar *ext, int format,
                        HChar *path, SizeT n)
{
   static Bool warned;
   VG_(snprintf)(path, n, "%s/cycle-%u.%s", ag_cyc_dir, no, ext);
   ag_cyc_dest d = { AG_CYC_FILE, -1, False };
   d.fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
   if (d.fd >= 0) {
      ag_cyc_draw(c, format, &d);
      VG_(close)(d.fd);
   }
   if ((d.fd < 0 || d.failed) && !warned) {
      VG_(umsg)("atomgrind: cannot write '%s': no more cycle pictures are written\n", path);
      warned = True;
   }
   return d.fd >= 0 && !d.failed && !warned;
}

void ag_cyc_pp(const ag_xp_cycle *c, UInt *no, Bool xml)
{
   HChar line[600], html[512], text[512];
   if (!c) {
      VG_(snprintf)(line, sizeof line, "The cycle was not found among the last %u events "
                    "(--explain-window)", ag_xp_window(ag_cyc_ring));
      if (xml) VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", line);
      else VG_(umsg)("\n%s\n", line);
      return;
   }
   if (ag_cyc_dir && *no == 0) {
      *no = ++ag_cyc_files;
      if (!ag_cyc_file(c, *no, "html", AG_XP_HTML, html, sizeof html)
          || !ag_cyc_file(c, *no, "txt", AG_XP_TEXT, text, sizeof text))
         *no = ~0u;
   }
   if (ag_cyc_dir && *no != ~0u) {
      VG_(snprintf)(html, sizeof html, "%s/cycle-%u.html", ag_cyc_dir, *no);
      VG_(snprintf)(text, sizeof text, "%s/cycle-%u.txt", ag_cyc_dir, *no);
      if (xml) {
         VG_(printf_xml)("  <cyclefile><html>%pS</html><text>%pS</text></cyclefile>\n", html, text);
      } else {
         VG_(snprintf)(line, sizeof line, "The cycle is drawn in %s (and as text in %s)", html, text);
         VG_(umsg)("\n%s\n", line);
      }
   }
   ag_cyc_dest d = { xml ? AG_CYC_XML : AG_CYC_LOG, -1, False };
   if (xml) {
      ag_cyc_draw(c, AG_XP_XML, &d);
   } else if (VG_(clo_verbosity) > 1) {
      VG_(umsg)("\nThe cycle, a lane per thread (A: this region; >N, N>: edge N's ends):\n");
      ag_cyc_draw(c, AG_XP_TEXT, &d);
   }
}
