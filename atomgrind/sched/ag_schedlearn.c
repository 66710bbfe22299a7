/* ag_schedlearn.c -- the learned race sites between runs: a text file per
 * command ($TMPDIR/atomgrind-races-UID-HASH, one hex code address a line,
 * then the lock-order pairs, "o FROM TO RUNS" a line), read at start and
 * merged back at exit; the set a run started with is also kept in a file
 * named after its contents, so that the exit line's "repeat with" gives
 * the same schedule whatever later runs learn. */
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

/* A lock-order pair as the file holds it. */
typedef struct {
   Addr from, to;
   UInt runs;
} ag_sl_pair;

/* What a file holds: its sites and pairs. */
typedef struct {
   Addr *ips;
   UInt nips;
   ag_sl_pair *pairs;
   UInt npairs;
} ag_sl_record;

#define AG_SL_BUF (AG_SR_MAX * 20 + AG_SO_MAX * 48 + 64)

static void ag_sl_alloc(ag_sl_record *rec)
{
   rec->ips = VG_(malloc)("ag.sched.learn", AG_SR_MAX * sizeof(Addr));
   rec->pairs = VG_(malloc)("ag.sched.learn", AG_SO_MAX * sizeof(ag_sl_pair));
   rec->nips = rec->npairs = 0;
}

static void ag_sl_release(ag_sl_record *rec)
{
   VG_(free)(rec->ips);
   VG_(free)(rec->pairs);
}

/* Add file path's sites and pairs to rec (up to AG_SR_MAX and
   AG_SO_MAX in all); a line not ours ends the reading. */
static void ag_sl_read(const HChar *path, ag_sl_record *rec)
{
   SysRes fd = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) return;
   HChar *buf = VG_(malloc)("ag.sched.learn", AG_SL_BUF);
   Int n = VG_(read)(sr_Res(fd), buf, AG_SL_BUF - 1);
   VG_(close)(sr_Res(fd));
   buf[n > 0 ? n : 0] = 0;
   for (HChar *s = buf; *s;) {
      HChar *end;
      if (s[0] == 'o' && s[1] == ' ') {
         ag_sl_pair q;
         q.from = (Addr)VG_(strtoull16)(s + 2, &end);
         q.to = (Addr)VG_(strtoull16)(end, &end);
         q.runs = (UInt)VG_(strtoull10)(end, &end);
         if (rec->npairs < AG_SO_MAX && q.from != 0 && q.to != 0) rec->pairs[rec->npairs++] = q;
      } else {
         ULong ip = VG_(strtoull16)(s, &end);
         if (end == s) break;                      /* not ours: ignored */
         if (ip != 0 && rec->nips < AG_SR_MAX) rec->ips[rec->nips++] = (Addr)ip;
      }
      s = end;
      while (*s == '\n' || *s == ' ') s++;
   }
   VG_(free)(buf);
}

/* Write rec to path, aside and renamed (runs in parallel read whole files). */
static void ag_sl_write(const HChar *path, const ag_sl_record *rec)
{
   HChar tmp[600], line[64];
   VG_(snprintf)(tmp, sizeof tmp, "%s.%d", path, VG_(getpid)());
   SysRes fd = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
   if (sr_isError(fd)) return;
   Bool ok = True;
   for (UInt i = 0; i < rec->nips + rec->npairs && ok; i++) {
      if (i < rec->nips) {
         VG_(snprintf)(line, sizeof line, "%lx\n", rec->ips[i]);
      } else {
         const ag_sl_pair *q = &rec->pairs[i - rec->nips];
         VG_(snprintf)(line, sizeof line, "o %lx %lx %u\n", q->from, q->to, q->runs);
      }
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
   ag_sl_record rec;
   ag_sl_alloc(&rec);
   ag_sl_read(own ? cmd_path : from, &rec);
   if (!own && rec.nips == 0 && VG_(clo_verbosity) >= 1)
      VG_(umsg)("Warning: --sched-races=%s: no race sites read from it\n", from);
   ULong h = 1469598103934665603ULL;                /* FNV-1a of the set */
   for (UInt i = 0; i < rec.nips; i++) {
      ag_sl_n += ag_sr_add(p, rec.ips[i]);
      h = (h ^ rec.ips[i]) * 1099511628211ULL;
   }
   for (UInt i = 0; i < rec.npairs; i++) {
      ag_sl_pair *q = &rec.pairs[i];
      ag_so_load(p, q->from, q->to, q->runs);
      h = (((h ^ q->from) * 1099511628211ULL ^ q->to) * 1099511628211ULL ^ q->runs)
          * 1099511628211ULL;
   }
   if (ag_sl_n > 0 && own) {
      VG_(snprintf)(ag_sl_snap, sizeof ag_sl_snap, "%s-%016llx", cmd_path, h);
      ag_sl_write(ag_sl_snap, &rec);
   } else if (ag_sl_n > 0) {
      VG_(snprintf)(ag_sl_snap, sizeof ag_sl_snap, "%s", from);
   }
   ag_sl_release(&rec);
}

/* rec, what the file holds now, takes this run's sites first (then the
   file's others), and its pairs: each pair this run saw is seen in one
   run more than the file says (than this run started from, if the file
   lacks it). */
static void ag_sl_merge(const ag_schedpol *p, ag_sl_record *rec)
{
   const struct ag_sr_state *r = &p->race;
   Addr *ips = VG_(malloc)("ag.sched.learn", AG_SR_MAX * sizeof(Addr));
   UInt k = 0;
   for (UInt i = 0; i < AG_SR_SLOTS; i++)      /* (at most AG_SR_MAX) */
      if (r->site[i] != 0) ips[k++] = r->site[i];
   for (UInt i = 0; i < rec->nips && k < AG_SR_MAX; i++)
      if (!ag_sr_has(p, rec->ips[i])) ips[k++] = rec->ips[i];
   VG_(free)(rec->ips);
   rec->ips = ips;
   rec->nips = k;
   UInt had = rec->npairs;
   for (UInt i = 0; i < AG_SO_SLOTS; i++) {
      const ag_so_pair *e = &r->order[i];
      if (e->from == 0) continue;
      UInt j = 0;
      while (j < had && !(rec->pairs[j].from == e->from && rec->pairs[j].to == e->to)) j++;
      if (j == had) {
         if (rec->npairs == AG_SO_MAX) continue;
         j = rec->npairs++;
         rec->pairs[j] = (ag_sl_pair){ e->from, e->to, e->runs };
      }
      rec->pairs[j].runs += e->now;
   }
}

void ag_sl_fini(const ag_schedpol *p)
{
   UInt now = 0;
   for (UInt i = 0; i < AG_SO_SLOTS; i++) now += p->race.order[i].now;
   /* (nothing new, or a fork child's) */
   if (VG_(getpid)() != ag_sl_pid || (p->race.learned == 0 && now == 0)) return;
   ag_sl_record rec;
   ag_sl_alloc(&rec);
   ag_sl_read(ag_sl_path, &rec);                  /* with what others recorded since */
   ag_sl_merge(p, &rec);
   ag_sl_write(ag_sl_path, &rec);
   ag_sl_release(&rec);
}

const HChar *ag_sl_snapshot(void) { return ag_sl_snap[0] ? ag_sl_snap : NULL; }
UInt ag_sl_loaded(void) { return ag_sl_n; }
