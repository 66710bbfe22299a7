/* ag_sp_table.h -- the policy and its thread table as ag_sched.c keeps
 * them, for the host tests of choices and regions. */
#ifndef AG_SP_TABLE_H
#define AG_SP_TABLE_H
#include <string.h>
#include "ag_schedpol.h"

#define NTH 5                     /* thread ids 1..4 */
static ag_schedpol pol;
static ag_sp_thread th[NTH];

/* n threads created (ids 1..n), none enabled yet. */
static void setup(unsigned long long seed, int pct, unsigned n)
{
   memset(th, 0, sizeof th);
   ag_sp_init(&pol, seed);
   ag_sp_threads(&pol, th, NTH, pct);
   if (pct) ag_sp_pct_init(&pol, 3, 200);
   for (unsigned t = 1; t <= n; t++) ag_sp_thread_new(&pol, t, t);
}
#endif
