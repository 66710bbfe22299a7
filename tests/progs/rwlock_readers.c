/* Readers re-acquiring an rwlock's read side inside their regions while
 * other readers do the same: readers do not order each other.  The writer
 * runs before and after.  Clean. */
#include "common.h"

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int table[4] = { 1, 2, 3, 4 };

static void *reader(void *arg)
{
   long id = (long)arg;
   ms_sleep((int)(id * 100));
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_rwlock_rdlock(&rw);
   int a = table[0];
   pthread_rwlock_unlock(&rw);
   ms_sleep(400);                  /* other readers run here */
   pthread_rwlock_rdlock(&rw);
   int b = table[1] + a;
   pthread_rwlock_unlock(&rw);
   ATOMGRIND_ATOMIC_END();
   return (void *)(long)b;
}

int main(void)
{
   pthread_rwlock_wrlock(&rw);
   table[0] = 10;
   pthread_rwlock_unlock(&rw);
   pthread_t t[3];
   for (long i = 0; i < 3; i++) t[i] = spawn(reader, (void *)i);
   for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
   pthread_rwlock_wrlock(&rw);
   table[1] = 20;
   pthread_rwlock_unlock(&rw);
   puts("done");
   return 0;
}
