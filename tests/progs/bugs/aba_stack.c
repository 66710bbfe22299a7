/* Bug: ABA on a lock-free (Treiber) stack whose nodes are recycled.
 *
 * pop() reads the top node and its successor, then swings the top with a
 * compare-and-swap.  The CAS only checks that the top is the same node,
 * not that the stack is unchanged: if, between the read and the CAS,
 * another thread pops A, pops B and pushes A back, the CAS succeeds and
 * installs B, which that other thread owns — B is now both in use and on
 * the stack.  The region is pop's read of top/next and its CAS.
 * Interleaving: A reads top = n1, n1->next = n2; B pops n1 and n2, pushes
 * n1; A's CAS succeeds.  Cycle: A's read of `top` precedes B's write of it
 * (A -> B), B's write precedes A's CAS (B -> A).  (Any successful pop or
 * push by another thread between the read and the CAS closes the same
 * cycle; ABA is the case where the CAS does not notice.)
 * Data: `top` and the nodes' `next` fields.  Nodes come from a static pool
 * and are never freed, so the corruption cannot crash natively.
 * Native symptom: "double owned" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define THREADS 3
#define NODES 8
#define ITERS 300

struct node { struct node *next; int owner; };
static struct node pool[NODES];
static struct node *top;
static int double_owned[THREADS];

static void push(struct node *n)
{
   struct node *old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
   do {
      n->next = old;
   } while (!__atomic_compare_exchange_n(&top, &old, n, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
}

static struct node *pop(void)
{
   for (;;) {
      int ok;
      struct node *old, *next;
      ATOMGRIND_ATOMIC_BEGIN();
      old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
      next = old ? old->next : NULL;
      ok = old == NULL ||
           __atomic_compare_exchange_n(&top, &old, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      ATOMGRIND_ATOMIC_END();
      if (ok) return old;
   }
}

static void *worker(void *arg)
{
   long id = (long)arg + 1;
   for (int i = 0; i < ITERS; i++) {
      struct node *a = pop();
      if (a == NULL) continue;
      if (__atomic_exchange_n(&a->owner, id, __ATOMIC_ACQ_REL) != 0) double_owned[id - 1]++;
      struct node *b = pop();
      if (b != NULL && b != a) {
         if (__atomic_exchange_n(&b->owner, id, __ATOMIC_ACQ_REL) != 0) double_owned[id - 1]++;
         __atomic_store_n(&b->owner, 0, __ATOMIC_RELEASE);
         push(b);
      }
      __atomic_store_n(&a->owner, 0, __ATOMIC_RELEASE);
      push(a);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   for (int i = 0; i < NODES; i++) push(&pool[i]);
   for (long i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   int n = 0;
   for (int i = 0; i < THREADS; i++) n += double_owned[i];
   printf("double owned %d\n", n);
   return 0;
}
