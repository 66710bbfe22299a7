/* ag_tracefmt.c -- trace writers (binary, STD) and the binary decoder.
 * No libc: the Valgrind tool links this too.  See ag_tracefmt.h. */
#include "ag_tracefmt.h"
#include "ag_shim.h"

/* ---- writers ----------------------------------------------------- */

int ag_tw_flush(ag_twriter *w)
{
   if (w->n && !w->err) {
      if (w->write(w->cookie, w->buf, w->n) != 0) w->err = 1;
      else w->bytes += w->n;
   }
   w->n = 0;
   return w->err;
}

/* Make room for `need` bytes; returns where to put them. */
static inline unsigned char *tw_room(ag_twriter *w, size_t need)
{
   if (w->n + need > AG_TW_BUFSZ) ag_tw_flush(w);
   return w->buf + w->n;
}

static inline unsigned char *tw_varint(unsigned char *p, uint64_t v)
{
   while (v >= 0x80) {
      *p++ = (unsigned char)(v | 0x80);
      v >>= 7;
   }
   *p++ = (unsigned char)v;
   return p;
}

static inline void tw_done(ag_twriter *w, unsigned char *p)
{
   w->n = (size_t)(p - w->buf);
   w->records++;
}

/* STD lines: "T<tid>|op(arg)|<site>\n" */
static unsigned char *tw_dec(unsigned char *p, uint64_t v)
{
   char tmp[20];
   int n = 0;
   do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
   while (n) *p++ = (unsigned char)tmp[--n];
   return p;
}

static unsigned char *tw_hex(unsigned char *p, uint64_t v)
{
   char tmp[16];
   int n = 0;
   *p++ = '0';
   *p++ = 'x';
   do { tmp[n++] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v);
   while (n) *p++ = (unsigned char)tmp[--n];
   return p;
}

static unsigned char *tw_str(unsigned char *p, const char *s)
{
   while (*s) *p++ = (unsigned char)*s++;
   return p;
}

/* op "r" etc.; arg_kind 0 = none, 1 = hex address, 2 = thread */
static void tw_std(ag_twriter *w, ag_tid t, const char *op, int arg_kind,
                   uint64_t arg, ag_site site)
{
   unsigned char *p = tw_room(w, 96);
   *p++ = 'T';
   p = tw_dec(p, t);
   *p++ = '|';
   p = tw_str(p, op);
   if (arg_kind) {
      *p++ = '(';
      if (arg_kind == 2) { *p++ = 'T'; p = tw_dec(p, arg); }
      else p = tw_hex(p, arg);
      *p++ = ')';
   }
   *p++ = '|';
   p = tw_dec(p, site);
   *p++ = '\n';
   tw_done(w, p);
}

int ag_tw_init(ag_twriter *w, int format, ag_write_fn fn, void *cookie)
{
   w->write = fn;
   w->cookie = cookie;
   w->format = format;
   w->err = 0;
   w->prev_addr = 0;
   w->records = w->bytes = 0;
   w->n = 0;
   if (format == AG_TW_BIN) {
      for (int i = 0; i < AG_TRACE_MAGIC_LEN; i++) w->buf[i] = (unsigned char)AG_TRACE_MAGIC[i];
      w->n = AG_TRACE_MAGIC_LEN;
      ag_tw_flush(w);
   }
   return w->err;
}

/* tag, tid, then up to two more varints */
static void tw_rec(ag_twriter *w, unsigned tag, int nv, uint64_t a, uint64_t b,
                   uint64_t c)
{
   unsigned char *p = tw_room(w, 1 + 3 * 10);
   *p++ = (unsigned char)tag;
   p = tw_varint(p, a);
   if (nv > 1) p = tw_varint(p, b);
   if (nv > 2) p = tw_varint(p, c);
   tw_done(w, p);
}

void ag_tw_thread(ag_twriter *w, ag_tid t)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_THREAD, 1, t, 0, 0);
}

void ag_tw_begin(ag_twriter *w, ag_tid t, ag_site site)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_BEGIN, 2, t, site, 0);
   else tw_std(w, t, "begin", 0, 0, site);
}

void ag_tw_end(ag_twriter *w, ag_tid t, ag_site site)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_END, 2, t, site, 0);
   else tw_std(w, t, "end", 0, 0, site);
}

void ag_tw_access(ag_twriter *w, ag_tid t, ag_addr addr, unsigned size,
                  unsigned flags, ag_site site)
{
   if (w->format != AG_TW_BIN) {
      tw_std(w, t, (flags & AG_WRITE) ? "w" : "r", 1, addr, site);
      return;
   }
   flags &= AG_WRITE | AG_ATOMIC;
   int64_t d = (int64_t)(addr - w->prev_addr);
   uint64_t zz = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
   w->prev_addr = addr;
   unsigned char *p = tw_room(w, 1 + 4 * 10);
   unsigned lg = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4;
   if (lg < 4) {
      *p++ = (unsigned char)(AG_TR_ACCESS_POW2 | lg << 2 | flags);
      p = tw_varint(p, t);
      p = tw_varint(p, zz);
   } else {
      *p++ = (unsigned char)(AG_TR_ACCESS | flags);
      p = tw_varint(p, t);
      p = tw_varint(p, zz);
      p = tw_varint(p, size);
   }
   p = tw_varint(p, site);
   tw_done(w, p);
}

void ag_tw_acquire(ag_twriter *w, ag_tid t, ag_addr lock, int shared, ag_site site)
{
   if (w->format == AG_TW_BIN)
      tw_rec(w, shared ? AG_TR_ACQUIRE_SH : AG_TR_ACQUIRE, 3, t, lock, site);
   else tw_std(w, t, "acq", 1, lock, site);
}

void ag_tw_release(ag_twriter *w, ag_tid t, ag_addr lock, int shared, ag_site site)
{
   if (w->format == AG_TW_BIN)
      tw_rec(w, shared ? AG_TR_RELEASE_SH : AG_TR_RELEASE, 3, t, lock, site);
   else tw_std(w, t, "rel", 1, lock, site);
}

void ag_tw_fork(ag_twriter *w, ag_tid parent, ag_tid child, ag_site site)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_FORK, 3, parent, child, site);
   else tw_std(w, parent, "fork", 2, child, site);
}

void ag_tw_join(ag_twriter *w, ag_tid joiner, ag_tid child, ag_site site)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_JOIN, 3, joiner, child, site);
   else tw_std(w, joiner, "join", 2, child, site);
}

void ag_tw_exit(ag_twriter *w, ag_tid t)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_EXIT, 1, t, 0, 0);
}

void ag_tw_forget(ag_twriter *w, ag_addr addr, uint64_t len)
{
   if (w->format == AG_TW_BIN) tw_rec(w, AG_TR_FORGET, 2, addr, len, 0);
}

void ag_tw_site(ag_twriter *w, uint64_t id, const char *text, size_t len)
{
   if (w->format != AG_TW_BIN) return;
   if (len > AG_TRACE_MAX_TEXT) len = AG_TRACE_MAX_TEXT;
   unsigned char *p = tw_room(w, 1 + 2 * 10 + len);
   *p++ = AG_TR_SITE;
   p = tw_varint(p, id);
   p = tw_varint(p, len);
   for (size_t i = 0; i < len; i++) *p++ = (unsigned char)text[i];
   tw_done(w, p);
}

/* ---- binary decoder ---------------------------------------------- */

/* Read more input after the unread bytes.  Returns -1 on a read error. */
static int tr_refill(ag_treader *r)
{
   if (r->eof || !r->read) { r->eof = 1; return 0; }
   if (r->pos) {
      size_t rest = r->len - r->pos;
      for (size_t i = 0; i < rest; i++) r->buf[i] = r->buf[r->pos + i];
      r->base += r->pos;
      r->len = rest;
      r->pos = 0;
   }
   while (r->len < r->cap) {
      long got = r->read(r->cookie, r->buf + r->len, r->cap - r->len);
      if (got < 0) { r->err = "read error"; r->err_offset = r->base + r->len; return -1; }
      if (got == 0) { r->eof = 1; break; }
      r->len += (size_t)got;
      if (r->len - r->pos >= 4096) break;     /* enough for a while */
   }
   return 0;
}

static int tr_magic(ag_treader *r)
{
   while (r->len < AG_TRACE_MAGIC_LEN && !r->eof)
      if (tr_refill(r) < 0) return -1;
   if (r->len < AG_TRACE_MAGIC_LEN) {
      r->err = "not an atomgrind trace (too short)";
      return -1;
   }
   for (int i = 0; i < AG_TRACE_MAGIC_LEN; i++)
      if (r->buf[i] != (unsigned char)AG_TRACE_MAGIC[i]) {
         r->err = "not an atomgrind trace (bad magic)";
         return -1;
      }
   r->pos = AG_TRACE_MAGIC_LEN;
   return 0;
}

int ag_tr_init(ag_treader *r, ag_read_fn fn, void *cookie)
{
   ag_memzero(r, sizeof *r);
   r->read = fn;
   r->cookie = cookie;
   r->cap = AG_TR_BUFSZ;
   r->buf = ag_malloc(r->cap);
   r->own = 1;
   return tr_magic(r);
}

int ag_tr_init_mem(ag_treader *r, const void *data, size_t len)
{
   ag_memzero(r, sizeof *r);
   r->buf = (unsigned char *)(uintptr_t)data;   /* never written: no refill */
   r->cap = r->len = len;
   r->eof = 1;
   return tr_magic(r);
}

void ag_tr_fini(ag_treader *r)
{
   if (r->own) ag_free(r->buf);
   r->buf = NULL;
   r->own = 0;
}

uint64_t ag_tr_offset(const ag_treader *r) { return r->base + r->pos; }

/* Decoding one record from [p, end): 1 done, 0 needs more bytes, -1 bad. */
typedef struct { const unsigned char *p, *end; const char *err; } tr_cur;

static inline int tr_varint(tr_cur *c, uint64_t *v)
{
   if (c->p < c->end && *c->p < 0x80) {     /* the common one-byte case */
      *v = *c->p++;
      return 1;
   }
   uint64_t x = 0;
   for (int shift = 0; shift < 70; shift += 7) {
      if (c->p == c->end) return 0;
      unsigned b = *c->p++;
      if (shift == 63 && b > 1) { c->err = "varint overflows 64 bits"; return -1; }
      x |= (uint64_t)(b & 0x7f) << shift;
      if (!(b & 0x80)) { *v = x; return 1; }
   }
   c->err = "varint overflows 64 bits";
   return -1;
}

#define TR_GET(c, v) do { int rc_ = tr_varint(c, v); if (rc_ <= 0) return rc_; } while (0)

static inline int tr_tid(tr_cur *c, ag_tid *t)
{
   uint64_t v;
   TR_GET(c, &v);
   if (v >= AG_NO_TID) { c->err = "thread id out of range"; return -1; }
   *t = (ag_tid)v;
   return 1;
}

#define TR_TID(c, t) do { int rc_ = tr_tid(c, t); if (rc_ <= 0) return rc_; } while (0)

static int tr_decode(ag_treader *r, tr_cur *c, ag_trec *rec)
{
   if (c->p == c->end) return 0;
   unsigned tag = *c->p++;
   uint64_t v;
   /* field by field: this is the hot path of every replay */
   rec->kind = 0;
   rec->tid = rec->tid2 = 0;
   rec->addr = rec->len = rec->site = 0;
   rec->size = rec->flags = 0;
   rec->shared = 0;
   rec->text = NULL;
   if (tag >= AG_TR_ACCESS_POW2 && tag < AG_TR_ACCESS_POW2 + 16) {
      rec->kind = AG_TK_ACCESS;
      rec->flags = tag & 3;
      rec->size = 1u << ((tag >> 2) & 3);
   } else if (tag >= AG_TR_ACCESS && tag < AG_TR_ACCESS + 4) {
      rec->kind = AG_TK_ACCESS;
      rec->flags = tag & 3;
      rec->size = 0;
   }
   if (rec->kind == AG_TK_ACCESS) {
      TR_TID(c, &rec->tid);
      TR_GET(c, &v);
      int64_t d = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
      rec->addr = r->prev_addr + (uint64_t)d;
      if (!rec->size) {
         TR_GET(c, &v);
         if (v == 0 || v > AG_TRACE_MAX_SIZE) { c->err = "bad access size"; return -1; }
         rec->size = (unsigned)v;
      }
      TR_GET(c, &rec->site);
      if (rec->addr > AG_TRACE_ADDR_LIMIT - rec->size) {
         c->err = "access beyond the end of the address space";
         return -1;
      }
      r->prev_addr = rec->addr;
      return 1;
   }
   switch (tag) {
   case AG_TR_THREAD:
   case AG_TR_EXIT:
      rec->kind = tag == AG_TR_THREAD ? AG_TK_THREAD : AG_TK_EXIT;
      TR_TID(c, &rec->tid);
      return 1;
   case AG_TR_BEGIN:
   case AG_TR_END:
      rec->kind = tag == AG_TR_BEGIN ? AG_TK_BEGIN : AG_TK_END;
      TR_TID(c, &rec->tid);
      TR_GET(c, &rec->site);
      return 1;
   case AG_TR_ACQUIRE: case AG_TR_ACQUIRE_SH:
   case AG_TR_RELEASE: case AG_TR_RELEASE_SH:
      rec->kind = tag <= AG_TR_ACQUIRE_SH ? AG_TK_ACQUIRE : AG_TK_RELEASE;
      rec->shared = tag == AG_TR_ACQUIRE_SH || tag == AG_TR_RELEASE_SH;
      TR_TID(c, &rec->tid);
      TR_GET(c, &rec->addr);
      TR_GET(c, &rec->site);
      return 1;
   case AG_TR_FORK:
   case AG_TR_JOIN:
      rec->kind = tag == AG_TR_FORK ? AG_TK_FORK : AG_TK_JOIN;
      TR_TID(c, &rec->tid);
      TR_TID(c, &rec->tid2);
      TR_GET(c, &rec->site);
      return 1;
   case AG_TR_FORGET:
      rec->kind = AG_TK_FORGET;
      TR_GET(c, &rec->addr);
      TR_GET(c, &rec->len);
      if (rec->len > AG_TRACE_ADDR_LIMIT || rec->addr > AG_TRACE_ADDR_LIMIT - rec->len) {
         c->err = "forget range beyond the end of the address space";
         return -1;
      }
      return 1;
   case AG_TR_SITE:
      rec->kind = AG_TK_SITE;
      TR_GET(c, &rec->site);
      TR_GET(c, &rec->len);
      if (rec->len > AG_TRACE_MAX_TEXT) { c->err = "site text too long"; return -1; }
      if ((uint64_t)(c->end - c->p) < rec->len) return 0;
      rec->text = (const char *)c->p;
      c->p += rec->len;
      return 1;
   }
   c->err = "unknown record tag";
   return -1;
}

/* Unchecked varint for the fast path (the caller knows 10 bytes are
   there); NULL if it overflows. */
static inline const unsigned char *tr_fast_varint(const unsigned char *p, uint64_t *v)
{
   uint64_t x = *p & 0x7f;
   if (*p++ < 0x80) { *v = x; return p; }
   for (int shift = 7; shift < 70; shift += 7) {
      unsigned b = *p++;
      if (shift == 63 && b > 1) return NULL;
      x |= (uint64_t)(b & 0x7f) << shift;
      if (!(b & 0x80)) { *v = x; return p; }
   }
   return NULL;
}

/* The common record, an access with the size in its tag, decoded without
   per-byte bounds checks when it surely fits.  0: use the general path. */
static inline int tr_fast_access(ag_treader *r, ag_trec *rec)
{
   const unsigned char *p = r->buf + r->pos;
   unsigned tag = *p++;
   uint64_t tid, zz, site;
   if ((tag & 0xf0) != AG_TR_ACCESS_POW2) return 0;
   if (!(p = tr_fast_varint(p, &tid)) || !(p = tr_fast_varint(p, &zz)) ||
       !(p = tr_fast_varint(p, &site)))
      return 0;
   unsigned size = 1u << ((tag >> 2) & 3);
   uint64_t addr = r->prev_addr + (uint64_t)((int64_t)(zz >> 1) ^ -(int64_t)(zz & 1));
   if (tid >= AG_NO_TID || addr > AG_TRACE_ADDR_LIMIT - size) return 0;
   rec->kind = AG_TK_ACCESS;
   rec->tid = (ag_tid)tid;
   rec->tid2 = 0;
   rec->addr = addr;
   rec->len = 0;
   rec->size = size;
   rec->flags = tag & 3;
   rec->shared = 0;
   rec->site = site;
   rec->text = NULL;
   r->prev_addr = addr;
   r->pos = (size_t)(p - r->buf);
   r->records++;
   return 1;
}

int ag_tr_next(ag_treader *r, ag_trec *rec)
{
   if (r->err) return -1;
   if (r->len - r->pos >= 32 && tr_fast_access(r, rec)) return 1;
   for (;;) {
      uint64_t saved_prev = r->prev_addr;
      tr_cur c = { r->buf + r->pos, r->buf + r->len, NULL };
      int rc = tr_decode(r, &c, rec);
      if (rc > 0) {
         r->pos = (size_t)(c.p - r->buf);
         r->records++;
         return 1;
      }
      r->prev_addr = saved_prev;
      if (rc < 0) {
         r->err = c.err;
         r->err_offset = r->base + r->pos;
         return -1;
      }
      /* need more input */
      if (r->eof) {
         if (r->pos == r->len) return 0;
         r->err = "truncated record at the end of the trace";
         r->err_offset = r->base + r->pos;
         return -1;
      }
      if (tr_refill(r) < 0) return -1;
   }
}
