/* ag_test_shim.c -- ag_shim.h over libc that also counts the bytes engines
 * hold, so tests can check that memory does not grow with trace length.
 * Link it instead of ag_shim_host.c. */
#include "ag_shim.h"
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

size_t ag_test_live_bytes, ag_test_peak_bytes;

typedef union { size_t n; long double ld; void *p; long long ll; } ag_hdr;

static void *ag_track(ag_hdr *h, size_t n)
{
   if (!h) ag_panic("out of memory");
   h->n = n;
   ag_test_live_bytes += n;
   if (ag_test_live_bytes > ag_test_peak_bytes) ag_test_peak_bytes = ag_test_live_bytes;
   return h + 1;
}

void *ag_malloc(size_t n) { return ag_track(malloc(sizeof(ag_hdr) + n), n); }
void *ag_calloc(size_t n, size_t sz)
{
   return ag_track(calloc(1, sizeof(ag_hdr) + n * sz), n * sz);
}
void *ag_realloc(void *p, size_t n)
{
   if (!p) return ag_malloc(n);
   ag_hdr *h = (ag_hdr *)p - 1;
   ag_test_live_bytes -= h->n;
   return ag_track(realloc(h, sizeof(ag_hdr) + n), n);
}
void ag_free(void *p)
{
   if (!p) return;
   ag_hdr *h = (ag_hdr *)p - 1;
   ag_test_live_bytes -= h->n;
   free(h);
}
void ag_panic(const char *msg)
{
   fprintf(stderr, "atomgrind engine: %s\n", msg);
   abort();
}
void ag_fatal(const char *msg)
{
   fprintf(stderr, "atomgrind: %s\n", msg);
   exit(1);
}
