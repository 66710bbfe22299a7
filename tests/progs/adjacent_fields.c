/* Adjacent fields of one struct, each updated by its own thread inside a
 * region, interleaved: no byte is shared, so nothing conflicts.  Clean. */
#include "common.h"

struct pair { char a; char b; short c; int d; } s;

static void *upd_a(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   char v = s.a;
   ms_sleep(500);
   s.a = v + 1;
   s.c += 1;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *upd_b(void *arg)
{
   (void)arg;
   ms_sleep(150);
   ATOMGRIND_ATOMIC_BEGIN();
   s.b = 2;
   s.d = 7;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(void)
{
   pthread_t x = spawn(upd_a, NULL), y = spawn(upd_b, NULL);
   pthread_join(x, NULL);
   pthread_join(y, NULL);
   printf("%d %d %d %d\n", s.a, s.b, s.c, s.d);
   return 0;
}
