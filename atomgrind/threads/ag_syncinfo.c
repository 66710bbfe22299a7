/* ag_syncinfo.c -- the kind of each synchronisation object, by address. */
#include "pub_tool_basics.h"
#include "ag_syncinfo.h"
#include "ag_map.h"

static ag_map *ag_si_kinds;      /* object address -> UChar kind */

void ag_syncinfo_set(Addr obj, UInt kind)
{
   if (!ag_si_kinds) ag_si_kinds = ag_map_new(1);
   /* read and write sides of an rwlock are one object: keep "rwlock" */
   *(UChar *)ag_map_lookup(ag_si_kinds, obj, NULL) = (UChar)kind;
}

UInt ag_syncinfo_kind(Addr obj)
{
   const UChar *k = ag_si_kinds ? ag_map_get(ag_si_kinds, obj) : NULL;
   return k ? *k : AG_SK_UNKNOWN;
}

const HChar *ag_syncinfo_name(UInt kind)
{
   switch (kind) {
   case AG_SK_SPIN: return "spinlock";
   case AG_SK_RWLOCK_RD: case AG_SK_RWLOCK_WR: return "rwlock";
   case AG_SK_COND: return "condition variable";
   case AG_SK_SEM: return "semaphore";
   case AG_SK_BARRIER: return "barrier";
   case AG_SK_ONCE: return "pthread_once control";
   default: return "lock";
   }
}

Bool ag_syncinfo_is_lock(UInt kind)
{
   return kind <= AG_SK_RWLOCK_WR;
}
