/* stack_heavy.c -- one thread, many accesses to its own stack (recursion,
 * local arrays) and some to a global: the number of accesses analysed must
 * not depend on where the stack test is made (inline, or in the helper
 * under --sample=rpt). */
#include <string.h>

int global[64];

static int walk(int depth, int seed)
{
   volatile int local[16];
   for (int i = 0; i < 16; i++) local[i] = seed + i;
   global[depth & 63] += local[depth & 15];
   return depth == 0 ? local[3] : walk(depth - 1, seed + 1) + local[5];
}

int main(void)
{
   int sum = 0;
   for (int i = 0; i < 200; i++) sum += walk(40, i);
   return sum == 42;
}
