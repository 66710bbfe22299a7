/* idioms.c -- C11 atomics idioms for --check=races, one per mode (argv[1]);
 * tests/test_atomics.py holds the verdict each must get.  Built with -O2,
 * as real code is: acquire loads, release stores and seq_cst loads are
 * then plain movs; RMWs and seq_cst stores are LOCK-prefixed or xchg.
 *   mp_seqcst    data, then ready = 1 (seq_cst: xchg); reader spins   -> clean
 *   mp_relacq    the same with a release store (a plain mov)          -> clean (no
 *                atomic instruction ever touches `ready`: the reader's spin loop,
 *                which runs before the store, makes it an acquire)
 *   mp_rmw       the same, published with fetch_add(release)          -> clean
 *   dekker       Dekker's mutual exclusion with seq_cst flags         -> clean
 *   tas          test-and-set spinlock (atomic_flag) over a counter   -> clean
 *   ttas         test-and-test-and-set spinlock                       -> clean
 *   ticket       ticket lock, served counter advanced with fetch_add  -> clean
 *   ticket_store ticket lock, served counter advanced with a store    -> clean
 *                (the served counter is only ever plain-stored, and the
 *                threads run one after the other, so no spin loop ever waits:
 *                atomic by its type, atomic_int, in the debug information)
 *   refcount     object shared by 3 threads, the last decrement frees -> clean
 *   lfstack      Treiber stack: 2 pushers, 1 popper that frees        -> clean
 *   dcl          double-checked init, pointer stored seq_cst          -> clean
 *   seqlock      seqlock, data read with relaxed loads                -> race
 *                (relaxed atomics are plain movs: indistinguishable from data)
 *   race_after   data written after the release store                 -> race
 *   race_beside  a plain counter beside an atomic one                 -> race
 *   free_race    a block freed while another thread still reads it   -> race
 *   rmw_before   count++ (one add to memory, no LOCK), then another
 *                thread's first atomic RMW on count, unordered        -> race
 *                (under GCC; Clang's objects are not trusted with it)
 *   rmw_fused    an atomic load, +1 and an atomic store (Clang fuses
 *                them into one add to memory), then another thread's
 *                atomic RMW                                           -> clean
 *   free_atomic  a block freed, then another thread's atomic RMW on it -> race
 */
#include <stdatomic.h>
#include <stdint.h>
#include "../common.h"

#define N 300

static const char *mode;
static long data, data2;
static atomic_int ready;
static atomic_int flag[2], turn;
static atomic_flag lockf = ATOMIC_FLAG_INIT;
static atomic_int lockw, next_ticket, served;
static long counter;
static atomic_long acounter;

/* ---- message passing --------------------------------------------- */

static void *mp_writer(void *arg)
{
   (void)arg;
   ms_sleep(300);                     /* the reader spins meanwhile */
   data = 42;
   if (!strcmp(mode, "mp_seqcst")) atomic_store(&ready, 1);
   else if (!strcmp(mode, "mp_rmw")) atomic_fetch_add_explicit(&ready, 1, memory_order_release);
   else if (!strcmp(mode, "race_after")) {
      atomic_store(&ready, 1);
      data2 = 7;                      /* after the release: not published */
   } else atomic_store_explicit(&ready, 1, memory_order_release);
   return NULL;
}

static void *mp_reader(void *arg)
{
   (void)arg;
   while (!atomic_load_explicit(&ready, memory_order_acquire)) {}
   if (data != 42) abort();
   if (!strcmp(mode, "race_after")) { ms_sleep(50); return (void *)data2; }
   return NULL;
}

/* ---- mutual exclusion -------------------------------------------- */

static void dekker_lock(int me)
{
   int other = 1 - me;
   atomic_store(&flag[me], 1);
   while (atomic_load(&flag[other])) {
      if (atomic_load(&turn) != me) {
         atomic_store(&flag[me], 0);
         while (atomic_load(&turn) != me) {}
         atomic_store(&flag[me], 1);
      }
   }
}

static void dekker_unlock(int me)
{
   atomic_store(&turn, 1 - me);
   atomic_store(&flag[me], 0);
}

static void spin_lock(int me)
{
   if (!strcmp(mode, "dekker")) dekker_lock(me);
   else if (!strcmp(mode, "tas"))
      while (atomic_flag_test_and_set_explicit(&lockf, memory_order_acquire)) {}
   else if (!strcmp(mode, "ttas")) {
      for (;;) {
         while (atomic_load_explicit(&lockw, memory_order_relaxed)) {}
         if (!atomic_exchange_explicit(&lockw, 1, memory_order_acquire)) break;
      }
   } else {                                       /* ticket, ticket_store */
      int my = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
      while (atomic_load_explicit(&served, memory_order_acquire) != my) {}
   }
}

static void spin_unlock(int me)
{
   if (!strcmp(mode, "dekker")) dekker_unlock(me);
   else if (!strcmp(mode, "tas")) atomic_flag_clear_explicit(&lockf, memory_order_release);
   else if (!strcmp(mode, "ttas")) atomic_store_explicit(&lockw, 0, memory_order_release);
   else if (!strcmp(mode, "ticket")) atomic_fetch_add_explicit(&served, 1, memory_order_release);
   else atomic_store_explicit(&served, atomic_load_explicit(&served, memory_order_relaxed) + 1,
                              memory_order_release);
}

static void *locker(void *arg)
{
   int me = (int)(intptr_t)arg;
   for (int i = 0; i < N; i++) {
      spin_lock(me);
      counter++;
      spin_unlock(me);
   }
   return NULL;
}

/* ---- reference counting ------------------------------------------ */

typedef struct { atomic_int refs; long payload[4]; } obj_t;
static obj_t *shared_obj;

static void obj_put(obj_t *o)
{
   if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1) free(o);
}

static void *refcount_user(void *arg)
{
   long sum = 0;
   for (int i = 0; i < 4; i++) sum += shared_obj->payload[i];
   obj_put(shared_obj);
   return (void *)sum;
}

/* ---- Treiber stack ----------------------------------------------- */

typedef struct node { struct node *next; long value; } node_t;
static _Atomic(node_t *) top;

static void *pusher(void *arg)
{
   for (int i = 0; i < 200; i++) {
      node_t *n = malloc(sizeof *n);
      n->value = (intptr_t)arg * 1000 + i;
      n->next = atomic_load_explicit(&top, memory_order_relaxed);
      while (!atomic_compare_exchange_weak_explicit(&top, &n->next, n, memory_order_release,
                                                    memory_order_relaxed)) {}
   }
   return NULL;
}

static void *popper(void *arg)
{
   (void)arg;
   long sum = 0;
   for (int got = 0; got < 400;) {
      node_t *n = atomic_load_explicit(&top, memory_order_acquire);
      if (!n) continue;
      if (atomic_compare_exchange_weak_explicit(&top, &n, n->next, memory_order_acquire,
                                                memory_order_relaxed)) {
         sum += n->value;
         free(n);
         got++;
      }
   }
   return (void *)sum;
}

/* ---- double-checked initialisation ------------------------------- */

typedef struct { long a, b; } conf_t;
static _Atomic(conf_t *) conf;
static pthread_mutex_t conf_mu = PTHREAD_MUTEX_INITIALIZER;

static conf_t *get_conf(void)
{
   conf_t *c = atomic_load(&conf);
   if (c) return c;
   pthread_mutex_lock(&conf_mu);
   c = atomic_load_explicit(&conf, memory_order_relaxed);
   if (!c) {
      c = malloc(sizeof *c);
      c->a = 1; c->b = 2;
      atomic_store(&conf, c);
   }
   pthread_mutex_unlock(&conf_mu);
   return c;
}

static void *dcl_user(void *arg)
{
   if ((intptr_t)arg) ms_sleep(50);
   conf_t *c = get_conf();
   return (void *)(c->a + c->b);
}

/* ---- seqlock ------------------------------------------------------ */

static atomic_uint seq;
static atomic_long sdata[2];

static void *seq_writer(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++) {
      atomic_fetch_add_explicit(&seq, 1, memory_order_acq_rel);
      atomic_store_explicit(&sdata[0], i, memory_order_relaxed);
      if (i == 0) ms_sleep(100);      /* the reader reads meanwhile */
      atomic_store_explicit(&sdata[1], i, memory_order_relaxed);
      atomic_fetch_add_explicit(&seq, 1, memory_order_release);
   }
   return NULL;
}

static void *seq_reader(void *arg)
{
   (void)arg;
   long bad = 0;
   ms_sleep(20);
   for (int i = 0; i < 3; i++) {
      unsigned s1, s2;
      long a, b;
      do {
         s1 = atomic_load_explicit(&seq, memory_order_acquire);
         a = atomic_load_explicit(&sdata[0], memory_order_relaxed);
         b = atomic_load_explicit(&sdata[1], memory_order_relaxed);
         atomic_thread_fence(memory_order_acquire);
         s2 = atomic_load_explicit(&seq, memory_order_relaxed);
      } while ((s1 & 1) || s1 != s2);
      bad += a != b;
   }
   return (void *)bad;
}

/* ---- real races beside atomics ------------------------------------ */

static void *beside(void *arg)
{
   (void)arg;
   for (int i = 0; i < N; i++) {
      atomic_fetch_add(&acounter, 1);
      counter++;                      /* not protected by anything */
   }
   return NULL;
}

static long plain_count, fused_count;

static void *rmw_first(void *arg)
{
   (void)arg;
   if (!strcmp(mode, "rmw_before")) plain_count++;
   else __atomic_store_n(&fused_count, __atomic_load_n(&fused_count, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
   return NULL;
}

static void *rmw_later(void *arg)
{
   (void)arg;
   ms_sleep(200);                      /* after the other's, with no order */
   __atomic_fetch_add(!strcmp(mode, "rmw_before") ? &plain_count : &fused_count, 1,
                      __ATOMIC_RELAXED);
   return NULL;
}

static long *freed_block;

static void *late_atomic(void *arg)
{
   (void)arg;
   ms_sleep(200);
   __atomic_fetch_add(&freed_block[1], 1, __ATOMIC_RELAXED);
   return NULL;
}

static void *late_reader(void *arg)
{
   (void)arg;
   return (void *)freed_block[1];
}

/* ------------------------------------------------------------------ */

static void run2(void *(*a)(void *), void *(*b)(void *))
{
   pthread_t t1 = spawn(a, (void *)0), t2 = spawn(b, (void *)1);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
}

int main(int argc, char **argv)
{
   if (argc < 2) { fprintf(stderr, "usage: idioms MODE\n"); return 2; }
   mode = argv[1];
   if (!strncmp(mode, "mp_", 3) || !strcmp(mode, "race_after")) run2(mp_writer, mp_reader);
   else if (!strcmp(mode, "dekker") || !strcmp(mode, "tas") || !strcmp(mode, "ttas")
            || !strncmp(mode, "ticket", 6)) {
      run2(locker, locker);
      if (counter != 2 * N) abort();
   } else if (!strcmp(mode, "refcount")) {
      shared_obj = malloc(sizeof *shared_obj);
      atomic_init(&shared_obj->refs, 3);
      for (int i = 0; i < 4; i++) shared_obj->payload[i] = i;
      pthread_t t[3];
      for (int i = 0; i < 3; i++) t[i] = spawn(refcount_user, (void *)(intptr_t)i);
      for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
   } else if (!strcmp(mode, "lfstack")) {
      pthread_t t[3] = { spawn(pusher, (void *)1), spawn(pusher, (void *)2), spawn(popper, NULL) };
      for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
   } else if (!strcmp(mode, "dcl")) run2(dcl_user, dcl_user);
   else if (!strcmp(mode, "seqlock")) run2(seq_writer, seq_reader);
   else if (!strcmp(mode, "race_beside")) run2(beside, beside);
   else if (!strncmp(mode, "rmw_", 4)) run2(rmw_first, rmw_later);
   else if (!strcmp(mode, "free_atomic")) {
      freed_block = malloc(4 * sizeof(long));
      freed_block[1] = 1;
      pthread_t t = spawn(late_atomic, NULL);
      free(freed_block);               /* no ordering with the atomic RMW */
      pthread_join(t, NULL);
   }
   else if (!strcmp(mode, "free_race")) {
      freed_block = calloc(4, sizeof(long));
      pthread_t t = spawn(late_reader, NULL);
      ms_sleep(200);                   /* no ordering with the reader's read */
      free(freed_block);
      pthread_join(t, NULL);
   } else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
   return 0;
}
