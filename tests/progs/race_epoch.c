/* Two writes of `shared` by one thread with no synchronisation between
 * them (one epoch: its clock does not move), then a write by another
 * thread 300 ms later, ordered after neither.  The race is reported at the
 * later thread's write; by default the report names the first write of
 * the epoch (first_write), with --history-level=full the last
 * (second_write), as test_race_reports.test_epoch_naming checks. */
#include "common.h"

static volatile int shared;

static void __attribute__((noinline)) first_write(void) { shared = 1; }
static void __attribute__((noinline)) second_write(void) { shared = 2; }

static void *writer(void *arg)
{
   (void)arg;
   first_write();
   second_write();
   return NULL;
}

static void *late(void *arg)
{
   (void)arg;
   ms_sleep(300);
   shared = 3;
   return NULL;
}

int main(void)
{
   pthread_t a = spawn(writer, NULL), b = spawn(late, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
