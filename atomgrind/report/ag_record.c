/* ag_record.c -- --record-trace=FILE: the events the engines are given,
 * written as they happen in atomgrind's binary format (or RAPID's STD
 * text), so that atomgrind-trace can replay them offline. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* site names: VG_(get_fnname), file:line */
#include "pub_tool_libcbase.h"     /* VG_(strncpy), VG_(strlen) */
#include "pub_tool_libcfile.h"     /* VG_(fd_open), VG_(write), VG_(close) */
#include "pub_tool_libcassert.h"   /* VG_(exit) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(fmsg), VG_(snprintf) */
#include "pub_tool_libcproc.h"     /* VG_(atfork) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc) */
#include "pub_tool_vki.h"          /* VKI_O_* open flags */
#include "ag_map.h"                /* sites already written */
#include "ag_options.h"            /* --record-trace, --record-trace-format */
#include "ag_record.h"
#include "ag_tracefmt.h"           /* the trace writer */
#include "ag_site.h"               /* a recorded site is a code address */

static ag_twriter *ag_rec;       /* NULL when not recording */
static Int ag_rec_fd = -1;
static ag_map *ag_rec_sites;     /* sites whose text was written */

static int ag_rec_write(void *cookie, const void *buf, size_t n)
{
   (void)cookie;
   const char *p = buf;
   while (n > 0) {
      Int w = VG_(write)(ag_rec_fd, p, (Int)n);
      if (w <= 0) return 1;
      p += w;
      n -= (size_t)w;
   }
   return 0;
}

/* A forked child must not write into its parent's trace. */
static void ag_rec_atfork_child(ThreadId t)
{
   (void)t;
   if (!ag_rec) return;
   ag_rec->n = 0;               /* the parent writes what was buffered */
   ag_rec = NULL;
   VG_(close)(ag_rec_fd);
}

void ag_record_init(void)
{
   if (!ag_clo_record_trace) return;
   ag_rec_fd = VG_(fd_open)(ag_clo_record_trace,
                            VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
   if (ag_rec_fd < 0) {
      VG_(fmsg)("atomgrind: cannot open --record-trace file '%s'\n", ag_clo_record_trace);
      VG_(exit)(1);
   }
   ag_rec = VG_(malloc)("ag.record", sizeof *ag_rec);
   ag_rec_sites = ag_map_new(1);
   ag_tw_init(ag_rec, ag_clo_record_std ? AG_TW_STD : AG_TW_BIN, ag_rec_write, NULL);
   VG_(atfork)(NULL, NULL, ag_rec_atfork_child);
}

void ag_record_fini(void)
{
   if (!ag_rec) return;
   if (ag_tw_flush(ag_rec) != 0)
      VG_(umsg)("atomgrind: writing the trace to '%s' failed\n", ag_clo_record_trace);
   else if (VG_(clo_verbosity) >= 2)
      VG_(umsg)("atomgrind: recorded %llu records in '%s'\n",
                (ULong)ag_rec->records, ag_clo_record_trace);
   VG_(close)(ag_rec_fd);
   ag_rec = NULL;
}

/* The site of an event is its code address; its text is written once. */
static ag_site ag_rec_site(Addr ip)
{
   if (ip == 0) return AG_SITE_NONE;
   int created;
   ag_map_lookup(ag_rec_sites, ip, &created);
   if (created) {
      DiEpoch ep = VG_(current_DiEpoch)();
      const HChar *fn = "???", *file = NULL, *dir = NULL;
      UInt line = 0;
      HChar text[256];
      VG_(get_fnname)(ep, ip, &fn);
      HChar fnbuf[128];
      VG_(strncpy)(fnbuf, fn, sizeof fnbuf - 1);
      fnbuf[sizeof fnbuf - 1] = 0;
      if (VG_(get_filename_linenum)(ep, ip, &file, &dir, &line))
         VG_(snprintf)(text, sizeof text, "%s %s:%u", fnbuf, file, line);
      else
         VG_(snprintf)(text, sizeof text, "%s %#lx", fnbuf, (unsigned long)ip);
      ag_tw_site(ag_rec, ag_site_code(ip), text, VG_(strlen)(text));
   }
   return ag_site_code(ip);
}

void ag_rec_thread(ag_tid t)               { if (ag_rec) ag_tw_thread(ag_rec, t); }
void ag_rec_exit(ag_tid t)                 { if (ag_rec) ag_tw_exit(ag_rec, t); }
void ag_rec_begin(ag_tid t, Addr ip)       { if (ag_rec) ag_tw_begin(ag_rec, t, ag_rec_site(ip)); }
void ag_rec_end(ag_tid t, Addr ip)         { if (ag_rec) ag_tw_end(ag_rec, t, ag_rec_site(ip)); }
void ag_rec_fork(ag_tid p, ag_tid c)       { if (ag_rec) ag_tw_fork(ag_rec, p, c, 0); }
void ag_rec_join(ag_tid j, ag_tid c)       { if (ag_rec) ag_tw_join(ag_rec, j, c, 0); }
void ag_rec_forget(Addr a, SizeT len)      { if (ag_rec) ag_tw_forget(ag_rec, a, len); }
void ag_rec_acquire(ag_tid t, Addr l, Bool sh) { if (ag_rec) ag_tw_acquire(ag_rec, t, l, sh, 0); }
void ag_rec_release(ag_tid t, Addr l, Bool sh) { if (ag_rec) ag_tw_release(ag_rec, t, l, sh, 0); }
void ag_rec_access(ag_tid t, Addr a, UInt size, UInt flags, Addr ip)
{
   if (ag_rec) ag_tw_access(ag_rec, t, a, size, flags, ag_rec_site(ip));
}
