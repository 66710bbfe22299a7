/* ag_replace_malloc.c -- the program's malloc & co. replaced (as Helgrind
 * and DRD do) so the allocator's bookkeeping never looks like program
 * data, and a freed block's locations start fresh when the address is
 * reused.  (The engines' own allocator is ag_malloc in ag_shim.h.) */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"        /* VG_(memset), VG_(memcpy) */
#include "pub_tool_replacemalloc.h"   /* VG_(cli_malloc), VG_(clo_alignment) */
#include "pub_tool_tooliface.h"       /* VG_(needs_malloc_replacement) */
#include "pub_tool_execontext.h"      /* VG_(record_ExeContext) */
#include "pub_tool_options.h"         /* VG_(clo_xtree_memory) */
#include "pub_tool_xtree.h"           /* VG_(XT_filter_1top_and_maybe_below_main) */
#include "pub_tool_xtmemory.h"        /* --xtree-memory, as Helgrind has it */
#include "ag_analysis.h"              /* ag_an_free, ag_an_forget */
#include "ag_shared.h"                /* a new block is nobody's yet */
#include "ag_blocks.h"                /* blocks, for race reports */
#include "ag_sync.h"                  /* locks in a freed block are gone */
#include "ag_threads.h"               /* ag_cur: the thread that frees */
#include "ag_errors.h"                /* an invalid free reported */
#include "ag_replace_malloc.h"

static void *ag_rm_alloc(ThreadId vgtid, SizeT align, SizeT n, Bool zero)
{
   void *p;
   if ((SSizeT)n < 0) return NULL;
   p = VG_(cli_malloc)(align, n);
   if (p && zero) VG_(memset)(p, 0, n);
   if (p) ag_shared_fresh((Addr)p, n);      /* who touched the freed block before */
   /* new memory, as Helgrind and DRD make it: no access before counts,
      such as a read past the end of a neighbouring block by code that
      reads in wide steps (glibc's string functions did, before the
      preload replaced them: ag_strmem.c) */
   /* (its whole usable size, which the free of an earlier block there
      wrote: ag_rm_free_block) */
   if (p) ag_an_forget((Addr)p, VG_(cli_malloc_usable_size)(p));
   if (p) {
      /* every block is kept, so that a free of anything else is caught;
         its stack only when asked for (a stack per malloc costs) */
      ExeContext *ec = ag_blocks_on ? VG_(record_ExeContext)(vgtid, 0) : NULL;
      ag_blocks_alloc((Addr)p, n, ec, ag_cur ? ag_cur->tid : AG_NO_TID);
      if (VG_(clo_xtree_memory) == Vg_XTMemory_Full) VG_(XTMemory_Full_alloc)(n, ec);
   }
   return p;
}

/* A free of p, not a live block, is reported, as Memcheck does, and not
   made: Valgrind's allocator would crash on it (a double free, a pointer
   into a block or the stack, a buggy program's garbage). */
static void ag_rm_invalid(ThreadId vgtid, void *p, const HChar *what)
{
   ag_error_misuse(vgtid, "Invalid %s: %p is not a live heap block "
                   "(freed already, or never allocated by malloc)", what, p);
}

static void ag_rm_free_block(ThreadId vgtid, void *p, const HChar *what)
{
   SizeT asked;
   ExeContext *ec;
   if (!p) return;
   if (!ag_blocks_free((Addr)p, &asked, &ec)) {
      ag_rm_invalid(vgtid, p, what);
      return;
   }
   /* a free is a write of the block, unless made inside a sync call */
   SizeT n = VG_(cli_malloc_usable_size)(p);
   if (ag_cur && !ag_cur->ignore) ag_an_free(ag_cur->tid, (Addr)p, n);
   else ag_an_forget((Addr)p, n);
   ag_sync_forget_range((Addr)p, n);
   if (VG_(clo_xtree_memory) == Vg_XTMemory_Full)
      VG_(XTMemory_Full_free)(asked, ec, VG_(record_ExeContext)(vgtid, 0));
   VG_(cli_free)(p);
}

static void *ag_rm_malloc_fn(ThreadId t, SizeT n) { return ag_rm_alloc(t, VG_(clo_alignment), n, False); }
static void *ag_rm_memalign_fn(ThreadId t, SizeT align, SizeT n) { return ag_rm_alloc(t, align, n, False); }
static void *ag_rm_new_aligned(ThreadId t, SizeT n, SizeT align) { return ag_rm_alloc(t, align, n, False); }
static void *ag_rm_calloc_fn(ThreadId t, SizeT nmemb, SizeT size)
{
   if (size && nmemb > ((SizeT)-1) / size) return NULL;
   return ag_rm_alloc(t, VG_(clo_alignment), nmemb * size, True);
}
static void ag_rm_free_fn(ThreadId t, void *p) { ag_rm_free_block(t, p, "free()"); }
static void ag_rm_delete_fn(ThreadId t, void *p) { ag_rm_free_block(t, p, "delete"); }
static void ag_rm_delete_vec_fn(ThreadId t, void *p) { ag_rm_free_block(t, p, "delete[]"); }
static void ag_rm_delete_aligned(ThreadId t, void *p, SizeT align)
{
   (void)align;
   ag_rm_free_block(t, p, "delete");
}
static void ag_rm_delete_vec_aligned(ThreadId t, void *p, SizeT align)
{
   (void)align;
   ag_rm_free_block(t, p, "delete[]");
}

static void *ag_rm_realloc_fn(ThreadId t, void *old, SizeT n)
{
   if (!old) return ag_rm_alloc(t, VG_(clo_alignment), n, False);
   if (!ag_blocks_live((Addr)old)) {             /* (before a new block is made) */
      ag_rm_invalid(t, old, "realloc()");
      return NULL;
   }
   if (n == 0) { ag_rm_free_block(t, old, "realloc()"); return NULL; }
   void *p = ag_rm_alloc(t, VG_(clo_alignment), n, False);
   if (!p) return NULL;
   SizeT oldn = VG_(cli_malloc_usable_size)(old);
   VG_(memcpy)(p, old, oldn < n ? oldn : n);
   ag_rm_free_block(t, old, "realloc()");
   return p;
}

static SizeT ag_rm_usable_size(ThreadId t, void *p)
{
   (void)t;
   return ag_blocks_live((Addr)p) ? VG_(cli_malloc_usable_size)(p) : 0;
}

void ag_replace_malloc_init(void)
{
   VG_(needs_malloc_replacement)(ag_rm_malloc_fn, ag_rm_malloc_fn, ag_rm_new_aligned,
                                 ag_rm_malloc_fn, ag_rm_new_aligned, ag_rm_memalign_fn,
                                 ag_rm_calloc_fn, ag_rm_free_fn, ag_rm_delete_fn,
                                 ag_rm_delete_aligned, ag_rm_delete_vec_fn,
                                 ag_rm_delete_vec_aligned,
                                 ag_rm_realloc_fn, ag_rm_usable_size, 0);
}

void ag_replace_malloc_post_clo_init(void)
{
   if (VG_(clo_xtree_memory) == Vg_XTMemory_None) return;
   ag_blocks_on = True;                   /* a stack per block, as Helgrind */
   if (VG_(clo_xtree_memory) == Vg_XTMemory_Full)
      VG_(XTMemory_Full_init)(VG_(XT_filter_1top_and_maybe_below_main));
}

void ag_replace_malloc_fini(void)
{
   if (VG_(clo_xtree_memory) != Vg_XTMemory_None)
      VG_(XTMemory_report)(VG_(clo_xtree_memory_file), True, ag_blocks_xt_next,
                           VG_(XT_filter_1top_and_maybe_below_main));
}
