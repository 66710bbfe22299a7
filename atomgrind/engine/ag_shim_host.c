/* ag_shim_host.c -- ag_shim.h over libc, for host builds (atomgrind-trace,
 * unit tests, fuzzers). */
#include "ag_shim.h"
#include <stdio.h>
#include <stdlib.h>

static void *ag_check(void *p)
{
   if (!p) ag_panic("out of memory");
   return p;
}

void *ag_malloc(size_t n) { return ag_check(malloc(n ? n : 1)); }
void *ag_calloc(size_t n, size_t sz) { return ag_check(calloc(n ? n : 1, sz ? sz : 1)); }
void *ag_realloc(void *p, size_t n) { return ag_check(realloc(p, n ? n : 1)); }
void ag_free(void *p) { free(p); }

void ag_panic(const char *msg)
{
   fprintf(stderr, "atomgrind engine: %s\n", msg);
   abort();
}
