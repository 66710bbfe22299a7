/* ag_sp_check.h -- what the scheduler's host tests share (test_schedpol*.c,
 * test_schedwake.c): CHECK, and the verdict main returns. */
#ifndef AG_SP_CHECK_H
#define AG_SP_CHECK_H
#include <stdio.h>

static int failures;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
   printf(__VA_ARGS__); printf("\n"); failures++; } } while (0)

/* main's exit status: 1 (and how many) after any failure, else "ok". */
static int sp_verdict(void)
{
   if (failures) {
      printf("%d failure(s)\n", failures);
      return 1;
   }
   printf("ok\n");
   return 0;
}
#endif
