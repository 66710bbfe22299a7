/* ag_shared.c -- scheduling points at the accesses that can race, in
 * unannotated programs too: an access to a location another thread has
 * touched, when one of them writes it.  The first thread to touch a slot
 * owns it; its accesses stay inline (ag_instrument.c).  A second thread's
 * read makes the slot read-shared (loads stay inline), any write by
 * another thread makes it shared: every later access of it calls here and
 * is a point where the scheduler may switch (ag_sched_shared), right
 * before the access.  Own stack, thread-private and read-only data never
 * call here. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_mallocfree.h"   /* VG_(calloc) */
#include "ag_options.h"            /* --sched */
#include "ag_sched.h"              /* ag_sched_shared: the point */
#include "ag_shared.h"

UChar *ag_shared_owner;
volatile UWord ag_shared_tag = 1;
Bool ag_shared_on;

void ag_shared_init(void)
{
   ag_shared_on = ag_clo_sched != AG_SCHED_NATIVE;
   if (!ag_shared_on) return;
   /* 8 MB of address space, touched only where the program's data hash */
   ag_shared_owner = VG_(calloc)("ag.shared", AG_SHARED_MASK + 1, 1);
}

void ag_shared_running(ag_tid t)
{
   ag_shared_tag = 1 + t % AG_SHARED_TAGS;
}

/* A heap block reused by another thread would stay shared forever (a
   compressor's per-block buffers): a new block starts untouched.  Slots of
   other addresses that hash alike start over too: at worst one more
   first touch before they are seen shared again. */
void ag_shared_fresh(Addr a, SizeT len)
{
   if (!ag_shared_owner || len == 0) return;
   if (len / 8 > AG_SHARED_MASK) {
      VG_(memset)(ag_shared_owner, 0, AG_SHARED_MASK + 1);
      return;
   }
   for (Addr p = a & ~(Addr)7; p < a + len; p += 8) ag_shared_owner[ag_shared_slot(p)] = 0;
}

void ag_shared_access(ThreadId vgtid, Addr a, UInt flags, Addr ip)
{
   UChar *slot = &ag_shared_owner[ag_shared_slot(a)];
   UChar me = (UChar)ag_shared_tag;
   Bool write = (flags & AG_WRITE) != 0;
   Int point;
   *slot = ag_sched_slot_after(*slot, me, write, &point);
   /* a learned race site stays a point: its slot is not claimed */
   if (ag_sched_race_site(a, ip, me, write) && !point) {
      point = 1;
      if (*slot == me) *slot = me | AG_SHARED_TRY;
   }
   if (point) ag_sched_shared(vgtid, ip, a);
}
