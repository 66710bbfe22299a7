/* ag_map.h -- open-addressing hash map from a uint64 key to a fixed-size
 * record, for per-lock and per-object engine state.  Records are zeroed
 * when created and stay at a fixed address until the map is destroyed
 * (they live in chunks; the table only holds pointers). */
#ifndef AG_MAP_H
#define AG_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ag_map ag_map;

ag_map *ag_map_new(size_t rec_size);
void ag_map_delete(ag_map *m);
void *ag_map_get(ag_map *m, uint64_t key);      /* NULL if absent */
void *ag_map_lookup(ag_map *m, uint64_t key, int *created); /* creates zeroed */
size_t ag_map_count(const ag_map *m);
/* visit every record (order unspecified) */
void ag_map_foreach(ag_map *m, void (*fn)(void *arg, uint64_t key, void *rec), void *arg);
/* visit every record whose key is in [lo, hi) (order unspecified); costs
   what the keys in the range's pages cost, not the map's size */
void ag_map_foreach_in(ag_map *m, uint64_t lo, uint64_t hi,
                       void (*fn)(void *arg, uint64_t key, void *rec), void *arg);

#endif
