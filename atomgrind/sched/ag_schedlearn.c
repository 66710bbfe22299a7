/* ag_schedlearn.c -- the learned race sites between runs: a text file per
 * command ($TMPDIR/atomgrind-races-UID-HASH, one hex code address a line),
 * read at start and merged back at exit; the set a run started with is
 * also kept in a file named after its contents, so that the exit line's
 * "repeat with" gives the same schedule whatever later runs learn. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_O_* */
#include "pub_tool_libcbase.h"     /* VG_(strtoull16), VG_(strlen) */
#include "pub_tool_libcfile.h"     /* VG_(open) & co. */
#include "pub_tool_libcprint.h"    /* VG_(snprintf) */
#include "pub_tool_libcproc.h"     /* VG_(getpid) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc): file contents */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "ag_options.h"            /* --sched-races, --sched-seed */
#include "ag_schedrace.h"          /* ag_sr_add, ag_sr_has */
#include "ag_schedlearn.h"

static HChar ag_sl_path[512];        /* this command's record */
static HChar ag_sl_snap[560];        /* the snapshot ("" : none) */
static UInt ag_sl_n;                 /* sites loaded */
static Int ag_sl_pid;

#define AG_SL_BUF (AG_SR_MAX * 20 + 64)

/* The sites in file path, in *ips (at most AG_SR_MAX); how many. */
static UInt ag_sl_read(const HChar *path, Addr *ips)
{
   SysRes fd = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) return 0;
   HChar *buf = VG_(malloc)("ag.sched.learn", AG_SL_BUF);
   Int n = VG_(read)(sr_Res(fd), buf, AG_SL_BUF - 1);
   VG_(close)(sr_Res(fd));
   UInt k = 0;
   buf[n > 0 ? n : 0] = 0;
   for (HChar *s = buf; *s && k < AG_SR_MAX;) {
      HChar *end;
      ULong ip = VG_(strtoull16)(s, &end);
      if (end == s) break;                      /* not ours: ignored */
      if (ip != 0) ips[k++] = (Addr)ip;
      s = end;
      while (*s == '\n' || *s == ' ') s++;
   }
   VG_(free)(buf);
   return k;
}

/* Write ips to path, aside and renamed (runs in parallel read whole files). */
static void ag_sl_write(const HChar *path, const Addr *ips, UInt k)
{
   HChar tmp[600], line[24];
   VG_(snprintf)(tmp, sizeof tmp, "%s.%d", path, VG_(getpid)());
   SysRes fd = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
   if (sr_isError(fd)) return;
   Bool ok = True;
   for (UInt i = 0; i < k && ok; i++) {
      VG_(snprintf)(line, sizeof line, "%lx\n", ips[i]);
      ok = VG_(write)(sr_Res(fd), line, VG_(strlen)(line)) == (Int)VG_(strlen)(line);
   }
   VG_(close)(sr_Res(fd));
   if (!ok || VG_(rename)(tmp, path) != 0) VG_(unlink)(tmp);
}

void ag_sl_init(ag_schedpol *p, const HChar *cmd_path)
{
   ag_sl_pid = VG_(getpid)();
   VG_(snprintf)(ag_sl_path, sizeof ag_sl_path, "%s", cmd_path);
   const HChar *from = ag_clo_sched_races;
   /* a given seed repeats a run by itself; a fresh one learns from before */
   if (!from) from = ag_clo_sched_seed_given ? "none" : "auto";
   if (VG_STREQ(from, "none")) return;
   Bool own = VG_STREQ(from, "auto");
   Addr *ips = VG_(malloc)("ag.sched.learn", AG_SR_MAX * sizeof(Addr));
   UInt k = ag_sl_read(own ? cmd_path : from, ips);
   if (!own && k == 0 && VG_(clo_verbosity) >= 1)
      VG_(umsg)("Warning: --sched-races=%s: no race sites read from it\n", from);
   ULong h = 1469598103934665603ULL;                /* FNV-1a of the set */
   for (UInt i = 0; i < k; i++) {
      ag_sl_n += ag_sr_add(p, ips[i]);
      h = (h ^ ips[i]) * 1099511628211ULL;
   }
   if (ag_sl_n > 0 && own) {
      VG_(snprintf)(ag_sl_snap, sizeof ag_sl_snap, "%s-%016llx", cmd_path, h);
      ag_sl_write(ag_sl_snap, ips, k);
   } else if (ag_sl_n > 0) {
      VG_(snprintf)(ag_sl_snap, sizeof ag_sl_snap, "%s", from);
   }
   VG_(free)(ips);
}

void ag_sl_fini(const ag_schedpol *p)
{
   if (VG_(getpid)() != ag_sl_pid || p->race.learned == 0) return;   /* a fork child's */
   Addr *ips = VG_(malloc)("ag.sched.learn", 2 * AG_SR_MAX * sizeof(Addr));
   UInt k = 0;
   for (UInt i = 0; i < AG_SR_SLOTS; i++)
      if (p->race.site[i] != 0) ips[k++] = p->race.site[i];
   UInt m = ag_sl_read(ag_sl_path, ips + k);     /* what others recorded since */
   UInt all = k;
   for (UInt i = 0; i < m && all < AG_SR_MAX; i++)
      if (!ag_sr_has(p, ips[k + i])) ips[all++] = ips[k + i];
   ag_sl_write(ag_sl_path, ips, all);
   VG_(free)(ips);
}

const HChar *ag_sl_snapshot(void) { return ag_sl_snap[0] ? ag_sl_snap : NULL; }
UInt ag_sl_loaded(void) { return ag_sl_n; }
