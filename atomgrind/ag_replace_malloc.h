/* ag_replace_malloc.h -- the program's malloc & co., replaced
 * (ag_replace_malloc.c). */
#ifndef AG_REPLACE_MALLOC_H
#define AG_REPLACE_MALLOC_H

void ag_replace_malloc_init(void);

#endif
