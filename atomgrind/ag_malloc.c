/* ag_malloc.c -- malloc & co. replaced (as Helgrind and DRD do) so the
 * allocator's bookkeeping never looks like program data, and a freed
 * block's locations start fresh when the address is reused. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_tooliface.h"
#include "ag_tool.h"

static void *ag_alloc(SizeT align, SizeT n, Bool zero)
{
   void *p;
   if ((SSizeT)n < 0) return NULL;
   p = VG_(cli_malloc)(align, n);
   if (p && zero) VG_(memset)(p, 0, n);
   return p;
}

static void ag_release(void *p)
{
   if (!p) return;
   ag_an_forget((Addr)p, VG_(cli_malloc_usable_size)(p));
   VG_(cli_free)(p);
}

static void *ag_malloc_fn(ThreadId t, SizeT n) { (void)t; return ag_alloc(VG_(clo_alignment), n, False); }
static void *ag_memalign_fn(ThreadId t, SizeT align, SizeT n) { (void)t; return ag_alloc(align, n, False); }
static void *ag_new_aligned(ThreadId t, SizeT n, SizeT align) { (void)t; return ag_alloc(align, n, False); }
static void *ag_calloc_fn(ThreadId t, SizeT nmemb, SizeT size)
{
   (void)t;
   if (size && nmemb > ((SizeT)-1) / size) return NULL;
   return ag_alloc(VG_(clo_alignment), nmemb * size, True);
}
static void ag_free_fn(ThreadId t, void *p) { (void)t; ag_release(p); }
static void ag_delete_aligned(ThreadId t, void *p, SizeT align) { (void)t; (void)align; ag_release(p); }

static void *ag_realloc_fn(ThreadId t, void *old, SizeT n)
{
   (void)t;
   if (!old) return ag_alloc(VG_(clo_alignment), n, False);
   if (n == 0) { ag_release(old); return NULL; }
   void *p = ag_alloc(VG_(clo_alignment), n, False);
   if (!p) return NULL;
   SizeT oldn = VG_(cli_malloc_usable_size)(old);
   VG_(memcpy)(p, old, oldn < n ? oldn : n);
   ag_release(old);
   return p;
}

static SizeT ag_usable_size(ThreadId t, void *p) { (void)t; return VG_(cli_malloc_usable_size)(p); }

void ag_malloc_init(void)
{
   VG_(needs_malloc_replacement)(ag_malloc_fn, ag_malloc_fn, ag_new_aligned,
                                 ag_malloc_fn, ag_new_aligned, ag_memalign_fn,
                                 ag_calloc_fn, ag_free_fn, ag_free_fn,
                                 ag_delete_aligned, ag_free_fn, ag_delete_aligned,
                                 ag_realloc_fn, ag_usable_size, 0);
}
