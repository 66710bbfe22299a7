/* libagstats: a small statistics library used by lib_bug.c (built as a
 * shared object from lib_stats.c). */
#ifndef LIB_STATS_H
#define LIB_STATS_H
void stats_record(long sample);
long stats_count(void);
long stats_sum(void);
#endif
