/* ag_shared.c -- scheduling points at the accesses that can race, in
 * unannotated programs too: an access to a location another thread has
 * touched with no happens-before edge between them, when one of them
 * writes it.  The first thread to touch a slot owns it; its accesses stay
 * inline (ag_instrument.c).  A thread that meets another's slot after
 * that thread's access (a buffer handed over through a lock, a queue, a
 * join) takes it over.  Otherwise a second thread's read makes the slot
 * read-shared (loads stay inline), and any write by another thread makes
 * it shared: every later access of it calls here and is a point where the
 * scheduler may switch (ag_sched_shared), right before the access.
 * Thread-private and read-only data never call here; a word of the
 * thread's own stack not yet shared calls once, and is claimed with no
 * point. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_aspacemgr.h"    /* VG_(am_shadow_alloc) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_options.h"      /* VG_(clo_stats) */
#include "pub_tool_mallocfree.h"   /* VG_(out_of_memory_NORETURN) */
#include "ag_options.h"            /* --sched */
#include "ag_map.h"                /* superblocks' records */
#include "ag_handoff.h"            /* stamps: happened before? */
#include "ag_sched.h"              /* ag_sched_shared: the point; others running */
#include "ag_shared.h"

UShort *ag_shared_owner;
Bool ag_shared_on;
static ULong ag_sh_handed;           /* slots handed over (--stats) */

void ag_shared_init(void)
{
   ag_shared_on = ag_clo_sched != AG_SCHED_NATIVE;
   if (!ag_shared_on) return;
   /* 16 MB, mapped and zeroed by the kernel: only the pages where the
      program's data hash are ever touched (calloc would touch them all) */
   SizeT size = (AG_SHARED_MASK + 1) * sizeof *ag_shared_owner;
   ag_shared_owner = VG_(am_shadow_alloc)(size);
   if (!ag_shared_owner) VG_(out_of_memory_NORETURN)("ag.shared", size);
}

/* A heap block reused by another thread would stay shared forever (a
   compressor's per-block buffers): a new block starts untouched, and
   the race sites learn nothing from the old block's accesses (pbzip2's
   block sort, learned from two compressing threads' turns at one
   reused array, made 13.6 M points of a 4 MiB run).  Slots of
   other addresses that hash alike start over too: at worst one more
   first touch before they are seen shared again. */
void ag_shared_fresh(Addr a, SizeT len)
{
   ag_sched_fresh(a, len);
   if (!ag_shared_owner || len == 0) return;
   if (len / 8 > AG_SHARED_MASK) {
      VG_(memset)(ag_shared_owner, 0, (AG_SHARED_MASK + 1) * sizeof *ag_shared_owner);
      return;
   }
   for (Addr p = a & ~(Addr)7; p < a + len; p += 8) ag_shared_owner[ag_shared_slot(p)] = 0;
}

/* A buffer a system call filled (read(), recv()) is the thread's, as if it
   had written it and claimed every slot: otherwise each slot is claimed
   at a draw (AG_SP_CLAIM) at the thread's first accesses while others
   wait, and a scan of a fresh 8 KiB buffer makes some 10,000 points of
   the thread's own data -- as many as an exit waits for the others, or
   a postponement for the thread's partner (aget: its download threads
   never reached their shared writes).  Slots another thread touched stay
   as they are: the thread's next access meets them as it would. */
void ag_shared_written(ag_tid t, Addr a, SizeT len)
{
   if (!ag_shared_owner || len == 0) return;
   UWord word = ag_ho_word_of(t);
   UChar me = (UChar)word;
   if (len / 8 > AG_SHARED_MASK) len = (SizeT)(AG_SHARED_MASK + 1) * 8;
   for (Addr p = a & ~(Addr)7; p < a + len; p += 8) {
      UShort *slot = &ag_shared_owner[ag_shared_slot(p)];
      UChar st = *slot & 0xff;
      if (st == me || ag_sp_unclaimed(st, me)) *slot = (UShort)word;
   }
}

/* The slot's new value: a state, with the running thread's clock beside
   its tag. */
static UShort ag_sh_stamped(UChar state, UWord word)
{
   return (state & ~AG_SHARED_TRY) == (word & 0xff) ? (UShort)((word & 0xff00) | state) : state;
}

/* Another thread's slot whose stamp happened before now: handed over, it
   is met as if untouched (a first touch while others wait may still be
   a point: ag_sched_slot_after), and it teaches no race site
   (ag_sched.c says which ordered pairs still do). */
static Bool ag_sh_handed_over(UShort s)
{
   UChar state = s & 0xff;
   return state != 0 && state != AG_SHARED_READ && state != AG_SHARED_BOTH && ag_ho_ordered(s);
}

void ag_shared_access(ThreadId vgtid, Addr a, UInt flags, Addr ip, UChar stack_tag,
                      ag_shared_sb *b)
{
   UShort *slot = &ag_shared_owner[ag_shared_slot(a)];
   UWord word = ag_ho_word;
   UChar me = (UChar)word;
   Bool write = (flags & AG_WRITE) != 0;
   Bool own_stack = stack_tag == me;
   Int point;
   UShort s = *slot;
   UChar st = s & 0xff;
   if (st == me) {
      *slot = (UShort)word;       /* its own, stamped again after a release */
      return;
   }
   Bool handed = ag_sh_handed_over(s);
   ag_sh_handed += handed;
   /* a word of another thread's live stack that nobody touched here: its
      owner's accesses through SP make no tests (ag_instrument.c), so it is
      met as the owner's, as if they had: shared on a write */
   if (st == 0 && stack_tag != 0 && !own_stack) st = stack_tag;
   /* the thread's own stack, no other thread's but one's at most: a
      word untouched, or the last touched by a thread whose stack this
      was before (glibc reuses a joined thread's stack for the next one),
      or by one that reached it through a pointer (its next access finds
      the slot this thread's, and the word shared).  No other thread is
      likely next there: at -O0 every local is an access, and the points,
      with their switches, went to them */
   if (own_stack && st != AG_SHARED_READ && st != AG_SHARED_BOTH) {
      *slot = (UShort)word;
      return;
   }
   UChar state = ag_sched_slot_after(handed ? 0 : st, me, write, &point);
   /* a learned race site stays a point: its slot is not claimed (an
      access ordered after the last one races with nothing: nothing is
      learned from it) */
   if (!handed && ag_sched_race_site(a, ip, word, flags) && !point) {
      point = 1;
      if (state == me) state = me | AG_SHARED_TRY;
   }
   *slot = ag_sh_stamped(state, word);
   if (!point) return;
   b->points++;
   ag_sched_shared(vgtid, ip, a, write);
}

/* Quiet code.  Testing every access of code that does not touch shared
   data is most of what the points cost (a compressor's inner loops: the
   test alone doubled --sched=native's time).  As LiteRace samples code
   less the hotter it is (Marino et al., PLDI 2009: bugs hide in cold
   code), a superblock that has run AG_SHARED_QUIET times with fewer than
   one point in AG_SHARED_RARE runs, while another thread could run, is
   translated again without the tests: its later accesses are no points.
   Code whose accesses meet shared data at almost every run (a counter
   updated in a loop, a queue's ends) keeps them.  What is lost is points,
   never a report: the analysis of regions and races is not touched.
   Counted only while others can run, so code of a program's
   single-threaded start keeps its tests. */
static ag_map *ag_sh_sbs;            /* base -> ag_shared_sb */
#define AG_SH_PENDING 64
static ag_shared_sb *ag_sh_pending[AG_SH_PENDING];   /* to drop, between runs */
static UInt ag_sh_npending;
static ULong ag_sh_nquiet;

ag_shared_sb *ag_shared_sb_of(Addr base, UInt len)
{
   if (!ag_sh_sbs) ag_sh_sbs = ag_map_new(sizeof(ag_shared_sb));
   Int created = 0;
   ag_shared_sb *b = ag_map_lookup(ag_sh_sbs, base, &created);
   if (created) {
      b->base = base;
      b->left = AG_SHARED_QUIET;
   }
   b->len = len;
   return b;
}

void ag_shared_sb_expired(ag_shared_sb *b)
{
   if (b->quiet) return;
   UInt points = b->points;
   b->points = 0;
   if (points > AG_SHARED_QUIET / AG_SHARED_RARE || !ag_sched_others()
       || ag_sh_npending == AG_SH_PENDING) {
      b->left = AG_SHARED_QUIET;          /* not quiet (yet): count again */
      return;
   }
   b->quiet = True;
   ag_sh_pending[ag_sh_npending++] = b;
}

/* The core's discard (as ag_analysis.c's) and translation, private but
   exported: between runs of generated code, none of it in use, as the
   core's scheduler makes them. */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);
extern Bool VG_(translate)(ThreadId tid, Addr orig_addr, Bool debugging_translation,
                           Int debugging_verbosity, ULong bbs_done, Bool allow_redirection);

/* A quiet superblock has no exit before an access, so it needs only the
   registers a stack trace reads up to date at accesses (Valgrind's
   default), not all of them (ag_sched_init: 12-20% of a compressor's
   time): it is translated again at once, with the file-backed code's
   setting (which the core reads at every translation) lowered for it. */
static void ag_sh_retranslate(ThreadId vgtid, Addr base)
{
   VexRegisterUpdates saved = VG_(clo_px_file_backed);
   VG_(clo_px_file_backed) = VexRegUpdUnwindregsAtMemAccess;
   VG_(translate)(vgtid, base, False, 0, 0, True);
   VG_(clo_px_file_backed) = saved;
}

void ag_shared_stopped(ThreadId vgtid)
{
   for (UInt i = 0; i < ag_sh_npending; i++) {
      VG_(discard_translations)(ag_sh_pending[i]->base, ag_sh_pending[i]->len, "atomgrind-quiet");
      ag_sh_retranslate(vgtid, ag_sh_pending[i]->base);
   }
   ag_sh_nquiet += ag_sh_npending;
   ag_sh_npending = 0;
}

void ag_shared_fini(void)
{
   if (VG_(clo_stats) && ag_sh_sbs)
      VG_(umsg)("atomgrind: shared points: %llu of %lu superblock(s) quiet, their tests "
                "dropped; %llu slot(s) handed over\n",
                ag_sh_nquiet, (unsigned long)ag_map_count(ag_sh_sbs), ag_sh_handed);
}
