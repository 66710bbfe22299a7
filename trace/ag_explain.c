/* ag_explain.c -- atomgrind-trace --explain=N: the trace's events fed to
 * the cycle finder (atomgrind/engine/ag_explain_core.c, shared with the
 * tool), the cycle drawn to a FILE with the trace's names. */
#include "ag_explain.h"
#include "ag_explain_core.h"

struct ag_explain { ag_xp *xp; };

/* the replay's event kinds are the cycle finder's */
_Static_assert((int)AG_RE_READ == (int)AG_XE_READ && (int)AG_RE_WRITE == (int)AG_XE_WRITE && (int)AG_RE_ACQ == (int)AG_XE_ACQ
               && (int)AG_RE_REL == (int)AG_XE_REL && (int)AG_RE_FORK == (int)AG_XE_FORK && (int)AG_RE_JOIN == (int)AG_XE_JOIN
               && (int)AG_RE_BEGIN == (int)AG_XE_BEGIN && (int)AG_RE_END == (int)AG_XE_END, "event kinds differ");

typedef struct { ag_replay *rp; FILE *f; } ag_xp_dest;

/* the trace's names for the drawing */
static const char *ag_xp_thread_name(void *cookie, ag_tid t)
{
   return ag_replay_thread_name(((ag_xp_dest *)cookie)->rp, t);
}

static const char *ag_xp_var_name(void *cookie, uint64_t a)
{
   return ag_replay_var_name(((ag_xp_dest *)cookie)->rp, a);
}

static const char *ag_xp_lock_name(void *cookie, uint64_t l)
{
   return ag_replay_lock_name(((ag_xp_dest *)cookie)->rp, l);
}

static void ag_xp_put(void *cookie, const char *s, size_t n)
{
   fwrite(s, 1, n, ((ag_xp_dest *)cookie)->f);
}

ag_explain *ag_explain_new(uint32_t window)
{
   ag_explain *x = malloc(sizeof *x);
   x->xp = ag_xp_new(window);
   return x;
}

void ag_explain_delete(ag_explain *x)
{
   if (!x) return;
   ag_xp_delete(x->xp);
   free(x);
}

void ag_explain_event(ag_explain *x, const ag_replay_event *ev)
{
   ag_xp_event e = { ev->index, ev->kind, ev->tid, ev->a, ev->size, ev->shared };
   ag_xp_feed(x->xp, &e);
}

int ag_explain_report(ag_explain *x, ag_replay *rp, const ag_violation *v, int format, FILE *f)
{
   static const int formats[] = { [AG_EXPLAIN_TEXT] = AG_XP_TEXT, [AG_EXPLAIN_DOT] = AG_XP_DOT,
                                  [AG_EXPLAIN_SVG] = AG_XP_SVG, [AG_EXPLAIN_HTML] = AG_XP_HTML };
   ag_xp_cycle *c = ag_xp_find(x->xp, v->event, v->tid);
   if (!c) {
      fprintf(stderr, "atomgrind-trace: no cycle through the report's transaction "
              "among the last %u events\n", ag_xp_window(x->xp));
      return -1;
   }
   ag_xp_dest d = { rp, f };
   ag_xp_out o = { ag_xp_thread_name, ag_xp_var_name, ag_xp_lock_name,
                   ag_replay_is_binary(rp) ? "event" : "line", ag_xp_put, &d };
   ag_xp_draw(c, formats[format], &o);
   ag_xp_cycle_delete(c);
   return 0;
}
