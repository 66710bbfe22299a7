/* Valgrind's heap options work as with any tool that replaces malloc:
 * with --alignment=64 every block starts on a 64-byte boundary, and
 * --xtree-memory profiles the heap: 49 blocks of 1225 bytes in all, of
 * which the 24 of even size (600 bytes) are freed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
   int aligned = 1;
   void *p[50];
   for (int i = 1; i < 50; i++) {
      p[i] = malloc(i);
      aligned &= (uintptr_t)p[i] % 64 == 0;
   }
   for (int i = 2; i < 50; i += 2) free(p[i]);
   printf("%s\n", aligned ? "aligned 64" : "not aligned 64");
   return 0;
}
