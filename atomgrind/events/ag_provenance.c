/* ag_provenance.c -- see ag_provenance.h.  The source file of an
 * instruction's line says cheaply whether it comes from one of libstdc++'s
 * atomic headers; only then is the chain of inlined functions read, and
 * the innermost one must be an atomic operation or a reference count's
 * update.  __atomic builtins (C11's atomic_load_explicit, libstdc++'s
 * own use of them) leave no frame of their own: a plain mov they compile
 * to is the caller's, and is classified by the caller's file. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client) */
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "pub_tool_debuginfo.h"    /* VG_(get_filename), VG_(get_fnname), VG_(get_objname),
                                      VG_(find_DebugInfo) */
#include "pub_tool_libcbase.h"     /* VG_(strlen), VG_(strstr), VG_(strncmp) */
#include "ag_inline.h"             /* ag_inline_chain */
#include "ag_provenance.h"

/* Does path end with "/name" (or equal name)? */
static Bool ag_pv_file_is(const HChar *path, const HChar *name)
{
   Int lp = VG_(strlen)(path), ln = VG_(strlen)(name);
   if (lp < ln || VG_(strcmp)(path + lp - ln, name) != 0) return False;
   return lp == ln || path[lp - ln - 1] == '/';
}

static Bool ag_pv_starts(const HChar *s, const HChar *prefix)
{
   return VG_(strncmp)(s, prefix, VG_(strlen)(prefix)) == 0;
}

/* The base of a function name: past its qualifiers and template
   arguments, up to its parameters.  Inlined frames are named unqualified
   ("load"), out-of-line ones in full ("std::__atomic_base<int>::load(...)"). */
static Bool ag_pv_named(const HChar *fn, const HChar *base)
{
   const HChar *s = fn, *last = fn;
   Int depth = 0;
   for (; *s && !(depth == 0 && *s == '('); s++) {
      if (*s == '<') depth++;
      else if (*s == '>') depth--;
      else if (depth == 0 && s[0] == ':' && s[1] == ':') last = s + 2;
   }
   Int n = VG_(strlen)(base);
   return VG_(strncmp)(last, base, n) == 0 && (last[n] == 0 || last[n] == '(' || last[n] == '<');
}

/* C++20's atomic waits (atomic<T>::wait and notify, counting_semaphore,
   latch, barrier): the __atomic builtins on the waited-on word there are
   atomic operations, and their loads plain movs. */
static Bool ag_pv_atomic_wait_h(const HChar *file)
{
   return ag_pv_file_is(file, "atomic_wait.h") || ag_pv_file_is(file, "atomic_timed_wait.h")
          || ag_pv_file_is(file, "semaphore_base.h");
}

/* libstdc++'s reference counts: ext/atomicity.h's __exchange_and_add and
   __atomic_add (shared_ptr's control block, locales, facets, ios_base
   callbacks), and the control block's own members (weak_ptr::lock's CAS). */
static Bool ag_pv_named_any(const HChar *fn, const HChar *const *names, UInt n)
{
   for (UInt i = 0; i < n; i++)
      if (ag_pv_named(fn, names[i])) return True;
   return False;
}

/* The constructors in the atomic headers: they initialise the value with a
   plain store, which C++ does not make atomic (a constructor racing with
   another thread's load is a race). */
static Bool ag_pv_atomic_ctor(const HChar *fn)
{
   static const HChar *const names[] = {
      "__atomic_base", "atomic", "__atomic_float", "__atomic_ref", "atomic_ref",
      "atomic_flag", "__atomic_flag_base", "__atomic_semaphore",
   };
   return ag_pv_named_any(fn, names, sizeof names / sizeof names[0]);
}

static Bool ag_pv_refcount_fn(const HChar *fn)
{
   static const HChar *const names[] = {
      "__exchange_and_add", "__exchange_and_add_dispatch", "__exchange_and_add_single",
      "__atomic_add", "__atomic_add_dispatch", "__atomic_add_single",
      "_M_add_ref_copy", "_M_add_ref_lock", "_M_add_ref_lock_nothrow", "_M_release",
      "_M_release_last_use", "_M_weak_add_ref", "_M_weak_release",
      "_M_add_reference", "_M_remove_reference",
   };
   return ag_pv_named_any(fn, names, sizeof names / sizeof names[0]);
}

/* The innermost function at ip, if the debug info has inline records
   there; else the symbol's name. */
static const HChar *ag_pv_innermost(Addr ip)
{
   const HChar *names[AG_INLINE_MAX];
   return ag_inline_chain(ip, names, AG_INLINE_MAX) > 0 ? names[0] : NULL;
}

/* Code of libstdc++.so itself (Debian ships it without line information):
   its locale and facet functions update reference counts with their only
   read-modify-writes (their one-time initialisation is pthread_once).
   ctype<char>'s widen and narrow caches are filled on first use by any
   thread that finds them empty, each filling them with the same bytes,
   and read without a lock by the inlined widen/narrow (std::endl): the
   library treats them as atomic, and so does this. */
static UInt ag_pv_libstdcxx(DiEpoch ep, Addr ip, Bool rmw)
{
   const HChar *obj, *fn;
   if (!VG_(get_objname)(ep, ip, &obj) || !VG_(strstr)(obj, "libstdc++")) return AG_PROV_NONE;
   if (!VG_(get_fnname)(ep, ip, &fn)) return AG_PROV_NONE;
   if (!rmw)
      return ag_pv_starts(fn, "std::ctype<char>::_M_widen_init")
             || ag_pv_starts(fn, "std::ctype<char>::_M_narrow_init") ? AG_PROV_ATOMIC : AG_PROV_NONE;
   return ag_pv_starts(fn, "std::locale") || ag_pv_refcount_fn(fn)
          ? AG_PROV_REFCOUNT : AG_PROV_NONE;
}

/* The text of the loaded object whose soname starts with `so`, as last
   found: most instructions asked about in a row are in one object. */
typedef struct { const HChar *so; Addr lo, hi; } ag_pv_text;

static Bool ag_pv_in(ag_pv_text *x, DiEpoch ep, Addr ip)
{
   if (ip >= x->lo && ip < x->hi) return True;
   DebugInfo *di = VG_(find_DebugInfo)(ep, ip);
   const HChar *so = di ? VG_(DebugInfo_get_soname)(di) : NULL;
   if (!so || !ag_pv_starts(so, x->so)) return False;
   x->lo = VG_(DebugInfo_get_text_avma)(di);
   x->hi = x->lo + VG_(DebugInfo_get_text_size)(di);
   return True;
}

static ag_pv_text ag_pv_libc = { "libc.so", 1, 0 };
/* GNU OpenMP's runtime synchronises its teams through __atomic builtins
   and futex calls: a barrier's generation is stored (release) and loaded
   (acquire) with plain movs, and Debian ships it without line
   information.  Its loads and stores are taken as atomic, so that the
   program's work before a barrier or a parallel region's start is
   ordered before the work after it, as OpenMP orders it.  (Its
   read-modify-writes are LOCK-prefixed, atomic already.) */
static ag_pv_text ag_pv_libgomp = { "libgomp.so", 1, 0 };

UInt ag_prov_of(Addr ip, Bool rmw)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *file;
   if (ag_pv_in(&ag_pv_libc, ep, ip)) return AG_PROV_LIBC;
   if (ag_pv_in(&ag_pv_libgomp, ep, ip)) return rmw ? AG_PROV_NONE : AG_PROV_ATOMIC;
   if (!VG_(get_filename)(ep, ip, &file) || !file[0])
      return ag_pv_libstdcxx(ep, ip, rmw);
   if (ag_pv_file_is(file, "locale_facets.h")) {        /* the caches' readers */
      const HChar *fn = ag_pv_innermost(ip);
      return fn && !rmw && (ag_pv_named(fn, "widen") || ag_pv_named(fn, "narrow"))
             ? AG_PROV_ATOMIC : AG_PROV_NONE;
   }
   Bool atomic_h = ag_pv_file_is(file, "atomic_base.h") || ag_pv_file_is(file, "atomic")
                   || ag_pv_atomic_wait_h(file);
   Bool count_h = ag_pv_file_is(file, "atomicity.h") || ag_pv_file_is(file, "shared_ptr_base.h");
   if (!atomic_h && !count_h) return AG_PROV_NONE;
   /* ext/atomicity.h's only read-modify-writes are its count updates, which
      Clang may merge from several inlined copies into code of no inlined
      function (its line 0) */
   if (rmw && ag_pv_file_is(file, "atomicity.h")) return AG_PROV_REFCOUNT;
   const HChar *fn = ag_pv_innermost(ip);
   if (!fn) return AG_PROV_NONE;
   /* every other access there is an atomic operation's */
   if (atomic_h) return ag_pv_atomic_ctor(fn) ? AG_PROV_NONE : AG_PROV_ATOMIC;
   if (count_h && rmw && ag_pv_refcount_fn(fn)) return AG_PROV_REFCOUNT;
   return AG_PROV_NONE;
}

/* A word of the client's, if mapped readable. */
static Bool ag_prov_word(Addr a, Addr *w)
{
   if (a % sizeof(Addr) || !VG_(am_is_valid_for_client)(a, sizeof(Addr), VKI_PROT_READ))
      return False;
   *w = *(const Addr *)a;
   return True;
}

/* Valgrind reads no symbols in .data.rel.ro, where a position-independent
   program's vtables are, so a vtable is known by its shape (the Itanium
   C++ ABI's): an offset-to-top at v-16 (0, or minus a base's offset), the
   type_info at v-8 -- an object whose own vtable's first function belongs
   to a __cxxabiv1 type_info class -- and a function at v.  Read at
   translation time, when a constant is stored. */
Bool ag_prov_vtable(Addr v)
{
   Addr top, ti, ti_vt, ti_fn, fn;
   const HChar *name;
   if (!ag_prov_word(v - 16, &top) || !ag_prov_word(v - 8, &ti) || !ag_prov_word(v, &fn))
      return False;
   if ((Long)top > 0 || (Long)top < -(1L << 24) || fn == 0) return False;
   if (!ag_prov_word(ti, &ti_vt) || !ag_prov_word(ti_vt, &ti_fn)) return False;
   DiEpoch ep = VG_(current_DiEpoch)();
   return VG_(get_fnname)(ep, ti_fn, &name) && VG_(strstr)(name, "type_info") != NULL;
}
