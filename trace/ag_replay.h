/* ag_replay.h -- feed a recorded trace to an engine (host side, libc).
 *
 * Reads RAPID's STD text format or atomgrind's binary format (told apart
 * by the binary magic), streaming in constant memory apart from the name
 * tables and the engine's own state.
 *
 * STD: one event per line, "THREAD|OP|LOC", OP one of r(X) w(X) acq(L)
 * rel(L) fork(U) join(U) begin end; names are any non-empty text without
 * '|' (a name may contain parentheses: the argument runs to the line's
 * last ')'); LOC is a decimal integer (an optional '-').  A CRLF line end
 * is accepted.  Every line is exactly one event, so the engine's event
 * index equals the line number; an empty line is therefore an error, like
 * any line that does not parse.
 * Each distinct variable is its own aligned 8-byte word (accessed whole, so
 * variables never share a byte); locks, variables and threads have
 * separate name spaces; a thread is announced by its first line or by a
 * fork(U) naming it.
 */
#ifndef AG_REPLAY_H
#define AG_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include "ag_engine.h"
#include "ag_tracefmt.h"

#define AG_REPLAY_VAR_BASE 0x100000ull   /* address of STD variable 0 */

typedef struct ag_replay ag_replay;

/* One event, as given to opts.on_event. */
enum { AG_RE_READ, AG_RE_WRITE, AG_RE_ACQ, AG_RE_REL, AG_RE_FORK, AG_RE_JOIN,
       AG_RE_BEGIN, AG_RE_END };
typedef struct ag_replay_event {
   uint64_t index;            /* 1-based: the engine's event index */
   int kind;                  /* AG_RE_* */
   ag_tid tid;
   uint64_t a;                /* address, lock, or the other thread (fork/join) */
   unsigned size, flags;
   int shared;
   uint64_t site;
} ag_replay_event;

typedef struct ag_replay_stats {
   uint64_t events, reads, writes, acquires, releases, forks, joins,
            begins, ends, transactions;
   uint64_t threads, locks, variables;   /* distinct */
   uint64_t warnings;
} ag_replay_stats;

typedef struct ag_replay_opts {
   const ag_engine_ops *ops;  /* NULL: only read (and count) */
   ag_config cfg;
   uint32_t max_threads;      /* more distinct threads is bad input; 0: 4096 */
   uint64_t max_forget;       /* longer forget ranges are bad input; 0: 2^40 */
   int stats;                 /* count distinct binary locations too */
   size_t bufsize;            /* STD read buffer = longest line + 1; 0: 1 MiB */
   int max_warnings;          /* printed (the rest are counted); <0: none */
   FILE *err;                 /* errors and warnings (NULL: stderr) */
   void (*report)(void *cookie, ag_replay *rp, const ag_violation *v);
   void *cookie;
   /* if set, every record read is written to it again (conversion) */
   ag_twriter *tee;
   /* if set, called with every event before the engine sees it */
   void (*on_event)(void *cookie, ag_replay *rp, const struct ag_replay_event *ev);
   /* called every 2^20 events */
   void (*progress)(void *cookie, ag_replay *rp);
} ag_replay_opts;

ag_replay *ag_replay_new(const ag_replay_opts *o);
void ag_replay_delete(ag_replay *rp);

/* Replay a whole input.  `name` is used in messages.  Returns 0, or 2 on
   malformed input / read errors (a message "NAME:LINE: what" was printed). */
int ag_replay_run(ag_replay *rp, const char *name, ag_read_fn fn, void *cookie);

/* For report callbacks and the end summary. */
int ag_replay_is_binary(const ag_replay *rp);
uint64_t ag_replay_line(const ag_replay *rp);          /* current STD line */
/* The current event: the STD op ("r(x)"), or a description of the binary
   record ("write of 8 bytes at 0x1000"); valid until the next call. */
const char *ag_replay_op_text(ag_replay *rp);
const char *ag_replay_thread_name(ag_replay *rp, ag_tid t);   /* never NULL */
/* Variable name of an address (STD), or NULL. */
const char *ag_replay_var_name(const ag_replay *rp, ag_addr a);
/* Lock name of a lock address (STD), or NULL. */
const char *ag_replay_lock_name(const ag_replay *rp, ag_addr lock);
/* Text of a binary trace's site, or NULL. */
const char *ag_replay_site_text(const ag_replay *rp, uint64_t site);
const ag_replay_stats *ag_replay_get_stats(ag_replay *rp);
uint64_t ag_replay_bytes(const ag_replay *rp);          /* input consumed */
uint64_t ag_replay_reports(const ag_replay *rp);

#endif
