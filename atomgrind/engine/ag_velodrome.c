/* ag_velodrome.c -- Velodrome-style transaction graph: the simple,
 * obviously-correct baseline for conflict-serializability.
 *
 * Nodes are transactions (outermost regions, and unary transactions for
 * events outside regions).  An edge A -> B is a conflict from an event of A
 * to a later event of B (thread order between consecutive transactions of a
 * thread, fork, join, lock release -> acquire, write/read conflicts).
 * Every new edge points into the transaction of the current event; it
 * closes a cycle iff that transaction already reaches the edge's source, so
 * the check is one DFS from the target.  The cycle-closing edge is reported
 * and not inserted, so the graph stays acyclic.
 *
 * As sources, the last write, the readers since it and the last (write-)
 * release with the read-releases since it are enough: older conflicting
 * events reach them through edges already in the graph.
 *
 * Garbage collection: a finished transaction never gets new in-edges, so a
 * finished node without in-edges can never lie on a cycle and its out-edges
 * only start paths at it.  It is freed at once (cascading).  Location, lock
 * and thread state refer to nodes by (slot, id); a reference whose id no
 * longer matches the slot's is to a collected node and is ignored.
 * So the graph holds only what is reachable from open transactions.
 */
#include "ag_engine_impl.h"
#include "ag_map.h"
#include "ag_shim.h"

/* A reference to an event of a transaction: the node and, for reports, the
   event's index and site. */
typedef struct vd_src {
   uint64_t id;              /* node id (0 = none); slots are reused */
   uint32_t slot;
   ag_tid tid;
   uint64_t event, site;
} vd_src;

typedef struct vd_set {      /* readers / read-releases, one per thread */
   uint32_t n, cap;
   vd_src e[];
} vd_set;

typedef struct vd_loc {
   vd_src w;                 /* last write */
   vd_src r;                 /* one reader since the last write */
   vd_set *more;             /* further readers (other threads) */
} vd_loc;

typedef struct vd_lock {
   vd_src w;                 /* last (write) release */
   vd_set *rd;               /* read-releases since it */
} vd_lock;

typedef struct vd_node {
   uint64_t id;              /* 0 while the slot is free */
   uint64_t mark;            /* DFS stamp */
   uint64_t begin_event, begin_site;
   uint32_t *out, nout, capout;
   uint32_t indeg;           /* in-edges from live nodes */
   ag_tid tid;
   uint8_t open, region;
   uint32_t next_free;
} vd_node;

typedef struct vd_thread {
   uint32_t cur;             /* slot of the open region, 0 if none */
   uint32_t unary;           /* slot of the unary txn of the current event */
   uint64_t last_id;         /* latest transaction of the thread */
   uint32_t last_slot;
   vd_src fork;              /* pending fork edge into the first txn */
   int started;
} vd_thread;

typedef struct vd {
   ag_ctx *ctx;
   vd_node *nodes;           /* slot 0 is never used */
   uint32_t nnodes, capnodes, free_head, live;
   uint64_t next_id, stamp;
   uint32_t *stack, capstack;
   vd_thread *th;
   uint32_t nth;
   ag_map *locks;
} vd;

/* ---- nodes ------------------------------------------------------- */

static uint32_t vd_node_alloc(vd *d, ag_tid t, int region)
{
   uint32_t s;
   if (d->free_head) {
      s = d->free_head;
      d->free_head = d->nodes[s].next_free;
   } else {
      if (d->nnodes >= d->capnodes) {
         uint32_t nc = d->capnodes ? d->capnodes * 2 : 64;
         d->nodes = ag_realloc(d->nodes, nc * sizeof(vd_node));
         ag_memzero(d->nodes + d->capnodes, (nc - d->capnodes) * sizeof(vd_node));
         d->capnodes = nc;
      }
      s = d->nnodes++;
   }
   vd_node *n = &d->nodes[s];
   n->id = ++d->next_id;
   n->mark = 0;
   n->nout = 0;
   n->indeg = 0;
   n->tid = t;
   n->open = 1;
   n->region = (uint8_t)region;
   n->begin_event = region ? d->ctx->event : 0;
   n->begin_site = region ? d->ctx->site : 0;
   d->live++;
   return s;
}

static int vd_alive(const vd *d, uint64_t id, uint32_t slot)
{
   return id && d->nodes[slot].id == id;
}

/* Free n and every finished node that is left without in-edges. */
static void vd_collect(vd *d, uint32_t s)
{
   uint32_t sp = 0;
   d->stack[sp++] = s;
   while (sp) {
      uint32_t x = d->stack[--sp];
      vd_node *n = &d->nodes[x];
      for (uint32_t i = 0; i < n->nout; i++) {
         vd_node *m = &d->nodes[n->out[i]];
         AG_ASSERT(m->indeg > 0);
         if (--m->indeg == 0 && !m->open) d->stack[sp++] = n->out[i];
      }
      n->id = 0;
      n->nout = 0;
      if (n->capout > 64) {          /* do not keep a hub's edge array */
         ag_free(n->out);
         n->out = NULL;
         n->capout = 0;
      }
      n->next_free = d->free_head;
      d->free_head = x;
      d->live--;
   }
}

static void vd_stack_reserve(vd *d)
{
   if (d->capstack < d->capnodes) {
      d->stack = ag_realloc(d->stack, d->capnodes * sizeof(uint32_t));
      d->capstack = d->capnodes;
   }
}

static void vd_finish(vd *d, uint32_t s)
{
   vd_node *n = &d->nodes[s];
   n->open = 0;
   if (n->indeg == 0) {
      vd_stack_reserve(d);
      vd_collect(d, s);
   }
}

static void vd_add_edge(vd *d, uint32_t from, uint32_t to)
{
   vd_node *f = &d->nodes[from];
   /* most repeated edges are among the latest ones */
   uint32_t lo = f->nout > 8 ? f->nout - 8 : 0;
   for (uint32_t i = f->nout; i > lo; i--)
      if (f->out[i - 1] == to) return;
   if (f->nout == f->capout) {
      f->capout = f->capout ? f->capout * 2 : 4;
      f->out = ag_realloc(f->out, f->capout * sizeof(uint32_t));
   }
   f->out[f->nout++] = to;
   d->nodes[to].indeg++;
}

/* Does node `from` reach node `goal`? */
static int vd_reaches(vd *d, uint32_t from, uint32_t goal)
{
   vd_stack_reserve(d);
   uint64_t stamp = ++d->stamp;
   uint32_t sp = 0;
   d->stack[sp++] = from;
   d->nodes[from].mark = stamp;
   while (sp) {
      vd_node *n = &d->nodes[d->stack[--sp]];
      for (uint32_t i = 0; i < n->nout; i++) {
         uint32_t m = n->out[i];
         if (m == goal) return 1;
         if (d->nodes[m].mark != stamp) {
            d->nodes[m].mark = stamp;
            d->stack[sp++] = m;
         }
      }
   }
   return 0;
}

/* ---- transactions ------------------------------------------------ */

static vd_thread *vd_thr(vd *d, ag_tid t)
{
   if (t >= d->nth) {
      uint32_t nc = d->nth ? d->nth : 8;
      while (nc <= t) nc *= 2;
      d->th = ag_realloc(d->th, nc * sizeof(vd_thread));
      ag_memzero(d->th + d->nth, (nc - d->nth) * sizeof(vd_thread));
      d->nth = nc;
   }
   return &d->th[t];
}

/* A fresh transaction of t: it follows t's previous one, and the pending
   fork if this is t's first. */
static uint32_t vd_txn_new(vd *d, ag_tid t, int region)
{
   uint32_t s = vd_node_alloc(d, t, region);
   vd_thread *th = vd_thr(d, t);
   if (vd_alive(d, th->last_id, th->last_slot)) vd_add_edge(d, th->last_slot, s);
   if (!th->started) {
      th->started = 1;
      if (vd_alive(d, th->fork.id, th->fork.slot)) vd_add_edge(d, th->fork.slot, s);
      th->fork.id = 0;
   }
   th->last_id = d->nodes[s].id;
   th->last_slot = s;
   return s;
}

/* The transaction of t's current event (a unary one is created). */
static uint32_t vd_event_txn(vd *d, ag_tid t, int *unary)
{
   vd_thread *th = vd_thr(d, t);
   *unary = th->cur == 0;
   return th->cur ? th->cur : vd_txn_new(d, t, 0);
}

static void vd_event_done(vd *d, uint32_t s, int unary)
{
   if (unary) vd_finish(d, s);
}

/* Remember the current event of transaction s as a future edge source. */
static void vd_set_src(vd *d, vd_src *r, uint32_t s)
{
   r->id = d->nodes[s].id;
   r->slot = s;
   r->tid = d->nodes[s].tid;
   r->event = d->ctx->event;
   r->site = d->ctx->site;
}

/* The ordering src -> txn s of t.  Reports instead of inserting when it
   would close a cycle. */
static void vd_link(vd *d, const vd_src *src, ag_tid t, uint32_t s, int check,
                    unsigned other_flags)
{
   if (!vd_alive(d, src->id, src->slot) || src->slot == s) return;
   vd_node *f = &d->nodes[src->slot];
   if (f->tid == t) return;          /* thread order already covers it */
   /* a cycle needs a path s ->* src: src must have in-edges, s out-edges */
   if (check && f->indeg && d->nodes[s].nout && vd_reaches(d, s, src->slot)) {
      ag_violation v;
      ag_memzero(&v, sizeof v);
      v.tid = t;
      v.other_tid = f->tid;
      v.other_event = src->event;
      v.other_site = src->site;
      v.other_flags = other_flags;
      if (f->region) {
         v.other_begin_event = f->begin_event;
         v.other_begin_site = f->begin_site;
      }
      ag_ctx_report(d->ctx, &v);
      return;
   }
   vd_add_edge(d, src->slot, s);
}

/* ---- reader sets ------------------------------------------------- */

/* Record s (a transaction of thread t) in the set {one} + *sp, replacing
   t's older entry or a dead one. */
static void vd_set_put(vd *d, vd_set **sp, vd_src *one, uint32_t s)
{
   ag_tid t = d->nodes[s].tid;
   vd_src *slot = NULL;
   if (one && (!vd_alive(d, one->id, one->slot) || one->tid == t)) slot = one;
   vd_set *set = *sp;
   if (set) {
      for (uint32_t i = 0; i < set->n && !slot; i++)
         if (set->e[i].tid == t || !vd_alive(d, set->e[i].id, set->e[i].slot))
            slot = &set->e[i];
   }
   if (!slot) {
      if (!set || set->n == set->cap) {
         uint32_t nc = set ? set->cap * 2 : 4;
         set = ag_realloc(set, sizeof(vd_set) + nc * sizeof(vd_src));
         if (!*sp) set->n = 0;
         set->cap = nc;
         *sp = set;
      }
      slot = &set->e[set->n++];
   }
   vd_set_src(d, slot, s);
}

static void vd_set_clear(vd_src *one, vd_set **sp)
{
   if (one) one->id = 0;
   if (*sp) {
      if ((*sp)->cap > 16) { ag_free(*sp); *sp = NULL; }
      else (*sp)->n = 0;
   }
}

/* ---- ops --------------------------------------------------------- */

static void *vd_create(ag_ctx *ctx)
{
   vd *d = ag_calloc(1, sizeof *d);
   d->ctx = ctx;
   d->nnodes = 1;                    /* slot 0 = none */
   d->locks = ag_map_new(sizeof(vd_lock));
   return d;
}

static void vd_lock_fini(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   ag_free(((vd_lock *)rec)->rd);
}

static void vd_destroy(void *self)
{
   vd *d = self;
   for (uint32_t i = 0; i < d->capnodes; i++) ag_free(d->nodes[i].out);
   ag_free(d->nodes);
   ag_free(d->stack);
   ag_free(d->th);
   ag_map_foreach(d->locks, vd_lock_fini, NULL);
   ag_map_delete(d->locks);
   ag_free(d);
}

static void vd_loc_init(void *self, void *loc)
{
   (void)self;
   ag_memzero(loc, sizeof(vd_loc));
}

static void vd_loc_copy(void *self, void *dst, const void *src)
{
   (void)self;
   vd_loc *dl = dst;
   const vd_loc *sl = src;
   *dl = *sl;
   if (sl->more) {
      size_t n = sizeof(vd_set) + sl->more->cap * sizeof(vd_src);
      dl->more = ag_malloc(n);
      ag_memcopy(dl->more, sl->more, n);
   }
}

static void vd_loc_fini(void *self, void *loc)
{
   (void)self;
   vd_loc *l = loc;
   ag_free(l->more);
   l->more = NULL;
}

static void vd_thread_new(void *self, ag_tid t)
{
   vd_thr(self, t);
}

static void vd_begin(void *self, ag_tid t)
{
   vd *d = self;
   vd_thread *th = vd_thr(d, t);
   if (th->cur) return;
   uint32_t s = vd_txn_new(d, t, 1);
   vd_thr(d, t)->cur = s;
}

static void vd_end(void *self, ag_tid t)
{
   vd *d = self;
   vd_thread *th = vd_thr(d, t);
   uint32_t s = th->cur;
   if (!s) return;
   th->cur = 0;
   vd_finish(d, s);
}

static void vd_access_start(void *self, ag_tid t, unsigned flags)
{
   (void)flags;
   vd *d = self;
   vd_thread *th = vd_thr(d, t);
   th->unary = th->cur ? 0 : vd_txn_new(d, t, 0);
}

static void vd_access(void *self, ag_tid t, void *locp, ag_addr addr, unsigned flags)
{
   vd *d = self;
   vd_loc *l = locp;
   vd_thread *th = vd_thr(d, t);
   uint32_t s = th->cur ? th->cur : th->unary;
   int check = th->cur != 0;
   (void)addr;
   AG_ASSERT(s);
   if (flags & AG_WRITE) {
      vd_link(d, &l->r, t, s, check, 0);
      if (l->more)
         for (uint32_t i = 0; i < l->more->n; i++)
            vd_link(d, &l->more->e[i], t, s, check, 0);
      vd_link(d, &l->w, t, s, check, AG_WRITE);
      vd_set_clear(&l->r, &l->more);
      vd_set_src(d, &l->w, s);
   } else {
      vd_link(d, &l->w, t, s, check, AG_WRITE);
      vd_set_put(d, &l->more, &l->r, s);
   }
}

static void vd_access_done(void *self, ag_tid t)
{
   vd *d = self;
   vd_thread *th = vd_thr(d, t);
   if (th->unary) {
      uint32_t s = th->unary;
      th->unary = 0;
      vd_finish(d, s);
   }
}

static void vd_acquire(void *self, ag_tid t, ag_addr lock, int shared)
{
   vd *d = self;
   int unary;
   uint32_t s = vd_event_txn(d, t, &unary);
   vd_lock *lk = ag_map_get(d->locks, lock);
   if (lk) {
      vd_link(d, &lk->w, t, s, !unary, 0);
      if (!shared && lk->rd)         /* a writer follows every reader */
         for (uint32_t i = 0; i < lk->rd->n; i++)
            vd_link(d, &lk->rd->e[i], t, s, !unary, 0);
   }
   vd_event_done(d, s, unary);
}

static void vd_release(void *self, ag_tid t, ag_addr lock, int shared)
{
   vd *d = self;
   int unary;
   uint32_t s = vd_event_txn(d, t, &unary);
   vd_lock *lk = ag_map_lookup(d->locks, lock, NULL);
   if (shared) {
      vd_set_put(d, &lk->rd, NULL, s);
   } else {
      vd_set_clear(NULL, &lk->rd);
      vd_set_src(d, &lk->w, s);
   }
   vd_event_done(d, s, unary);
}

static void vd_lock_forget(void *self, ag_addr lock)
{
   vd *d = self;
   vd_lock *lk = ag_map_get(d->locks, lock);
   if (!lk) return;
   vd_lock_fini(NULL, lock, lk);
   ag_memzero(lk, sizeof *lk);
}

static void vd_fork(void *self, ag_tid parent, ag_tid child)
{
   vd *d = self;
   int unary;
   uint32_t s = vd_event_txn(d, parent, &unary);
   vd_thread *c = vd_thr(d, child);
   if (!c->started) vd_set_src(d, &c->fork, s);
   vd_event_done(d, s, unary);
}

static void vd_join(void *self, ag_tid joiner, ag_tid child)
{
   vd *d = self;
   int unary;
   uint32_t s = vd_event_txn(d, joiner, &unary);
   vd_thread *c = vd_thr(d, child);
   if (c->started && vd_alive(d, c->last_id, c->last_slot)) {
      vd_src src;
      src.id = c->last_id;
      src.slot = c->last_slot;
      src.tid = child;
      src.event = 0;                 /* the child's last event is not kept */
      src.site = 0;
      vd_link(d, &src, joiner, s, !unary, 0);
   }
   vd_event_done(d, s, unary);
}

const ag_engine_ops ag_velodrome_ops = {
   .name = "velodrome",
   .help = "Velodrome-style transaction graph with cycle detection (baseline)",
   .kind = AG_KIND_ATOMICITY,
   .loc_size = sizeof(vd_loc),
   .create = vd_create,
   .destroy = vd_destroy,
   .loc_init = vd_loc_init,
   .loc_copy = vd_loc_copy,
   .loc_fini = vd_loc_fini,
   .thread_new = vd_thread_new,
   .begin = vd_begin,
   .end = vd_end,
   .access_start = vd_access_start,
   .access = vd_access,
   .acquire = vd_acquire,
   .release = vd_release,
   .fork = vd_fork,
   .join = vd_join,
   .access_done = vd_access_done,
   .lock_forget = vd_lock_forget,
};
