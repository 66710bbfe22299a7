/* test_site.c -- the site encoding (atomgrind/engine/ag_site.h): every kind
 * round-trips, tags and lock sets never leak into another kind's value,
 * and a site goes through an engine unchanged (FastTrack keeps numbers of
 * sites and hands the site back in its report). */
#include "ag_check.h"              /* CHECK, the report collector */
#include "ag_site.h"

/* Code addresses and handles: the value is the address, no bits added. */
static void addresses(void)
{
   uint64_t ips[] = { 0x401000, 0x7f0012345678ull, AG_SITE_ADDR_MASK, 1 };
   for (int i = 0; i < N(ips); i++) {
      ag_site s = ag_site_code(ips[i]);
      CHECK(s == ips[i], "code %#llx is its own site", (unsigned long long)ips[i]);
      CHECK(ag_site_fits(ips[i]), "user code fits");
      CHECK(!ag_site_is_stack(s) && ag_site_code_of(s) == ips[i] && ag_site_stack_of(s) == 0,
            "code %#llx decodes", (unsigned long long)ips[i]);
      CHECK(ag_site_lockset(s) == 0, "no lock set");
   }
   int x;
   ag_site h = ag_site_handle(&x);
   CHECK(ag_site_handle_of(h) == (const void *)&x, "a handle round-trips");
   CHECK(ag_site_handle_of(AG_SITE_NONE) == NULL && ag_site_code_of(AG_SITE_NONE) == 0,
         "no site is nothing");
   CHECK(!ag_site_fits(AG_SITE_STACK) && !ag_site_fits(UINT64_C(1) << 63), "tags do not fit");
}

/* Stack ids: tagged, never a code address or a handle. */
static void stacks(void)
{
   uint32_t ids[] = { 4, 8, 0x7ffffffc, 0xffffffffu };
   for (int i = 0; i < N(ids); i++) {
      ag_site s = ag_site_stack(ids[i]);
      CHECK(ag_site_is_stack(s) && ag_site_stack_of(s) == ids[i], "stack %u", ids[i]);
      CHECK(ag_site_code_of(s) == 0, "a stack is no code address");
      CHECK(ag_site_handle_of(s) == NULL, "a stack is no handle");
      CHECK(s == (AG_SITE_STACK | ids[i]), "the layout is ag_site.h's");
   }
}

/* Lock sets: on top of either kind, taken off again, the rest intact. */
static void locksets(void)
{
   uint32_t ids[] = { 0, 1, 2, 0x1234, AG_SITE_LS_UNKNOWN };
   for (int i = 0; i < N(ids); i++) {
      ag_site locks = ag_site_locks(ids[i]);
      ag_site c = ag_site_with_locks(ag_site_code(0x401234), locks);
      ag_site k = ag_site_with_locks(ag_site_stack(40), locks);
      CHECK(ag_site_lockset(c) == ids[i] && ag_site_code_of(c) == 0x401234
            && !ag_site_is_stack(c), "code with set %u", ids[i]);
      CHECK(ag_site_lockset(k) == ids[i] && ag_site_stack_of(k) == 40 && ag_site_code_of(k) == 0,
            "stack with set %u", ids[i]);
      CHECK(ids[i] == 0 || ag_site_handle_of(c) == NULL, "a site with locks is no handle");
   }
   CHECK(ag_site_locks(1) == UINT64_C(1) << 48, "set ids start at bit 48");
}

/* The engine keeps sites whole: a race's earlier access comes back with
   its stack id and lock set. */
static void through_an_engine(void)
{
   reports r;
   ag_engine *e = new_engine_named("fasttrack", &r, 2);
   ag_site first = ag_site_with_locks(ag_site_stack(1236), ag_site_locks(7));
   ag_site second = ag_site_with_locks(ag_site_code(0x401000), ag_site_locks(3));
   ag_ev_access(e, 0, BASE, 4, AG_WRITE, first);
   ag_ev_access(e, 1, BASE, 4, AG_WRITE, second);
   CHECK(r.n == 1, "one race, got %d", r.n);
   if (r.n == 1) {
      CHECK(r.v[0].site == second, "the racing access's site");
      CHECK(r.v[0].other_site == first && ag_site_stack_of(r.v[0].other_site) == 1236
            && ag_site_lockset(r.v[0].other_site) == 7, "the earlier access's site, whole");
   }
   ag_engine_delete(e);
}

int main(void)
{
   addresses();
   stacks();
   locksets();
   through_an_engine();
   printf("%d checks, %d failures\n", checks, failures);
   if (failures) return 1;
   printf("ok\n");
   return 0;
}
