/* A program that fails by itself: two threads count under a lock, then
 * main's assertion on the total is wrong, so it aborts (exit status 134
 * from a shell, natively and under the tool).  No region, no report:
 * atomgrind-explore must still count every seed as failing. */
#include <assert.h>
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *w(void *a)
{
   (void)a;
   for (int i = 0; i < 100; i++) {
      pthread_mutex_lock(&mu);
      count++;
      pthread_mutex_unlock(&mu);
   }
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(w, NULL), b = spawn(w, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("%d\n", count);
   assert(count == 300);           /* wrong: it is 200 */
   return 0;
}
