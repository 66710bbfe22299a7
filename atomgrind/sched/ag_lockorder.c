/* ag_lockorder.c -- the lock acquisition order graph: an edge A -> B when
 * a thread took B, in a call that could block forever, while holding A.
 * A new edge that closes a cycle is a lock-order inversion: threads
 * running those acquisitions at once could deadlock.  It is reported
 * (Helgrind's LockOrder) unless it cannot deadlock:
 *
 *  - every order of the cycle was made by one thread only (a thread does
 *    not wait for itself);
 *  - a gate lock: one lock, not on the cycle, held at every acquisition
 *    of the cycle's orders (they cannot run at once);
 *  - the later lock was taken by trylock or a timed lock (it cannot wait
 *    forever).  Helgrind counts those; back-off code that trylocks in the
 *    "wrong" order is correct, so this tool does not.  A lock taken by a
 *    trylock and still held does count as the earlier lock of an order.
 *  - a lock of the cycle that is read-held where a thread waits to
 *    read-lock it: readers do not exclude readers.  A read hold does
 *    exclude a writer, and is no gate.  (An order made both ways counts
 *    as exclusive.)
 *
 * The orders are established whichever threads ran them, even one after
 * the other (Helgrind's rule): the inversion is reported as possible. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc), VG_(realloc) */
#include "ag_lockerrors.h"         /* the report */
#include "ag_lockorder.h"
#include "ag_map.h"                /* lock -> its node */
#include "ag_threadrec.h"          /* the locks each thread holds, in its slot */

/* Locks one thread holds, in the order taken: its slot's part
   (ag_threadrec.h), zeroed when a thread is created in the slot. */
typedef ag_ts_lockorder ag_lo_held;

#define AG_LO_GATES 4
typedef struct {
   Addr to;
   ExeContext *from_ec, *to_ec;   /* the first acquisitions that made it */
   ag_tid tid;                    /* the first thread that made it ... */
   Bool many;                     /* ... and whether another one did too */
   Bool from_excl, to_excl;       /* ever write-held / write-locked (not
                                     an rwlock's read lock) */
   UInt ngates;                   /* locks held at every acquisition that made it */
   Addr gates[AG_LO_GATES];
} ag_lo_edge;

typedef struct {
   UInt n, cap;
   ag_lo_edge *out;
   UInt in;                       /* edges into this lock */
   UInt mark;                     /* the search that visited it */
} ag_lo_node;

static ag_map *ag_lo_nodes;       /* lock -> ag_lo_node */
static UInt ag_lo_search;

static ag_lo_node *ag_lo_node_of(Addr lock, Bool create)
{
   if (!ag_lo_nodes) {
      if (!create) return NULL;
      ag_lo_nodes = ag_map_new(sizeof(ag_lo_node));
   }
   return create ? ag_map_lookup(ag_lo_nodes, lock, NULL) : ag_map_get(ag_lo_nodes, lock);
}

static ag_lo_edge *ag_lo_edge_of(ag_lo_node *n, Addr to)
{
   for (UInt i = 0; n && i < n->n; i++)
      if (n->out[i].to == to) return &n->out[i];
   return NULL;
}

/* ---- the search for a path to -> ... -> from ---- */

#define AG_LO_DEPTH 32
typedef struct { ag_lo_node *node; UInt next; ag_lo_edge *via; } ag_lo_frame;

/* A path from `from` to `target` (depth-first, bounded); its edges in
   path[0..*n). */
static Bool ag_lo_path(Addr from, Addr target, ag_lo_edge **path, UInt *n)
{
   ag_lo_frame st[AG_LO_DEPTH];
   UInt d = 0;
   ag_lo_node *f = ag_lo_node_of(from, False);
   if (!f) return False;
   ag_lo_search++;
   f->mark = ag_lo_search;
   st[d++] = (ag_lo_frame){ f, 0, NULL };
   while (d > 0) {
      ag_lo_frame *top = &st[d - 1];
      if (top->next >= top->node->n) { d--; continue; }
      ag_lo_edge *e = &top->node->out[top->next++];
      if (e->to == target) {
         for (UInt i = 1; i < d; i++) path[i - 1] = st[i].via;
         path[d - 1] = e;
         *n = d;
         return True;
      }
      ag_lo_node *nx = ag_lo_node_of(e->to, False);
      if (!nx || nx->mark == ag_lo_search || d == AG_LO_DEPTH) continue;
      nx->mark = ag_lo_search;
      st[d++] = (ag_lo_frame){ nx, 0, e };
   }
   return False;
}

/* ---- can the cycle deadlock? ---- */

static Bool ag_lo_has(const Addr *a, UInt n, Addr x)
{
   for (UInt i = 0; i < n; i++)
      if (a[i] == x) return True;
   return False;
}

/* Keep in gates[0..*n) only the locks also in b[0..nb). */
static void ag_lo_intersect(Addr *gates, UInt *n, const Addr *b, UInt nb)
{
   UInt k = 0;
   for (UInt i = 0; i < *n; i++)
      if (ag_lo_has(b, nb, gates[i])) gates[k++] = gates[i];
   *n = k;
}

/* Can each lock of the cycle block the thread that waits for it: it is
   write-held by the order leaving it, or write-locked by the one entering
   it?  new_* are the new order's (from -> to), closing the path's
   to -> ... -> from. */
static Bool ag_lo_all_exclude(Bool new_from_excl, Bool new_to_excl, ag_lo_edge **path, UInt n)
{
   if (!new_to_excl && !path[0]->from_excl) return False;          /* to */
   for (UInt i = 0; i + 1 < n; i++)
      if (!path[i]->to_excl && !path[i + 1]->from_excl) return False;
   return path[n - 1]->to_excl || new_from_excl;                    /* from */
}

/* The new order (by thread t, gates g) and the path's orders: made by
   more than one thread, and no lock off the cycle held at all of them. */
static Bool ag_lo_can_deadlock(ag_tid t, const Addr *g, UInt ng, ag_lo_edge **path, UInt n)
{
   Bool others = False;
   Addr common[AG_LO_GATES];
   UInt nc = ng;
   for (UInt i = 0; i < ng; i++) common[i] = g[i];
   for (UInt i = 0; i < n; i++) {
      others |= path[i]->many || path[i]->tid != t;
      ag_lo_intersect(common, &nc, path[i]->gates, path[i]->ngates);
   }
   return others && nc == 0;
}

/* ---- the graph ---- */

static ag_lo_edge *ag_lo_add_edge(Addr from, Addr to)
{
   ag_lo_node *n = ag_lo_node_of(from, True);
   if (n->n == n->cap) {
      n->cap = n->cap ? 2 * n->cap : 4;
      n->out = VG_(realloc)("ag.lockorder.edges", n->out, n->cap * sizeof *n->out);
   }
   ag_lo_edge *e = &n->out[n->n++];
   VG_(memset)(e, 0, sizeof *e);
   e->to = to;
   ag_lo_node_of(to, True)->in++;
   return e;
}

static void ag_lo_tell(ThreadId vgtid, const ag_lo_order *obs, ag_lo_edge **path, UInt n,
                       Addr to)
{
   ag_lo_report r;
   VG_(memset)(&r, 0, sizeof r);
   r.observed = *obs;
   Addr from = to;                 /* the path starts at the new order's later lock */
   for (UInt i = 0; i < n; i++) {
      if (i < AG_LO_PATH_MAX) {
         r.path[i] = (ag_lo_order){ from, path[i]->to, path[i]->from_ec, path[i]->to_ec,
                                    path[i]->tid };
         r.n++;
      }
      from = path[i]->to;
   }
   r.more = n - r.n;
   ag_lockerr_order(vgtid, &r);
}

/* Report the inversion if the order h->lock[i] -> to (to_excl: `to` was
   write-locked), with gates g, closes a cycle that can deadlock. */
static void ag_lo_check(ThreadId vgtid, ag_tid t, const ag_lo_held *h, UInt i, Addr to,
                        ExeContext *ec, Bool to_excl, const Addr *g, UInt ng)
{
   ag_lo_edge *path[AG_LO_DEPTH];
   UInt n;
   if (ag_lo_path(to, h->lock[i], path, &n) && ag_lo_can_deadlock(t, g, ng, path, n)
       && ag_lo_all_exclude(!h->shared[i], to_excl, path, n)) {
      ag_lo_order obs = { h->lock[i], to, h->ec[i], ec, t };
      ag_lo_tell(vgtid, &obs, path, n, to);
   }
}

/* Thread vgtid took `to` (shared: read-locked it) at ec while holding h's
   locks: each one held is ordered before it. */
static void ag_lo_orders(ThreadId vgtid, ag_tid t, ag_lo_held *h, Addr to, ExeContext *ec,
                         Bool shared)
{
   for (UInt i = 0; i < h->n; i++) {
      Addr from = h->lock[i];
      if (from == to) continue;
      Addr gates[AG_LO_GATES];
      UInt ng = 0;
      for (UInt j = 0; j < h->n && ng < AG_LO_GATES; j++)
         if (j != i && h->lock[j] != to && !h->shared[j]) gates[ng++] = h->lock[j];
      Bool from_excl = !h->shared[i], to_excl = !shared;
      ag_lo_edge *e = ag_lo_edge_of(ag_lo_node_of(from, False), to);
      if (e) {                     /* known: what it says narrows ... */
         e->many |= e->tid != t;
         ag_lo_intersect(e->gates, &e->ngates, gates, ng);
         if ((e->from_excl || !from_excl) && (e->to_excl || !to_excl)) continue;
         /* ... but an order made read-only before may deadlock now */
         e->from_excl |= from_excl;
         e->to_excl |= to_excl;
         ag_lo_check(vgtid, t, h, i, to, ec, to_excl, gates, ng);
         continue;
      }
      ag_lo_check(vgtid, t, h, i, to, ec, to_excl, gates, ng);
      e = ag_lo_add_edge(from, to);
      e->from_ec = h->ec[i];
      e->to_ec = ec;
      e->tid = t;
      e->from_excl = from_excl;
      e->to_excl = to_excl;
      e->ngates = ng;
      for (UInt j = 0; j < ng; j++) e->gates[j] = gates[j];
   }
}

void ag_lo_acquire(ThreadId vgtid, ag_tid t, Addr lock, ExeContext *ec, Bool blocking,
                   Bool shared)
{
   ag_lo_held *h = &ag_slot_of(vgtid)->lockorder;
   if (blocking) ag_lo_orders(vgtid, t, h, lock, ec, shared);
   if (h->n < AG_LO_HELD) {
      h->lock[h->n] = lock;
      h->shared[h->n] = shared;
      h->ec[h->n++] = ec;
   }
}

void ag_lo_release(ThreadId vgtid, Addr lock)
{
   ag_lo_held *h = &ag_slot_of(vgtid)->lockorder;
   for (UInt i = h->n; i-- > 0;)
      if (h->lock[i] == lock) {
         for (UInt j = i + 1; j < h->n; j++) {
            h->lock[j - 1] = h->lock[j];
            h->ec[j - 1] = h->ec[j];
            h->shared[j - 1] = h->shared[j];
         }
         h->n--;
         return;
      }
}

static void ag_lo_drop_to(void *arg, uint64_t key, void *rec)
{
   Addr to = *(Addr *)arg;
   ag_lo_node *n = rec;
   (void)key;
   for (UInt i = 0; i < n->n; i++)
      if (n->out[i].to == to) {
         n->out[i] = n->out[--n->n];
         return;
      }
}

void ag_lo_forget(Addr lock)
{
   ag_lo_node *n = ag_lo_node_of(lock, False);
   if (!n) return;
   for (UInt i = 0; i < n->n; i++) {
      ag_lo_node *to = ag_lo_node_of(n->out[i].to, False);
      if (to && to->in > 0) to->in--;
   }
   n->n = 0;
   if (n->in > 0) {
      ag_map_foreach(ag_lo_nodes, ag_lo_drop_to, &lock);
      n->in = 0;
   }
}

typedef struct { UInt n; Addr key[64]; Bool more; } ag_lo_keys;

static void ag_lo_collect(void *arg, uint64_t key, void *rec)
{
   ag_lo_keys *k = arg;
   const ag_lo_node *n = rec;
   if (n->n == 0 && n->in == 0) return;          /* nothing to forget */
   if (k->n < 64) k->key[k->n++] = (Addr)key;
   else k->more = True;
}

/* Memory at [a, a+len) was freed: a lock there (a C++ std::mutex is never
   initialised or destroyed through pthreads) is gone with its orders. */
void ag_lo_forget_range(Addr a, SizeT len)
{
   if (!ag_lo_nodes || len == 0) return;
   ag_lo_keys k;
   do {
      k.n = 0;
      k.more = False;
      ag_map_foreach_in(ag_lo_nodes, a, a + len, ag_lo_collect, &k);
      for (UInt i = 0; i < k.n; i++) ag_lo_forget(k.key[i]);
   } while (k.more);
}
