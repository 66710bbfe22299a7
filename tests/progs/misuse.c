/* Misuse of the client requests and of a mutex: each is a warning
 * (Atomgrind:Misuse), never a crash, and the analysis goes on. */
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *leaves_region_open(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   return NULL;                       /* exits inside the region */
}

int main(void)
{
   ATOMGRIND_ATOMIC_END();            /* END without BEGIN */
   pthread_t t = spawn(leaves_region_open, NULL);
   pthread_join(t, NULL);
   pthread_mutex_unlock(&mu);         /* unlock of an unheld mutex */
   puts("still running");
   return 0;
}
