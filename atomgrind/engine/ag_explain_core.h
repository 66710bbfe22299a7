/* ag_explain_core.h -- the cycle behind an atomicity report, found in a ring
 * of the last events and drawn as text (a lane per thread), DOT, SVG,
 * HTML or XML.  Plain C (ag_shim.h): atomgrind-trace --explain=N and the
 * tool (--explain-dir, -v, --xml=yes) both use it. */
#ifndef AG_EXPLAIN_CORE_H
#define AG_EXPLAIN_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "ag_engine.h"          /* ag_xp_event: the events it keeps */

typedef struct ag_xp ag_xp;               /* the ring */
typedef struct ag_xp_cycle ag_xp_cycle;   /* one found cycle, self-contained */

/* Keeps the last `window` events (0: 4096). */
ag_xp *ag_xp_new(uint32_t window);
void ag_xp_delete(ag_xp *x);
uint32_t ag_xp_window(const ag_xp *x);
void ag_xp_feed(ag_xp *x, const ag_xp_event *ev);
/* Thread t is gone: a region it left open ends (not an event). */
void ag_xp_thread_exit(ag_xp *x, ag_tid t);

/* The cycle through the transaction of event `event` of thread t (the
   last one given), or NULL if none lies in the window. */
ag_xp_cycle *ag_xp_find(ag_xp *x, uint64_t event, ag_tid t);
void ag_xp_cycle_delete(ag_xp_cycle *c);

/* How a picture is named and where it goes. */
typedef struct ag_xp_out {
   const char *(*thread)(void *cookie, ag_tid t);      /* never NULL */
   const char *(*var)(void *cookie, uint64_t addr);    /* NULL: 0xADDR:SIZE */
   const char *(*lock)(void *cookie, uint64_t lock);   /* NULL: 0xADDR */
   const char *where;                                  /* "line", "event" */
   void (*put)(void *cookie, const char *s, size_t n);
   void *cookie;
} ag_xp_out;

enum { AG_XP_TEXT, AG_XP_DOT, AG_XP_SVG, AG_XP_HTML, AG_XP_XML };
void ag_xp_draw(const ag_xp_cycle *c, int format, const ag_xp_out *o);

#endif
