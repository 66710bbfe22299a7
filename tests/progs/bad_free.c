/* A program that frees what it does not own: a double free, a pointer
 * into a block, a stack address, garbage, and a realloc of a freed
 * block.  Each is reported once (Invalid free() / realloc()) and not
 * made, and the run goes on; Valgrind's allocator crashed on them.
 * "clean": frees and reallocs that are all right, free(NULL) too. */
/* (what this program does wrong on purpose) */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#pragma GCC diagnostic ignored "-Wuse-after-free"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
   char *p = malloc(16), *q = malloc(32);
   volatile int local = 0;
   if (argc > 1 && strcmp(argv[1], "clean") == 0) {
      free(NULL);
      q = realloc(q, 64);
      q = realloc(q, 0);
      free(q);
      printf("usable %d\n", malloc_usable_size(p) >= 16);
      free(p);
      printf("done\n");
      return 0;
   }
   free(p);
   free(p);                          /* freed already */
   free(q + 8);                      /* inside a block */
   free((void *)&local);             /* the stack */
   free((void *)(unsigned long)0x30);  /* garbage */
   p = realloc(p, 64);               /* a freed block */
   printf("realloc %s\n", p ? "moved" : "refused");
   printf("usable %d\n", (int)malloc_usable_size(q + 8));
   free(q);
   printf("done\n");
   return 0;
}
