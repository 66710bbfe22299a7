/* Correct: a process-shared barrier in shared memory, reached by a forked
 * process.  The parent's main waits at it while the parent's only other
 * thread ends: no thread of this process can release main, but the child
 * process arrives a second later.  Not a deadlock (before: reported when
 * the thread ended, as if the barrier's other arrival could only come from
 * this process). */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *ends(void *arg)
{
   (void)arg;
   usleep(200000);               /* while main waits at the barrier */
   return NULL;
}

int main(void)
{
   pthread_barrier_t *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
   pthread_barrierattr_t attr;
   pthread_barrierattr_init(&attr);
   pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
   pthread_barrier_init(b, &attr, 2);
   pid_t child = fork();
   if (child == 0) {
      sleep(2);                  /* long after the parent's thread ended */
      pthread_barrier_wait(b);
      _exit(0);
   }
   pthread_t t;
   pthread_create(&t, NULL, ends, NULL);
   pthread_barrier_wait(b);
   pthread_join(t, NULL);
   waitpid(child, NULL, 0);
   printf("done\n");
   return 0;
}
