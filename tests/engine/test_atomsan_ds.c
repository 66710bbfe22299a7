/* test_atomsan_ds.c -- white-box test of AtomSanitizer's From/To arrays:
 * replays the AtomSanitizer paper's sigma7 (Fig. 6) and checks every
 * From/To value its narrative states, and the To-lowering branch of
 * addSuccessor on a hand-made trace, and that an exited thread's column
 * goes to the next thread reset, while its row keeps linking, also past
 * 2^16 threads.
 *
 * Build: cc -I atomgrind/engine tests/engine/test_atomsan_ds.c
 *           atomgrind/engine/ag_map.c atomgrind/engine/ag_shim_host.c
 * (the engine file is #included to reach its state; the two dispatcher
 * hooks it calls are stubbed here). */
#include "../../atomgrind/engine/ag_atomsan.c"
#include <stdio.h>

static int failures, reported_at;
static uint64_t cur_event;

int ag_ctx_report(ag_ctx *ctx, ag_violation *v)
{
   (void)ctx; (void)v;
   if (!reported_at) reported_at = (int)cur_event;
   return 1;
}

void ag_ctx_other_region(ag_ctx *ctx, ag_violation *v, ag_tid u)
{
   (void)ctx; (void)v; (void)u;
}

int ag_ctx_lock_held(ag_ctx *ctx, ag_tid a, uint64_t *acq_event, uint64_t *rel_event)
{
   (void)ctx; (void)a; (void)acq_event; (void)rel_event;
   return 0;
}

enum { B, E, R, W };
typedef struct { int t, op, var; } ev;

static as_t *s;
static as_loc vars[8];

static void run(const ev *e)
{
   cur_event++;
   switch (e->op) {
   case B: as_begin(s, e->t); break;
   case E: as_end(s, e->t); break;
   default:
      as_access_start(s, e->t, e->op == W ? AG_WRITE : 0);
      as_access(s, e->t, &vars[e->var], 0, e->op == W ? AG_WRITE : 0);
   }
}

static void expect(const char *what, int b, int a, as_id from, as_id to)
{
   as_id f = FROMC(s, b, s->col[a]), t = TOC(s, b, s->col[a]);
   if (to == -1) to = AS_INF;
   if (f != from || t != to) {
      failures++;
      fprintf(stderr, "FAIL: %s: From_t%d(t%d)=%lld To=%lld, want %lld %lld\n", what, b + 1, a + 1,
              (long long)f, (long long)(t == AS_INF ? -1 : t), (long long)from,
              (long long)(to == AS_INF ? -1 : to));
   }
}

static void setup(int nthreads)
{
   static ag_ctx ctx;
   if (s) as_destroy(s);
   ctx.cfg.cycles_increasing = 0;
   s = as_create(&ctx);
   for (int t = 0; t < nthreads; t++) as_thread_new(s, t);
   for (int i = 0; i < 8; i++) as_loc_init(s, &vars[i]);
   cur_event = 0;
   reported_at = 0;
}

int main(void)
{
   /* sigma7: t1..t4 = 0..3.  Ids: t1 T1=0 T5=1; t2 T4=0 T7=1; t3 T2=0;
      t4 T3=0 T6=1.  Variables x=0 z=1 u=2 v=3. */
   static const ev sigma7[] = {
      {2,B,0}, {2,W,0}, {3,B,0}, {0,B,0}, {0,W,1}, {0,E,0}, {3,W,0}, {3,E,0},
      {1,B,0}, {1,W,2}, {1,R,1}, {1,E,0}, {0,B,0}, {0,W,3}, {1,B,0}, {3,B,0},
      {1,W,3}, {3,R,2}, {2,R,3}, {0,R,0},
   };
   setup(4);
   for (int i = 0; i < 20; i++) {
      run(&sigma7[i]);
      switch (i + 1) {
      case 7:  expect("e7", 3, 2, 0, 0); break;                 /* From_t4(t3)=T2 To=T3 */
      case 11: expect("e11", 1, 0, 0, 0); break;                /* From_t2(t1)=T1 To=T4 */
      case 17: expect("e17", 1, 0, 1, 1); break;                /* T5, T7 */
      case 18: expect("e18", 3, 1, 0, 1);                       /* From_t4(t2)=T4 To=T6 */
               expect("e18 (lossy)", 3, 0, -1, -1); break;      /* From_t4(t1) still bottom */
      case 19: expect("e19", 2, 1, 1, 0);                       /* From_t3(t2)=T7 To=T2 */
               expect("e19", 2, 0, 1, 0);                       /* From_t3(t1)=T5 To=T2 */
               expect("e19", 3, 1, 1, 0);                       /* From_t4(t2)=T7 To=T3 */
               expect("e19", 3, 0, 1, 0);                       /* From_t4(t1)=T5 To=T3 */
               if (reported_at) { failures++; fprintf(stderr, "FAIL: sigma7 reported at %d\n", reported_at); }
               break;
      }
   }
   if (reported_at != 20) { failures++; fprintf(stderr, "FAIL: sigma7 reported at %d, want 20\n", reported_at); }

   /* To-lowering: A=0 B=1 C=2; B's ids Tb1=0 Tb2=1. */
   static const ev lower[] = {
      {2,B,0}, {1,B,0}, {2,W,0}, {1,R,0}, {1,W,1}, {1,E,0},
      {0,B,0}, {1,B,0}, {0,W,2}, {1,R,2}, {0,W,3}, {2,R,3}, {0,R,1},
   };
   setup(3);
   for (int i = 0; i < 13; i++) {
      run(&lower[i]);
      if (i + 1 == 10) expect("lower e10", 1, 0, 0, 1);         /* Ta -> Tb2 */
      if (i + 1 == 12) expect("lower e12", 1, 0, 0, 0);         /* lowered: Ta -> Tb1 */
   }
   if (reported_at != 13) { failures++; fprintf(stderr, "FAIL: lowering trace reported at %d, want 13\n", reported_at); }

   /* columns: t0's region T0 reads var 1; t1 writes it (T0 precedes t1's
      txn 0: From_t1(t0) = 0, To = 0) and var 0, and exits; its column goes
      to t2 and starts from bottom there; t1's row stays, and its record of
      var 0 still closes t0's cycle */
   static const ev recycle[] = { {0,B,0}, {0,R,1}, {1,W,1}, {1,W,0} };
   setup(2);
   for (int i = 0; i < 4; i++) run(&recycle[i]);
   uint32_t c1 = s->col[1];
   expect("t1 knows t0", 1, 0, 0, 0);
   as_thread_exit(s, 1);
   if (s->col[1] != AS_NOCOL) { failures++; fprintf(stderr, "FAIL: exited t1 keeps column %u\n", s->col[1]); }
   as_thread_new(s, 2);
   if (s->col[2] != c1 || s->ncols != 2) {
      failures++;
      fprintf(stderr, "FAIL: t2 got column %u (t1 had %u), %u columns\n", s->col[2], c1, s->ncols);
   }
   for (int b = 0; b < 3; b++) expect("new column is bottom", b, 2, -1, -1);
   expect("t1's row kept", 1, 0, 0, 0);
   static const ev close_[] = { {0,R,0} };       /* t1's write of var 0 -> t0: cycle */
   run(&close_[0]);
   if (reported_at != 5) { failures++; fprintf(stderr, "FAIL: recycle trace reported at %d, want 5\n", reported_at); }

   /* 70000 threads over a run, more than 16-bit thread ids hold: t0's
      region reads var 0; each new thread writes it and exits (its column
      is reused); t0's write then closes the cycle through all of them */
   setup(1);
   run(&(ev){0, B, 0});
   run(&(ev){0, R, 0});
   for (ag_tid t = 1; t <= 70000; t++) {
      as_thread_new(s, t);
      cur_event++;
      as_access_start(s, t, AG_WRITE);
      as_access(s, t, &vars[0], 0, AG_WRITE);
      as_thread_exit(s, t);
   }
   if (s->ncols != 2 || reported_at) {
      failures++;
      fprintf(stderr, "FAIL: 70000 threads: %u columns, reported at %d\n", s->ncols, reported_at);
   }
   run(&(ev){0, W, 0});
   if (reported_at != 70003) {
      failures++;
      fprintf(stderr, "FAIL: 70000 threads: reported at %d, want 70003\n", reported_at);
   }
   as_destroy(s);
   if (failures) return 1;
   printf("ok\n");
   return 0;
}
