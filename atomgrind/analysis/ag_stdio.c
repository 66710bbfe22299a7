/* ag_stdio.c -- see ag_stdio.h.  The rule, and why it cannot hide a
 * violation on the program's own data, are in docs/atomgrind.md
 * (section 3, "Standard library idioms", stdio's locks).
 *
 * glibc takes a FILE's lock (and every other _IO_lock_t, a recursive
 * lock: int lock; int cnt; void *owner) inline, with no call the preload
 * library could wrap:
 *     if (l->owner != self) { CAS(&l->lock, 0, 1) or wait; l->owner = self; }
 *     l->cnt++;  ...  if (--l->cnt == 0) { l->owner = NULL; xchg(&l->lock, 0); }
 * Recognised by libc's accesses alone: an atomic read-modify-write of 4
 * bytes at L made by libc's code right after libc read 8 bytes at L+8 (the
 * owner test), with L's 16 bytes all zero (a free lock, nobody's owner).
 * From then on, libc's atomic update of L finding it zero is an acquire
 * by the thread; the holder's own atomic update of L is its release; and
 * libc's accesses to the 16 bytes reach no engine (a mutex's internals do
 * not either: DESIGN section 4).  The lock word's other updates (a failed
 * CAS, the waiters' exchange) are the waiting, not an event.
 *
 * The FILE whose lock it is: libc read the lock's address from the
 * FILE's _lock field (offset 0x88, the ABI's struct _IO_FILE) just before
 * the owner test.  libc's reads of the FILE's 224 bytes (struct
 * _IO_FILE_plus: the fields and the vtable pointer), and its writes there
 * while the thread holds the FILE's lock, reach no engine either: the
 * lock's acquires and releases order every such write, and every read
 * made under the lock, as the accesses would; what is left out is libc
 * reading the FILE's flags, orientation and vtable before it takes the
 * lock (fields whose tested bits are fixed once the stream is set up),
 * and the orientation (_mode), which the first operation sets before it
 * takes the lock, each thread's to the same value. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_PROT_READ */
#include "pub_tool_aspacemgr.h"    /* VG_(am_is_valid_for_client) */
#include "pub_tool_libcbase.h"     /* VG_(memset) */
#include "pub_tool_libcprint.h"    /* VG_(umsg) */
#include "pub_tool_mallocfree.h"   /* VG_(realloc), VG_(calloc), VG_(free) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "ag_threadrec.h"          /* the per-thread records by thread id */
#include "ag_stdio.h"

#define AG_ST_SIZE 16               /* sizeof(_IO_lock_t) on 64-bit targets */
#define AG_ST_FILE_LOCK 0x88        /* offsetof(FILE, _lock) */
#define AG_ST_FILE_MODE 0xc0        /* offsetof(FILE, _mode) */
#define AG_ST_FILE_MAGIC 0xFBAD0000u /* _IO_MAGIC, in _flags's high half */
#define AG_ST_FILE_MAGIC_MASK 0xFFFF0000u
#define AG_ST_FILE_SIZE 224         /* sizeof(struct _IO_FILE_plus) */
#define AG_ST_BUCKETS 4096          /* the FILEs' 256-byte spans, filtered */
#define AG_ST_EMPTY ((Addr)0)
#define AG_ST_GONE ((Addr)1)        /* a forgotten slot, for probing */

typedef struct {
   Addr lock;                      /* its lock word; AG_ST_EMPTY, AG_ST_GONE */
   ag_tid holder;                  /* AG_NO_TID: free */
} ag_st_lock;

static ag_stdio_ops ag_st_an;       /* analysis, which calls us */
static ag_st_lock *ag_st_tab;       /* open addressing, a power of two */
static UInt ag_st_cap, ag_st_used, ag_st_live;
static Addr ag_st_lo = ~(Addr)0, ag_st_hi;  /* the known locks' span */
typedef ag_tr_stdio ag_st_thread_t;    /* a thread's part of its record */

typedef struct { Addr file, lock; } ag_st_file;
static ag_st_file *ag_st_files;     /* the FILEs known, a few */
static UInt ag_st_nfiles, ag_st_files_cap;
static UChar ag_st_filter[AG_ST_BUCKETS]; /* a FILE may lie in this span */
static ULong ag_st_acquires, ag_st_hidden;

void ag_stdio_init(const ag_stdio_ops *ops) { ag_st_an = *ops; }

static UInt ag_st_hash(Addr a) { return (UInt)((a >> 2) * 2654435761u); }

static ag_st_lock *ag_st_find(Addr l)
{
   if (ag_st_live == 0 || l < ag_st_lo || l > ag_st_hi) return NULL;
   for (UInt i = ag_st_hash(l) & (ag_st_cap - 1);; i = (i + 1) & (ag_st_cap - 1)) {
      if (ag_st_tab[i].lock == l) return &ag_st_tab[i];
      if (ag_st_tab[i].lock == AG_ST_EMPTY) return NULL;
   }
}

static void ag_st_put(Addr l, ag_tid holder);

/* Twice the room, forgotten slots dropped. */
static void ag_st_grow(void)
{
   ag_st_lock *old = ag_st_tab;
   UInt n = ag_st_cap;
   ag_st_cap = ag_st_cap ? ag_st_cap * 2 : 64;
   ag_st_tab = VG_(calloc)("ag.stdio", ag_st_cap, sizeof *ag_st_tab);
   ag_st_used = ag_st_live = 0;
   for (UInt i = 0; i < n; i++)
      if (old[i].lock > AG_ST_GONE) ag_st_put(old[i].lock, old[i].holder);
   if (old) VG_(free)(old);
}

static void ag_st_put(Addr l, ag_tid holder)
{
   if ((ag_st_used + 1) * 4 > ag_st_cap * 3) ag_st_grow();
   UInt i = ag_st_hash(l) & (ag_st_cap - 1);
   while (ag_st_tab[i].lock > AG_ST_GONE) i = (i + 1) & (ag_st_cap - 1);
   if (ag_st_tab[i].lock == AG_ST_EMPTY) ag_st_used++;
   ag_st_tab[i].lock = l;
   ag_st_tab[i].holder = holder;
   ag_st_live++;
   if (l < ag_st_lo) ag_st_lo = l;
   if (l > ag_st_hi) ag_st_hi = l;
}

/* The lock whose 16 bytes [a, a+size) lies in, if any. */
static ag_st_lock *ag_st_covering(Addr a, UInt size)
{
   for (UInt off = 0; off < AG_ST_SIZE && off <= a; off += 4) {
      ag_st_lock *k = ag_st_find(a - off);
      if (k) return a + size <= k->lock + AG_ST_SIZE ? k : NULL;
   }
   return NULL;
}

static ag_st_thread_t *ag_st_thread(ag_tid t)
{
   return &ag_rec_of(t)->stdio;
}

static void ag_st_filter_set(Addr f)
{
   ag_st_filter[(f >> 8) % AG_ST_BUCKETS] = 1;
   ag_st_filter[((f + AG_ST_FILE_SIZE - 1) >> 8) % AG_ST_BUCKETS] = 1;
}

/* The FILE [a, a+size) lies in, if any. */
static const ag_st_file *ag_st_file_at(Addr a, UInt size)
{
   if (!ag_st_filter[(a >> 8) % AG_ST_BUCKETS]) return NULL;
   for (UInt i = 0; i < ag_st_nfiles; i++)
      if (a >= ag_st_files[i].file && a + size <= ag_st_files[i].file + AG_ST_FILE_SIZE)
         return &ag_st_files[i];
   return NULL;
}

/* Has f glibc's FILE layout: readable, _flags's high half the magic
   number, _lock the address l? */
static Bool ag_st_is_file(Addr f, Addr l)
{
   return f && !(f & 7) && VG_(am_is_valid_for_client)(f, AG_ST_FILE_SIZE, VKI_PROT_READ)
          && (*(const UInt *)f & AG_ST_FILE_MAGIC_MASK) == AG_ST_FILE_MAGIC
          && *(const Addr *)(f + AG_ST_FILE_LOCK) == l;
}

/* f is a FILE whose lock is l: known from now on. */
static void ag_st_add_file(Addr f, Addr l)
{
   for (UInt i = 0; i < ag_st_nfiles; i++)
      if (ag_st_files[i].file == f) return;
   if (ag_st_nfiles == ag_st_files_cap) {
      ag_st_files_cap = ag_st_files_cap ? 2 * ag_st_files_cap : 8;
      ag_st_files = VG_(realloc)("ag.stdio.files", ag_st_files,
                                 ag_st_files_cap * sizeof *ag_st_files);
   }
   ag_st_files[ag_st_nfiles].file = f;
   ag_st_files[ag_st_nfiles++].lock = l;
   ag_st_filter_set(f);
   /* what libc did to it before its first lock (its orientation, set
      before the lock) is dropped, as if the FILE were new */
   ag_st_an.forget(f, AG_ST_FILE_SIZE);
}

/* t read lock l's address at x just before testing its owner: x is the
   _lock field of a FILE. */
static void ag_st_learn_file(Addr x, Addr l)
{
   if (x >= AG_ST_FILE_LOCK && ag_st_is_file(x - AG_ST_FILE_LOCK, l))
      ag_st_add_file(x - AG_ST_FILE_LOCK, l);
}

/* Is [l, l+16) a free recursive lock: readable, and all zero? */
static Bool ag_st_free_lock(Addr l)
{
   if ((l & 3) || !VG_(am_is_valid_for_client)(l, AG_ST_SIZE, VKI_PROT_READ)) return False;
   for (UInt i = 0; i < AG_ST_SIZE; i++)
      if (((const UChar *)l)[i]) return False;
   return True;
}

/* libc's atomic update of the lock word (before it is made). */
static void ag_st_update(ag_tid t, ag_st_lock *k, const ag_st_thread_t *th)
{
   if (k->holder == t) {           /* only the holder's release updates it */
      k->holder = AG_NO_TID;
      ag_st_an.release(t, k->lock);
   } else if (*(const volatile Int *)k->lock == 0) {
      /* a holder whose release was not seen (no access was analysed then)
         is taken over: no edge from it, so no order the run did not have */
      k->holder = t;
      ag_st_acquires++;
      if (th->last_was8 && th->last8 == k->lock + 8) ag_st_learn_file(th->before8, k->lock);
      ag_st_an.acquire(t, k->lock);
   }
}

/* A FILE's field, read by libc, or written under the FILE's lock. */
static Bool ag_st_file_field(ag_tid t, Addr a, UInt size, UInt flags)
{
   const ag_st_file *f = ag_st_file_at(a, size);
   if (!f) return False;
   if (!(flags & AG_WRITE)) return True;
   /* the orientation, set by the stream's first operation (before its
      lock: every byte operation stores the same -1), then only read */
   if (a >= f->file + AG_ST_FILE_MODE && a + size <= f->file + AG_ST_FILE_MODE + 4) return True;
   const ag_st_lock *k = ag_st_find(f->lock);
   return k && k->holder == t;
}

Bool ag_stdio_access(ag_tid t, Addr a, UInt size, UInt flags)
{
   ag_st_thread_t *th = ag_st_thread(t);
   Bool word_update = (flags & (AG_WRITE | AG_ATOMIC)) == (AG_WRITE | AG_ATOMIC) && size == 4;
   ag_st_lock *k = ag_st_covering(a, size);
   if (!k && word_update && th->last_was8 && th->last8 == a + 8 && ag_st_free_lock(a)) {
      ag_st_put(a, AG_NO_TID);
      k = ag_st_find(a);
   }
   if (k && word_update && a == k->lock) ag_st_update(t, k, th);
   Bool plain_read8 = !(flags & (AG_WRITE | AG_ATOMIC)) && size == 8;
   if (plain_read8) {
      th->before8 = th->last8;
      th->last8 = a;
   }
   th->last_was8 = plain_read8;
   if (!k && !ag_st_file_field(t, a, size, flags)) return False;
   ag_st_hidden++;
   return True;
}

void ag_stdio_file(Addr f)
{
   if (!f || (f & 7) || !VG_(am_is_valid_for_client)(f, AG_ST_FILE_SIZE, VKI_PROT_READ))
      return;
   Addr l = *(const Addr *)(f + AG_ST_FILE_LOCK);
   if (!ag_st_is_file(f, l) || (l & 3)
       || !VG_(am_is_valid_for_client)(l, AG_ST_SIZE, VKI_PROT_READ))
      return;
   if (!ag_st_find(l)) ag_st_put(l, AG_NO_TID);
   ag_st_add_file(f, l);
}

Bool ag_stdio_lock_word(Addr a, UInt size)
{
   return ag_st_live && ag_st_covering(a, size) != NULL;
}

/* FILEs in [a, a+len) are forgotten, and the filter made again. */
static void ag_st_forget_files(Addr a, SizeT len)
{
   UInt n = 0;
   for (UInt i = 0; i < ag_st_nfiles; i++)
      if (!(ag_st_files[i].file < a + len && a < ag_st_files[i].file + AG_ST_FILE_SIZE))
         ag_st_files[n++] = ag_st_files[i];
   if (n == ag_st_nfiles) return;
   ag_st_nfiles = n;
   VG_(memset)(ag_st_filter, 0, sizeof ag_st_filter);
   for (UInt i = 0; i < n; i++) ag_st_filter_set(ag_st_files[i].file);
}

void ag_stdio_forget(Addr a, SizeT len)
{
   if (ag_st_nfiles) ag_st_forget_files(a, len);
   if (ag_st_live == 0 || a + len <= ag_st_lo || a > ag_st_hi) return;
   for (UInt i = 0; i < ag_st_cap; i++) {
      Addr l = ag_st_tab[i].lock;
      if (l > AG_ST_GONE && l < a + len && a < l + AG_ST_SIZE) {
         ag_st_tab[i].lock = AG_ST_GONE;
         ag_st_live--;
      }
   }
}

void ag_stdio_fini(void)
{
   if (VG_(clo_verbosity) > 1 && ag_st_acquires)
      VG_(umsg)("atomgrind: stdio locks: %u known (%u FILEs), %llu acquire(s), %llu of "
                "libc's accesses to them kept from the engines\n", ag_st_live, ag_st_nfiles,
                ag_st_acquires, ag_st_hidden);
}
