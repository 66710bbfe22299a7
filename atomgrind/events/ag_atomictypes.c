/* ag_atomictypes.c -- see ag_atomictypes.h.  A small reader of an
 * object's .debug_info (DWARF 2-5, 32-bit units, uncompressed): every
 * variable with a fixed address (DW_OP_addr, or DWARF 5's DW_OP_addrx)
 * whose type, through typedefs and qualifiers, is DW_TAG_atomic_type is a
 * C11 _Atomic object; one whose type is a class of namespace std named
 * atomic<...> (or what libstdc++ builds it of) is a std::atomic.
 * The core reads the same information (--read-var-info=yes) but gives
 * tools no types, so each object is read here once, the first time a
 * load or store at a fixed address in it is instrumented. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"    /* VG_(next_DebugInfo), the object's file and bias */
#include "pub_tool_libcbase.h"     /* VG_(memcmp), VG_(strcmp) */
#include "pub_tool_libcfile.h"     /* VG_(open), VG_(read), VG_(lseek) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc), VG_(free) */
#include "pub_tool_vki.h"          /* VKI_O_RDONLY */
#include "ag_elf.h"                /* ag_elf_section */
#include "ag_map.h"                /* DIE offset -> its type facts */
#include "ag_atomictypes.h"

#define AG_AT_MAX_SECTION (64u << 20)   /* larger debug info is not read */
#define AG_AT_MAX_OBJS    32           /* objects looked at */

typedef struct { Addr lo, hi; } ag_at_range;
typedef struct { UShort tag; ULong type; UInt size; } ag_at_die;
typedef struct { ULong addr, type, spec; } ag_at_var;

static const DebugInfo *ag_at_seen[AG_AT_MAX_OBJS];
static UInt ag_at_nseen;
static ag_at_range *ag_at_ranges;
static UInt ag_at_n, ag_at_cap;

/* ---- DWARF ------------------------------------------------------------- */

typedef struct { const UChar *p, *end; Bool bad; } ag_at_cur;

static ULong ag_at_uleb(ag_at_cur *c)
{
   ULong v = 0;
   for (UInt shift = 0; c->p < c->end; shift += 7) {
      UChar b = *c->p++;
      if (shift < 64) v |= (ULong)(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
   }
   c->bad = True;
   return 0;
}

static ULong ag_at_fixed(ag_at_cur *c, UInt n)
{
   ULong v = 0;
   if ((ULong)(c->end - c->p) < n) { c->bad = True; c->p = c->end; return 0; }
   for (UInt i = 0; i < n; i++) v |= (ULong)c->p[i] << (8 * i);
   c->p += n;
   return v;
}

static void ag_at_skip(ag_at_cur *c, ULong n)
{
   if ((ULong)(c->end - c->p) < n) { c->bad = True; c->p = c->end; } else c->p += n;
}

/* One attribute's value: numbers and references in *v, blocks and
   expressions at *blk (length *v).  False for a form not known. */
static Bool ag_at_form(ag_at_cur *c, ULong form, UInt asz, ULong *v, const UChar **blk)
{
   *blk = NULL;
   switch (form) {
   case 0x01: *v = ag_at_fixed(c, asz); return True;                 /* addr */
   case 0x03: *v = ag_at_fixed(c, 2); *blk = c->p; ag_at_skip(c, *v); return True;
   case 0x04: *v = ag_at_fixed(c, 4); *blk = c->p; ag_at_skip(c, *v); return True;
   case 0x09: case 0x18: *v = ag_at_uleb(c); *blk = c->p; ag_at_skip(c, *v); return True;
   case 0x0a: *v = ag_at_fixed(c, 1); *blk = c->p; ag_at_skip(c, *v); return True;
   case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: *v = ag_at_fixed(c, 1); return True;
   case 0x05: case 0x12: case 0x26: case 0x2a: *v = ag_at_fixed(c, 2); return True;
   case 0x27: case 0x2b: *v = ag_at_fixed(c, 3); return True;
   case 0x06: case 0x0e: case 0x10: case 0x13: case 0x17: case 0x1c: case 0x1d:
   case 0x1f: case 0x28: case 0x2c: case 0x1f20: case 0x1f21:
      *v = ag_at_fixed(c, 4); return True;
   case 0x07: case 0x14: case 0x20: case 0x24: *v = ag_at_fixed(c, 8); return True;
   case 0x1e: ag_at_skip(c, 16); *v = 0; return True;
   case 0x08: while (c->p < c->end && *c->p) c->p++; ag_at_skip(c, 1); *v = 0; return True;
   case 0x0d: {                                                       /* sdata */
      ULong r = ag_at_uleb(c);
      *v = r;
      return True;
   }
   case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23:
   case 0x1f01: case 0x1f02:
      *v = ag_at_uleb(c); return True;
   case 0x19: case 0x21: *v = 0; return True;   /* flag_present; implicit_const (value in the abbrev) */
   default: return False;
   }
}

/* The abbreviation with code `code` of the table at abbrev (linear: the
   tables of small programs are short; a miss ends the unit). */
static const UChar *ag_at_abbrev(const UChar *tab, const UChar *end, ULong code,
                                 ULong *tag, Bool *children)
{
   ag_at_cur c = { tab, end, False };
   while (c.p < c.end && !c.bad) {
      ULong k = ag_at_uleb(&c);
      if (k == 0) return NULL;
      *tag = ag_at_uleb(&c);
      *children = c.p < c.end && *c.p++;
      if (k == code) return c.p;
      for (;;) {
         ULong at = ag_at_uleb(&c), fm = ag_at_uleb(&c);
         if (fm == 0x21) ag_at_uleb(&c);
         if ((at == 0 && fm == 0) || c.bad) break;
      }
   }
   return NULL;
}

typedef struct {
   ag_map *dies;               /* section offset -> ag_at_die */
   ag_at_var *vars;
   UInt nvars, capvars;
   const UChar *addr;          /* .debug_addr (DWARF 5's DW_OP_addrx), or NULL */
   ULong addr_len;
   const UChar *str, *stroff;  /* .debug_str, .debug_str_offsets (strx), or NULL */
   ULong str_len, stroff_len;
} ag_at_scan;

/* A class of the C++ standard library's atomics (a pseudo-tag). */
#define AG_AT_STD_ATOMIC 0xffff
#define AG_AT_DEPTH      64

/* A name attribute's string: inline, or at an offset into .debug_str,
   given (strp) or through the unit's table (strx: Clang's DWARF 5, from
   base, its DW_AT_str_offsets_base); NULL when not there. */
static const HChar *ag_at_string(const ag_at_scan *s, ULong form, ULong v, const UChar *inl,
                                 const UChar *end, ULong base)
{
   const UChar *p = inl, *lim = end;
   if (form == 0x1a || (form >= 0x25 && form <= 0x28)) {
      ULong at = base + v * 4;
      if (!s->stroff || base == 0 || at + 4 > s->stroff_len) return NULL;
      ag_at_cur c = { s->stroff + at, s->stroff + s->stroff_len, False };
      v = ag_at_fixed(&c, 4);
      form = 0x0e;
   }
   if (form == 0x0e) {
      if (!s->str || v >= s->str_len) return NULL;
      p = s->str + v;
      lim = s->str + s->str_len;
   } else if (form != 0x08) {
      return NULL;
   }
   for (const UChar *q = p; q < lim; q++)
      if (*q == 0) return (const HChar *)p;
   return NULL;
}

/* Is a class of this name, inside namespace std, one of the standard
   library's atomics (std::atomic<T>, and what libstdc++ builds it of)? */
static Bool ag_at_std_atomic(const HChar *name)
{
   static const HChar *const prefixes[] = {
      "atomic<", "__atomic_base<", "__atomic_float<", "atomic_flag", "__atomic_flag_base",
   };
   for (UInt i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
      if (VG_(strncmp)(name, prefixes[i], VG_(strlen)(prefixes[i])) == 0) return True;
   return False;
}

/* Entry idx of the unit's table in .debug_addr (from base, its
   DW_AT_addr_base), or 0. */
static ULong ag_at_addrx(const ag_at_scan *s, ULong base, ULong idx, UInt asz)
{
   ULong off = base + idx * asz;
   if (!s->addr || base == 0 || off + asz > s->addr_len || off < base) return 0;
   ag_at_cur c = { s->addr + off, s->addr + s->addr_len, False };
   return ag_at_fixed(&c, asz);
}

static void ag_at_add_var(ag_at_scan *s, ULong addr, ULong type, ULong spec)
{
   if (s->nvars == s->capvars) {
      s->capvars = s->capvars ? 2 * s->capvars : 64;
      s->vars = VG_(realloc)("ag.at.vars", s->vars, s->capvars * sizeof *s->vars);
   }
   s->vars[s->nvars++] = (ag_at_var){ addr, type, spec };
}

/* The DIEs of one unit (body from its first DIE to end; base: the unit's
   offset in the section, for its references). */
static void ag_at_unit(ag_at_scan *s, const UChar *sec, const UChar *body, const UChar *end,
                       const UChar *abbr, const UChar *abbr_end, UInt asz, ULong base)
{
   ag_at_cur c = { body, end, False };
   ULong addr_base = 0, str_base = 0;
   Bool std_at[AG_AT_DEPTH] = { False };   /* the DIEs at depth d are inside std */
   Int depth = 0;
   while (c.p < c.end && !c.bad) {
      ULong off = (ULong)(c.p - sec);
      ULong code = ag_at_uleb(&c), tag;
      Bool children;
      if (code == 0) {
         if (depth > 0) depth--;
         continue;
      }
      const UChar *spec = ag_at_abbrev(abbr, abbr_end, code, &tag, &children);
      if (!spec) return;
      ag_at_cur a = { spec, abbr_end, False };
      ULong type = 0, size = 0, addr = 0, specof = 0, addrx = ~0ULL;
      const HChar *name = NULL;
      /* names are read only where they are asked about: classes and
         structures (std::atomic), namespaces (std) */
      Bool named = tag == 0x13 || tag == 0x02 || tag == 0x39;
      for (;;) {
         ULong at = ag_at_uleb(&a), fm = ag_at_uleb(&a), v = 0;
         const UChar *blk, *at_p = c.p;
         if (fm == 0x21) v = ag_at_uleb(&a);
         if ((at == 0 && fm == 0) || a.bad) break;
         if (fm == 0x16) fm = ag_at_uleb(&c);                    /* indirect */
         if (fm != 0x21 && !ag_at_form(&c, fm, asz, &v, &blk)) return;
         if (fm == 0x21) blk = NULL;
         if (at == 0x03 && named) name = ag_at_string(s, fm, v, at_p, c.end, str_base);
         if (at == 0x72 && !blk) str_base = v;              /* the unit's DW_AT_str_offsets_base */
         Bool unit_ref = fm == 0x11 || fm == 0x12 || fm == 0x13 || fm == 0x14 || fm == 0x15;
         if (at == 0x49 && (unit_ref || fm == 0x10)) type = unit_ref ? base + v : v;
         else if (at == 0x47 && (unit_ref || fm == 0x10)) specof = unit_ref ? base + v : v;
         else if (at == 0x0b && !blk) size = v;
         else if (at == 0x02 && blk && v == 1 + asz && blk[0] == 0x03) {    /* DW_OP_addr */
            ag_at_cur b = { blk + 1, blk + v, False };
            addr = ag_at_fixed(&b, asz);
         } else if (at == 0x02 && blk && v >= 2 && (blk[0] == 0xa1 || blk[0] == 0xfb)) {
            ag_at_cur b = { blk + 1, blk + v, False };   /* DW_OP_addrx (Clang) */
            addrx = ag_at_uleb(&b);
            if (b.p != blk + v) addrx = ~0ULL;          /* more than the address */
         } else if (at == 0x73 && !blk) {
            addr_base = v;                                  /* the unit's DW_AT_addr_base */
         }
      }
      if (addrx != ~0ULL) addr = ag_at_addrx(s, addr_base, addrx, asz);
      Bool in_std = std_at[depth < AG_AT_DEPTH ? depth : AG_AT_DEPTH - 1];
      if (tag == 0x34 && addr) ag_at_add_var(s, addr, type, specof);      /* variable */
      else if (type || size || tag == 0x47) {
         ag_at_die *d = ag_map_lookup(s->dies, off, NULL);
         d->tag = (UShort)tag;
         d->type = type ? type : specof;
         d->size = (UInt)size;
         if ((tag == 0x13 || tag == 0x02) && in_std && size && name && ag_at_std_atomic(name))
            d->tag = AG_AT_STD_ATOMIC;
      }
      if (children) {
         depth++;
         if (depth < AG_AT_DEPTH)
            std_at[depth] = in_std || (tag == 0x39 && name && VG_(strcmp)(name, "std") == 0);
      }
   }
}

/* The size of an _Atomic object (or a std::atomic) of type t, or 0 if t
   is neither. */
static UInt ag_at_atomic_size(ag_at_scan *s, ULong t)
{
   Bool atomic = False;
   for (UInt hops = 0; t && hops < 16; hops++) {
      ag_at_die *d = ag_map_get(s->dies, t);
      if (!d) return 0;
      if (d->tag == AG_AT_STD_ATOMIC) return d->size;
      if (d->tag == 0x47) atomic = True;
      if (d->tag != 0x16 && d->tag != 0x26 && d->tag != 0x35 && d->tag != 0x47)
         return atomic ? d->size : 0;
      t = d->type;
   }
   return 0;
}

static void ag_at_add_range(Addr lo, UInt size)
{
   if (size == 0 || size > 16) return;
   if (ag_at_n == ag_at_cap) {
      ag_at_cap = ag_at_cap ? 2 * ag_at_cap : 64;
      ag_at_ranges = VG_(realloc)("ag.at.ranges", ag_at_ranges, ag_at_cap * sizeof *ag_at_ranges);
   }
   ag_at_ranges[ag_at_n++] = (ag_at_range){ lo, lo + size };
}

static void ag_at_read(const HChar *path, PtrdiffT bias)
{
   SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(r)) return;
   Int fd = (Int)sr_Res(r);
   ULong ilen = 0, alen = 0;
   UChar *info = ag_elf_section(fd, ".debug_info", &ilen, AG_AT_MAX_SECTION);
   UChar *abbr = info ? ag_elf_section(fd, ".debug_abbrev", &alen, AG_AT_MAX_SECTION) : NULL;
   ULong xlen = 0, slen = 0, olen = 0;
   UChar *addrs = abbr ? ag_elf_section(fd, ".debug_addr", &xlen, AG_AT_MAX_SECTION) : NULL;
   UChar *strs = abbr ? ag_elf_section(fd, ".debug_str", &slen, AG_AT_MAX_SECTION) : NULL;
   UChar *soffs = abbr ? ag_elf_section(fd, ".debug_str_offsets", &olen, AG_AT_MAX_SECTION) : NULL;
   VG_(close)(fd);
   if (!info || !abbr) goto out;
   ag_at_scan s = { ag_map_new(sizeof(ag_at_die)), NULL, 0, 0, addrs, xlen, strs, soffs, slen, olen };
   for (const UChar *u = info; u + 11 <= info + ilen;) {
      ag_at_cur c = { u, info + ilen, False };
      ULong len = ag_at_fixed(&c, 4);
      if (len >= 0xfffffff0ULL || len > (ULong)(info + ilen - c.p)) break;
      const UChar *end = c.p + len;
      UInt ver = (UInt)ag_at_fixed(&c, 2), asz;
      ULong aoff, kind = 1;
      if (ver >= 5) {
         kind = ag_at_fixed(&c, 1);
         asz = (UInt)ag_at_fixed(&c, 1);
         aoff = ag_at_fixed(&c, 4);
      } else {
         aoff = ag_at_fixed(&c, 4);
         asz = (UInt)ag_at_fixed(&c, 1);
      }
      if (ver >= 2 && ver <= 5 && (kind == 1 || kind == 3) && asz == 8 && aoff < alen && !c.bad)
         ag_at_unit(&s, info, c.p, end, abbr + aoff, abbr + alen, asz, (ULong)(u - info));
      u = end;
   }
   for (UInt i = 0; i < s.nvars; i++) {
      UInt size = ag_at_atomic_size(&s, s.vars[i].type);
      if (!size && s.vars[i].spec) {
         ag_at_die *d = ag_map_get(s.dies, s.vars[i].spec);
         if (d) size = ag_at_atomic_size(&s, d->type);
      }
      if (size) ag_at_add_range((Addr)(s.vars[i].addr + bias), size);
   }
   ag_map_delete(s.dies);
   if (s.vars) VG_(free)(s.vars);
out:
   if (info) VG_(free)(info);
   if (abbr) VG_(free)(abbr);
   if (addrs) VG_(free)(addrs);
   if (strs) VG_(free)(strs);
   if (soffs) VG_(free)(soffs);
}

/* ---- the query --------------------------------------------------------- */

Bool ag_at_is_atomic(Addr a, UInt size)
{
   /* (VG_(find_DebugInfo) knows objects by their text only) */
   for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
      Bool seen = False;
      for (UInt i = 0; i < ag_at_nseen && !seen; i++) seen = ag_at_seen[i] == di;
      if (seen || ag_at_nseen == AG_AT_MAX_OBJS) continue;
      ag_at_seen[ag_at_nseen++] = di;
      const HChar *path = VG_(DebugInfo_get_filename)(di);
      if (path) ag_at_read(path, VG_(DebugInfo_get_text_bias)(di));
   }
   for (UInt i = 0; i < ag_at_n; i++)
      if (a >= ag_at_ranges[i].lo && a + size <= ag_at_ranges[i].hi) return True;
   return False;
}
