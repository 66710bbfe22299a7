/* ag_instances.c -- see ag_instances.h.
 *
 * An instance is one place where the compiler inlined a function: it is
 * named by the function and the chain of call sites it was inlined through
 * (each outer frame's name and the line of the inlined call, as the debug
 * information gives them), so two calls on different lines are two
 * instances.  Copies the compiler made of one call on one line (an unrolled
 * loop) share that identity, and the DWARF too gives them one record; they
 * are told apart where each begins: GCC marks a copy's entry in the line
 * table, and duplicates the mark with the code (atomgrind-inlines reads
 * them, ag_ltonames.c).  The chain of an entry's instruction has the bit
 * of that instance set in `starts`: reaching it from a copy that passed
 * its own entry closes that copy's region and opens the next one (the
 * compiler may schedule a copy's first instructions before its entry:
 * they are the same copy).  A copy whose code lies in several ranges (a
 * cold part, code scheduled around the caller's) has one entry, so it
 * stays one region.
 *
 * Chains are interned by a 64-bit hash of their text; instances and chains
 * live as long as the run (a few per inlined call site). */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memcmp), VG_(strlen), VG_(strcmp) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc) */
#include "pub_tool_options.h"      /* VG_(clo_stats) */
#include "ag_fnspec.h"             /* which functions are atomic */
#include "ag_inline.h"             /* the inline chain at an address */
#include "ag_instances.h"
#include "ag_ltonames.h"           /* AG_LTO_UNKNOWN, its --stats */
#include "ag_map.h"                /* hash -> id */

static Bool ag_is_on;
static ag_map *ag_is_inst;             /* instance text hash -> id */
static ag_map *ag_is_chain;            /* chain hash -> chain id */
static ag_inst_chain *ag_is_chains;    /* [0] is the empty chain */
static UInt ag_is_nchains, ag_is_cap, ag_is_ninst;
static ULong ag_is_lookups, ag_is_entries;

/* The first n characters of s, hashed into h. */
static ULong ag_is_hash_n(ULong h, const HChar *s, SizeT n)
{
   for (SizeT i = 0; i < n; i++) h = (h ^ (UChar)s[i]) * 1099511628211ULL;   /* FNV-1a */
   return (h ^ 0xff) * 1099511628211ULL;                                     /* a separator */
}

static ULong ag_is_hash(ULong h, const HChar *s)
{
   return ag_is_hash_n(h, s, VG_(strlen)(s));
}

void ag_instances_init(Bool on)
{
   ag_is_on = on;
   if (!on) return;
   ag_is_inst = ag_map_new(sizeof(UInt));
   ag_is_chain = ag_map_new(sizeof(UInt));
   ag_is_cap = 16;
   ag_is_chains = VG_(calloc)("ag.inst.chains", ag_is_cap, sizeof *ag_is_chains);
   ag_is_nchains = 1;
}

Bool ag_instances_on(void) { return ag_is_on; }

/* The function that holds the code, as the hash of its name: GCC moves
   the cold paths of foo (with those of the copies inlined into it) to a
   part of its own, "foo.cold" (GCC 7: "foo.cold.N"), which is still foo. */
static ULong ag_is_hash_holder(ULong h, const HChar *name)
{
   const HChar *cold = VG_(strstr)(name, ".cold");
   if (cold) {
      const HChar *s = cold + 5;
      if (*s == '.' && s[1]) for (s++; *s >= '0' && *s <= '9'; s++) {}
      if (*s == 0) return ag_is_hash_n(h, name, cold - name);
   }
   return ag_is_hash(h, name);
}

/* The identity of instance i of a chain of n frames: its name and every
   outer frame's name and call line. */
static UInt ag_is_instance(const HChar **names, const HChar **wheres, Int i, Int n)
{
   ULong h = 1469598103934665603ULL;
   h = ag_is_hash(h, names[i]);
   for (Int j = i + 1; j < n; j++)
      h = ag_is_hash(j == n - 1 ? ag_is_hash_holder(h, names[j]) : ag_is_hash(h, names[j]),
                     wheres[j]);
   Int created = 0;
   UInt *id = ag_map_lookup(ag_is_inst, h, &created);
   if (created) *id = ++ag_is_ninst;
   return *id;
}

static UInt ag_is_intern(ag_inst_chain *c)
{
   ULong h = 1469598103934665603ULL;
   for (UInt i = 0; i < c->n; i++) h = (h ^ c->id[i]) * 1099511628211ULL;
   if (c->starts) {
      ag_inst_chain p = *c;
      p.starts = 0;
      c->plain = ag_is_intern(&p);
      h = (h ^ ((ULong)c->starts << 32 | 0xe)) * 1099511628211ULL;
   }
   Int created = 0;
   UInt *slot = ag_map_lookup(ag_is_chain, h, &created);
   if (!created) return *slot;
   if (ag_is_nchains == ag_is_cap) {
      ag_is_cap *= 2;
      ag_is_chains = VG_(realloc)("ag.inst.chains", ag_is_chains, ag_is_cap * sizeof *ag_is_chains);
   }
   if (!c->starts) c->plain = ag_is_nchains;
   ag_is_chains[ag_is_nchains] = *c;
   *slot = ag_is_nchains++;
   return *slot;
}

/* Does a copy of frame i (of n) begin at ip?  Read once per object; when
   that cannot be, the copies of one call are one instance. */
static Bool ag_is_starts(Addr ip, const HChar **names, const HChar **wheres, Int i, Int n)
{
   if (ag_lto_entry(ip, n - 2 - i, ag_inline_line(wheres[i + 1]), names[i]) != 1)
      return False;
   ag_is_entries++;
   return True;
}

/* Frame i's name for the patterns: its full name when a pattern could
   name it ("bank::Account::withdraw(int)", as the function is named out
   of line), else Valgrind's (the bare "withdraw"). */
static const HChar *ag_is_full_name(Addr ip, const HChar **names, const HChar **wheres,
                                    Int i, Int n)
{
   if (!ag_fnspec_may_name(names[i], ip)) return names[i];
   const HChar *full = ag_lto_full_name(ip, n - 2 - i, ag_inline_line(wheres[i + 1]), names[i]);
   return full ? full : names[i];
}

UInt ag_inst_at(Addr ip)
{
   const HChar *names[AG_INLINE_MAX], *wheres[AG_INLINE_MAX];
   if (!ag_is_on) return 0;
   ag_is_lookups++;
   Int n = ag_inline_frames(ip, names, wheres, AG_INLINE_MAX);
   if (n < 2) return 0;                  /* nothing inlined here */
   ag_inst_chain c;
   c.n = c.starts = 0;
   /* names[n-1] holds the code (its calls are regions by their entry);
      the others are inlined instances, outermost last */
   for (Int i = n - 2; i >= 0; i--) {
      /* Valgrind's name for an inlined function whose DWARF is in
         another unit (link-time optimisation) that atomgrind-inlines
         could not name either: no pattern can match it */
      if (VG_(strcmp)(names[i], AG_LTO_UNKNOWN) == 0) ag_fnspec_unnamed_inline();
      Int fn = ag_fnspec_match_name(ag_is_full_name(ip, names, wheres, i, n), ip);
      if (fn == AG_NO_FN) continue;
      c.fn[c.n] = fn;
      c.id[c.n] = ag_is_instance(names, wheres, i, n);
      if (ag_is_starts(ip, names, wheres, i, n)) c.starts |= 1u << c.n;
      c.n++;
   }
   return c.n == 0 ? 0 : ag_is_intern(&c);
}

static const ag_inst_chain ag_is_empty;   /* chain 0, also while off */

const ag_inst_chain *ag_inst_chain_of(UInt chain)
{
   return chain == 0 ? &ag_is_empty : &ag_is_chains[chain];
}

Bool ag_inst_continues(UInt a, UInt b, UInt entered)
{
   const ag_inst_chain *x = ag_inst_chain_of(a), *y = ag_inst_chain_of(b);
   return a == b || (a != 0 && b != 0 && x->plain == y->plain && (y->starts & entered) == 0);
}

void ag_instances_fini(void)
{
   ag_lto_fini();
   if (ag_is_on && VG_(clo_stats))
      VG_(umsg)("atomgrind: inline: %llu instruction(s) looked up, %u instance(s) of "
                "atomic functions in %u chain(s), %llu entry(ies) of copies\n",
                ag_is_lookups, ag_is_ninst, ag_is_nchains - 1, ag_is_entries);
}
