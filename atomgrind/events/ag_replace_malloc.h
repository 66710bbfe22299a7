/* ag_replace_malloc.h -- the program's malloc & co., replaced
 * (ag_replace_malloc.c). */
#ifndef AG_REPLACE_MALLOC_H
#define AG_REPLACE_MALLOC_H

void ag_replace_malloc_init(void);
/* After the options: heap profiling (--xtree-memory) keeps the blocks. */
void ag_replace_malloc_post_clo_init(void);
/* At exit: the --xtree-memory report. */
void ag_replace_malloc_fini(void);

#endif
