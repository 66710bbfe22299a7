/* Bug: a cached pointer used after the object it points to was replaced.
 *
 * A request handler looks up the current session under the lock, drops
 * the lock to do some work, then takes the lock again and counts the hit
 * in the session it looked up.  Meanwhile the rotator may have replaced
 * the session (copying the old hit count into the new one): the hit lands
 * in the retired session and is lost.  Interleaving: H reads `current`
 * (= s1); Rot copies s1->hits into s2 and sets current = s2; H increments
 * s1->hits.  Cycle: H's read of `current` precedes Rot's write (H -> Rot),
 * Rot's read of s1->hits precedes H's write of it (Rot -> H).
 * Data: `current` and the sessions' `hits`.  Retired sessions are kept
 * (never freed), so there is no use after free natively.
 * Native symptom: "lost hits" > 0. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/atomgrind.h>

#define HANDLERS 2
#define REQUESTS 300
#define ROTATIONS 100

struct session { long hits; int id; };
static struct session sessions[ROTATIONS + 1];
static struct session *current = &sessions[0];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *handler(void *arg)
{
   (void)arg;
   for (int i = 0; i < REQUESTS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      struct session *s = current;
      pthread_mutex_unlock(&mu);
      int work = 0;
      for (int k = 0; k < 20; k++) work += k;      /* the request's work */
      pthread_mutex_lock(&mu);
      s->hits += work > 0;
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

static void *rotator(void *arg)
{
   (void)arg;
   for (int i = 1; i <= ROTATIONS; i++) {
      ATOMGRIND_ATOMIC_BEGIN();
      pthread_mutex_lock(&mu);
      sessions[i].id = i;
      sessions[i].hits = current->hits;
      current = &sessions[i];
      pthread_mutex_unlock(&mu);
      ATOMGRIND_ATOMIC_END();
   }
   return NULL;
}

int main(void)
{
   pthread_t h[HANDLERS], r;
   for (int i = 0; i < HANDLERS; i++)
      pthread_create(&h[i], NULL, handler, NULL);
   pthread_create(&r, NULL, rotator, NULL);
   for (int i = 0; i < HANDLERS; i++)
      pthread_join(h[i], NULL);
   pthread_join(r, NULL);
   printf("lost hits %ld\n", (long)HANDLERS * REQUESTS - current->hits);
   return 0;
}
