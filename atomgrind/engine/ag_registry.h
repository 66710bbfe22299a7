/* ag_registry.h -- the engines there are, by name: what a front end
 * picks from (--engine=, atomgrind-trace -e).  Above every engine and the
 * dispatcher (ag_registry.c), so that the engines, which report through
 * the dispatcher, and the dispatcher, which calls engines through their
 * ops only, never refer back to each other. */
#ifndef AG_REGISTRY_H
#define AG_REGISTRY_H

/* An engine, as front ends see it: a name, a help line, a kind.  What an
   engine implements is in ag_engine_impl.h. */
typedef struct ag_engine_ops ag_engine_ops;
const char *ag_engine_name(const ag_engine_ops *ops);
const char *ag_engine_help(const ag_engine_ops *ops);
int ag_engine_kind(const ag_engine_ops *ops);      /* AG_KIND_* (ag_engine.h) */

const ag_engine_ops *ag_engine_find(const char *name);   /* NULL if unknown */
const ag_engine_ops *const *ag_engine_all(void);         /* NULL-terminated */

#endif
