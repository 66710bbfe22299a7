/* pthread_once inside regions: thread A's region runs the init routine,
 * and, after thread B's region has called pthread_once on the finished
 * control, calls it again.  Every call after the first only reads the
 * control: the regions do not conflict through it, and the program is
 * clean.  (Modelled as a lock that every call takes, the two calls of A
 * around B's would close a cycle.) */
#include "common.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int table[4];

static void init(void)
{
   for (int i = 0; i < 4; i++) table[i] = i + 1;
}

static void *a_fn(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_once(&once, init);
   ms_sleep(400);                    /* B's region runs here */
   pthread_once(&once, init);
   int s = table[0];
   ATOMGRIND_ATOMIC_END();
   return (void *)(long)s;
}

static void *b_fn(void *arg)
{
   (void)arg;
   ms_sleep(150);
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_once(&once, init);
   int s = table[1];
   ATOMGRIND_ATOMIC_END();
   return (void *)(long)s;
}

int main(void)
{
   pthread_t a = spawn(a_fn, NULL), b = spawn(b_fn, NULL);
   void *ra, *rb;
   pthread_join(a, &ra);
   pthread_join(b, &rb);
   printf("%ld %ld\n", (long)ra, (long)rb);
   return 0;
}
