/* Barrier misuse, as Helgrind names it, selected by argv[1]:
 *   zero            init with a count of 0                    -> misuse
 *   twice           init twice, no destroy between           -> misuse
 *   never_inited    destroy of zeroed memory never initialised -> misuse
 *   init_waiters    re-init while a thread waits at it       -> 2 misuses
 *   destroy_waiters destroy while a thread waits at it (glibc's destroy
 *                   waits until a late third thread completes the round)
 *                                                            -> misuse
 *   clean           a stack barrier in a function called twice without
 *                   destroy; a heap barrier freed and another allocated
 *                   (at the same address, likely) and inited, waited
 *                   at and destroyed after the join          -> clean
 *                   (destroyed before it, the other waiter may still be
 *                   leaving its wait: a race, race_objects.c's last_user)
 * Nothing else is reported: no race on the barriers' memory besides.
 * Sleeps order the waiters' arrival before the misuse; they are no
 * synchronisation. */
#include "common.h"
#include <semaphore.h>
#include <unistd.h>

static pthread_barrier_t *bar;
static sem_t arrived;

static void *waiter(void *arg)
{
   (void)arg;
   sem_post(&arrived);
   pthread_barrier_wait(bar);
   return NULL;
}

static void *late(void *arg)
{
   (void)arg;
   ms_sleep(2000);
   pthread_barrier_wait(bar);
   return NULL;
}

/* A waiter has arrived at bar (and is blocked there). */
static void one_waiting(void)
{
   sem_init(&arrived, 0, 0);
   spawn(waiter, NULL);
   sem_wait(&arrived);
   ms_sleep(500);
}

static void stack_barrier(void)
{
   pthread_barrier_t b;
   pthread_barrier_init(&b, NULL, 1);
   pthread_barrier_wait(&b);
}

static void *passer(void *arg)
{
   pthread_barrier_t *b = arg;
   pthread_barrier_wait(b);
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "clean";
   bar = calloc(1, sizeof *bar);
   if (!strcmp(mode, "zero")) {
      if (pthread_barrier_init(bar, NULL, 0) == 0) return 1;
   } else if (!strcmp(mode, "twice")) {
      pthread_barrier_init(bar, NULL, 1);
      pthread_barrier_init(bar, NULL, 1);
   } else if (!strcmp(mode, "never_inited")) {
      pthread_barrier_destroy(bar);
   } else if (!strcmp(mode, "init_waiters")) {
      pthread_barrier_init(bar, NULL, 2);
      one_waiting();
      pthread_barrier_init(bar, NULL, 2);
      _exit(0);                         /* the waiter stays stuck */
   } else if (!strcmp(mode, "destroy_waiters")) {
      pthread_barrier_init(bar, NULL, 2);
      one_waiting();
      pthread_t t = spawn(late, NULL);
      pthread_barrier_destroy(bar);
      pthread_join(t, NULL);
   } else {
      stack_barrier();
      stack_barrier();
      free(bar);
      bar = malloc(sizeof *bar);
      pthread_barrier_init(bar, NULL, 2);
      pthread_t t = spawn(passer, bar);
      pthread_barrier_wait(bar);
      pthread_join(t, NULL);
      pthread_barrier_destroy(bar);
   }
   free(bar);
   printf("done\n");
   return 0;
}
