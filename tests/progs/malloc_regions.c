/* malloc/free inside concurrent regions: the allocator's bookkeeping is
 * not program data, and a freed block reused by another thread starts
 * fresh.  Clean. */
#include "common.h"

#define NT 4
static void *worker(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < 300; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      int *p = malloc(sizeof(int) * (1 + (i + id) % 16));
      p[0] = (int)id;
      char *q = calloc(1, 32);
      q[3] = 'x';
      p = realloc(p, 64);
      p[1] = p[0] + 1;
      if (i % 100 == 0) ms_sleep(20);
      free(q);
      free(p);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[NT];
   for (long i = 0; i < NT; i++) t[i] = spawn(worker, (void *)i);
   for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
   puts("done");
   return 0;
}
