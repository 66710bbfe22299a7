/* Waiters on one futex word are requeued onto another by FUTEX_CMP_REQUEUE,
 * as condition variables built on requeue (older glibc's broadcast, other
 * libcs) do: one is woken, the others move to the second word and sleep on.
 * The call's result counts both; the scheduler must wait only for the one
 * woken to come back, not for the moved ones (they come back at the wake
 * of the second word, later). */
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>             /* syscall */
#include "common.h"

#define WAITERS 3
#define ROUNDS 4

static atomic_int gate, moved_to, asleep;

static long futex(atomic_int *w, int op, int val, long val2, atomic_int *w2, int val3)
{
   return syscall(SYS_futex, w, op, val, val2, w2, val3);
}

static void *waiter(void *arg)
{
   int round = (int)(long)arg;
   atomic_fetch_add(&asleep, 1);
   /* woken from gate, or from moved_to after being moved there */
   while (atomic_load(&gate) <= round) futex(&gate, FUTEX_WAIT_PRIVATE, round, 0, NULL, 0);
   return NULL;
}

int main(void)
{
   long requeued = 0;
   for (int round = 0; round < ROUNDS; round++) {
      pthread_t t[WAITERS];
      atomic_store(&asleep, 0);
      for (int i = 0; i < WAITERS; i++) t[i] = spawn(waiter, (void *)(long)round);
      while (atomic_load(&asleep) < WAITERS) ms_sleep(1);
      ms_sleep(50);                        /* let them reach the kernel */
      atomic_store(&gate, round + 1);
      /* wake one, move the rest; the word must still hold round + 1 */
      long n = futex(&gate, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &moved_to, round + 1);
      if (n > 1) requeued += n - 1;
      ms_sleep(50);
      futex(&moved_to, FUTEX_WAKE_PRIVATE, INT_MAX, 0, NULL, 0);
      for (int i = 0; i < WAITERS; i++) pthread_join(t[i], NULL);
   }
   printf("requeued %ld\n", requeued);
   return 0;
}
