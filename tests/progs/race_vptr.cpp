/* The vtable pointer: a destructor's first store writes the pointer the
 * object already holds (its own class's vtable), while another thread
 * makes a virtual call, which reads it.
 *   same   the object is deleted while a virtual call is made, and the
 *          destructor waits for that thread (cond) before the base's part
 *          runs: the only unordered store writes the value already there.
 *          Clean (ThreadSanitizer's vptr_benign_race).
 *   change an A is constructed in place of the C (the vptr changes to
 *          A's vtable) with no order against the other thread's virtual
 *          call: a race on the vtable pointer. */
#include <new>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct A {
   A() { pthread_mutex_init(&m, 0); pthread_cond_init(&c, 0); signaled = false; }
   virtual void F() {}
   void Done()
   {
      pthread_mutex_lock(&m);
      signaled = true;
      pthread_cond_signal(&c);
      pthread_mutex_unlock(&m);
   }
   virtual ~A() {}
   pthread_mutex_t m;
   pthread_cond_t c;
   bool signaled;
};

struct B : A {
   virtual void F() {}
   virtual ~B()
   {
      pthread_mutex_lock(&m);
      while (!signaled) pthread_cond_wait(&c, &m);
      pthread_mutex_unlock(&m);
   }
};

struct C : A {
   virtual void F() {}
   virtual ~C() {}
};

static A *obj;
static bool change;

static void *caller(void *)
{
   if (change) usleep(200000);   /* after the destructor's stores */
   obj->F();
   obj->Done();
   return NULL;
}

static void *deleter(void *)
{
   if (change) {
      new (obj) A;               /* the vptr becomes A's, in a live object */
      return NULL;
   }
   delete obj;
   return NULL;
}

int main(int argc, char **argv)
{
   change = argc > 1 && strcmp(argv[1], "change") == 0;
   obj = change ? (A *)new C : (A *)new B;
   pthread_t t[2];
   pthread_create(&t[0], NULL, caller, NULL);
   pthread_create(&t[1], NULL, deleter, NULL);
   pthread_join(t[0], NULL);
   pthread_join(t[1], NULL);
   printf("done\n");
   return 0;
}
