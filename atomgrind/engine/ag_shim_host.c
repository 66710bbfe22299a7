/* ag_shim_host.c -- ag_shim.h over libc, for host builds (atomgrind-trace,
 * unit tests, fuzzers). */
#include "ag_shim.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "ag_tracefmt.h"

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

void ag_fatal(const char *msg)
{
   fprintf(stderr, "atomgrind: %s\n", msg);
   exit(1);
}

/* An ag_write_fn for a file descriptor (cookie: int *), retrying short
   writes and EINTR. */
int ag_fd_write(void *cookie, const void *buf, size_t n)
{
   int fd = *(int *)cookie;
   const char *p = buf;
   while (n) {
      ssize_t k = write(fd, p, n);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return -1;
      p += k;
      n -= (size_t)k;
   }
   return 0;
}
