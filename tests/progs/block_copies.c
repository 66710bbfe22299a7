/* Two threads copy and fill buffers of their own with memcpy and memset
 * (a compressor's block buffers): the scheduler's budgets run out inside
 * libc's block functions again and again, and each time the budget
 * starts again there (no point in the C runtime).  Nothing is shared but
 * a mutex-protected sum: no report. */
#include "common.h"

#define SIZE (256 * 1024)
#define ROUNDS 40

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long sum;

static void *copier(void *arg)
{
   char *src = malloc(SIZE), *dst = malloc(SIZE);
   long mine = 0;
   for (int r = 0; r < ROUNDS; r++) {
      memset(src, r + (int)(long)arg, SIZE);
      memcpy(dst, src, SIZE);
      mine += dst[r * 97 % SIZE];
   }
   free(src);
   free(dst);
   pthread_mutex_lock(&mu);
   sum += mine;
   pthread_mutex_unlock(&mu);
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(copier, (void *)1), b = spawn(copier, (void *)2);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("%ld\n", sum);
   return 0;
}
