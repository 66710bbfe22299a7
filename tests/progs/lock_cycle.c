/* A program that deadlocks in every interleaving: each thread takes its
 * own lock, waits at a barrier until the other holds its own, then takes
 * the other's.  No region; atomgrind reports the deadlock and ends the run
 * (exit status 1), and atomgrind-explore counts the seed as failing. */
#include "common.h"

static pthread_mutex_t lk[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static pthread_barrier_t both;

static void *w(void *arg)
{
   int me = (int)(long)arg;
   pthread_mutex_lock(&lk[me]);
   pthread_barrier_wait(&both);
   pthread_mutex_lock(&lk[1 - me]);
   pthread_mutex_unlock(&lk[1 - me]);
   pthread_mutex_unlock(&lk[me]);
   return NULL;
}

int main(void)
{
   pthread_barrier_init(&both, NULL, 2);
   pthread_t a = spawn(w, (void *)0L), b = spawn(w, (void *)1L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("never\n");
   return 0;
}
