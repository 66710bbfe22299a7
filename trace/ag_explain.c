/* ag_explain.c -- the cycle behind a report, found offline: a small
 * Velodrome-style transaction graph over the last events before it.
 *
 * Transactions are region instances and single events outside regions.
 * An edge X -> Y says some event of X conflicts with a later event of Y
 * (see ag_xp_conflict), or that Y follows X in one thread.  The report's
 * event e, in transaction T, conflicts with an earlier event a of
 * transaction U; the cycle is the shortest path T -> ... -> U in the graph
 * of the events before e, closed by a -> e.  Only the last `window`
 * events are kept, so the search is bounded (O(window^2)). */
#include "ag_explain.h"
#include "ag_map.h"
#include <stdlib.h>
#include <string.h>

#define AG_XP_NONE (~(uint64_t)0)

typedef struct { ag_replay_event ev; uint64_t txn; } ag_xev;

struct ag_explain {
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
   uint64_t *txn_id;              /* node -> txn id */
   uint32_t *node;                /* event -> node */
   uint32_t *wa, *wb;             /* k*k: witness events of edge x->y (+1; 0: none) */
} ag_xgraph;

typedef struct { uint32_t x, y, a, b; } ag_xedge;   /* nodes, witness events */

ag_explain *ag_explain_new(uint32_t window)
{
   ag_explain *x = calloc(1, sizeof *x);
   x->window = window ? window : 4096;
   x->ring = calloc(x->window, sizeof *x->ring);
   return x;
}

void ag_explain_delete(ag_explain *x)
{
   if (!x) return;
   free(x->ring); free(x->depth); free(x->cur); free(x);
}

static void ag_xp_thread(ag_explain *x, ag_tid t)
{
   if (t < x->nthr) return;
   uint32_t n = x->nthr ? x->nthr : 8;
   while (n <= t) n *= 2;
   x->depth = realloc(x->depth, n * sizeof *x->depth);
   x->cur = realloc(x->cur, n * sizeof *x->cur);
   for (uint32_t i = x->nthr; i < n; i++) { x->depth[i] = 0; x->cur[i] = AG_XP_NONE; }
   x->nthr = n;
}

void ag_explain_event(ag_explain *x, const ag_replay_event *ev)
{
   ag_xp_thread(x, ev->tid);
   ag_tid t = ev->tid;
   uint64_t txn;
   if (ev->kind == AG_RE_BEGIN && x->depth[t]++ == 0) x->cur[t] = x->next_txn++;
   if (x->cur[t] != AG_XP_NONE) txn = x->cur[t];
   else txn = x->next_txn++;                        /* a unary transaction */
   if (ev->kind == AG_RE_END && x->depth[t] && --x->depth[t] == 0) x->cur[t] = AG_XP_NONE;
   ag_xev *slot = &x->ring[x->n++ % x->window];
   slot->ev = *ev;
   slot->txn = txn;
}

/* Does a (earlier) conflict with b, of another thread? */
static int ag_xp_conflict(const ag_replay_event *a, const ag_replay_event *b)
{
   if (a->tid == b->tid) return 0;
   int acc_a = a->kind == AG_RE_READ || a->kind == AG_RE_WRITE;
   int acc_b = b->kind == AG_RE_READ || b->kind == AG_RE_WRITE;
   if (acc_a && acc_b)
      return a->a < b->a + b->size && b->a < a->a + a->size
             && (a->kind == AG_RE_WRITE || b->kind == AG_RE_WRITE);
   if (a->kind == AG_RE_REL && b->kind == AG_RE_ACQ)
      return a->a == b->a && !(a->shared && b->shared);
   if (a->kind == AG_RE_FORK) return b->tid == (ag_tid)a->a;
   if (b->kind == AG_RE_JOIN) return a->tid == (ag_tid)b->a;
   return 0;
}

static uint32_t ag_xp_node_of(ag_xgraph *g, ag_map *ids, uint64_t txn)
{
   int created;
   uint32_t *n = ag_map_lookup(ids, txn, &created);
   if (created) { *n = g->k; g->txn_id[g->k++] = txn; }
   return *n;
}

/* The window's events up to the report's, their transactions and edges. */
static int ag_xp_build(ag_explain *x, uint64_t upto, ag_xgraph *g)
{
   memset(g, 0, sizeof *g);
   uint64_t first = x->n > x->window ? x->n - x->window : 0;
   g->e = malloc(x->window * sizeof *g->e);
   for (uint64_t i = first; i < x->n; i++) {
      const ag_xev *s = &x->ring[i % x->window];
      if (s->ev.index <= upto) g->e[g->m++] = *s;
   }
   if (g->m == 0 || g->e[g->m - 1].ev.index != upto) return -1;
   g->txn_id = malloc(g->m * sizeof *g->txn_id);
   g->node = malloc(g->m * sizeof *g->node);
   ag_map *ids = ag_map_new(sizeof(uint32_t));
   for (uint32_t i = 0; i < g->m; i++) g->node[i] = ag_xp_node_of(g, ids, g->e[i].txn);
   ag_map_delete(ids);
   size_t kk = (size_t)g->k * g->k;
   g->wa = calloc(kk, sizeof *g->wa);
   g->wb = calloc(kk, sizeof *g->wb);
   /* conflicts among the events before the report's (its own edges close
      the cycle and are looked at separately) */
   for (uint32_t j = 0; j + 1 < g->m; j++)
      for (uint32_t i = 0; i < j; i++) {
         uint32_t xi = g->node[i], yj = g->node[j];
         if (xi == yj || g->wa[(size_t)xi * g->k + yj]) continue;
         if (ag_xp_conflict(&g->e[i].ev, &g->e[j].ev)) {
            g->wa[(size_t)xi * g->k + yj] = i + 1;
            g->wb[(size_t)xi * g->k + yj] = j + 1;
         }
      }
   /* one thread's consecutive transactions */
   for (uint32_t j = 0; j < g->m; j++)
      for (uint32_t i = j; i-- > 0;)
         if (g->e[i].ev.tid == g->e[j].ev.tid) {
            uint32_t xi = g->node[i], yj = g->node[j];
            if (xi != yj && !g->wa[(size_t)xi * g->k + yj]) {
               g->wa[(size_t)xi * g->k + yj] = i + 1;
               g->wb[(size_t)xi * g->k + yj] = j + 1;
            }
            break;
         }
   return 0;
}

static void ag_xp_free(ag_xgraph *g)
{
   free(g->e); free(g->txn_id); free(g->node); free(g->wa); free(g->wb);
}

/* Shortest path from node s to node d (BFS); its length in edges, the
   nodes in path[0..len], or -1. */
static int ag_xp_path(const ag_xgraph *g, uint32_t s, uint32_t d, uint32_t *path)
{
   uint32_t *prev = malloc(g->k * sizeof *prev), *q = malloc(g->k * sizeof *q);
   for (uint32_t i = 0; i < g->k; i++) prev[i] = UINT32_MAX;
   uint32_t h = 0, tl = 0;
   q[tl++] = s;
   prev[s] = s;
   while (h < tl && prev[d] == UINT32_MAX)
      for (uint32_t u = q[h++], y = 0; y < g->k; y++)
         if (prev[y] == UINT32_MAX && g->wa[(size_t)u * g->k + y]) { prev[y] = u; q[tl++] = y; }
   int len = -1;
   if (prev[d] != UINT32_MAX) {
      len = 0;
      for (uint32_t v = d; v != s; v = prev[v]) len++;
      uint32_t v = d;
      for (int i = len; i >= 0; i--) { path[i] = v; v = prev[v]; }
   }
   free(prev); free(q);
   return len;
}

/* The cycle: edges[0..n) in order from the report's transaction round to
   it, the last one closing it.  Tries the report's event first, then (for
   reports at a region's end) every event of its transaction. */
static int ag_xp_cycle(const ag_xgraph *g, ag_xedge *edges)
{
   uint32_t e = g->m - 1, t = g->node[e];
   uint32_t *path = malloc((g->k + 1) * sizeof *path), *best = malloc((g->k + 1) * sizeof *best);
   int bestlen = -1;
   uint32_t ba = 0, bb = 0;
   for (int pass = 0; pass < 2 && bestlen < 0; pass++)
      for (uint32_t b = e + 1; b-- > 0;) {
         if (g->node[b] != t || (pass == 0 && b != e)) continue;
         for (uint32_t a = b; a-- > 0;) {
            if (g->node[a] == t || !ag_xp_conflict(&g->e[a].ev, &g->e[b].ev)) continue;
            int len = ag_xp_path(g, t, g->node[a], path);
            if (len >= 0 && (bestlen < 0 || len < bestlen)) {
               bestlen = len;
               memcpy(best, path, (len + 1) * sizeof *path);
               ba = a; bb = b;
            }
         }
      }
   int n = 0;
   if (bestlen >= 0) {
      for (int i = 0; i < bestlen; i++) {
         size_t w = (size_t)best[i] * g->k + best[i + 1];
         edges[n++] = (ag_xedge){ best[i], best[i + 1], g->wa[w] - 1, g->wb[w] - 1 };
      }
      edges[n++] = (ag_xedge){ g->node[ba], t, ba, bb };
   }
   free(path); free(best);
   return bestlen < 0 ? -1 : n;
}

/* ---- drawing ------------------------------------------------------- */

typedef struct {
   ag_replay *rp;
   const ag_xgraph *g;
   const ag_xedge *edges;
   int n;                        /* edges = transactions on the cycle */
   uint32_t *nodes;              /* the cycle's transactions, in cycle order */
   ag_tid *lanes;                /* their threads, each once */
   int nlanes;
   const ag_violation *v;
} ag_xcycle;

static const char *ag_xp_where(ag_replay *rp)
{
   return ag_replay_is_binary(rp) ? "event" : "line";
}

/* "w(x)", "acq(m)", "begin", ... */
static void ag_xp_op(ag_replay *rp, const ag_replay_event *ev, char *buf, size_t cap)
{
   static const char *const names[] = { "r", "w", "acq", "rel", "fork", "join", "begin", "end" };
   const char *nm = NULL;
   char tmp[64];
   switch (ev->kind) {
   case AG_RE_READ: case AG_RE_WRITE:
      nm = ag_replay_var_name(rp, ev->a);
      if (!nm) { snprintf(tmp, sizeof tmp, "0x%llx:%u", (unsigned long long)ev->a, ev->size); nm = tmp; }
      break;
   case AG_RE_ACQ: case AG_RE_REL:
      nm = ag_replay_lock_name(rp, ev->a);
      if (!nm) { snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)ev->a); nm = tmp; }
      break;
   case AG_RE_FORK: case AG_RE_JOIN:
      nm = ag_replay_thread_name(rp, (ag_tid)ev->a);
      break;
   }
   if (nm) snprintf(buf, cap, "%s%s(%s)", names[ev->kind],
                    ev->shared ? "_sh" : "", nm);
   else snprintf(buf, cap, "%s", names[ev->kind]);
}

static int ag_xp_on_cycle(const ag_xcycle *c, uint32_t node)
{
   for (int i = 0; i < c->n; i++) if (c->nodes[i] == node) return i;
   return -1;
}

static int ag_xp_lane(const ag_xcycle *c, ag_tid t)
{
   for (int i = 0; i < c->nlanes; i++) if (c->lanes[i] == t) return i;
   return -1;
}

/* first and last event of transaction node (window indices) */
static void ag_xp_span(const ag_xgraph *g, uint32_t node, uint32_t *lo, uint32_t *hi)
{
   *lo = UINT32_MAX; *hi = 0;
   for (uint32_t i = 0; i < g->m; i++)
      if (g->node[i] == node) { if (*lo == UINT32_MAX) *lo = i; *hi = i; }
}

static void ag_xp_text(const ag_xcycle *c, FILE *f)
{
   const ag_xgraph *g = c->g;
   const char *w = ag_xp_where(c->rp);
   char op[160], cell[200];
   fprintf(f, "%8s", w);
   for (int l = 0; l < c->nlanes; l++) fprintf(f, "  %-26s", ag_replay_thread_name(c->rp, c->lanes[l]));
   fprintf(f, "\n");
   for (uint32_t i = 0; i < g->m; i++) {
      int ti = ag_xp_on_cycle(c, g->node[i]);
      if (ti < 0) continue;
      ag_xp_op(c->rp, &g->e[i].ev, op, sizeof op);
      size_t len = (size_t)snprintf(cell, sizeof cell, "%c %s", 'A' + ti, op);
      for (int k = 0; k < c->n; k++) {
         if (c->edges[k].a == i && len < sizeof cell)
            len += (size_t)snprintf(cell + len, sizeof cell - len, " >%d", k + 1);
         if (c->edges[k].b == i && len < sizeof cell)
            len += (size_t)snprintf(cell + len, sizeof cell - len, " %d>", k + 1);
      }
      fprintf(f, "%8llu", (unsigned long long)g->e[i].ev.index);
      int lane = ag_xp_lane(c, g->e[i].ev.tid);
      for (int l = 0; l < lane; l++) fprintf(f, "  %-26s", "");
      fprintf(f, "  %s\n", cell);
   }
   fprintf(f, "Transactions:\n");
   for (int i = 0; i < c->n; i++) {
      uint32_t lo, hi;
      ag_xp_span(g, c->nodes[i], &lo, &hi);
      int region = g->e[lo].ev.kind == AG_RE_BEGIN;
      fprintf(f, "  %c  %s  %ss %llu-%llu  %s\n", 'A' + i,
              ag_replay_thread_name(c->rp, g->e[lo].ev.tid), w,
              (unsigned long long)g->e[lo].ev.index, (unsigned long long)g->e[hi].ev.index,
              region ? "atomic region" : "outside any region");
   }
   fprintf(f, "Edges:\n");
   for (int k = 0; k < c->n; k++) {
      const ag_xedge *e = &c->edges[k];
      char oa[160], ob[160];
      ag_xp_op(c->rp, &g->e[e->a].ev, oa, sizeof oa);
      ag_xp_op(c->rp, &g->e[e->b].ev, ob, sizeof ob);
      fprintf(f, "  %d  %c -> %c  %s %s %llu -> %s %s %llu%s\n", k + 1,
              'A' + ag_xp_on_cycle(c, e->x), 'A' + ag_xp_on_cycle(c, e->y),
              oa, w, (unsigned long long)g->e[e->a].ev.index,
              ob, w, (unsigned long long)g->e[e->b].ev.index,
              k == c->n - 1 ? "  (closes the cycle)" : "");
   }
}

/* text escaped for XML (and DOT's quoted strings) */
static void ag_xp_esc(FILE *f, const char *s)
{
   for (; *s; s++) {
      if (*s == '<') fputs("&lt;", f);
      else if (*s == '>') fputs("&gt;", f);
      else if (*s == '&') fputs("&amp;", f);
      else if (*s == '"') fputs("&quot;", f);
      else if ((unsigned char)*s < 0x20) fputc(' ', f);
      else fputc(*s, f);
   }
}

static void ag_xp_dot(const ag_xcycle *c, FILE *f)
{
   const ag_xgraph *g = c->g;
   char op[160];
   fprintf(f, "digraph cycle {\n  node [shape=box, fontname=monospace];\n");
   for (int ti = 0; ti < c->n; ti++) {
      fprintf(f, "  subgraph cluster_%c {\n    label=\"%c: ", 'A' + ti, 'A' + ti);
      uint32_t lo, hi, prev = UINT32_MAX;
      ag_xp_span(g, c->nodes[ti], &lo, &hi);
      ag_xp_esc(f, ag_replay_thread_name(c->rp, g->e[lo].ev.tid));
      fprintf(f, "\";\n");
      for (uint32_t i = lo; i <= hi; i++) {
         if (g->node[i] != c->nodes[ti]) continue;
         ag_xp_op(c->rp, &g->e[i].ev, op, sizeof op);
         fprintf(f, "    e%llu [label=\"%llu: ", (unsigned long long)g->e[i].ev.index,
                 (unsigned long long)g->e[i].ev.index);
         ag_xp_esc(f, op);
         fprintf(f, "\"];\n");
         if (prev != UINT32_MAX)
            fprintf(f, "    e%llu -> e%llu [style=dotted, arrowhead=none];\n",
                    (unsigned long long)g->e[prev].ev.index, (unsigned long long)g->e[i].ev.index);
         prev = i;
      }
      fprintf(f, "  }\n");
   }
   for (int k = 0; k < c->n; k++)
      fprintf(f, "  e%llu -> e%llu [color=red, label=\"%d\"%s];\n",
              (unsigned long long)g->e[c->edges[k].a].ev.index,
              (unsigned long long)g->e[c->edges[k].b].ev.index, k + 1,
              k == c->n - 1 ? ", penwidth=2" : "");
   fprintf(f, "}\n");
}

/* Lanes as columns, events as rows, transactions as boxes, conflict
   edges as arrows; class and data-* attributes say what each shape is. */
static void ag_xp_svg(const ag_xcycle *c, FILE *f)
{
   const ag_xgraph *g = c->g;
   enum { COLW = 220, ROWH = 26, X0 = 70, Y0 = 50 };
   uint32_t *row = malloc(g->m * sizeof *row), nrows = 0;
   for (uint32_t i = 0; i < g->m; i++) row[i] = ag_xp_on_cycle(c, g->node[i]) >= 0 ? nrows++ : UINT32_MAX;
   int wd = X0 + COLW * c->nlanes + 20, ht = Y0 + ROWH * (int)nrows + 20;
   char op[160];
   fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
           "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"13\">\n", wd, ht, wd, ht);
   fprintf(f, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
           "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
           "fill=\"#c00\"/></marker></defs>\n");
   fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
   for (int l = 0; l < c->nlanes; l++) {
      fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%d\" font-weight=\"bold\">", X0 + COLW * l + 10, Y0 - 20);
      ag_xp_esc(f, ag_replay_thread_name(c->rp, c->lanes[l]));
      fprintf(f, "</text>\n");
   }
   for (int ti = 0; ti < c->n; ti++) {
      uint32_t lo, hi;
      ag_xp_span(g, c->nodes[ti], &lo, &hi);
      int l = ag_xp_lane(c, g->e[lo].ev.tid);
      fprintf(f, "<g class=\"txn\" data-name=\"%c\" data-thread=\"", 'A' + ti);
      ag_xp_esc(f, ag_replay_thread_name(c->rp, g->e[lo].ev.tid));
      fprintf(f, "\" data-first=\"%llu\" data-last=\"%llu\">\n",
              (unsigned long long)g->e[lo].ev.index, (unsigned long long)g->e[hi].ev.index);
      fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%u\" rx=\"6\" fill=\"#eef4ff\" "
              "stroke=\"#36c\"/>\n", X0 + COLW * l + 4, Y0 + ROWH * row[lo] - 18, COLW - 30,
              ROWH * (row[hi] - row[lo]) + 24);
      fprintf(f, "<text x=\"%d\" y=\"%u\" fill=\"#36c\">%c</text>\n", X0 + COLW * l + COLW - 40,
              Y0 + ROWH * row[lo], 'A' + ti);
      for (uint32_t i = lo; i <= hi; i++) {
         if (g->node[i] != c->nodes[ti]) continue;
         ag_xp_op(c->rp, &g->e[i].ev, op, sizeof op);
         fprintf(f, "<text class=\"event\" data-index=\"%llu\" x=\"%d\" y=\"%u\">",
                 (unsigned long long)g->e[i].ev.index, X0 + COLW * l + 12, Y0 + ROWH * row[i]);
         ag_xp_esc(f, op);
         fprintf(f, "</text>\n");
         fprintf(f, "<text x=\"8\" y=\"%u\" fill=\"#888\">%llu</text>\n", Y0 + ROWH * row[i],
                 (unsigned long long)g->e[i].ev.index);
      }
      fprintf(f, "</g>\n");
   }
   for (int k = 0; k < c->n; k++) {
      const ag_xedge *e = &c->edges[k];
      int la = ag_xp_lane(c, g->e[e->a].ev.tid), lb = ag_xp_lane(c, g->e[e->b].ev.tid);
      int x1 = X0 + COLW * la + (la < lb ? COLW - 60 : 8), x2 = X0 + COLW * lb + (la < lb ? 8 : COLW - 60);
      if (la == lb) x1 = x2 = X0 + COLW * la + COLW - 50;
      fprintf(f, "<line class=\"edge\" data-n=\"%d\" data-src=\"%c\" data-dst=\"%c\" data-from=\"%llu\" "
              "data-to=\"%llu\"%s x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" stroke=\"#c00\" "
              "stroke-width=\"%d\" marker-end=\"url(#arrow)\"><title>edge %d: %c -&gt; %c</title></line>\n",
              k + 1, 'A' + ag_xp_on_cycle(c, e->x), 'A' + ag_xp_on_cycle(c, e->y),
              (unsigned long long)g->e[e->a].ev.index, (unsigned long long)g->e[e->b].ev.index,
              k == c->n - 1 ? " data-closes=\"1\"" : "", x1, Y0 + ROWH * row[e->a] - 4, x2,
              Y0 + ROWH * row[e->b] - 4, k == c->n - 1 ? 3 : 2, k + 1,
              'A' + ag_xp_on_cycle(c, e->x), 'A' + ag_xp_on_cycle(c, e->y));
   }
   fprintf(f, "</svg>\n");
   free(row);
}

static void ag_xp_html(const ag_xcycle *c, FILE *f)
{
   fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>atomgrind: the cycle of "
           "a report</title></head>\n<body style=\"font-family:sans-serif\">\n"
           "<h1>Atomicity violation: the cycle</h1>\n");
   ag_xp_svg(c, f);
   fprintf(f, "<pre>\n");
   char *buf = NULL;
   size_t len = 0;
   FILE *m = open_memstream(&buf, &len);
   ag_xp_text(c, m);
   fclose(m);
   for (char *p = buf; *p; p++) {
      if (*p == '<') fputs("&lt;", f);
      else if (*p == '>') fputs("&gt;", f);
      else if (*p == '&') fputs("&amp;", f);
      else fputc(*p, f);
   }
   free(buf);
   fprintf(f, "</pre>\n</body></html>\n");
}

int ag_explain_report(ag_explain *x, ag_replay *rp, const ag_violation *v, int format, FILE *f)
{
   ag_xgraph g;
   int rc = -1;
   if (ag_xp_build(x, v->event, &g) == 0) {
      ag_xedge *edges = malloc((g.k + 1) * sizeof *edges);
      int n = ag_xp_cycle(&g, edges);
      if (n > 0) {
         ag_xcycle c = { rp, &g, edges, n, malloc(n * sizeof(uint32_t)),
                         malloc(n * sizeof(ag_tid)), 0, v };
         for (int i = 0; i < n; i++) c.nodes[i] = edges[i].x;
         /* lanes in the order the cycle's threads first appear */
         for (uint32_t i = 0; i < g.m; i++)
            if (ag_xp_on_cycle(&c, g.node[i]) >= 0 && ag_xp_lane(&c, g.e[i].ev.tid) < 0)
               c.lanes[c.nlanes++] = g.e[i].ev.tid;
         switch (format) {
         case AG_EXPLAIN_DOT: ag_xp_dot(&c, f); break;
         case AG_EXPLAIN_SVG: ag_xp_svg(&c, f); break;
         case AG_EXPLAIN_HTML: ag_xp_html(&c, f); break;
         default: ag_xp_text(&c, f); break;
         }
         free(c.nodes); free(c.lanes);
         rc = 0;
      }
      free(edges);
   }
   if (rc) fprintf(stderr, "atomgrind-trace: no cycle through the report's transaction "
                   "among the last %u events\n", x->window);
   ag_xp_free(&g);
   return rc;
}
