/* An inlined atomic function whose first instruction the compiler
 * schedules before the copy's entry (issue 33): at -O2 take's lock
 * argument is set, then the caller's store of `local`, then the copy's
 * entry at the call (the pattern of zstd's ZSTDMT_getCCtx).  The code
 * before the entry is the same copy: one call, one region. */
#include "common.h"

struct pool { pthread_mutex_t m; int n; };
struct job { struct pool *pool; long a, b; };

static struct pool pool = { PTHREAD_MUTEX_INITIALIZER, 100 };
static volatile long sink;

static __attribute__((noinline)) void use(long *v) { sink += v[0] + v[1]; }

static int take(struct pool *p)
{
   pthread_mutex_lock(&p->m);
   int v = p->n;
   p->n = v - 1;
   pthread_mutex_unlock(&p->m);
   return v;
}

static void *worker(void *arg)
{
   struct job *j = arg;
   long local[2] = { j->a, j->b };
   int v = take(j->pool);
   use(local);
   return (void *)(long)v;
}

int main(void)
{
   struct job j = { &pool, 1, 2 };
   pthread_t t = spawn(worker, &j);
   pthread_join(t, NULL);
   printf("%d\n", pool.n);
   return 0;
}
