/* C++ operators as atomic functions (issue 33): names with glob
 * characters.  Counter::operator*=(int) reads the value, waits, and
 * writes it back; a second thread sets the value at 150 ms, inside the
 * first thread's call (which waits until 400 ms): a violation in
 * operator*=.  Counter::operator*(int) and operator[] only read.  An
 * exclusion '!Counter::operator*(int)' is that function's name: as a glob
 * its '*' would also match operator*=(int). */
#include "common.h"

static struct timespec t0;

struct Counter {
   int v = 3;
   __attribute__((noinline)) Counter operator*(int k) { Counter c; c.v = v * k; return c; }
   __attribute__((noinline)) Counter &operator*=(int k)
   {
      int x = v;
      sleep_until(t0, 400);
      v = x * k;
      return *this;
   }
   __attribute__((noinline)) int operator[](int i) { return v + i; }
};

static Counter c;

static void *scaler(void *)
{
   Counter d = c * 2;
   c *= 2;
   return (void *)(long)(d.v + c[1]);
}

static void *setter(void *)
{
   sleep_until(t0, 150);
   c.v = 7;
   return nullptr;
}

int main()
{
   clock_gettime(CLOCK_MONOTONIC, &t0);
   pthread_t a = spawn(scaler, nullptr), b = spawn(setter, nullptr);
   pthread_join(a, nullptr);
   pthread_join(b, nullptr);
   printf("v %d\n", c.v);
   return 0;
}
