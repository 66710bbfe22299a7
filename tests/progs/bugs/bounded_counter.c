/* Bug: check-then-act on an atomic counter (a connection limit).
 *
 * A thread admits a connection if fewer than LIMIT are open: it loads the
 * counter atomically, and if below the limit increments it with an atomic
 * fetch-and-add.  Each access is atomic, the pair is not: two threads that
 * both load LIMIT-1 both get in.  Interleaving: A loads 1 (LIMIT 2), B
 * loads 1 and increments to 2, A increments to 3.  Cycle: A's load
 * precedes B's increment (A -> B), B's increment precedes A's (B -> A).
 * Data: the global `open_conns`.  Native symptom: "over limit" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define ITERS 300
#define LIMIT 2

static int open_conns;
static int over[THREADS];

static int admit(void)
{
   int ok = 0;
   ATOMGRIND_ATOMIC_BEGIN();
   if (__atomic_load_n(&open_conns, __ATOMIC_SEQ_CST) < LIMIT) {
      int now = __atomic_add_fetch(&open_conns, 1, __ATOMIC_SEQ_CST);
      ok = now <= LIMIT ? 1 : 2;
   }
   ATOMGRIND_ATOMIC_END();
   return ok;
}

static void *client(void *arg)
{
   long id = (long)arg;
   for (int i = 0; i < ITERS; i++) {
      int r = admit();
      if (r == 2) over[id]++;
      if (r) __atomic_sub_fetch(&open_conns, 1, __ATOMIC_SEQ_CST);   /* close */
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, client, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   int n = 0;
   for (int i = 0; i < THREADS; i++) n += over[i];
   printf("over limit %d\n", n);
   return 0;
}
