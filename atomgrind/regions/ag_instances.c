/* ag_instances.c -- see ag_instances.h.
 *
 * An instance is one place where the compiler inlined a function: it is
 * named by the function and the chain of call sites it was inlined through
 * (each outer frame's name and the line of the inlined call, as the debug
 * information gives them), so two calls on different lines are two
 * instances.  Copies the compiler made of one call on one line (an unrolled
 * loop) cannot be told apart: they count as one instance.
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
static ULong ag_is_lookups;

static ULong ag_is_hash(ULong h, const HChar *s)
{
   for (; *s; s++) h = (h ^ (UChar)*s) * 1099511628211ULL;   /* FNV-1a */
   return (h ^ 0xff) * 1099511628211ULL;                      /* a separator */
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

/* The identity of instance i of a chain of n frames: its name and every
   outer frame's name and call line. */
static UInt ag_is_instance(const HChar **names, const HChar **wheres, Int i, Int n)
{
   ULong h = 1469598103934665603ULL;
   h = ag_is_hash(h, names[i]);
   for (Int j = i + 1; j < n; j++) h = ag_is_hash(ag_is_hash(h, names[j]), wheres[j]);
   Int created = 0;
   UInt *id = ag_map_lookup(ag_is_inst, h, &created);
   if (created) *id = ++ag_is_ninst;
   return *id;
}

static UInt ag_is_intern(const ag_inst_chain *c)
{
   ULong h = 1469598103934665603ULL;
   for (UInt i = 0; i < c->n; i++) h = (h ^ c->id[i]) * 1099511628211ULL;
   Int created = 0;
   UInt *slot = ag_map_lookup(ag_is_chain, h, &created);
   if (!created) return *slot;
   if (ag_is_nchains == ag_is_cap) {
      ag_is_cap *= 2;
      ag_is_chains = VG_(realloc)("ag.inst.chains", ag_is_chains, ag_is_cap * sizeof *ag_is_chains);
   }
   ag_is_chains[ag_is_nchains] = *c;
   *slot = ag_is_nchains++;
   return *slot;
}

UInt ag_inst_at(Addr ip)
{
   const HChar *names[AG_INLINE_MAX], *wheres[AG_INLINE_MAX];
   if (!ag_is_on) return 0;
   ag_is_lookups++;
   Int n = ag_inline_frames(ip, names, wheres, AG_INLINE_MAX);
   if (n < 2) return 0;                  /* nothing inlined here */
   ag_inst_chain c;
   c.n = 0;
   /* names[n-1] holds the code (its calls are regions by their entry);
      the others are inlined instances, outermost last */
   for (Int i = n - 2; i >= 0; i--) {
      /* Valgrind's name for an inlined function whose DWARF is in
         another unit (link-time optimisation) that atomgrind-inlines
         could not name either: no pattern can match it */
      if (VG_(strcmp)(names[i], AG_LTO_UNKNOWN) == 0) ag_fnspec_unnamed_inline();
      Int fn = ag_fnspec_match_name(names[i], ip);
      if (fn == AG_NO_FN) continue;
      c.fn[c.n] = fn;
      c.id[c.n] = ag_is_instance(names, wheres, i, n);
      c.n++;
   }
   return c.n == 0 ? 0 : ag_is_intern(&c);
}

static const ag_inst_chain ag_is_empty;   /* chain 0, also while off */

const ag_inst_chain *ag_inst_chain_of(UInt chain)
{
   return chain == 0 ? &ag_is_empty : &ag_is_chains[chain];
}

void ag_instances_fini(void)
{
   ag_lto_fini();
   if (ag_is_on && VG_(clo_stats))
      VG_(umsg)("atomgrind: inline: %llu instruction(s) looked up, %u instance(s) of "
                "atomic functions in %u chain(s)\n",
                ag_is_lookups, ag_is_ninst, ag_is_nchains - 1);
}
