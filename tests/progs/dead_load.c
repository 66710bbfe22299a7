/* A region reads a volatile twice and never uses the values (`(void)y`):
 * built with -O2, VEX's optimiser would delete both loads before the tool
 * instruments the block.  Another thread writes y between the reads, so
 * the region is not atomic: one violation, seen only if the loads are. */
#include "common.h"

static volatile int y;

static void *reader(void *arg)
{
   (void)arg;
   ATOMGRIND_ATOMIC_BEGIN();
   int r = y;
   (void)r;
   ms_sleep(400);                    /* the writer runs here */
   r = y;
   (void)r;
   ATOMGRIND_ATOMIC_END();
   return NULL;
}

static void *writer(void *arg)
{
   (void)arg;
   ms_sleep(150);
   y = 1;
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(reader, NULL), b = spawn(writer, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
