/* ag_explain_core.c -- the cycle behind a report: a small Velodrome-style
 * transaction graph over the last events before it, and its pictures.
 *
 * Transactions are region instances and single events outside regions.
 * An edge X -> Y says some event of X conflicts with a later event of Y
 * (see ag_xp_conflict), or that Y follows X in one thread.  The report's
 * event e, in transaction T, conflicts with an earlier event a of
 * transaction U; the cycle is the shortest path T -> ... -> U in the graph
 * of the events before e, closed by a -> e.  Only the last `window`
 * events are kept, so the search is bounded: O(window^2) time, and a bit
 * per pair of transactions.  Plain C: output goes through a callback,
 * formatted by a small printf of our own (ag_xp_fmt). */
#include <stdarg.h>
#include "ag_explain_core.h"
#include "ag_map.h"
#include "ag_shim.h"

#define AG_XP_NONE (~(uint64_t)0)

typedef struct { ag_xp_event ev; uint64_t txn; } ag_xev;

struct ag_xp {
   uint32_t window;
   ag_xev *ring;
   uint64_t n;                    /* events seen */
   uint32_t nthr;
   uint32_t *depth;               /* per thread: region nesting */
   uint64_t *cur;                 /* per thread: open region's txn, or NONE */
   uint64_t next_txn;
};

/* The graph of one report. */
typedef struct {
   ag_xev *e;                     /* window events, in order, up to the report */
   uint32_t m;
   uint32_t k;                    /* transactions */
   uint32_t *node;                /* event -> node */
   uint32_t words;                /* 64-bit words per row of adj */
   uint64_t *adj;                 /* k rows: bit y of row x = edge x -> y */
} ag_xgraph;

typedef struct { uint32_t x, y, a, b; } ag_xedge;   /* nodes, witness events */

/* A found cycle: only the events of its transactions (in order), each
   with its transaction's place on the cycle (0 = the report's). */
struct ag_xp_cycle {
   ag_xp_event *e;
   uint32_t *pos;
   uint32_t m;
   int n;                         /* edges = transactions on the cycle */
   ag_xedge *edges;               /* x, y: places; a, b: indices into e */
   ag_tid *lanes;                 /* the cycle's threads, each once */
   int nlanes;
};

ag_xp *ag_xp_new(uint32_t window)
{
   ag_xp *x = ag_calloc(1, sizeof *x);
   x->window = window ? window : 4096;
   x->ring = ag_calloc(x->window, sizeof *x->ring);
   return x;
}

void ag_xp_delete(ag_xp *x)
{
   if (!x) return;
   ag_free(x->ring); ag_free(x->depth); ag_free(x->cur); ag_free(x);
}

uint32_t ag_xp_window(const ag_xp *x) { return x->window; }

static void ag_xp_thread(ag_xp *x, ag_tid t)
{
   if (t < x->nthr) return;
   uint32_t n = x->nthr ? x->nthr : 8;
   while (n <= t) n *= 2;
   x->depth = ag_realloc(x->depth, n * sizeof *x->depth);
   x->cur = ag_realloc(x->cur, n * sizeof *x->cur);
   for (uint32_t i = x->nthr; i < n; i++) { x->depth[i] = 0; x->cur[i] = AG_XP_NONE; }
   x->nthr = n;
}

void ag_xp_feed(ag_xp *x, const ag_xp_event *ev)
{
   ag_xp_thread(x, ev->tid);
   ag_tid t = ev->tid;
   uint64_t txn;
   if (ev->kind == AG_XE_BEGIN && x->depth[t]++ == 0) x->cur[t] = x->next_txn++;
   if (x->cur[t] != AG_XP_NONE) txn = x->cur[t];
   else txn = x->next_txn++;                        /* a unary transaction */
   if (ev->kind == AG_XE_END && x->depth[t] && --x->depth[t] == 0) x->cur[t] = AG_XP_NONE;
   ag_xev *slot = &x->ring[x->n++ % x->window];
   slot->ev = *ev;
   slot->txn = txn;
}

void ag_xp_thread_exit(ag_xp *x, ag_tid t)
{
   if (t >= x->nthr) return;
   x->depth[t] = 0;
   x->cur[t] = AG_XP_NONE;
}

/* Does a (earlier) conflict with b, of another thread? */
static int ag_xp_conflict(const ag_xp_event *a, const ag_xp_event *b)
{
   if (a->tid == b->tid) return 0;
   int acc_a = a->kind == AG_XE_READ || a->kind == AG_XE_WRITE;
   int acc_b = b->kind == AG_XE_READ || b->kind == AG_XE_WRITE;
   if (acc_a && acc_b)
      return a->a < b->a + b->size && b->a < a->a + a->size
             && (a->kind == AG_XE_WRITE || b->kind == AG_XE_WRITE);
   if (a->kind == AG_XE_REL && b->kind == AG_XE_ACQ)
      return a->a == b->a && !(a->shared && b->shared);
   if (a->kind == AG_XE_FORK) return b->tid == (ag_tid)a->a;
   if (b->kind == AG_XE_JOIN) return a->tid == (ag_tid)b->a;
   return 0;
}

/* ---- the graph ----------------------------------------------------- */

static int ag_xp_has(const ag_xgraph *g, uint32_t x, uint32_t y)
{
   return (g->adj[(size_t)x * g->words + (y >> 6)] >> (y & 63)) & 1;
}

static void ag_xp_set(ag_xgraph *g, uint32_t x, uint32_t y)
{
   g->adj[(size_t)x * g->words + (y >> 6)] |= (uint64_t)1 << (y & 63);
}

/* The window's events up to the report's, their transactions and edges. */
static int ag_xp_build(ag_xp *x, uint64_t upto, ag_xgraph *g)
{
   ag_memzero(g, sizeof *g);
   uint64_t first = x->n > x->window ? x->n - x->window : 0;
   g->e = ag_malloc(x->window * sizeof *g->e);
   for (uint64_t i = first; i < x->n; i++) {
      const ag_xev *s = &x->ring[i % x->window];
      if (s->ev.index <= upto) g->e[g->m++] = *s;
   }
   if (g->m == 0 || g->e[g->m - 1].ev.index != upto) return -1;
   g->node = ag_malloc(g->m * sizeof *g->node);
   ag_map *ids = ag_map_new(sizeof(uint32_t));
   for (uint32_t i = 0; i < g->m; i++) {
      int created;
      uint32_t *nd = ag_map_lookup(ids, g->e[i].txn, &created);
      if (created) *nd = g->k++;
      g->node[i] = *nd;
   }
   ag_map_delete(ids);
   g->words = (g->k + 63) / 64;
   g->adj = ag_calloc((size_t)g->k * g->words, sizeof *g->adj);
   /* conflicts among the events before the report's (its own edges close
      the cycle and are looked at separately) */
   for (uint32_t j = 0; j + 1 < g->m; j++)
      for (uint32_t i = 0; i < j; i++) {
         uint32_t xi = g->node[i], yj = g->node[j];
         if (xi != yj && !ag_xp_has(g, xi, yj) && ag_xp_conflict(&g->e[i].ev, &g->e[j].ev))
            ag_xp_set(g, xi, yj);
      }
   /* one thread's consecutive transactions */
   for (uint32_t j = 0; j < g->m; j++)
      for (uint32_t i = j; i-- > 0;)
         if (g->e[i].ev.tid == g->e[j].ev.tid) {
            if (g->node[i] != g->node[j]) ag_xp_set(g, g->node[i], g->node[j]);
            break;
         }
   return 0;
}

static void ag_xp_free(ag_xgraph *g)
{
   ag_free(g->e); ag_free(g->node); ag_free(g->adj);
}

/* The events that witness edge x -> y: the first conflicting pair (in
   the order of the later event, then the earlier), else the first pair
   of one thread's consecutive events. */
static void ag_xp_witness(const ag_xgraph *g, uint32_t x, uint32_t y, uint32_t *a, uint32_t *b)
{
   for (uint32_t j = 0; j + 1 < g->m; j++) {
      if (g->node[j] != y) continue;
      for (uint32_t i = 0; i < j; i++)
         if (g->node[i] == x && ag_xp_conflict(&g->e[i].ev, &g->e[j].ev)) {
            *a = i; *b = j;
            return;
         }
   }
   for (uint32_t j = 0; j < g->m; j++) {
      if (g->node[j] != y) continue;
      for (uint32_t i = j; i-- > 0;)
         if (g->e[i].ev.tid == g->e[j].ev.tid) {
            if (g->node[i] == x) { *a = i; *b = j; return; }
            break;
         }
   }
   ag_panic("ag_explain: an edge without a witness");
}

/* Breadth-first from node s, neighbours in node order: prev[] of every
   node reached (UINT32_MAX: not reached), dist[] its distance. */
static void ag_xp_bfs(const ag_xgraph *g, uint32_t s, uint32_t *prev, uint32_t *dist)
{
   uint32_t *q = ag_malloc(g->k * sizeof *q), h = 0, tl = 0;
   for (uint32_t i = 0; i < g->k; i++) prev[i] = UINT32_MAX;
   q[tl++] = s;
   prev[s] = s;
   dist[s] = 0;
   while (h < tl) {
      uint32_t u = q[h++];
      const uint64_t *row = &g->adj[(size_t)u * g->words];
      for (uint32_t w = 0; w < g->words; w++)
         for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
            uint32_t y = w * 64 + (uint32_t)__builtin_ctzll(bits);
            if (prev[y] == UINT32_MAX) { prev[y] = u; dist[y] = dist[u] + 1; q[tl++] = y; }
         }
   }
   ag_free(q);
}

/* The cycle: edges[0..n) in order from the report's transaction round to
   it, the last one closing it.  Tries the report's event first, then (for
   reports at a region's end) every event of its transaction.  The
   shortest path found first wins. */
static int ag_xp_cycle_of(const ag_xgraph *g, ag_xedge *edges)
{
   uint32_t e = g->m - 1, t = g->node[e];
   uint32_t *prev = ag_malloc(g->k * sizeof *prev), *dist = ag_malloc(g->k * sizeof *dist);
   ag_xp_bfs(g, t, prev, dist);
   int bestlen = -1;
   uint32_t ba = 0, bb = 0;
   for (int pass = 0; pass < 2 && bestlen < 0; pass++)
      for (uint32_t b = e + 1; b-- > 0;) {
         if (g->node[b] != t || (pass == 0 && b != e)) continue;
         for (uint32_t a = b; a-- > 0;) {
            uint32_t u = g->node[a];
            if (u == t || prev[u] == UINT32_MAX || !ag_xp_conflict(&g->e[a].ev, &g->e[b].ev))
               continue;
            if (bestlen < 0 || (int)dist[u] < bestlen) { bestlen = (int)dist[u]; ba = a; bb = b; }
         }
      }
   int n = 0;
   if (bestlen >= 0) {
      uint32_t *path = ag_malloc((bestlen + 1) * sizeof *path), v = g->node[ba];
      for (int i = bestlen; i >= 0; i--) { path[i] = v; v = prev[v]; }
      for (int i = 0; i < bestlen; i++) {
         ag_xedge *ed = &edges[n++];
         ed->x = path[i]; ed->y = path[i + 1];
         ag_xp_witness(g, ed->x, ed->y, &ed->a, &ed->b);
      }
      edges[n++] = (ag_xedge){ g->node[ba], t, ba, bb };
      ag_free(path);
   }
   ag_free(prev); ag_free(dist);
   return n;
}

/* The cycle's own events, each with its transaction's place on it. */
static ag_xp_cycle *ag_xp_extract(const ag_xgraph *g, const ag_xedge *edges, int n)
{
   ag_xp_cycle *c = ag_calloc(1, sizeof *c);
   uint32_t *place = ag_malloc(g->k * sizeof *place), *newidx = ag_malloc(g->m * sizeof *newidx);
   for (uint32_t i = 0; i < g->k; i++) place[i] = UINT32_MAX;
   for (int i = 0; i < n; i++) place[edges[i].x] = (uint32_t)i;
   c->e = ag_malloc(g->m * sizeof *c->e);
   c->pos = ag_malloc(g->m * sizeof *c->pos);
   for (uint32_t i = 0; i < g->m; i++) {
      newidx[i] = c->m;
      if (place[g->node[i]] == UINT32_MAX) continue;
      c->e[c->m] = g->e[i].ev;
      c->pos[c->m++] = place[g->node[i]];
   }
   c->n = n;
   c->edges = ag_malloc(n * sizeof *c->edges);
   for (int i = 0; i < n; i++)
      c->edges[i] = (ag_xedge){ place[edges[i].x], place[edges[i].y],
                                newidx[edges[i].a], newidx[edges[i].b] };
   /* lanes in the order the cycle's threads first appear */
   c->lanes = ag_malloc(n * sizeof *c->lanes);
   for (uint32_t i = 0; i < c->m; i++) {
      int seen = 0;
      for (int l = 0; l < c->nlanes; l++) seen |= c->lanes[l] == c->e[i].tid;
      if (!seen) c->lanes[c->nlanes++] = c->e[i].tid;
   }
   ag_free(place); ag_free(newidx);
   return c;
}

ag_xp_cycle *ag_xp_find(ag_xp *x, uint64_t event, ag_tid t)
{
   ag_xgraph g;
   ag_xp_cycle *c = NULL;
   /* (a report at a thread's exit has no event of its own) */
   if (ag_xp_build(x, event, &g) == 0 && g.e[g.m - 1].ev.tid == t) {
      ag_xedge *edges = ag_malloc((g.k + 1) * sizeof *edges);
      int n = ag_xp_cycle_of(&g, edges);
      if (n > 0) c = ag_xp_extract(&g, edges, n);
      ag_free(edges);
   }
   ag_xp_free(&g);
   return c;
}

void ag_xp_cycle_delete(ag_xp_cycle *c)
{
   if (!c) return;
   ag_free(c->e); ag_free(c->pos); ag_free(c->edges); ag_free(c->lanes); ag_free(c);
}


/* ---- a small printf ------------------------------------------------ */

/* Into a buffer (snprintf's rules: truncated, NUL-terminated, the length
   it would have had counted), or to the output (escaping <, > and & when
   esc is set, for text inside HTML). */
typedef struct {
   char *buf;
   size_t cap, len;
   const ag_xp_out *o;
   int esc;
   char stage[512];
   size_t n;
} ag_xp_sink;

static void ag_xp_flush(ag_xp_sink *s)
{
   if (s->o && s->n) s->o->put(s->o->cookie, s->stage, s->n);
   s->n = 0;
}

static void ag_xp_raw(ag_xp_sink *s, char ch)
{
   if (!s->o) {
      if (s->len + 1 < s->cap) s->buf[s->len] = ch;
      s->len++;
      return;
   }
   if (s->n == sizeof s->stage) ag_xp_flush(s);
   s->stage[s->n++] = ch;
}

static void ag_xp_ch(ag_xp_sink *s, char ch)
{
   const char *ent = NULL;
   if (s->esc) ent = ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '&' ? "&amp;" : NULL;
   if (!ent) ag_xp_raw(s, ch);
   else while (*ent) ag_xp_raw(s, *ent++);
}

static void ag_xp_field(ag_xp_sink *s, const char *str, size_t len, int width, int left)
{
   int pad = width > (int)len ? width - (int)len : 0;
   if (!left) while (pad-- > 0) ag_xp_ch(s, ' ');
   for (size_t i = 0; i < len; i++) ag_xp_ch(s, str[i]);
   if (left) while (pad-- > 0) ag_xp_ch(s, ' ');
}

/* %[-][width][l|ll](d|u|x|c|s) and %% */
static void ag_xp_vfmt(ag_xp_sink *s, const char *fmt, va_list ap)
{
   char num[24];
   for (; *fmt; fmt++) {
      if (*fmt != '%') { ag_xp_ch(s, *fmt); continue; }
      int left = 0, width = 0, longs = 0;
      if (*++fmt == '-') { left = 1; fmt++; }
      while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
      while (*fmt == 'l') { longs++; fmt++; }
      if (*fmt == 's') {
         const char *str = va_arg(ap, const char *);
         size_t len = 0;
         while (str[len]) len++;
         ag_xp_field(s, str, len, width, left);
         continue;
      }
      if (*fmt == 'c') { char ch = (char)va_arg(ap, int); ag_xp_field(s, &ch, 1, width, left); continue; }
      if (*fmt == '%') { ag_xp_ch(s, '%'); continue; }
      unsigned long long v;
      int neg = 0;
      if (*fmt == 'd') {
         long long sv = longs ? va_arg(ap, long long) : va_arg(ap, int);
         neg = sv < 0;
         v = neg ? 0 - (unsigned long long)sv : (unsigned long long)sv;
      } else {
         v = longs ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned);
      }
      unsigned base = *fmt == 'x' ? 16 : 10;
      size_t i = sizeof num;
      do { num[--i] = "0123456789abcdef"[v % base]; v /= base; } while (v);
      if (neg) num[--i] = '-';
      ag_xp_field(s, num + i, sizeof num - i, width, left);
   }
}

static void ag_xp_fmt(ag_xp_sink *s, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   ag_xp_vfmt(s, fmt, ap);
   va_end(ap);
}

/* snprintf: the length the text would have */
static size_t ag_xp_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
   ag_xp_sink s;
   va_list ap;
   ag_memzero(&s, sizeof s);
   s.buf = buf;
   s.cap = cap;
   va_start(ap, fmt);
   ag_xp_vfmt(&s, fmt, ap);
   va_end(ap);
   if (cap) buf[s.len < cap ? s.len : cap - 1] = 0;
   return s.len;
}

/* ---- drawing ------------------------------------------------------- */

/* "w(x)", "acq(m)", "begin", ... */
static void ag_xp_op(const ag_xp_out *o, const ag_xp_event *ev, char *buf, size_t cap)
{
   static const char *const names[] = { "r", "w", "acq", "rel", "fork", "join", "begin", "end" };
   const char *nm = NULL;
   char tmp[64];
   switch (ev->kind) {
   case AG_XE_READ: case AG_XE_WRITE:
      nm = o->var ? o->var(o->cookie, ev->a) : NULL;
      if (!nm) { ag_xp_snprintf(tmp, sizeof tmp, "0x%llx:%u", (unsigned long long)ev->a, ev->size); nm = tmp; }
      break;
   case AG_XE_ACQ: case AG_XE_REL:
      nm = o->lock ? o->lock(o->cookie, ev->a) : NULL;
      if (!nm) { ag_xp_snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)ev->a); nm = tmp; }
      break;
   case AG_XE_FORK: case AG_XE_JOIN:
      nm = o->thread(o->cookie, (ag_tid)ev->a);
      break;
   }
   if (nm) ag_xp_snprintf(buf, cap, "%s%s(%s)", names[ev->kind], ev->shared ? "_sh" : "", nm);
   else ag_xp_snprintf(buf, cap, "%s", names[ev->kind]);
}

static int ag_xp_lane(const ag_xp_cycle *c, ag_tid t)
{
   for (int i = 0; i < c->nlanes; i++) if (c->lanes[i] == t) return i;
   return -1;
}

/* first and last event of the transaction at place p */
static void ag_xp_span(const ag_xp_cycle *c, int p, uint32_t *lo, uint32_t *hi)
{
   *lo = UINT32_MAX; *hi = 0;
   for (uint32_t i = 0; i < c->m; i++)
      if (c->pos[i] == (uint32_t)p) { if (*lo == UINT32_MAX) *lo = i; *hi = i; }
}

static void ag_xp_text(const ag_xp_cycle *c, const ag_xp_out *o, ag_xp_sink *s)
{
   const char *w = o->where;
   char op[160], cell[200];
   ag_xp_fmt(s, "%8s", w);
   for (int l = 0; l < c->nlanes; l++) ag_xp_fmt(s, "  %-26s", o->thread(o->cookie, c->lanes[l]));
   ag_xp_fmt(s, "\n");
   for (uint32_t i = 0; i < c->m; i++) {
      int ti = (int)c->pos[i];
      ag_xp_op(o, &c->e[i], op, sizeof op);
      size_t len = ag_xp_snprintf(cell, sizeof cell, "%c %s", 'A' + ti, op);
      for (int k = 0; k < c->n; k++) {
         if (c->edges[k].a == i && len < sizeof cell)
            len += ag_xp_snprintf(cell + len, sizeof cell - len, " >%d", k + 1);
         if (c->edges[k].b == i && len < sizeof cell)
            len += ag_xp_snprintf(cell + len, sizeof cell - len, " %d>", k + 1);
      }
      ag_xp_fmt(s, "%8llu", (unsigned long long)c->e[i].index);
      int lane = ag_xp_lane(c, c->e[i].tid);
      for (int l = 0; l < lane; l++) ag_xp_fmt(s, "  %-26s", "");
      ag_xp_fmt(s, "  %s\n", cell);
   }
   ag_xp_fmt(s, "Transactions:\n");
   for (int i = 0; i < c->n; i++) {
      uint32_t lo, hi;
      ag_xp_span(c, i, &lo, &hi);
      int region = c->e[lo].kind == AG_XE_BEGIN;
      ag_xp_fmt(s, "  %c  %s  %ss %llu-%llu  %s\n", 'A' + i, o->thread(o->cookie, c->e[lo].tid), w,
                (unsigned long long)c->e[lo].index, (unsigned long long)c->e[hi].index,
                region ? "atomic region" : "outside any region");
   }
   ag_xp_fmt(s, "Edges:\n");
   for (int k = 0; k < c->n; k++) {
      const ag_xedge *e = &c->edges[k];
      char oa[160], ob[160];
      ag_xp_op(o, &c->e[e->a], oa, sizeof oa);
      ag_xp_op(o, &c->e[e->b], ob, sizeof ob);
      ag_xp_fmt(s, "  %d  %c -> %c  %s %s %llu -> %s %s %llu%s\n", k + 1, 'A' + (int)e->x,
                'A' + (int)e->y, oa, w, (unsigned long long)c->e[e->a].index, ob, w,
                (unsigned long long)c->e[e->b].index, k == c->n - 1 ? "  (closes the cycle)" : "");
   }
}

/* text escaped for XML (and DOT's quoted strings) */
static void ag_xp_esc(ag_xp_sink *s, const char *str)
{
   for (; *str; str++) {
      if (*str == '<') ag_xp_fmt(s, "&lt;");
      else if (*str == '>') ag_xp_fmt(s, "&gt;");
      else if (*str == '&') ag_xp_fmt(s, "&amp;");
      else if (*str == '"') ag_xp_fmt(s, "&quot;");
      else if ((unsigned char)*str < 0x20) ag_xp_ch(s, ' ');
      else ag_xp_ch(s, *str);
   }
}

static void ag_xp_dot(const ag_xp_cycle *c, const ag_xp_out *o, ag_xp_sink *s)
{
   char op[160];
   ag_xp_fmt(s, "digraph cycle {\n  node [shape=box, fontname=monospace];\n");
   for (int ti = 0; ti < c->n; ti++) {
      ag_xp_fmt(s, "  subgraph cluster_%c {\n    label=\"%c: ", 'A' + ti, 'A' + ti);
      uint32_t lo, hi, prev = UINT32_MAX;
      ag_xp_span(c, ti, &lo, &hi);
      ag_xp_esc(s, o->thread(o->cookie, c->e[lo].tid));
      ag_xp_fmt(s, "\";\n");
      for (uint32_t i = lo; i <= hi; i++) {
         if (c->pos[i] != (uint32_t)ti) continue;
         ag_xp_op(o, &c->e[i], op, sizeof op);
         ag_xp_fmt(s, "    e%llu [label=\"%llu: ", (unsigned long long)c->e[i].index,
                   (unsigned long long)c->e[i].index);
         ag_xp_esc(s, op);
         ag_xp_fmt(s, "\"];\n");
         if (prev != UINT32_MAX)
            ag_xp_fmt(s, "    e%llu -> e%llu [style=dotted, arrowhead=none];\n",
                      (unsigned long long)c->e[prev].index, (unsigned long long)c->e[i].index);
         prev = i;
      }
      ag_xp_fmt(s, "  }\n");
   }
   for (int k = 0; k < c->n; k++)
      ag_xp_fmt(s, "  e%llu -> e%llu [color=red, label=\"%d\"%s];\n",
                (unsigned long long)c->e[c->edges[k].a].index,
                (unsigned long long)c->e[c->edges[k].b].index, k + 1,
                k == c->n - 1 ? ", penwidth=2" : "");
   ag_xp_fmt(s, "}\n");
}

/* Lanes as columns, events as rows, transactions as boxes, conflict
   edges as arrows; class and data-* attributes say what each shape is. */
static void ag_xp_svg(const ag_xp_cycle *c, const ag_xp_out *o, ag_xp_sink *s)
{
   enum { ROWH = 26, X0 = 70, Y0 = 50 };
   uint32_t *row = ag_malloc((c->m ? c->m : 1) * sizeof *row), nrows = 0;
   char op[160];
   /* lanes 220 wide, wider when an event's text needs it (13px monospace
      is under 8px a character; the box starts 4 in, the text 12, and
      the transaction's letter wants 30 on its right) */
   int COLW = 220;
   for (uint32_t i = 0; i < c->m; i++) {
      row[i] = nrows++;
      ag_xp_op(o, &c->e[i], op, sizeof op);
      int len = 0;
      while (op[len]) len++;
      if (70 + 8 * len > COLW) COLW = 70 + 8 * len;
   }
   int wd = X0 + COLW * c->nlanes + 20, ht = Y0 + ROWH * (int)nrows + 20;
   ag_xp_fmt(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"13\">\n", wd, ht, wd, ht);
   ag_xp_fmt(s, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
             "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
             "fill=\"#c00\"/></marker></defs>\n");
   ag_xp_fmt(s, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
   for (int l = 0; l < c->nlanes; l++) {
      ag_xp_fmt(s, "<text class=\"lane\" x=\"%d\" y=\"%d\" font-weight=\"bold\">", X0 + COLW * l + 10, Y0 - 20);
      ag_xp_esc(s, o->thread(o->cookie, c->lanes[l]));
      ag_xp_fmt(s, "</text>\n");
   }
   for (int ti = 0; ti < c->n; ti++) {
      uint32_t lo, hi;
      ag_xp_span(c, ti, &lo, &hi);
      int l = ag_xp_lane(c, c->e[lo].tid);
      ag_xp_fmt(s, "<g class=\"txn\" data-name=\"%c\" data-thread=\"", 'A' + ti);
      ag_xp_esc(s, o->thread(o->cookie, c->e[lo].tid));
      ag_xp_fmt(s, "\" data-first=\"%llu\" data-last=\"%llu\">\n",
                (unsigned long long)c->e[lo].index, (unsigned long long)c->e[hi].index);
      ag_xp_fmt(s, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%u\" rx=\"6\" fill=\"#eef4ff\" "
                "stroke=\"#36c\"/>\n", X0 + COLW * l + 4, Y0 + ROWH * row[lo] - 18, COLW - 30,
                ROWH * (row[hi] - row[lo]) + 24);
      ag_xp_fmt(s, "<text x=\"%d\" y=\"%u\" fill=\"#36c\">%c</text>\n", X0 + COLW * l + COLW - 40,
                Y0 + ROWH * row[lo], 'A' + ti);
      for (uint32_t i = lo; i <= hi; i++) {
         if (c->pos[i] != (uint32_t)ti) continue;
         ag_xp_op(o, &c->e[i], op, sizeof op);
         ag_xp_fmt(s, "<text class=\"event\" data-index=\"%llu\" x=\"%d\" y=\"%u\">",
                   (unsigned long long)c->e[i].index, X0 + COLW * l + 12, Y0 + ROWH * row[i]);
         ag_xp_esc(s, op);
         ag_xp_fmt(s, "</text>\n");
         ag_xp_fmt(s, "<text x=\"8\" y=\"%u\" fill=\"#888\">%llu</text>\n", Y0 + ROWH * row[i],
                   (unsigned long long)c->e[i].index);
      }
      ag_xp_fmt(s, "</g>\n");
   }
   for (int k = 0; k < c->n; k++) {
      const ag_xedge *e = &c->edges[k];
      int la = ag_xp_lane(c, c->e[e->a].tid), lb = ag_xp_lane(c, c->e[e->b].tid);
      int x1 = X0 + COLW * la + (la < lb ? COLW - 60 : 8), x2 = X0 + COLW * lb + (la < lb ? 8 : COLW - 60);
      if (la == lb) x1 = x2 = X0 + COLW * la + COLW - 50;
      ag_xp_fmt(s, "<line class=\"edge\" data-n=\"%d\" data-src=\"%c\" data-dst=\"%c\" data-from=\"%llu\" "
                "data-to=\"%llu\"%s x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" stroke=\"#c00\" "
                "stroke-width=\"%d\" marker-end=\"url(#arrow)\"><title>edge %d: %c -&gt; %c</title></line>\n",
                k + 1, 'A' + (int)e->x, 'A' + (int)e->y,
                (unsigned long long)c->e[e->a].index, (unsigned long long)c->e[e->b].index,
                k == c->n - 1 ? " data-closes=\"1\"" : "", x1, Y0 + ROWH * row[e->a] - 4, x2,
                Y0 + ROWH * row[e->b] - 4, k == c->n - 1 ? 3 : 2, k + 1,
                'A' + (int)e->x, 'A' + (int)e->y);
   }
   ag_xp_fmt(s, "</svg>\n");
   ag_free(row);
}

static void ag_xp_html(const ag_xp_cycle *c, const ag_xp_out *o, ag_xp_sink *s)
{
   ag_xp_fmt(s, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>atomgrind: the cycle of "
             "a report</title></head>\n<body style=\"font-family:sans-serif\">\n"
             "<h1>Atomicity violation: the cycle</h1>\n");
   ag_xp_svg(c, o, s);
   ag_xp_fmt(s, "<pre>\n");
   s->esc = 1;
   ag_xp_text(c, o, s);
   s->esc = 0;
   ag_xp_fmt(s, "</pre>\n</body></html>\n");
}

/* <cycle>: its transactions with their events, then its edges (the
   elements are described in docs/atomgrind.md). */
static void ag_xp_xml(const ag_xp_cycle *c, const ag_xp_out *o, ag_xp_sink *s)
{
   static const char *const kinds[] = { "read", "write", "acquire", "release", "fork", "join",
                                        "begin", "end" };
   char op[160];
   ag_xp_fmt(s, "  <cycle>\n");
   for (int ti = 0; ti < c->n; ti++) {
      uint32_t lo, hi;
      ag_xp_span(c, ti, &lo, &hi);
      ag_xp_fmt(s, "    <transaction>\n      <name>%c</name>\n      <thread>", 'A' + ti);
      ag_xp_esc(s, o->thread(o->cookie, c->e[lo].tid));
      ag_xp_fmt(s, "</thread>\n      <region>%s</region>\n",
                c->e[lo].kind == AG_XE_BEGIN ? "yes" : "no");
      for (uint32_t i = lo; i <= hi; i++) {
         const ag_xp_event *ev = &c->e[i];
         if (c->pos[i] != (uint32_t)ti) continue;
         ag_xp_op(o, ev, op, sizeof op);
         ag_xp_fmt(s, "      <event><index>%llu</index><op>%s</op>",
                   (unsigned long long)ev->index, kinds[ev->kind]);
         if (ev->kind <= AG_XE_REL) ag_xp_fmt(s, "<addr>0x%llx</addr>", (unsigned long long)ev->a);
         if (ev->kind <= AG_XE_WRITE) ag_xp_fmt(s, "<size>%u</size>", ev->size);
         ag_xp_fmt(s, "<text>");
         ag_xp_esc(s, op);
         ag_xp_fmt(s, "</text></event>\n");
      }
      ag_xp_fmt(s, "    </transaction>\n");
   }
   for (int k = 0; k < c->n; k++) {
      const ag_xedge *e = &c->edges[k];
      ag_xp_fmt(s, "    <edge><n>%d</n><src>%c</src><dst>%c</dst><from>%llu</from><to>%llu</to>"
                "%s</edge>\n", k + 1, 'A' + (int)e->x, 'A' + (int)e->y,
                (unsigned long long)c->e[e->a].index, (unsigned long long)c->e[e->b].index,
                k == c->n - 1 ? "<closes>yes</closes>" : "");
   }
   ag_xp_fmt(s, "  </cycle>\n");
}

void ag_xp_draw(const ag_xp_cycle *c, int format, const ag_xp_out *o)
{
   ag_xp_sink s;
   ag_memzero(&s, sizeof s);
   s.o = o;
   switch (format) {
   case AG_XP_DOT: ag_xp_dot(c, o, &s); break;
   case AG_XP_SVG: ag_xp_svg(c, o, &s); break;
   case AG_XP_HTML: ag_xp_html(c, o, &s); break;
   case AG_XP_XML: ag_xp_xml(c, o, &s); break;
   default: ag_xp_text(c, o, &s); break;
   }
   ag_xp_flush(&s);
}
