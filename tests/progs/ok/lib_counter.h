/* libagcounter: a correct counter library used by lib_ok.c (built as a
 * shared object from lib_counter.c). */
#ifndef LIB_COUNTER_H
#define LIB_COUNTER_H
void counter_record(long sample);
long counter_count(void);
long counter_sum(void);
#endif
