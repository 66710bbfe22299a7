/* ag_shim_vg.c -- ag_shim.h for engine code running inside Valgrind. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "ag_shim.h"

void *ag_malloc(size_t n) { return VG_(malloc)("ag.engine", n ? n : 1); }
void *ag_calloc(size_t n, size_t sz) { return VG_(calloc)("ag.engine", n ? n : 1, sz ? sz : 1); }
void *ag_realloc(void *p, size_t n) { return VG_(realloc)("ag.engine", p, n ? n : 1); }
void ag_free(void *p) { if (p) VG_(free)(p); }
void ag_panic(const char *msg) { VG_(tool_panic)((HChar *)msg); }
void ag_fatal(const char *msg)
{
   VG_(message)(Vg_FailMsg, "atomgrind: %s\n", msg);
   VG_(exit)(1);
}
