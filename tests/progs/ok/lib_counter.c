/* libagcounter: a correct statistics entry point in a shared object, the
 * fixed version of bugs/lib_stats.c.  counter_record() reads and updates
 * the count and sum under one hold of the library's mutex, inside a
 * region declared in the library; regions never interleave. */
#include <pthread.h>
#include <valgrind/atomgrind.h>
#include "lib_counter.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count, sum;

void counter_record(long sample)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   long c = count, s = sum;
   count = c + 1;
   sum = s + sample;
   pthread_mutex_unlock(&mu);
   ATOMGRIND_ATOMIC_END();
}

long counter_count(void)
{
   pthread_mutex_lock(&mu);
   long c = count;
   pthread_mutex_unlock(&mu);
   return c;
}

long counter_sum(void)
{
   pthread_mutex_lock(&mu);
   long s = sum;
   pthread_mutex_unlock(&mu);
   return s;
}
