/* ag_schedwake.c -- the scheduler's accounting of futex wakes (see
 * ag_schedwake.h): plain C, its state in one struct. */
#include "ag_schedwake.h"

void ag_sw_clear(ag_schedwake *w)
{
   w->woke = 0;
   for (unsigned i = 0; i < AG_SW_WORDS; i++) w->woke_on[i] = 0;
}

void ag_sw_wait(ag_schedwake *w) { w->in_futex++; }

static int ag_sw_woke_on(const ag_schedwake *w, unsigned long a)
{
   if (w->woke == 0 || a == 0) return 0;
   for (unsigned i = 0; i < AG_SW_WORDS; i++)
      if (w->woke_on[i] == a) return 1;
   return 0;
}

int ag_sw_back(ag_schedwake *w, unsigned long a, int futex)
{
   if (futex) {
      if (w->in_futex > 0) w->in_futex--;
      w->back_on[w->backs++ % AG_SW_RING] = a;
   }
   /* one woken is back, whether or not the holder settles yet; a thread
      back from another wait is not one */
   if (!ag_sw_woke_on(w, a)) return 0;
   w->woke--;
   return 1;
}

/* Returns from waits on a0 or a1 since the count was `since`. */
static unsigned long long ag_sw_backs_on(const ag_schedwake *w, unsigned long a0,
                                         unsigned long a1, unsigned long long since)
{
   unsigned long long n = 0;
   if (w->backs - since > AG_SW_RING) since = w->backs - AG_SW_RING;
   for (unsigned long long i = since; i < w->backs; i++) {
      unsigned long a = w->back_on[i % AG_SW_RING];
      n += a == a0 || (a1 != 0 && a == a1);
   }
   return n;
}

unsigned ag_sw_unsettled(const ag_schedwake *w, unsigned long a0, unsigned long a1,
                         unsigned long long woken, unsigned long long since)
{
   /* the big lock is released during the wake: the threads it woke may
      be back already, while others still wait on the same word --
      settling for those would wait for nobody */
   unsigned long long back = ag_sw_backs_on(w, a0, a1, since);
   if (woken > 0 && back >= woken) return 0;
   return woken == 0 ? 1 : (unsigned)(woken - back);
}

static void ag_sw_word(ag_schedwake *w, unsigned long a)
{
   if (a == 0 || ag_sw_woke_on(w, a)) return;
   for (unsigned i = 0; i < AG_SW_WORDS; i++)
      if (w->woke_on[i] == 0) {
         w->woke_on[i] = a;
         return;
      }
   /* more words than kept: the settle may wait out its bound */
}

void ag_sw_add(ag_schedwake *w, unsigned n, unsigned long a0, unsigned long a1)
{
   if (n == 0) return;
   if (w->woke == 0) ag_sw_clear(w);
   w->woke += n;
   ag_sw_word(w, a0);
   ag_sw_word(w, a1);
}
