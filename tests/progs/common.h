/* Helpers for atomgrind's test programs.  Interleavings are forced with
 * sleeps: a sleeping thread lets the others run, and sleeps add no
 * ordering between threads.  Margins are generous because threads start
 * slowly under Valgrind. */
#ifndef AG_TEST_COMMON_H
#define AG_TEST_COMMON_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "atomgrind.h"

static inline void ms_sleep(int ms)
{
   struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
   while (nanosleep(&ts, &ts) != 0) {}
}

static inline pthread_t spawn(void *(*fn)(void *), void *arg)
{
   pthread_t t;
   if (pthread_create(&t, NULL, fn, arg) != 0) { perror("pthread_create"); exit(1); }
   return t;
}

/* Sleep until ms milliseconds after t0 (CLOCK_MONOTONIC): events at fixed
   times, however late each thread started. */
static inline void sleep_until(struct timespec t0, long ms)
{
   long ns = t0.tv_nsec + ms * 1000000L;
   t0.tv_sec += ns / 1000000000L;
   t0.tv_nsec = ns % 1000000000L;
   while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t0, NULL) != 0) {}
}
#endif
