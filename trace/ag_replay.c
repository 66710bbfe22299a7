/* ag_replay.c -- see ag_replay.h. */
#include "ag_replay.h"
#include "ag_map.h"          /* site texts, sets of locations */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


/* ---- name tables: text -> dense index ---------------------------- */

typedef struct { uint64_t hash; uint32_t idx1; } ag_nslot;   /* idx1 = idx + 1 */

typedef struct {
   ag_nslot *slots;
   size_t cap, n;
   char **names;                      /* idx -> NUL-terminated name */
} ag_ntab;

static uint64_t ag_hash_bytes(const char *s, size_t len)
{
   uint64_t h = 0xcbf29ce484222325ull;
   for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 0x100000001b3ull; }
   return h ^ (h >> 29);
}

static void *ag_xrealloc(void *p, size_t n)
{
   p = realloc(p, n ? n : 1);
   if (!p) { fputs("atomgrind-trace: out of memory\n", stderr); exit(3); }
   return p;
}

static void ag_ntab_grow(ag_ntab *t)
{
   size_t ncap = t->cap ? t->cap * 2 : 64;
   ag_nslot *ns = ag_xrealloc(NULL, ncap * sizeof *ns);
   memset(ns, 0, ncap * sizeof *ns);
   for (size_t i = 0; i < t->cap; i++) {
      if (!t->slots[i].idx1) continue;
      size_t j = t->slots[i].hash & (ncap - 1);
      while (ns[j].idx1) j = (j + 1) & (ncap - 1);
      ns[j] = t->slots[i];
   }
   free(t->slots);
   t->slots = ns;
   t->cap = ncap;
   t->names = ag_xrealloc(t->names, ncap * sizeof(char *));
}

/* Index of the name, creating it (*created = 1) if new. */
static uint32_t ag_ntab_get(ag_ntab *t, const char *s, size_t len, int *created)
{
   if ((t->n + 1) * 2 > t->cap) ag_ntab_grow(t);
   uint64_t h = ag_hash_bytes(s, len);
   size_t j = h & (t->cap - 1);
   *created = 0;
   while (t->slots[j].idx1) {
      if (t->slots[j].hash == h) {
         const char *nm = t->names[t->slots[j].idx1 - 1];
         if (strncmp(nm, s, len) == 0 && nm[len] == 0) return t->slots[j].idx1 - 1;
      }
      j = (j + 1) & (t->cap - 1);
   }
   char *copy = ag_xrealloc(NULL, len + 1);
   memcpy(copy, s, len);
   copy[len] = 0;
   t->names[t->n] = copy;
   t->slots[j].hash = h;
   t->slots[j].idx1 = (uint32_t)++t->n;
   *created = 1;
   return (uint32_t)(t->n - 1);
}

static void ag_ntab_free(ag_ntab *t)
{
   for (size_t i = 0; i < t->n; i++) free(t->names[i]);
   free(t->names);
   free(t->slots);
   memset(t, 0, sizeof *t);
}

/* ---- binary traces: site texts, distinct locations ---------------- */

static void ag_free_text(void *arg, uint64_t key, void *rec)
{
   (void)arg; (void)key;
   free(*(char **)rec);
}

/* Add key to a set; 1 if it was not there. */
static int ag_set_add(ag_map *set, uint64_t key)
{
   int created;
   ag_map_lookup(set, key, &created);
   return created;
}

/* ---- state ------------------------------------------------------- */

struct ag_replay {
   ag_replay_opts o;
   ag_engine *eng;
   const char *name;
   int binary, failed;
   uint64_t line;                     /* STD line being processed */
   const char *op_text;
   /* the current event (binary), described on demand */
   int cur_kind, cur_shared;
   uint64_t cur_a;
   unsigned cur_size, cur_flags;
   char opbuf[96];
   uint64_t rec_offset;               /* binary: offset of the record */
   uint64_t bytes;
   uint64_t reports;
   ag_replay_stats st;
   ag_ntab threads, locks, vars;
   ag_map *sites;     /* site -> its text (char *) */
   ag_map *blocks, *bvars;   /* --stats: distinct locks, locations (sets) */
   /* per tid: 1 announced, 2 has run (event or fork) ; region depth */
   uint8_t *tstate;
   uint32_t *depth;
   uint32_t tcap;
   char tname[24];
   int warned;
};

static void ag_on_report(void *cookie, const ag_violation *v)
{
   ag_replay *rp = cookie;
   rp->reports++;
   if (rp->o.report) rp->o.report(rp->o.cookie, rp, v);
}

ag_replay *ag_replay_new(const ag_replay_opts *o)
{
   ag_replay *rp = ag_xrealloc(NULL, sizeof *rp);
   memset(rp, 0, sizeof *rp);
   rp->o = *o;
   if (!rp->o.max_threads) rp->o.max_threads = 4096;
   if (!rp->o.max_forget) rp->o.max_forget = 1ull << 40;
   if (!rp->o.max_warnings) rp->o.max_warnings = 20;
   if (rp->o.bufsize < 64) rp->o.bufsize = rp->o.bufsize ? 64 : 1u << 20;
   if (!rp->o.err) rp->o.err = stderr;
   if (o->ops) rp->eng = ag_engine_new(o->ops, &o->cfg, ag_on_report, rp);
   rp->sites = ag_map_new(sizeof(char *));
   rp->blocks = ag_map_new(1);
   rp->bvars = ag_map_new(1);
   return rp;
}

void ag_replay_delete(ag_replay *rp)
{
   if (!rp) return;
   ag_engine_delete(rp->eng);
   ag_ntab_free(&rp->threads);
   ag_ntab_free(&rp->locks);
   ag_ntab_free(&rp->vars);
   ag_map_foreach(rp->sites, ag_free_text, NULL);
   ag_map_delete(rp->sites);
   ag_map_delete(rp->blocks);
   ag_map_delete(rp->bvars);
   free(rp->tstate);
   free(rp->depth);
   free(rp);
}

static void ag_where(ag_replay *rp)
{
   if (rp->binary) fprintf(rp->o.err, "%s: offset %llu: ", rp->name,
                           (unsigned long long)rp->rec_offset);
   else fprintf(rp->o.err, "%s:%llu: ", rp->name, (unsigned long long)rp->line);
}

static int ag_fail(ag_replay *rp, const char *fmt, ...)
{
   va_list ap;
   ag_where(rp);
   va_start(ap, fmt);
   vfprintf(rp->o.err, fmt, ap);
   va_end(ap);
   fputc('\n', rp->o.err);
   rp->failed = 1;
   return -1;
}

static void ag_warn(ag_replay *rp, const char *fmt, ...)
{
   rp->st.warnings++;
   if (rp->o.max_warnings < 0) return;
   if (rp->warned++ >= rp->o.max_warnings) {
      if (rp->warned == rp->o.max_warnings + 1)
         fprintf(rp->o.err, "%s: further warnings are not shown\n", rp->name);
      return;
   }
   va_list ap;
   ag_where(rp);
   fputs("warning: ", rp->o.err);
   va_start(ap, fmt);
   vfprintf(rp->o.err, fmt, ap);
   va_end(ap);
   fputc('\n', rp->o.err);
}

/* Make room for tid t; returns -1 if t is over the limit. */
static int ag_tid_ok(ag_replay *rp, ag_tid t)
{
   if (t >= rp->o.max_threads)
      return ag_fail(rp, "too many threads (thread id %u, limit %u)", t, rp->o.max_threads);
   if (t >= rp->tcap) {
      uint32_t nc = rp->tcap ? rp->tcap : 16;
      while (nc <= t) nc *= 2;
      rp->tstate = ag_xrealloc(rp->tstate, nc);
      rp->depth = ag_xrealloc(rp->depth, nc * sizeof(uint32_t));
      memset(rp->tstate + rp->tcap, 0, nc - rp->tcap);
      memset(rp->depth + rp->tcap, 0, (nc - rp->tcap) * sizeof(uint32_t));
      rp->tcap = nc;
   }
   return 0;
}

static inline int ag_announce(ag_replay *rp, ag_tid t)
{
   if (t < rp->tcap && (rp->tstate[t] & 1)) return 0;     /* the common case */
   if (ag_tid_ok(rp, t) < 0) return -1;
   if (!(rp->tstate[t] & 1)) {
      rp->tstate[t] |= 1;
      if (rp->binary) rp->st.threads++;
      if (rp->o.tee) ag_tw_thread(rp->o.tee, t);
      if (rp->eng) ag_ev_thread_new(rp->eng, t);
   }
   return 0;
}

static void ag_progress_tick(ag_replay *rp)
{
   if (rp->o.progress && (rp->st.events & ((1u << 20) - 1)) == 0)
      rp->o.progress(rp->o.cookie, rp);
}

static void ag_misuse(ag_replay *rp, int rc)
{
   switch (rc) {
   case AG_MISUSE_END: ag_warn(rp, "end without begin"); break;
   case AG_MISUSE_BAD_TID: ag_warn(rp, "event of a thread that exited, or fork/join of itself"); break;
   case AG_MISUSE_OPEN_EXIT: ag_warn(rp, "thread exited inside an atomic region"); break;
   }
}

/* ---- the events (common to both formats) -------------------------- */

enum { EV_R, EV_W, EV_ACQ, EV_REL, EV_FORK, EV_JOIN, EV_BEGIN, EV_END };
_Static_assert((int)EV_R == AG_RE_READ && (int)EV_END == AG_RE_END && (int)EV_ACQ == AG_RE_ACQ,
               "opts.on_event passes EV_* as AG_RE_*");

static void ag_tee(ag_twriter *w, int kind, ag_tid t, uint64_t a, unsigned size,
                   unsigned flags, int shared, uint64_t site)
{
   switch (kind) {
   case EV_R: case EV_W: ag_tw_access(w, t, a, size, flags, site); break;
   case EV_ACQ: ag_tw_acquire(w, t, a, shared, site); break;
   case EV_REL: ag_tw_release(w, t, a, shared, site); break;
   case EV_FORK: ag_tw_fork(w, t, (ag_tid)a, site); break;
   case EV_JOIN: ag_tw_join(w, t, (ag_tid)a, site); break;
   case EV_BEGIN: ag_tw_begin(w, t, site); break;
   case EV_END: ag_tw_end(w, t, site); break;
   }
}

/* One event of thread t (already announced).  For accesses `a` is the
   address; for locks the lock; for fork/join the child tid.  A misuse the
   engine finds is counted and reported (ag_misuse), not returned. */
static void ag_event(ag_replay *rp, int kind, ag_tid t, uint64_t a, unsigned size,
                    unsigned flags, int shared, uint64_t site)
{
   int rc = AG_OK;
   rp->st.events++;
   rp->tstate[t] |= 2;
   rp->cur_kind = kind;
   rp->cur_a = a;
   rp->cur_size = size;
   rp->cur_flags = flags;
   rp->cur_shared = shared;
   if (rp->o.tee) ag_tee(rp->o.tee, kind, t, a, size, flags, shared, site);
   if (rp->o.on_event) {
      /* EV_* and AG_RE_* are in the same order */
      ag_replay_event ev = { rp->st.events, kind, t, a, size, flags, shared, site };
      rp->o.on_event(rp->o.cookie, rp, &ev);
   }
   switch (kind) {
   case EV_R:
   case EV_W:
      if (kind == EV_R) rp->st.reads++; else rp->st.writes++;
      if (rp->eng) rc = ag_ev_access(rp->eng, t, a, size, flags, site);
      break;
   case EV_ACQ:
      rp->st.acquires++;
      if (rp->eng) rc = ag_ev_acquire(rp->eng, t, a, shared, site);
      break;
   case EV_REL:
      rp->st.releases++;
      if (rp->eng) rc = ag_ev_release(rp->eng, t, a, shared, site);
      break;
   case EV_FORK: {
      ag_tid u = (ag_tid)a;
      rp->st.forks++;
      if (u == t) ag_warn(rp, "thread forks itself");
      else if (rp->tstate[u] & 2) ag_warn(rp, "fork of thread '%s' that already ran",
                                          ag_replay_thread_name(rp, u));
      if (!(rp->tstate[u] & 1) && rp->binary) rp->st.threads++;
      rp->tstate[u] |= 3;            /* ag_ev_fork announces it */
      if (rp->eng) rc = ag_ev_fork(rp->eng, t, u, site);
      if (rc == AG_MISUSE_BAD_TID && u == t) rc = AG_OK;   /* warned */
      break;
   }
   case EV_JOIN: {
      ag_tid u = (ag_tid)a;
      rp->st.joins++;
      if (u == t) ag_warn(rp, "thread joins itself");
      if (rp->eng) rc = ag_ev_join(rp->eng, t, u, site);
      if (rc == AG_MISUSE_BAD_TID && u == t) rc = AG_OK;
      break;
   }
   case EV_BEGIN:
      rp->st.begins++;
      if (rp->depth[t]++ == 0) rp->st.transactions++;
      if (rp->eng) rc = ag_ev_begin(rp->eng, t, site);
      break;
   case EV_END:
      rp->st.ends++;
      if (rp->depth[t]) rp->depth[t]--;
      else if (!rp->eng) rc = AG_MISUSE_END;
      if (rp->eng) rc = ag_ev_end(rp->eng, t, site);
      break;
   }
   if (rc != AG_OK) ag_misuse(rp, rc);
   ag_progress_tick(rp);
}

/* ---- STD ------------------------------------------------------------ */

static const char *ag_quote(const char *s, size_t len, char *buf, size_t cap)
{
   size_t n = 0, i;
   for (i = 0; i < len && n + 8 < cap; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c >= 32 && c < 127) buf[n++] = (char)c;
      else n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", c);
   }
   if (i < len) { buf[n++] = '.'; buf[n++] = '.'; buf[n++] = '.'; }
   buf[n] = 0;
   return buf;
}

static int ag_std_line(ag_replay *rp, char *s, size_t len)
{
   char q[96];
   if (len && s[len - 1] == '\r') len--;
   if (len == 0) return ag_fail(rp, "empty line (expected THREAD|OP|LOC)");
   if (memchr(s, 0, len)) return ag_fail(rp, "NUL byte in line");
   char *p1 = memchr(s, '|', len);
   if (!p1) return ag_fail(rp, "expected THREAD|OP|LOC, found no '|'");
   char *p2 = memchr(p1 + 1, '|', len - (size_t)(p1 + 1 - s));
   if (!p2) return ag_fail(rp, "expected THREAD|OP|LOC, found only one '|'");
   char *end = s + len;
   if (memchr(p2 + 1, '|', (size_t)(end - p2 - 1)))
      return ag_fail(rp, "expected THREAD|OP|LOC, found more than two '|'");
   size_t tlen = (size_t)(p1 - s);
   char *op = p1 + 1;
   size_t oplen = (size_t)(p2 - op);
   char *loc = p2 + 1;
   size_t loclen = (size_t)(end - loc);
   if (tlen == 0) return ag_fail(rp, "empty thread name");
   if (oplen == 0) return ag_fail(rp, "empty operation");

   /* LOC */
   if (loclen == 0) return ag_fail(rp, "empty location (LOC must be an integer)");
   size_t i = 0;
   int neg = 0;
   if (loc[0] == '-') { neg = 1; i = 1; }
   if (i == loclen) return ag_fail(rp, "bad location '%s' (LOC must be an integer)",
                                   ag_quote(loc, loclen, q, sizeof q));
   uint64_t site = 0;
   for (; i < loclen; i++) {
      if (loc[i] < '0' || loc[i] > '9')
         return ag_fail(rp, "bad location '%s' (LOC must be an integer)",
                        ag_quote(loc, loclen, q, sizeof q));
      if (site > (UINT64_MAX - 9) / 10)
         return ag_fail(rp, "location '%s' is too large", ag_quote(loc, loclen, q, sizeof q));
      site = site * 10 + (uint64_t)(loc[i] - '0');
   }
   if (neg) {
      if (site > (uint64_t)INT64_MAX)
         return ag_fail(rp, "location '%s' is too large", ag_quote(loc, loclen, q, sizeof q));
      site = (uint64_t)(-(int64_t)site);
   }

   /* OP */
   int kind;
   const char *arg = NULL;
   size_t arglen = 0;
   if (oplen == 5 && memcmp(op, "begin", 5) == 0) kind = EV_BEGIN;
   else if (oplen == 3 && memcmp(op, "end", 3) == 0) kind = EV_END;
   else {
      char *lp = memchr(op, '(', oplen);
      size_t nlen = lp ? (size_t)(lp - op) : oplen;
      if (nlen == 1 && op[0] == 'r') kind = EV_R;
      else if (nlen == 1 && op[0] == 'w') kind = EV_W;
      else if (nlen == 3 && memcmp(op, "acq", 3) == 0) kind = EV_ACQ;
      else if (nlen == 3 && memcmp(op, "rel", 3) == 0) kind = EV_REL;
      else if (nlen == 4 && memcmp(op, "fork", 4) == 0) kind = EV_FORK;
      else if (nlen == 4 && memcmp(op, "join", 4) == 0) kind = EV_JOIN;
      else return ag_fail(rp, "unknown operation '%s' (expected r(X) w(X) acq(L) rel(L) "
                          "fork(U) join(U) begin end)", ag_quote(op, oplen, q, sizeof q));
      if (!lp) return ag_fail(rp, "operation '%s' needs an argument in parentheses",
                              ag_quote(op, oplen, q, sizeof q));
      if (op[oplen - 1] != ')')
         return ag_fail(rp, "missing ')' at the end of operation '%s'",
                        ag_quote(op, oplen, q, sizeof q));
      arg = lp + 1;
      arglen = (size_t)(op + oplen - 1 - arg);
      if (arglen == 0) return ag_fail(rp, "empty argument in '%s'",
                                      ag_quote(op, oplen, q, sizeof q));
   }

   /* the thread */
   int created;
   uint32_t t = ag_ntab_get(&rp->threads, s, tlen, &created);
   if (created) rp->st.threads++;
   if (ag_announce(rp, t) < 0) return -1;
   op[oplen] = 0;                      /* op text for reports */
   rp->op_text = op;

   switch (kind) {
   case EV_R:
   case EV_W: {
      uint32_t v = ag_ntab_get(&rp->vars, arg, arglen, &created);
      if (created) rp->st.variables++;
      ag_event(rp, kind, t, AG_REPLAY_VAR_BASE + 8ull * v, 8, kind == EV_W ? AG_WRITE : 0, 0,
               site);
      break;
   }
   case EV_ACQ:
   case EV_REL: {
      uint32_t l = ag_ntab_get(&rp->locks, arg, arglen, &created);
      if (created) rp->st.locks++;
      ag_event(rp, kind, t, (uint64_t)l + 1, 0, 0, 0, site);
      break;
   }
   case EV_FORK:
   case EV_JOIN: {
      uint32_t u = ag_ntab_get(&rp->threads, arg, arglen, &created);
      if (created) rp->st.threads++;
      if (ag_tid_ok(rp, u) < 0) return -1;
      if (kind == EV_JOIN) {
         if (!(rp->tstate[u] & 1)) ag_warn(rp, "join of thread '%s' that never ran",
                                           ag_replay_thread_name(rp, u));
         if (ag_announce(rp, u) < 0) return -1;
      }
      ag_event(rp, kind, t, u, 0, 0, 0, site);
      break;
   }
   default:
      ag_event(rp, kind, t, 0, 0, 0, 0, site);
   }
   return 0;
}

/* Read into buf[len..cap); returns bytes read, 0 at EOF, -1 on error. */
static long ag_fill(ag_read_fn fn, void *cookie, char *buf, size_t len, size_t cap)
{
   long got = fn(cookie, buf + len, cap - len);
   return got;
}

static int ag_run_std(ag_replay *rp, ag_read_fn fn, void *cookie, char *buf,
                      size_t len, int eof)
{
   size_t pos = 0;
   for (;;) {
      char *nl = memchr(buf + pos, '\n', len - pos);
      if (!nl) {
         if (eof) {
            if (pos == len) return 0;
            rp->line++;                 /* last line without '\n' */
            buf[len] = 0;
            return ag_std_line(rp, buf + pos, len - pos) < 0 ? 2 : 0;
         }
         /* move the partial line to the front and read more */
         if (pos == 0 && len == rp->o.bufsize) {
            rp->line++;
            ag_fail(rp, "line too long (more than %zu bytes)", rp->o.bufsize - 1);
            return 2;
         }
         memmove(buf, buf + pos, len - pos);
         len -= pos;
         pos = 0;
         long got = ag_fill(fn, cookie, buf, len, rp->o.bufsize);
         if (got < 0) { rp->line++; ag_fail(rp, "read error"); return 2; }
         if (got == 0) eof = 1;
         len += (size_t)got;
         rp->bytes += (uint64_t)got;
         continue;
      }
      rp->line++;
      *nl = 0;
      if (ag_std_line(rp, buf + pos, (size_t)(nl - (buf + pos))) < 0) return 2;
      pos = (size_t)(nl - buf) + 1;
   }
}

/* ---- binary ------------------------------------------------------- */

/* The decoder reads the bytes already peeked, then the rest. */
typedef struct {
   const char *buf;
   size_t pos, len;
   ag_read_fn fn;
   void *cookie;
   int eof;
   ag_replay *rp;
} ag_peek;

static long ag_peek_read(void *cookie, void *out, size_t n)
{
   ag_peek *pk = cookie;
   if (pk->pos < pk->len) {
      size_t k = pk->len - pk->pos;
      if (k > n) k = n;
      memcpy(out, pk->buf + pk->pos, k);
      pk->pos += k;
      return (long)k;
   }
   if (pk->eof) return 0;
   long got = pk->fn(pk->cookie, out, n);
   if (got > 0) pk->rp->bytes += (uint64_t)got;
   return got;
}

static int ag_run_bin(ag_replay *rp, ag_peek *pk)
{
   ag_treader r;
   ag_trec rec;
   int rc;
   rp->binary = 1;
   if (ag_tr_init(&r, ag_peek_read, pk) < 0) {
      rp->rec_offset = r.err_offset;
      ag_fail(rp, "%s", r.err);
      ag_tr_fini(&r);
      return 2;
   }
   for (;;) {
      uint64_t off = ag_tr_offset(&r);
      if ((rc = ag_tr_next(&r, &rec)) <= 0) break;
      rp->rec_offset = off;
      switch (rec.kind) {
      case AG_TK_THREAD:
         if (ag_announce(rp, rec.tid) < 0) goto bad;
         continue;
      case AG_TK_EXIT:
         if (ag_announce(rp, rec.tid) < 0) goto bad;
         if (rp->depth[rec.tid]) rp->depth[rec.tid] = 0;
         if (rp->o.tee) ag_tw_exit(rp->o.tee, rec.tid);
         if (rp->eng) ag_misuse(rp, ag_ev_thread_exit(rp->eng, rec.tid));
         continue;
      case AG_TK_FORGET:
         if (rec.len > rp->o.max_forget) {
            ag_fail(rp, "forget range of %llu bytes is too long",
                    (unsigned long long)rec.len);
            goto bad;
         }
         if (rp->o.tee) ag_tw_forget(rp->o.tee, rec.addr, rec.len);
         if (rp->eng) ag_ev_forget(rp->eng, rec.addr, rec.len);
         continue;
      case AG_TK_SITE: {
         if (rp->o.tee) ag_tw_site(rp->o.tee, rec.site, rec.text, rec.len);
         char **text = ag_map_lookup(rp->sites, rec.site, NULL);
         *text = ag_xrealloc(*text, rec.len + 1);
         memcpy(*text, rec.text, rec.len);
         (*text)[rec.len] = 0;
         for (size_t i = 0; i < rec.len; i++)      /* keep reports printable */
            if ((unsigned char)(*text)[i] < 32 || (*text)[i] == 127) (*text)[i] = '?';
         continue;
      }
      default:
         break;
      }
      if (ag_announce(rp, rec.tid) < 0) goto bad;
      switch (rec.kind) {
      case AG_TK_ACCESS:
         if (rp->o.stats) rp->st.variables += ag_set_add(rp->bvars, rec.addr);
         ag_event(rp, (rec.flags & AG_WRITE) ? EV_W : EV_R, rec.tid, rec.addr, rec.size,
                  rec.flags, 0, rec.site);
         break;
      case AG_TK_ACQUIRE:
      case AG_TK_RELEASE:
         if (rp->o.stats) rp->st.locks += ag_set_add(rp->blocks, rec.addr);
         ag_event(rp, rec.kind == AG_TK_ACQUIRE ? EV_ACQ : EV_REL, rec.tid, rec.addr, 0, 0,
                  rec.shared, rec.site);
         break;
      case AG_TK_FORK:
      case AG_TK_JOIN:
         if (ag_tid_ok(rp, rec.tid2) < 0) goto bad;
         if (rec.kind == AG_TK_JOIN && ag_announce(rp, rec.tid2) < 0) goto bad;
         ag_event(rp, rec.kind == AG_TK_FORK ? EV_FORK : EV_JOIN, rec.tid, rec.tid2, 0, 0, 0,
                  rec.site);
         break;
      case AG_TK_BEGIN:
         ag_event(rp, EV_BEGIN, rec.tid, 0, 0, 0, 0, rec.site);
         break;
      case AG_TK_END:
         ag_event(rp, EV_END, rec.tid, 0, 0, 0, 0, rec.site);
         break;
      default:
         break;
      }
   }
   if (rc < 0) {
      rp->rec_offset = r.err_offset;
      ag_fail(rp, "%s", r.err);
      goto bad;
   }
   ag_tr_fini(&r);
   return 0;
bad:
   ag_tr_fini(&r);
   return 2;
}

/* ---- driver ------------------------------------------------------- */

int ag_replay_run(ag_replay *rp, const char *name, ag_read_fn fn, void *cookie)
{
   rp->name = name;
   char *buf = ag_xrealloc(NULL, rp->o.bufsize + 1);
   size_t len = 0;
   int eof = 0, rc;
   while (len < AG_TRACE_MAGIC_LEN && !eof) {
      long got = ag_fill(fn, cookie, buf, len, rp->o.bufsize);
      if (got < 0) {
         fprintf(rp->o.err, "%s: read error\n", name);
         free(buf);
         return 2;
      }
      if (got == 0) eof = 1;
      len += (size_t)got;
      rp->bytes += (uint64_t)got;
   }
   if (len >= AG_TRACE_MAGIC_LEN && memcmp(buf, AG_TRACE_MAGIC, AG_TRACE_MAGIC_LEN) == 0) {
      ag_peek pk = { buf, 0, len, fn, cookie, eof, rp };
      rc = ag_run_bin(rp, &pk);
   } else {
      rc = ag_run_std(rp, fn, cookie, buf, len, eof);
   }
   free(buf);
   return rc;
}

/* ---- queries ------------------------------------------------------ */

int ag_replay_is_binary(const ag_replay *rp) { return rp->binary; }
uint64_t ag_replay_line(const ag_replay *rp) { return rp->line; }
const char *ag_replay_op_text(ag_replay *rp)
{
   if (!rp->binary) return rp->op_text ? rp->op_text : "";
   char *b = rp->opbuf;
   size_t n = sizeof rp->opbuf;
   unsigned long long a = (unsigned long long)rp->cur_a;
   switch (rp->cur_kind) {
   case EV_R: case EV_W:
      snprintf(b, n, "%s%s of %u byte%s at 0x%llx", (rp->cur_flags & AG_ATOMIC) ? "atomic " : "",
               rp->cur_kind == EV_W ? "write" : "read", rp->cur_size,
               rp->cur_size == 1 ? "" : "s", a);
      break;
   case EV_ACQ: case EV_REL:
      snprintf(b, n, "%s of lock 0x%llx%s", rp->cur_kind == EV_ACQ ? "acquire" : "release", a,
               rp->cur_shared ? " (read side)" : "");
      break;
   case EV_FORK: snprintf(b, n, "fork of T%llu", a); break;
   case EV_JOIN: snprintf(b, n, "join of T%llu", a); break;
   case EV_BEGIN: snprintf(b, n, "begin"); break;
   case EV_END: snprintf(b, n, "end"); break;
   default: snprintf(b, n, "event"); break;
   }
   return b;
}
uint64_t ag_replay_bytes(const ag_replay *rp) { return rp->bytes; }
uint64_t ag_replay_reports(const ag_replay *rp) { return rp->reports; }

const char *ag_replay_thread_name(ag_replay *rp, ag_tid t)
{
   if (!rp->binary && t < rp->threads.n) return rp->threads.names[t];
   if (t == AG_NO_TID) return "?";
   snprintf(rp->tname, sizeof rp->tname, "T%u", t);
   return rp->tname;
}

const char *ag_replay_var_name(const ag_replay *rp, ag_addr a)
{
   if (rp->binary || a < AG_REPLAY_VAR_BASE) return NULL;
   uint64_t i = (a - AG_REPLAY_VAR_BASE) / 8;
   return i < rp->vars.n ? rp->vars.names[i] : NULL;
}

const char *ag_replay_lock_name(const ag_replay *rp, ag_addr lock)
{
   if (rp->binary || lock == 0 || lock > rp->locks.n) return NULL;
   return rp->locks.names[lock - 1];
}

const char *ag_replay_site_text(const ag_replay *rp, uint64_t site)
{
   char **text = ag_map_get(rp->sites, site);
   return text ? *text : NULL;
}

const ag_replay_stats *ag_replay_get_stats(ag_replay *rp) { return &rp->st; }
