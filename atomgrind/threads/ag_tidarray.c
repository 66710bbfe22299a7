/* ag_tidarray.c -- one growth rule for the front end's per-thread arrays. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc) */
#include "ag_tidarray.h"

void *ag_tidarray_grow(const HChar *cc, void *arr, UInt *cap, UInt t, SizeT elem)
{
   if (t < *cap) return arr;
   UInt n = *cap ? *cap : 16;
   while (n <= t) n *= 2;
   arr = VG_(realloc)(cc, arr, n * elem);
   VG_(memset)((UChar *)arr + *cap * elem, 0, (n - *cap) * elem);
   *cap = n;
   return arr;
}
