/* ag_ltonames.c -- see ag_ltonames.h.
 *
 * The helper prints "LO HI DEPTH CALL_LINE NAME[\tLINKAGE]" per range of each inlined
 * instance of the object, "e ADDR DEPTH CALL_LINE NAME" per entry of a
 * copy, then "end" (VG_(system) does not give the exit status: a missing
 * "end" is a failure).  It runs at most once per object, and only for an
 * object where an unnamed inlined frame or an inlined copy of an atomic
 * function was met, so programs without either never pay for it.  Ranges
 * and entries are kept sorted by (depth, start): the instances of one
 * depth do not overlap, so a binary search finds the one at an address. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* VG_(find_DebugInfo), VG_(DebugInfo_get_text_bias) */
#include "pub_tool_libcbase.h"     /* VG_(strlen), VG_(strtoull16), VG_(ssort) */
#include "pub_tool_libcfile.h"     /* VG_(open), VG_(read), VG_(fstat), VG_(unlink) */
#include "pub_tool_libcprint.h"    /* VG_(umsg), VG_(snprintf) */
#include "pub_tool_libcproc.h"     /* VG_(system), VG_(libdir), VG_(getenv) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc), VG_(free) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity), VG_(clo_stats) */
#include "pub_tool_vki.h"          /* VKI_O_RDONLY */
#include "ag_elf.h"                /* .comment */
#include "ag_ltonames.h"

/* the core's (pub_core_libcfile.h), exported but not in the tool headers:
   a new file in the temporary directory, its path in fullname */
extern Int VG_(mkstemp)(const HChar *part_of_name, HChar *fullname);
extern SizeT VG_(mkstemp_fullname_bufsz)(SizeT part_of_name_len);
/* the core's demangler (pub_core_demangle.h), exported likewise: as it
   names functions in stack traces, --demangle=no included */
extern void VG_(demangle)(Bool do_cxx_demangling, Bool do_z_demangling,
                          const HChar *orig, const HChar **result);

#define AG_LN_HELPER "atomgrind-inlines"
#define AG_LN_ENV "ATOMGRIND_INLINES"      /* the helper's path; "": do not run it */

typedef struct {
   Addr lo, hi;                  /* the object's own addresses, hi excluded */
   Int depth, line;
   const HChar *name;            /* into the object's text */
   const HChar *linkage;         /* mangled (or, for C++ of internal linkage, the
                                    scoped name), into the text; NULL: none */
   const HChar *full;            /* linkage demangled (a plain name stays), on first use */
} ag_ln_range;

typedef struct {
   HChar *file;                  /* the object's path */
   PtrdiffT bias;                /* its addresses -> the run's */
   HChar *text;                  /* the helper's output, lines cut at '\0' */
   ag_ln_range *r;               /* sorted by (depth, lo) */
   UInt n;
   ag_ln_range *e;               /* entries (lo == hi), sorted so too */
   UInt ne;
   Bool loaded, ok;              /* the helper ran; its output was read */
   Bool clang;                   /* built by Clang: ag_lto_blind */
   Bool gcc_only;                /* built by GCC alone: ag_lto_gcc_only */
} ag_ln_obj;

static ag_ln_obj *ag_ln_objs;
static UInt ag_ln_nobjs, ag_ln_cap;
static HChar ag_ln_why[512];     /* the first failure, as a clause */
static ULong ag_ln_named, ag_ln_missed;   /* frames named, not named (--stats) */
static Bool ag_ln_told;          /* -v said once that copies are not told apart */

static void ag_ln_fail(const HChar *fmt, const HChar *a, const HChar *b)
{
   if (!ag_ln_why[0]) VG_(snprintf)(ag_ln_why, sizeof ag_ln_why, fmt, a, b);
}

/* The helper's path, or NULL (then ag_ln_why says why). */
static const HChar *ag_ln_helper(void)
{
   static HChar path[1024];
   const HChar *env = VG_(getenv)(AG_LN_ENV);
   if (env && !*env) {
      ag_ln_fail("%s is set empty, so %s was not run", AG_LN_ENV, AG_LN_HELPER);
      return NULL;
   }
   if (env) VG_(snprintf)(path, sizeof path, "%s", env);
   else VG_(snprintf)(path, sizeof path, "%s/%s", VG_(libdir), AG_LN_HELPER);
   struct vg_stat st;
   if (sr_isError(VG_(stat)(path, &st))) {
      ag_ln_fail("%s, which reads those names, is not installed (%s)", AG_LN_HELPER, path);
      return NULL;
   }
   return path;
}

/* The whole of file fd, '\0'-terminated, or NULL. */
static HChar *ag_ln_slurp(Int fd)
{
   struct vg_stat st;
   if (VG_(fstat)(fd, &st) != 0 || st.size < 0 || st.size > (1L << 30)) return NULL;
   HChar *buf = VG_(malloc)("ag.ltonames.text", st.size + 1);
   Long got = 0;
   while (got < st.size) {
      Int r = VG_(read)(fd, buf + got, st.size - got > (1 << 20) ? (1 << 20) : st.size - got);
      if (r <= 0) break;
      got += r;
   }
   buf[got] = 0;
   return buf;
}

static Int ag_ln_cmp(const void *a, const void *b)
{
   const ag_ln_range *x = a, *y = b;
   if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
   return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

/* Parses o->text into o->r; False when it does not end with "end". */
static Bool ag_ln_parse(ag_ln_obj *o)
{
   UInt cap = 0;
   HChar *s = o->text;
   for (HChar *p = s; *p; p++) cap += *p == '\n';
   o->r = VG_(malloc)("ag.ltonames.ranges", (cap + 1) * sizeof *o->r);
   o->e = VG_(malloc)("ag.ltonames.entries", (cap + 1) * sizeof *o->e);
   while (*s) {
      HChar *nl = VG_(strchr)(s, '\n'), *e;
      if (!nl) return False;                         /* cut short */
      *nl = 0;
      if (VG_(strcmp)(s, "end") == 0) break;
      Bool entry = s[0] == 'e' && s[1] == ' ';
      ag_ln_range *r = entry ? &o->e[o->ne] : &o->r[o->n];
      r->lo = VG_(strtoull16)(entry ? s + 2 : s, &e);
      r->hi = entry ? r->lo : VG_(strtoull16)(e, &e);
      r->depth = VG_(strtoll10)(e, &e);
      r->line = VG_(strtoll10)(e, &e);
      if (*e != ' ' || (!entry && r->hi <= r->lo) || r->depth < 0) return False;
      r->name = e + 1;
      HChar *tab = VG_(strchr)(r->name, '\t');
      r->linkage = tab && tab[1] ? tab + 1 : NULL;
      r->full = NULL;
      if (tab) *tab = 0;
      if (entry) o->ne++; else o->n++;
      s = nl + 1;
   }
   if (!*s) return False;                            /* no "end" */
   VG_(ssort)(o->r, o->n, sizeof *o->r, ag_ln_cmp);
   VG_(ssort)(o->e, o->ne, sizeof *o->e, ag_ln_cmp);
   return True;
}

/* Runs the helper on o->file. */
static void ag_ln_load(ag_ln_obj *o)
{
   const HChar *helper = ag_ln_helper();
   if (!helper) return;
   if (VG_(strchr)(helper, '\'') || VG_(strchr)(o->file, '\'')) {
      ag_ln_fail("%s could not be run on %s (a quote in a path)", AG_LN_HELPER, o->file);
      return;
   }
   HChar tmp[VG_(mkstemp_fullname_bufsz)(sizeof "ag-inlines")];
   Int fd = VG_(mkstemp)("ag-inlines", tmp);
   if (fd < 0) {
      ag_ln_fail("%s could not be run (no temporary file)%s", AG_LN_HELPER, "");
      return;
   }
   SizeT len = VG_(strlen)(helper) + VG_(strlen)(o->file) + VG_(strlen)(tmp) + 32;
   HChar *cmd = VG_(malloc)("ag.ltonames.cmd", len);
   VG_(snprintf)(cmd, len, "'%s' '%s' >'%s' 2>/dev/null", helper, o->file, tmp);
   if (VG_(clo_verbosity) > 1)
      VG_(umsg)("atomgrind: reading the inlined copies of %s: %s\n", o->file, cmd);
   Int rc = VG_(system)(cmd);
   VG_(free)(cmd);
   o->text = rc == 0 ? ag_ln_slurp(fd) : NULL;
   VG_(close)(fd);
   VG_(unlink)(tmp);
   o->ok = o->text && ag_ln_parse(o);
   if (!o->ok)
      ag_ln_fail("%s could not read the debug information of %s", AG_LN_HELPER, o->file);
   else if (VG_(clo_verbosity) > 1)
      VG_(umsg)("atomgrind: %s: %u inlined range(s), %u entry(ies) of copies\n",
                o->file, o->n, o->ne);
}

/* The compilers the ELF file's .comment names (one NUL-ended string per
   producer): whether Clang compiled some of it (Valgrind 3.19 reads none
   of Clang's DWARF 5 inline records), and whether GCC alone did (every
   string is GCC's; none: not known, as after Debian's strip). */
static void ag_ln_producers(ag_ln_obj *o)
{
   SysRes sr = VG_(open)(o->file, VKI_O_RDONLY, 0);
   if (sr_isError(sr)) return;
   Int fd = sr_Res(sr);
   ULong len = 0;
   HChar *text = (HChar *)ag_elf_section(fd, ".comment", &len, 1 << 16);
   VG_(close)(fd);
   if (!text) return;
   UInt gcc = 0, other = 0;
   for (ULong i = 0; i < len; ) {
      ULong n = 0;
      while (i + n < len && text[i + n]) n++;
      for (ULong j = i; j + 13 <= i + n && !o->clang; j++)   /* "Debian clang version" */
         o->clang = VG_(memcmp)(text + j, "clang version", 13) == 0;
      if (n >= 5 && VG_(memcmp)(text + i, "GCC: ", 5) == 0) gcc++;
      else if (n > 0) other++;
      i += n + 1;
   }
   o->gcc_only = gcc > 0 && other == 0;
   VG_(free)(text);
}

/* The object at ip, its helper's output read when load (on first use);
   NULL when it has no file. */
static ag_ln_obj *ag_ln_obj_at(Addr ip, Bool load)
{
   DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ip);
   const HChar *file = di ? VG_(DebugInfo_get_filename)(di) : NULL;
   if (!file) return NULL;
   PtrdiffT bias = VG_(DebugInfo_get_text_bias)(di);
   /* most look-ups in a row are of one object (every instruction of a
      spec'd run is asked about at translation) */
   static const DebugInfo *last_di;
   static const HChar *last_file;
   static PtrdiffT last_bias;
   static UInt last;
   ag_ln_obj *o = NULL;
   if (di == last_di && file == last_file && bias == last_bias && last < ag_ln_nobjs)
      o = &ag_ln_objs[last];
   for (UInt i = 0; i < ag_ln_nobjs && !o; i++)
      if (ag_ln_objs[i].bias == bias && VG_(strcmp)(ag_ln_objs[i].file, file) == 0)
         o = &ag_ln_objs[i];
   if (!o) {
      if (ag_ln_nobjs == ag_ln_cap) {
         ag_ln_cap = ag_ln_cap ? 2 * ag_ln_cap : 4;
         ag_ln_objs = VG_(realloc)("ag.ltonames.objs", ag_ln_objs,
                                   ag_ln_cap * sizeof *ag_ln_objs);
      }
      o = &ag_ln_objs[ag_ln_nobjs++];
      VG_(memset)(o, 0, sizeof *o);
      o->file = VG_(strdup)("ag.ltonames.file", file);
      o->bias = bias;
      ag_ln_producers(o);
   }
   last_di = di;
   last_file = file;
   last_bias = bias;
   last = (UInt)(o - ag_ln_objs);
   if (load && !o->loaded) {
      o->loaded = True;
      ag_ln_load(o);
   }
   return o;
}

/* The last of r[0..n) of this depth starting at or before a, or NULL. */
static const ag_ln_range *ag_ln_find(const ag_ln_range *r, UInt n, Addr a, Int depth)
{
   Int lo = 0, hi = (Int)n - 1, found = -1;
   while (lo <= hi) {
      Int mid = lo + (hi - lo) / 2;
      if (r[mid].depth < depth || (r[mid].depth == depth && r[mid].lo <= a)) {
         found = mid;
         lo = mid + 1;
      } else {
         hi = mid - 1;
      }
   }
   return found < 0 || r[found].depth != depth ? NULL : &r[found];
}

/* The frames are matched by depth: the call's line confirms it. */
static Bool ag_ln_same_call(const ag_ln_range *r, Int call_line)
{
   return call_line <= 0 || r->line <= 0 || r->line == call_line;
}

/* The instance at ip of this depth and call line, or NULL. */
static ag_ln_range *ag_ln_at(Addr ip, Int depth, Int call_line)
{
   ag_ln_obj *o = ag_ln_obj_at(ip, True);
   if (!o || !o->ok) return NULL;
   const ag_ln_range *r = ag_ln_find(o->r, o->n, ip - o->bias, depth);
   if (!r || ip - o->bias >= r->hi || !ag_ln_same_call(r, call_line)) return NULL;
   return (ag_ln_range *)r;
}

const HChar *ag_lto_name(Addr ip, Int depth, Int call_line)
{
   const ag_ln_range *r = ag_ln_at(ip, depth, call_line);
   if (r) ag_ln_named++;
   else ag_ln_missed++;
   return r ? r->name : NULL;
}

const HChar *ag_lto_full_name(Addr ip, Int depth, Int call_line, const HChar *name)
{
   ag_ln_range *r = ag_ln_at(ip, depth, call_line);
   if (!r || !r->linkage || VG_(strcmp)(r->name, name) != 0) return NULL;
   if (!r->full) r->full = VG_(strdup)("ag.ltonames.full", ag_lto_demangle(r->linkage));
   return r->full;
}

const HChar *ag_lto_demangle(const HChar *mangled)
{
   const HChar *d;
   VG_(demangle)(True, False, mangled, &d);
   return d;
}

Int ag_lto_entry(Addr ip, Int depth, Int call_line, const HChar *name)
{
   ag_ln_obj *o = ag_ln_obj_at(ip, True);
   if (!o || !o->ok) {
      if (o && !ag_ln_told && VG_(clo_verbosity) > 1)
         VG_(umsg)("atomgrind: %s: %s; its inlined copies of one call (an unrolled "
                   "loop) are told apart only by their call sites, so they are one region "
                   "when one follows the other\n", o->file, ag_ln_why);
      ag_ln_told |= o != NULL;
      return o ? -1 : 0;
   }
   const ag_ln_range *e = ag_ln_find(o->e, o->ne, ip - o->bias, depth);
   return e && e->lo == ip - o->bias && ag_ln_same_call(e, call_line)
          && VG_(strcmp)(e->name, name) == 0;
}

Bool ag_lto_blind(Addr ip)
{
   ag_ln_obj *o = ag_ln_obj_at(ip, False);
   return o && o->clang;
}

Bool ag_lto_gcc_only(Addr ip)
{
   ag_ln_obj *o = ag_ln_obj_at(ip, False);
   return o && o->gcc_only;
}

Int ag_lto_frames(Addr ip, const HChar **names, Int *lines, Int max)
{
   ag_ln_obj *o = ag_ln_obj_at(ip, True);
   Int k = 0;
   if (!o || !o->ok) return 0;
   for (Int depth = 0; k < max; depth++, k++) {    /* outermost first */
      const ag_ln_range *r = ag_ln_find(o->r, o->n, ip - o->bias, depth);
      if (!r || ip - o->bias >= r->hi) break;
      names[k] = r->name;
      lines[k] = r->line;
   }
   for (Int i = 0; i < k / 2; i++) {               /* innermost first */
      const HChar *n = names[i];
      Int l = lines[i];
      names[i] = names[k - 1 - i];
      lines[i] = lines[k - 1 - i];
      names[k - 1 - i] = n;
      lines[k - 1 - i] = l;
   }
   return k;
}

const HChar *ag_lto_failure(void) { return ag_ln_why; }

void ag_lto_fini(void)
{
   UInt ok = 0, loaded = 0, ranges = 0;
   for (UInt i = 0; i < ag_ln_nobjs; i++) {
      ok += ag_ln_objs[i].ok;
      loaded += ag_ln_objs[i].loaded;
      ranges += ag_ln_objs[i].n;
   }
   if (!VG_(clo_stats) || loaded == 0) return;
   VG_(umsg)("atomgrind: inline names: %u of %u object(s) read by %s, %u range(s), "
             "%llu frame(s) named, %llu not\n", ok, loaded, AG_LN_HELPER, ranges,
             ag_ln_named, ag_ln_missed);
}
