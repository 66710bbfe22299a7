/* Bug (unannotated, fails by assertion): SCTBench's bluetooth_driver
 * shape.  The worker checks `stopping`, then takes the lock to count
 * itself in; the stopper sets `stopping`, takes the same lock to count
 * the device's own reference out, and frees the device when the count
 * drops to zero.  If the stopper's critical section falls between the
 * worker's check and its own critical section, the worker uses a freed
 * device.  main is the worker and runs on after creating the stopper, so
 * its critical section usually comes first: only a run that puts the
 * stopper's first at that lock shows the bug, and lock-order coverage
 * (an order no earlier run has seen goes first) does.  Symptom: the
 * assertion. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int pending = 1, stopping, freed;

static void *stopper(void *arg)
{
   (void)arg;
   stopping = 1;
   pthread_mutex_lock(&m);
   if (--pending == 0) freed = 1;
   pthread_mutex_unlock(&m);
   return NULL;
}

static void work(void)
{
   if (stopping) return;
   pthread_mutex_lock(&m);
   pending++;
   pthread_mutex_unlock(&m);
   assert(!freed);
   pthread_mutex_lock(&m);
   if (--pending == 0) freed = 1;
   pthread_mutex_unlock(&m);
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, stopper, NULL);
   work();
   pthread_join(t, NULL);
   printf("pending %d\n", pending);
   return 0;
}
