/* ag_tracefmt.h -- recorded event traces.
 *
 * Two formats:
 *
 *  - atomgrind's compact binary format (--record-trace=FILE): the magic
 *    "AGTRACE1", then records.  Each record is a tag byte and LEB128
 *    varints; access addresses are zigzag deltas from the previous access,
 *    and common sizes/flags live in the tag:
 *
 *      0x01 thread  tid                       (announces tid)
 *      0x02 begin   tid site                  0x03 end      tid site
 *      0x04 acquire tid lock site             0x05 acquire-shared (same)
 *      0x06 release tid lock site             0x07 release-shared (same)
 *      0x08 fork    parent child site         0x09 join     joiner child site
 *      0x0a exit    tid
 *      0x0b forget  addr len                  (memory freed: drop its state)
 *      0x0c site    id len bytes[len]         (text of a site: "fn file:line")
 *      0x10|F       access tid Δaddr size site   (F = AG_WRITE|AG_ATOMIC)
 *      0x20|L<<2|F  access tid Δaddr site        (size = 1 << L, L = 0..3)
 *
 *    Every record but thread, exit, forget and site is one event.
 *
 *  - RAPID's STD text format (--record-trace-format=std), one event per
 *    line: "T<tid>|OP|<site>" with OP one of r(0x<addr>) w(0x<addr>)
 *    acq(0x<lock>) rel(0x<lock>) fork(T<u>) join(T<u>) begin end.  STD has
 *    no sizes, read-locks, thread exits or frees: a variable is named by the
 *    access's first byte, rwlock read sides are written as plain acq/rel
 *    (more ordered than the original), and thread/exit/forget/site records
 *    write nothing.
 *
 * Both writers emit bytes through a caller-supplied callback (VG_(write) in
 * the Valgrind tool) and use no libc.  The binary decoder streams from a
 * caller-supplied read callback or decodes a buffer in memory.
 */
#ifndef AG_TRACEFMT_H
#define AG_TRACEFMT_H

#include <stddef.h>
#include <stdint.h>
#include "ag_engine.h"

#define AG_TRACE_MAGIC     "AGTRACE1"
#define AG_TRACE_MAGIC_LEN 8

/* Limits every decoder enforces (larger values are malformed input). */
#define AG_TRACE_MAX_TEXT   4096u        /* site text bytes */
#define AG_TRACE_MAX_SIZE   65536u       /* bytes of one access */
/* accesses and forget ranges end at or below this address (the top of the
   address space is not user memory, and shadow loops need headroom) */
#define AG_TRACE_ADDR_LIMIT (~(uint64_t)0 - 0xffff)

enum {
   AG_TR_THREAD = 0x01, AG_TR_BEGIN, AG_TR_END,
   AG_TR_ACQUIRE, AG_TR_ACQUIRE_SH, AG_TR_RELEASE, AG_TR_RELEASE_SH,
   AG_TR_FORK, AG_TR_JOIN, AG_TR_EXIT, AG_TR_FORGET, AG_TR_SITE,
   AG_TR_ACCESS = 0x10,        /* 0x10..0x13: explicit size */
   AG_TR_ACCESS_POW2 = 0x20    /* 0x20..0x2f: size in the tag */
};

/* Record kinds as decoded (shared acquire/release folded into `shared`,
   both access encodings into AG_TK_ACCESS). */
typedef enum ag_trec_kind {
   AG_TK_THREAD = 1, AG_TK_BEGIN, AG_TK_END, AG_TK_ACCESS, AG_TK_ACQUIRE,
   AG_TK_RELEASE, AG_TK_FORK, AG_TK_JOIN, AG_TK_EXIT, AG_TK_FORGET, AG_TK_SITE
} ag_trec_kind;

typedef struct ag_trec {
   ag_trec_kind kind;
   ag_tid tid;                /* thread (parent/joiner for fork/join) */
   ag_tid tid2;               /* child of fork/join */
   ag_addr addr;              /* access address, lock, forget start */
   uint64_t len;              /* forget length, site text length */
   unsigned size, flags;      /* access */
   int shared;                /* acquire/release */
   ag_site site;              /* site of the event (a code address, ag_site.h;
                                 a RAPID LOC number); for AG_TK_SITE its id */
   const char *text;          /* site text (len bytes, not NUL-terminated);
                                 valid until the next ag_tr_next */
} ag_trec;

/* ---- writers ----------------------------------------------------- */

/* Returns 0 on success, non-zero on error (the writer then stops). */
typedef int (*ag_write_fn)(void *cookie, const void *buf, size_t n);

/* Host builds only (defined in ag_shim_host.c): write to the file
   descriptor *(int *)cookie. */
int ag_fd_write(void *cookie, const void *buf, size_t n);

#define AG_TW_BIN 0
#define AG_TW_STD 1
#define AG_TW_BUFSZ 65536

typedef struct ag_twriter {
   ag_write_fn write;
   void *cookie;
   int format;
   int err;                   /* sticky: set when a write failed */
   uint64_t prev_addr;
   uint64_t records, bytes;
   size_t n;
   unsigned char buf[AG_TW_BUFSZ];
} ag_twriter;

/* Start a trace (writes the binary magic).  Returns w->err. */
int  ag_tw_init(ag_twriter *w, int format, ag_write_fn fn, void *cookie);
void ag_tw_thread(ag_twriter *w, ag_tid t);
void ag_tw_begin(ag_twriter *w, ag_tid t, ag_site site);
void ag_tw_end(ag_twriter *w, ag_tid t, ag_site site);
void ag_tw_access(ag_twriter *w, ag_tid t, ag_addr addr, unsigned size,
                  unsigned flags, ag_site site);
void ag_tw_acquire(ag_twriter *w, ag_tid t, ag_addr lock, int shared, ag_site site);
void ag_tw_release(ag_twriter *w, ag_tid t, ag_addr lock, int shared, ag_site site);
void ag_tw_fork(ag_twriter *w, ag_tid parent, ag_tid child, ag_site site);
void ag_tw_join(ag_twriter *w, ag_tid joiner, ag_tid child, ag_site site);
void ag_tw_exit(ag_twriter *w, ag_tid t);
void ag_tw_forget(ag_twriter *w, ag_addr addr, uint64_t len);
/* Text of a site, e.g. "main prog.c:12" (truncated to AG_TRACE_MAX_TEXT). */
void ag_tw_site(ag_twriter *w, uint64_t id, const char *text, size_t len);
/* Write out the buffer.  Returns w->err. */
int  ag_tw_flush(ag_twriter *w);

/* ---- binary decoder ---------------------------------------------- */

/* Returns bytes read (0 at end of input), or < 0 on error. */
typedef long (*ag_read_fn)(void *cookie, void *buf, size_t n);

#define AG_TR_BUFSZ 65536

typedef struct ag_treader {
   ag_read_fn read;
   void *cookie;
   unsigned char *buf;        /* owned when reading through a callback */
   size_t cap, pos, len;
   int eof, own;
   uint64_t base;             /* input offset of buf[0] */
   uint64_t prev_addr;
   uint64_t records;
   const char *err;           /* what is wrong, when ag_tr_next returned -1 */
   uint64_t err_offset;       /* input offset of the bad record */
} ag_treader;

/* Check the magic.  Return 0, or -1 with r->err set (ag_tr_fini still
   needed). */
int ag_tr_init(ag_treader *r, ag_read_fn fn, void *cookie);
int ag_tr_init_mem(ag_treader *r, const void *data, size_t len);
/* Next record: 1, 0 at the end of the trace, -1 on malformed input or a
   read error (r->err, r->err_offset). */
int ag_tr_next(ag_treader *r, ag_trec *rec);
void ag_tr_fini(ag_treader *r);
/* Offset of the next unread byte. */
uint64_t ag_tr_offset(const ag_treader *r);

#endif
