/* Bug: unlocked lazy initialisation of table slots.
 *
 * get_slot(i) creates slot i's object on first use: "if (!table[i])
 * table[i] = make()".  Two threads asking for the same empty slot both see
 * NULL and both create an object; the second store overwrites the first
 * (a leak, and users of the first object now hold a stale one).
 * Interleaving: A reads table[i] == NULL, B reads NULL and stores, A
 * stores.  Cycle: A's read precedes B's write (A -> B), B's write precedes
 * A's write (B -> A).  Data: the global array `table`.
 * Native symptom: "created" > SLOTS. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define SLOTS 300

struct obj { int slot; int uses; };
static struct obj *table[SLOTS];
static int created[THREADS];

static struct obj *get_slot(long self, int i)
{
   struct obj *o;
   ATOMGRIND_ATOMIC_BEGIN();
   o = table[i];
   if (o == NULL) {
      o = calloc(1, sizeof *o);
      o->slot = i;
      table[i] = o;
      created[self]++;
   }
   ATOMGRIND_ATOMIC_END();
   return o;
}

static void *user(void *arg)
{
   long self = (long)arg;
   for (int i = 0; i < SLOTS; i++) {
      struct obj *o = get_slot(self, i);
      if (o->slot != i) abort();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, user, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   int total = 0;
   for (int i = 0; i < THREADS; i++) total += created[i];
   printf("created %d for %d slots\n", total, SLOTS);
   return 0;
}
