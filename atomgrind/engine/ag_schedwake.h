/* ag_schedwake.h -- the scheduler's accounting of futex wakes (freestanding
 * C, no Valgrind; used by ag_sched.c, tested on the host by
 * tests/engine/test_schedwake.c): how many threads wait in a futex, which
 * words the last ones came back from, and how many woken waiters the
 * holder still lets come back before it runs on (on which words).  All
 * state is in one ag_schedwake passed explicitly. */
#ifndef AG_SCHEDWAKE_H
#define AG_SCHEDWAKE_H

#define AG_SW_RING   64          /* returns from waits remembered */
#define AG_SW_WORDS   8          /* words of the woken remembered */

typedef struct {
   unsigned in_futex;                      /* threads in a futex wait */
   unsigned long long backs;               /* returns from futex waits */
   unsigned long back_on[AG_SW_RING];      /* the words of the last returns */
   unsigned woke;                          /* woken waiters not yet back */
   unsigned long woke_on[AG_SW_WORDS];     /* on these words (0: none) */
} ag_schedwake;

/* Nobody woken is awaited (the holder settled, or a fork child). */
void ag_sw_clear(ag_schedwake *w);
/* A thread enters a futex wait. */
void ag_sw_wait(ag_schedwake *w);
/* A thread is back from a blocking call that waited on word a (0: not a
   futex); futex: the call was a futex wait.  Is it one of the woken the
   holder waits for (then counted back)? */
int ag_sw_back(ag_schedwake *w, unsigned long a, int futex);
/* A futex wake on a0 (and a1, 0: none) that began when backs was `since`
   woke `woken` waiters (0: the wake found none, or failed): how many are
   not back yet -- 1 for a wake that woke none (one about to find the word
   changed) -- or 0. */
unsigned ag_sw_unsettled(const ag_schedwake *w, unsigned long a0, unsigned long a1,
                         unsigned long long woken, unsigned long long since);
/* n more waiters on a0 (and a1) were woken: the holder lets them come
   back.  Added to those of earlier wakes not yet settled: an unlock that
   wakes a reader's word and then a writer's must wait for both. */
void ag_sw_add(ag_schedwake *w, unsigned n, unsigned long a0, unsigned long a1);

#endif
