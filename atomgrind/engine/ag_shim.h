/* ag_shim.h -- the only services engine code uses from its host.
 *
 * Engine code (everything in atomgrind/engine/) is plain C with no Valgrind
 * and no libc dependency beyond the freestanding headers.  Each front-end
 * links one implementation of these functions:
 *   - ag_shim_host.c  (libc; offline tool, unit tests, fuzzers)
 *   - ../ag_shim_vg.c (VG_(...) calls; inside the Valgrind tool)
 */
#ifndef AG_SHIM_H
#define AG_SHIM_H

#include <stddef.h>
#include <stdint.h>

void *ag_malloc(size_t n);             /* never returns NULL (aborts) */
void *ag_calloc(size_t n, size_t sz);  /* zeroed; never returns NULL */
void *ag_realloc(void *p, size_t n);
void ag_free(void *p);
void ag_panic(const char *msg) __attribute__((noreturn));   /* a bug */
/* A limit of the analysis was reached (not a bug): say so and exit. */
void ag_fatal(const char *msg) __attribute__((noreturn));

/* Freestanding helpers: engines call these, never memset/memcpy directly,
 * so the same code builds inside Valgrind. */
static inline void ag_memzero(void *p, size_t n)
{
   unsigned char *c = (unsigned char *)p;
   while (n--) *c++ = 0;
}
static inline void ag_memcopy(void *d, const void *s, size_t n)
{
   unsigned char *dc = (unsigned char *)d;
   const unsigned char *sc = (const unsigned char *)s;
   while (n--) *dc++ = *sc++;
}
static inline int ag_streq(const char *a, const char *b)
{
   while (*a && *a == *b) { a++; b++; }
   return *a == *b;
}

#define AG_ASSERT(c) do { if (!(c)) ag_panic("assertion failed: " #c); } while (0)

#endif
