/* Valgrind's heap options work as with any tool that replaces malloc:
 * with --alignment=64 every block starts on a 64-byte boundary. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
   int aligned = 1;
   for (int i = 1; i < 50; i++) {
      void *p = malloc(i);
      aligned &= (uintptr_t)p % 64 == 0;
   }
   printf("%s\n", aligned ? "aligned 64" : "not aligned 64");
   return 0;
}
