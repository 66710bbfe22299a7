/* race_openmp.c -- GNU OpenMP (built -fopenmp -O2): libgomp orders its
 * teams through __atomic builtins and futex calls, whose loads and stores
 * are plain movs in a library shipped without line information.
 * --check=races, one mode per run (argv[1]).
 *   constructs    a reduction, critical, atomic, single, a lock, barrier,
 *                 master, sections, tasks, ordered, a second parallel
 *                 region reusing the team                       -> clean
 *   nowait        a loop writes v, `nowait`, the next loop reads v in
 *                 the other order                               -> race
 *   no_reduction  sum += v[i] in a parallel loop, unprotected   -> race
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define N 256

static double v[N], w[N];

static long fib(int n)
{
   if (n < 2) return n;
   long x, y;
   #pragma omp task shared(x)
   x = fib(n - 1);
   #pragma omp task shared(y)
   y = fib(n - 2);
   #pragma omp taskwait
   return x + y;
}

static void constructs(void)
{
   long crit = 0, at = 0, locked = 0, total = 0, f = 0;
   int init = 0;
   double sum = 0;
   omp_lock_t lk;
   omp_init_lock(&lk);
   #pragma omp parallel num_threads(2)
   {
      #pragma omp single
      init = 42;
      #pragma omp for schedule(dynamic, 4)
      for (int i = 0; i < N; i++) v[i] = i + init;
      #pragma omp critical
      crit += omp_get_thread_num() + 1;
      #pragma omp atomic
      at += 2;
      omp_set_lock(&lk);
      locked++;
      omp_unset_lock(&lk);
      #pragma omp barrier
      #pragma omp master
      for (int i = 0; i < N; i++) total += (long)v[i];
      #pragma omp sections
      {
         #pragma omp section
         w[0] = 1;
         #pragma omp section
         w[1] = 2;
      }
   }
   #pragma omp parallel for reduction(+:sum) num_threads(2)
   for (int i = 0; i < N; i++) sum += v[i];
   #pragma omp parallel num_threads(2)
   #pragma omp single
   f = fib(10);
   #pragma omp parallel for num_threads(2) ordered
   for (int i = 0; i < N; i++) {
      w[i] = 2 * i;
      #pragma omp ordered
      total += (long)w[i];
   }
   omp_destroy_lock(&lk);
   printf("%ld %ld %ld %ld %ld %.0f\n", crit, at, locked, total, f, sum);
}

static void nowait(void)
{
   #pragma omp parallel num_threads(2)
   {
      #pragma omp for nowait schedule(static)
      for (int i = 0; i < N; i++) v[i] = i;
      #pragma omp for schedule(static)
      for (int i = 0; i < N; i++) w[i] = v[N - 1 - i];
   }
   printf("%.0f\n", w[0] + w[N - 1]);
}

static void no_reduction(void)
{
   double sum = 0;
   for (int i = 0; i < N; i++) v[i] = i;
   #pragma omp parallel for num_threads(2)
   for (int i = 0; i < N; i++) sum += v[i];
   printf("%.0f\n", sum);
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "constructs";
   if (!strcmp(mode, "constructs")) constructs();
   else if (!strcmp(mode, "nowait")) nowait();
   else if (!strcmp(mode, "no_reduction")) no_reduction();
   else {
      fprintf(stderr, "race_openmp: unknown mode %s\n", mode);
      return 2;
   }
   return 0;
}
