/* ag_locksets.c -- interned sets of held locks, each thread's current
 * set (the locks part of its record, ag_threadrec.h), and where each
 * lock was first acquired. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memcpy) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc) */
#include "ag_locksets.h"
#include "ag_map.h"
#include "ag_threadrec.h"          /* tags and depths by thread id */

/* Ids fit in the 16 bits above a site's address; the last is "unknown". */
#define AG_LS_MAX AG_LS_UNKNOWN

typedef struct {
   UInt n;
   UInt next;          /* next set with the same hash (0: none) */
   Addr *locks;        /* sorted */
} ag_ls_set;

static ag_ls_set *ag_ls_sets;      /* by id; [0] is the empty set */
static UInt ag_ls_nsets, ag_ls_cap;
static ag_map *ag_ls_by_hash;      /* hash -> UInt first id with it */

typedef struct { ExeContext *ec; ag_tid by; } ag_ls_origin;
static ag_map *ag_ls_origins;      /* lock -> where first acquired */

static ULong ag_ls_hash(const Addr *locks, UInt n)
{
   ULong h = 0x9e3779b97f4a7c15ULL ^ n;
   for (UInt i = 0; i < n; i++) h = (h ^ locks[i]) * 0x100000001b3ULL;
   return h;
}

static Bool ag_ls_same(const ag_ls_set *s, const Addr *locks, UInt n)
{
   if (s->n != n) return False;
   for (UInt i = 0; i < n; i++)
      if (s->locks[i] != locks[i]) return False;
   return True;
}

/* The id of the set locks[0..n) (sorted), made if new; AG_LS_UNKNOWN
   once the ids run out. */
static UInt ag_ls_intern(const Addr *locks, UInt n)
{
   if (n == 0) return 0;
   int created;
   UInt *head = ag_map_lookup(ag_ls_by_hash, ag_ls_hash(locks, n), &created);
   for (UInt id = created ? 0 : *head; id; id = ag_ls_sets[id].next)
      if (ag_ls_same(&ag_ls_sets[id], locks, n)) return id;
   if (ag_ls_nsets >= AG_LS_MAX) return AG_LS_UNKNOWN;
   if (ag_ls_nsets == ag_ls_cap) {
      ag_ls_cap *= 2;
      ag_ls_sets = VG_(realloc)("ag.locksets", ag_ls_sets, ag_ls_cap * sizeof *ag_ls_sets);
   }
   UInt id = ag_ls_nsets++;
   ag_ls_set *s = &ag_ls_sets[id];
   s->n = n;
   s->next = created ? 0 : *head;
   s->locks = VG_(malloc)("ag.locksets.set", n * sizeof(Addr));
   VG_(memcpy)(s->locks, locks, n * sizeof(Addr));
   *head = id;
   return id;
}

static void ag_ls_init(void)
{
   if (ag_ls_sets) return;
   ag_ls_cap = 64;
   ag_ls_sets = VG_(calloc)("ag.locksets", ag_ls_cap, sizeof *ag_ls_sets);
   ag_ls_nsets = 1;                  /* the empty set */
   ag_ls_by_hash = ag_map_new(sizeof(UInt));
   ag_ls_origins = ag_map_new(sizeof(ag_ls_origin));
}

static UInt ag_ls_cur(const ag_tr_locks *l) { return ag_site_lockset(l->tag); }

static void ag_ls_set_cur(ag_tr_locks *l, UInt id)
{
   l->tag = ag_site_locks(id);
}

/* A thread's locks are few: the new set is built on the stack.  A thread
   whose set is unknown stays so until it holds nothing.  Acquires and
   releases come balanced, outermost only (ag_sync.c). */
#define AG_LS_HELD_MAX 64

void ag_lockset_acquire(ag_tid t, ThreadId vgtid, Addr lock)
{
   ag_ls_init();
   int created;
   ag_ls_origin *o = ag_map_lookup(ag_ls_origins, lock, &created);
   if (created || !o->ec) {
      o->ec = VG_(record_ExeContext)(vgtid, 0);
      o->by = t;
   }
   ag_tr_locks *l = &ag_rec_of(t)->locks;
   l->depth++;
   UInt cur = ag_ls_cur(l);
   if (cur == AG_LS_UNKNOWN) return;
   const ag_ls_set *s = &ag_ls_sets[cur];
   if (s->n >= AG_LS_HELD_MAX) { ag_ls_set_cur(l, AG_LS_UNKNOWN); return; }
   Addr held[AG_LS_HELD_MAX];
   UInt n = 0, i = 0;
   while (i < s->n && s->locks[i] < lock) held[n++] = s->locks[i++];
   if (i < s->n && s->locks[i] == lock) { l->depth--; return; }   /* held already */
   held[n++] = lock;
   while (i < s->n) held[n++] = s->locks[i++];
   ag_ls_set_cur(l, ag_ls_intern(held, n));
}

void ag_lockset_release(ag_tid t, Addr lock)
{
   ag_threadrec *r = ag_rec_find(t);
   if (!r || r->locks.depth == 0) return;
   ag_tr_locks *l = &r->locks;
   if (--l->depth == 0) { ag_ls_set_cur(l, 0); return; }
   UInt cur = ag_ls_cur(l);
   if (cur == AG_LS_UNKNOWN) return;
   const ag_ls_set *s = &ag_ls_sets[cur];
   Addr held[AG_LS_HELD_MAX];
   UInt n = 0;
   for (UInt i = 0; i < s->n; i++)
      if (s->locks[i] != lock) held[n++] = s->locks[i];
   ag_ls_set_cur(l, ag_ls_intern(held, n));
}

void ag_lockset_forget(Addr lock)
{
   ag_ls_origin *o = ag_ls_origins ? ag_map_get(ag_ls_origins, lock) : NULL;
   if (o) o->ec = NULL;
}

static void ag_ls_forget_origin(void *arg, uint64_t key, void *rec)
{
   (void)arg;
   (void)key;
   ((ag_ls_origin *)rec)->ec = NULL;
}

void ag_lockset_forget_range(Addr a, SizeT len)
{
   if (ag_ls_origins && len > 0)
      ag_map_foreach_in(ag_ls_origins, a, a + len, ag_ls_forget_origin, NULL);
}

UInt ag_lockset_size(UInt id)
{
   return id < ag_ls_nsets ? ag_ls_sets[id].n : 0;
}

Addr ag_lockset_lock(UInt id, UInt i)
{
   return ag_ls_sets[id].locks[i];
}

ExeContext *ag_lockset_first_acquire(Addr lock, ag_tid *by)
{
   ag_ls_origin *o = ag_ls_origins ? ag_map_get(ag_ls_origins, lock) : NULL;
   if (!o || !o->ec) return NULL;
   *by = o->by;
   return o->ec;
}
