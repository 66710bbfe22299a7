/* libagstats: statistics with a buggy entry point, built as a shared
 * object for lib_bug.c.
 *
 * stats_record() updates the count and the running sum each under the
 * lock, through the library's own small helpers, but reads the old values
 * in one hold and writes the new ones in another: two concurrent calls
 * lose one sample.  The atomic region is declared in the library, around
 * its public entry point, as a library author would.
 * Cycle: A reads count/sum, B reads and writes them, A writes: A -> B
 * (read before write), B -> A (write before write).  Data: `count`, `sum`. */
#include <pthread.h>
#include <valgrind/atomgrind.h>
#include "lib_stats.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count, sum;

static void snapshot(long *c, long *s)
{
   pthread_mutex_lock(&mu);
   *c = count;
   *s = sum;
   pthread_mutex_unlock(&mu);
}

static void publish(long c, long s)
{
   pthread_mutex_lock(&mu);
   count = c;
   sum = s;
   pthread_mutex_unlock(&mu);
}

void stats_record(long sample)
{
   long c, s;
   ATOMGRIND_ATOMIC_BEGIN();
   snapshot(&c, &s);
   publish(c + 1, s + sample);
   ATOMGRIND_ATOMIC_END();
}

long stats_count(void)
{
   long c, s;
   snapshot(&c, &s);
   return c;
}

long stats_sum(void)
{
   long c, s;
   snapshot(&c, &s);
   return s;
}
