/* ag_defsupp.h -- the tool's own default suppressions, installed beside
 * Valgrind's default.supp as atomgrind.supp (ag_defsupp.c). */
#ifndef AG_DEFSUPP_H
#define AG_DEFSUPP_H

/* Adds $VALGRIND_LIB/atomgrind.supp to the suppression files the core
   reads, unless --default-suppressions=no.  Call in post_clo_init. */
void ag_defsupp_load(void);

#endif
