/* test_observe.c -- the dispatcher's observers (ag_engine_observe): each
 * event reaches them once, numbered as the engine numbers it, with its
 * kind, thread and object, before the engine sees it (a report made at an
 * event finds it already told); accesses the engine is not given (no
 * region open) and misused events are told too; thread exits are told;
 * a full list refuses another. */
#include "ag_check.h"              /* CHECK, hand traces, the report collector */

#define MAXSEEN 64
typedef struct {
   ag_engine *e;
   int n, exits;
   ag_xp_event ev[MAXSEEN];
   int numbered_as_engine;         /* every index == ag_engine_events(e) */
} seen;

static void on_event(void *cookie, const ag_xp_event *ev)
{
   seen *s = cookie;
   if (ev->index != ag_engine_events(s->e)) s->numbered_as_engine = 0;
   if (s->n < MAXSEEN) s->ev[s->n] = *ev;
   s->n++;
}

static void on_exit_(void *cookie, ag_tid t)
{
   (void)t;
   ((seen *)cookie)->exits++;
}

/* The report at event 7 finds 7 events told. */
static seen *report_seen;
static int told_at_report = -1;
static void on_report_told(void *cookie, const ag_violation *v)
{
   on_report(cookie, v);
   if (told_at_report < 0) told_at_report = report_seen->n;
}

static void observed(const char *engine)
{
   /* r(1) outside a region, then t0's region r w interleaved by t1's w:
      a cycle closed at t0's w (event 7) */
   static const ev tr[] = {
      {'r', 1, 0}, {'b', 0, 0}, {'r', 0, 0}, {'w', 1, 0, 4}, {'a', 1, 8, 0, 1},
      {'l', 1, 8, 0, 1}, {'w', 0, 0}, {'e', 0, 0}, {'f', 0, 2}, {'j', 0, 2},
   };
   reports r;
   memset(&r, 0, sizeof r);
   ag_engine *e = ag_engine_new(ag_engine_find(engine), NULL, on_report_told, &r);
   for (int t = 0; t < 2; t++) ag_ev_thread_new(e, t);
   seen s = { .e = e, .numbered_as_engine = 1 };
   ag_observer o = { on_event, on_exit_, &s };
   report_seen = &s;
   told_at_report = -1;
   CHECK(ag_engine_observe(e, &o) == 0, "%s: observe", engine);
   for (int i = 0; i < N(tr); i++) feed(e, &tr[i], 100 + i);
   /* a misused event (an unknown thread) is numbered and told */
   CHECK(ag_ev_access(e, 9, BASE, 1, 0, 0) == AG_MISUSE_BAD_TID, "%s: bad tid", engine);
   ag_ev_thread_exit(e, 1);
   ag_ev_forget(e, BASE, 8);        /* no event */
   CHECK(s.n == N(tr) + 1, "%s: %d events told, want %d", engine, s.n, N(tr) + 1);
   CHECK(s.numbered_as_engine, "%s: numbered as the engine numbers", engine);
   for (int i = 0; i < s.n && i < MAXSEEN; i++)
      CHECK(s.ev[i].index == (uint64_t)i + 1, "%s: event %d is #%llu", engine, i,
            (unsigned long long)s.ev[i].index);
   static const int kinds[] = { AG_XE_READ, AG_XE_BEGIN, AG_XE_READ, AG_XE_WRITE, AG_XE_ACQ,
                                AG_XE_REL, AG_XE_WRITE, AG_XE_END, AG_XE_FORK, AG_XE_JOIN,
                                AG_XE_READ };
   for (int i = 0; i < N(kinds) && i < s.n; i++)
      CHECK(s.ev[i].kind == kinds[i], "%s: event %d kind %d, want %d", engine, i, s.ev[i].kind,
            kinds[i]);
   CHECK(s.ev[3].tid == 1 && s.ev[3].a == BASE && s.ev[3].size == 4 && !s.ev[3].shared,
         "%s: an access's thread, address, size", engine);
   CHECK(s.ev[4].a == LOCK + 8 && s.ev[4].shared && s.ev[5].shared, "%s: a read lock", engine);
   CHECK(s.ev[8].a == 2 && s.ev[9].a == 2, "%s: fork and join name the child", engine);
   CHECK(s.ev[10].tid == 9, "%s: the misused event's thread", engine);
   CHECK(s.exits == 1, "%s: %d exits told", engine, s.exits);
   CHECK(r.n >= 1 && r.v[0].event == 7, "%s: the cycle closes at event 7 (%d reports)", engine,
         r.n);
   CHECK(told_at_report == 7, "%s: %d events told when the report came", engine, told_at_report);
   ag_observer full = { on_event, NULL, &s };
   CHECK(ag_engine_observe(e, &full) == 0 && ag_engine_observe(e, &full) == -1,
         "%s: at most AG_MAX_OBSERVERS", engine);
   ag_engine_delete(e);
}

int main(void)
{
   observed("atomsanitizer");
   observed("aerodrome");
   observed("velodrome");
   printf("%d checks, %d failed\n", checks, failures);
   return failures != 0;
}
