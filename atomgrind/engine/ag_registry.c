/* ag_registry.c -- the engines there are, by name (see ag_registry.h). */
#include "ag_registry.h"
#include "ag_engine_impl.h"        /* ag_engine_ops' fields */
#include "ag_shim.h"               /* ag_streq */

extern const ag_engine_ops ag_atomsan_ops;
extern const ag_engine_ops ag_velodrome_ops;
extern const ag_engine_ops ag_fasttrack_ops;
extern const ag_engine_ops ag_aerodrome_ops;
extern const ag_engine_ops ag_predict_ops;

static const ag_engine_ops *const ag_reg_engines[] = {
   &ag_atomsan_ops,
   &ag_velodrome_ops,
   &ag_fasttrack_ops,
   &ag_aerodrome_ops,
   &ag_predict_ops,
   NULL
};

const ag_engine_ops *ag_engine_find(const char *name)
{
   for (int i = 0; ag_reg_engines[i]; i++)
      if (ag_streq(ag_reg_engines[i]->name, name)) return ag_reg_engines[i];
   return NULL;
}

const ag_engine_ops *const *ag_engine_all(void) { return ag_reg_engines; }

const char *ag_engine_name(const ag_engine_ops *ops) { return ops->name; }
const char *ag_engine_help(const ag_engine_ops *ops) { return ops->help; }
int ag_engine_kind(const ag_engine_ops *ops) { return ops->kind; }
