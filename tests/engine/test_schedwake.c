/* test_schedwake.c -- the scheduler's accounting of futex wakes
 * (atomgrind/engine/ag_schedwake.c) on synthetic sequences of waits,
 * wakes and returns: how many woken waiters the holder awaits, those back
 * before the wake's result is seen, a requeue's second word, wakes that
 * add up, returns from other words, the ring of recent returns and the
 * bound on remembered words. */
#include <stdio.h>
#include <string.h>
#include "ag_schedwake.h"
#include "ag_sp_check.h"        /* CHECK, the verdict */

#define A 0x1000UL
#define B 0x2000UL
#define C 0x3000UL

static ag_schedwake w;

static void reset(void) { memset(&w, 0, sizeof w); }

/* The holder wakes `woken` waiters on a0 (a1) that began at since: what
   ag_sched.c adds (waiters assumed still on the words). */
static unsigned wake(unsigned long a0, unsigned long a1, unsigned long long woken,
                     unsigned long long since)
{
   unsigned n = ag_sw_unsettled(&w, a0, a1, woken, since);
   ag_sw_add(&w, n, a0, a1);
   return n;
}

static void wakes(void)
{
   /* two wait on A, both woken: the holder awaits both, each back once */
   reset();
   ag_sw_wait(&w);
   ag_sw_wait(&w);
   CHECK(wake(A, 0, 2, w.backs) == 2 && w.woke == 2, "woke %u", w.woke);
   CHECK(ag_sw_back(&w, A, 1) && w.woke == 1 && w.in_futex == 1, "first back");
   CHECK(ag_sw_back(&w, A, 1) && w.woke == 0 && w.in_futex == 0, "second back");
   CHECK(!ag_sw_back(&w, A, 1) && w.in_futex == 0, "a third is not awaited");
   /* back before the waker's callback saw the result: nothing to await */
   reset();
   ag_sw_wait(&w);
   unsigned long long since = w.backs;
   CHECK(!ag_sw_back(&w, A, 1), "back before the wake counted");
   CHECK(wake(A, 0, 1, since) == 0 && w.woke == 0, "awaits one already back");
   /* three woken, one back already: two awaited */
   reset();
   since = w.backs;
   ag_sw_back(&w, A, 1);
   CHECK(wake(A, 0, 3, since) == 2, "partly back");
   /* a wake that woke none: one about to find the word changed */
   reset();
   CHECK(wake(A, 0, 0, w.backs) == 1 && w.woke == 1, "woke none");
   /* a requeue: returns from its second word count */
   reset();
   since = w.backs;
   ag_sw_back(&w, B, 1);
   CHECK(wake(A, B, 2, since) == 1, "requeue's second word");
   /* returns since the wake began only */
   reset();
   ag_sw_back(&w, A, 1);
   CHECK(wake(A, 0, 1, w.backs) == 1, "an earlier return counted");
}

static void returns(void)
{
   /* from another word, or not from a futex: not one of the woken */
   reset();
   ag_sw_wait(&w);
   wake(A, 0, 1, w.backs);
   CHECK(!ag_sw_back(&w, B, 1) && w.woke == 1, "back from another word");
   CHECK(!ag_sw_back(&w, 0, 0) && w.woke == 1 && w.backs == 1, "back from a sleep");
   /* a non-futex call on a remembered word (a read) is not a futex return,
      but the woken count still drops as before the split */
   CHECK(ag_sw_back(&w, A, 0) && w.woke == 0 && w.backs == 1, "non-futex return");
   /* two wakes add up: a reader's word, then a writer's */
   reset();
   wake(A, 0, 1, w.backs);
   wake(B, 0, 1, w.backs);
   CHECK(w.woke == 2, "added %u", w.woke);
   CHECK(ag_sw_back(&w, B, 1) && ag_sw_back(&w, A, 1) && w.woke == 0, "both back");
   /* settled: the old words are forgotten at the next wake */
   wake(C, 0, 1, w.backs);
   CHECK(!ag_sw_back(&w, A, 1) && w.woke == 1, "an old word remembered");
   ag_sw_clear(&w);
   CHECK(w.woke == 0 && !ag_sw_back(&w, C, 1), "cleared");
}

static void bounds(void)
{
   /* the ring keeps the last AG_SW_RING returns */
   reset();
   for (int i = 0; i < 100; i++) ag_sw_back(&w, A, 1);
   CHECK(ag_sw_unsettled(&w, A, 0, 200, 0) == 200 - AG_SW_RING, "ring: %u",
         ag_sw_unsettled(&w, A, 0, 200, 0));
   CHECK(ag_sw_unsettled(&w, A, 0, 50, 0) == 0, "ring: all back");
   /* words beyond AG_SW_WORDS are not remembered (the settle's time bound) */
   reset();
   for (unsigned long i = 1; i <= AG_SW_WORDS + 2; i++) ag_sw_add(&w, 1, i * 0x100, 0);
   CHECK(w.woke == AG_SW_WORDS + 2, "woke %u", w.woke);
   CHECK(ag_sw_back(&w, AG_SW_WORDS * 0x100, 1), "the last kept word");
   CHECK(!ag_sw_back(&w, (AG_SW_WORDS + 1) * 0x100, 1), "a word beyond the bound");
   /* a word twice is kept once; zero words never */
   reset();
   ag_sw_add(&w, 1, A, A);
   ag_sw_add(&w, 1, A, 0);
   int kept = 0;
   for (int i = 0; i < AG_SW_WORDS; i++) kept += w.woke_on[i] != 0;
   CHECK(kept == 1 && w.woke == 2, "kept %d words", kept);
   ag_sw_add(&w, 0, B, 0);
   CHECK(w.woke == 2 && !ag_sw_back(&w, B, 1), "an empty wake added");
}

int main(void)
{
   wakes();
   returns();
   bounds();
   return sp_verdict();
}
