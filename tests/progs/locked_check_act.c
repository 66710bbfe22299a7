/* Check-then-act where every access holds the lock: race-free, yet the
 * region "if there is stock, take one" is not atomic.  With argument
 * "fixed" the lock is held across the whole region: clean. */
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int stock = 1;
static int fixed;

static void *buyer(void *arg)
{
   long delay = (long)arg;
   ms_sleep((int)delay);
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   int have = stock > 0;
   if (!fixed) pthread_mutex_unlock(&mu);
   ms_sleep(500);                      /* the other buyer runs here */
   if (!fixed) pthread_mutex_lock(&mu);
   if (have) stock--;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

int main(int argc, char **argv)
{
   fixed = argc > 1 && strcmp(argv[1], "fixed") == 0;
   pthread_t a = spawn(buyer, (void *)0L), b = spawn(buyer, (void *)200L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("stock %d\n", stock);
   return 0;
}
