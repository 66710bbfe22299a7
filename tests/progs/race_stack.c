/* A variable on one thread's stack, reached by another through a pointer
 * (found without --check-stack-var), selected by argv[1]:
 *   clean  main's local is written by the thread; main reads it after
 *          the join                                                 -> clean
 *   racy   main writes its local after handing it over; the thread
 *          reads it with nothing in between                          -> race
 *   deep   the local lives in a function main calls, which starts the
 *          thread and writes it after                                -> race */
#include "common.h"

static void *reader(void *arg)
{
   ms_sleep(300);                       /* after main's write; no order */
   return (void *)(long)*(volatile int *)arg;
}

static void *writer(void *arg)
{
   *(volatile int *)arg = 7;
   return NULL;
}

static int deep(void)
{
   volatile int local = 0;
   pthread_t t = spawn(reader, (void *)&local);
   local = 1;
   pthread_join(t, NULL);
   return local;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "clean";
   volatile int local = 0;
   if (!strcmp(mode, "deep")) return deep() != 1;
   pthread_t t = spawn(strcmp(mode, "racy") ? writer : reader, (void *)&local);
   if (!strcmp(mode, "racy")) local = 1;
   pthread_join(t, NULL);
   return local == 3;
}
