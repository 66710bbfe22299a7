/* One bug met twice: a buyer's locked check-then-act (the same code
 * sites) is interleaved once by a restocking region reached through one
 * call path, once through another (its region still open, so each
 * report knows where it began).  One report, counted twice. */
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int stock = 1;

static void *buyer(void *arg)
{
   (void)arg;
   for (int round = 0; round < 2; round++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      int have = stock > 0;
      pthread_mutex_unlock(&mu);
      ms_sleep(500);                  /* a restocker runs here */
      pthread_mutex_lock(&mu);
      if (have) stock--;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
      ms_sleep(500);
   }
   return NULL;
}

static void restock(void)
{
   ATOMGRIND_ATOMIC_BEGIN();
   pthread_mutex_lock(&mu);
   stock++;
   pthread_mutex_unlock(&mu);
   ms_sleep(600);                     /* still inside when the buyer resumes */
   ATOMGRIND_ATOMIC_END();
}

static void __attribute__((noinline)) restock_by_truck(void) { restock(); }
static void __attribute__((noinline)) restock_by_ship(void) { restock(); }

static void *truck(void *arg) { (void)arg; ms_sleep(250); restock_by_truck(); return NULL; }
static void *ship(void *arg) { (void)arg; ms_sleep(1250); restock_by_ship(); return NULL; }

int main(void)
{
   pthread_t b = spawn(buyer, NULL), t = spawn(truck, NULL), s = spawn(ship, NULL);
   pthread_join(b, NULL);
   pthread_join(t, NULL);
   pthread_join(s, NULL);
   printf("stock %d\n", stock);
   return 0;
}
