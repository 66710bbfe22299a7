/* C++ functions named by --atomic-fns as a user writes them (issue 33):
 * a class template's member, a function template and a class in an
 * anonymous namespace, each called once by one thread.  Built at -O0
 * (out of line) and -O2 (all inlined), every pattern must name the same
 * functions; the test counts the regions. */
#include <stdio.h>

namespace ds {
template <typename T> struct Stack {
   T items[8];
   int top = 0;
   void push(T v) { items[top++] = v; }
};
}

static long total;
template <typename T> static T twice(T *p) { total += *p; return *p + *p; }

namespace {
struct Account {
   int balance = 100;
   void deposit(int amt) { balance += amt; }
};
}

static ds::Stack<int> stack;
static Account account;
static volatile int sink;

int main()
{
   int v = sink;
   stack.push(v);
   account.deposit(v);
   sink = twice(&v) + stack.top + account.balance;
   printf("%d %ld\n", sink, total);
   return 0;
}
