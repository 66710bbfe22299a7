/* Bug (unannotated, fails by assertion): a linked stack whose pop and push
 * read the top and write it back with plain loads and stores, as a
 * lock-free stack without its CAS.  A pops node X and is preempted before
 * storing X->next as the top; B pops X too.  Or A's push links to a top
 * that B pops before A stores the new top, and the popped node comes back.
 * Symptom: two threads hold one node. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NODES 4
#define ITERS 300

typedef struct node {
   struct node *volatile next;
   int busy;
} node;

static node nodes[NODES];
static node *volatile head;

static node *pop(void)
{
   node *n = head;
   if (n) head = n->next;
   return n;
}

static void push(node *n)
{
   n->next = head;
   head = n;
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ITERS; i++) {
      node *n = pop();
      if (!n) continue;
      assert(__atomic_exchange_n(&n->busy, 1, __ATOMIC_SEQ_CST) == 0);
      __atomic_store_n(&n->busy, 0, __ATOMIC_SEQ_CST);
      push(n);
   }
   return NULL;
}

int main(void)
{
   for (int i = 0; i < NODES; i++) push(&nodes[i]);
   pthread_t a, b;
   pthread_create(&a, NULL, worker, NULL);
   pthread_create(&b, NULL, worker, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("consistent\n");
   return 0;
}
