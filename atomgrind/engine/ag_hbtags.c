/* ag_hbtags.c -- happens-before between thread tags, for the scheduler's
 * owner table (see ag_hbtags.h). */
#include "ag_hbtags.h"
#include "ag_map.h"            /* sync objects' clocks */
#include "ag_shim.h"           /* ag_calloc, ag_free */
#include "ag_vclock.h"         /* the clock type */

AG_VCLOCK(ag_hbt_vc, ag_hbt_vc, uint32_t)

struct ag_hbt {
   ag_hbt_vc th[AG_HBT_TAGS + 1];   /* per tag; 0 unused */
   ag_map *obj;                     /* object key -> ag_hbt_vc */
};

ag_hbt *ag_hbt_new(void)
{
   ag_hbt *h = ag_calloc(1, sizeof *h);
   h->obj = ag_map_new(sizeof(ag_hbt_vc));
   return h;
}

static void ag_hbt_free_obj(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   ag_hbt_vc_free(rec);
}

void ag_hbt_delete(ag_hbt *h)
{
   if (!h) return;
   for (unsigned t = 0; t <= AG_HBT_TAGS; t++) ag_hbt_vc_free(&h->th[t]);
   ag_map_foreach(h->obj, ag_hbt_free_obj, 0);
   ag_map_delete(h->obj);
   ag_free(h);
}

static int ag_hbt_valid(unsigned tag) { return tag >= 1 && tag <= AG_HBT_TAGS; }

/* tag's clock, its own entry at least 1: a thread nobody has heard of
   (entry 0) is never ordered before anyone */
static ag_hbt_vc *ag_hbt_thread(ag_hbt *h, unsigned tag)
{
   ag_hbt_vc *v = &h->th[tag];
   if (ag_hbt_vc_get(v, tag) == 0) ag_hbt_vc_tick(v, tag);
   return v;
}

void ag_hbt_acquire(ag_hbt *h, unsigned tag, uint64_t obj)
{
   if (!ag_hbt_valid(tag)) return;
   ag_hbt_vc *o = ag_map_get(h->obj, obj);
   if (o) ag_hbt_vc_join(ag_hbt_thread(h, tag), o);
}

void ag_hbt_release(ag_hbt *h, unsigned tag, uint64_t obj)
{
   if (!ag_hbt_valid(tag)) return;
   int created;
   ag_hbt_vc *v = ag_hbt_thread(h, tag);
   ag_hbt_vc_join(ag_map_lookup(h->obj, obj, &created), v);
   ag_hbt_vc_tick(v, tag);
}

void ag_hbt_join(ag_hbt *h, unsigned joiner, unsigned child)
{
   if (!ag_hbt_valid(joiner) || !ag_hbt_valid(child) || joiner == child) return;
   ag_hbt_vc_join(ag_hbt_thread(h, joiner), ag_hbt_thread(h, child));
}

void ag_hbt_start(ag_hbt *h, unsigned tag)
{
   if (ag_hbt_valid(tag)) ag_hbt_vc_tick(ag_hbt_thread(h, tag), tag);
}

uint32_t ag_hbt_clock(ag_hbt *h, unsigned tag)
{
   return ag_hbt_valid(tag) ? ag_hbt_vc_get(ag_hbt_thread(h, tag), tag) : 0;
}

int ag_hbt_ordered(const ag_hbt *h, unsigned me, unsigned other, uint8_t low8)
{
   if (!ag_hbt_valid(me) || !ag_hbt_valid(other) || me == other) return 0;
   uint32_t now = ag_hbt_vc_get(&h->th[other], other);
   if (now == 0) return 0;
   uint32_t back = (uint32_t)(uint8_t)(now - low8);
   if (back >= now) return 0;            /* before its first clock: unknown */
   return ag_hbt_vc_get(&h->th[me], other) >= now - back;
}
