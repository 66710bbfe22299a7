/* Bug (unannotated, fails by assertion): a work-stealing queue whose
 * owner takes the last item without the compare-and-swap on `top` that a
 * Chase-Lev deque needs.  The thief reads top and bottom, the owner
 * decrements bottom, sees top == bottom and takes the item, the thief's
 * CAS on top still succeeds: both run one item.  Symptom: an item counted
 * twice. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 100
#define ITEMS (2 * ROUNDS)

static volatile long top, bottom;
static volatile int buf[ITEMS];
static int taken[ITEMS];
static volatile int done;

static void run(int item)
{
   int before = __atomic_fetch_add(&taken[item], 1, __ATOMIC_SEQ_CST);
   assert(before == 0);
}

static void push(int item)
{
   long b = bottom;
   buf[b] = item;
   bottom = b + 1;
}

static int take(void)
{
   long b = bottom - 1;
   bottom = b;
   long t = top;
   if (t > b) {                 /* empty */
      bottom = t;
      return -1;
   }
   int item = buf[b];
   if (t == b) {                /* the last one: the bug, no CAS on top */
      top = t + 1;
      bottom = t + 1;
   }
   return item;
}

static int steal(void)
{
   long t = top, b = bottom;
   if (t >= b) return -1;
   int item = buf[t];
   if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return -1;
   return item;
}

static void *thief(void *arg)
{
   (void)arg;
   while (!done) {
      int item = steal();
      if (item >= 0) run(item);
   }
   return NULL;
}

int main(void)
{
   pthread_t th;
   pthread_create(&th, NULL, thief, NULL);
   int next = 0;
   for (int r = 0; r < ROUNDS; r++) {
      push(next++);
      push(next++);
      int item;
      while ((item = take()) >= 0) run(item);
   }
   done = 1;
   pthread_join(th, NULL);
   printf("consistent\n");
   return 0;
}
