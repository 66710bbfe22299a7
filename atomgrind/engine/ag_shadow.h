/* ag_shadow.h -- byte-precise shadow memory holding engine location state.
 *
 * Memory is shadowed per aligned 8-byte word.  A word whose accesses have
 * all covered it entirely has one location (one engine state); the first
 * partial access splits it into 8 byte locations, each a copy of the word's
 * state.  So adjacent struct fields never share a location, while the common
 * whole-word access costs one engine call.  Pages of 512 word slots hang off
 * a hash table keyed by addr >> 12. */
#ifndef AG_SHADOW_H
#define AG_SHADOW_H

#include <stdint.h>
#include "ag_engine.h"

typedef struct ag_shadow ag_shadow;

ag_shadow *ag_shadow_new(const ag_engine_ops *ops, void *self);
void ag_shadow_delete(ag_shadow *s);     /* finalises every location */

/* Call fn(arg, loc, loc_addr) for every location [addr, addr+size) touches,
   creating and splitting cells as needed. */
typedef void (*ag_shadow_fn)(void *arg, void *loc, ag_addr loc_addr);
void ag_shadow_visit(ag_shadow *s, ag_addr addr, uint64_t size,
                     ag_shadow_fn fn, void *arg);

/* Drop the state of [addr, addr+len): locations return to fresh. */
void ag_shadow_forget(ag_shadow *s, ag_addr addr, uint64_t len);

uint64_t ag_shadow_bytes(const ag_shadow *s);

#endif
