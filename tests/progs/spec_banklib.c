/* libspecbank.so for spec_bank's plt mode: an atomic function in a shared
 * library, reached through the PLT. */
#include <time.h>

void lib_withdraw(int *account, int amount, int pause_ms)
{
   int seen = *account;
   struct timespec ts = { pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L };
   while (nanosleep(&ts, &ts) != 0) {}
   *account = seen - amount;
}
