/* atomgrind-trace -- run atomgrind's engines on a recorded trace.
 *
 *   atomgrind-trace [--engine=NAME] [--check=atomicity|races] [--json]
 *                   [--stats] [--cycles=increasing] [TRACE|-]
 *
 * Reads RAPID's STD text format or atomgrind's binary format (see
 * ag_replay.h), prints each violation and a summary.  Exit status: 0 no
 * violation, 1 some, 2 bad input or usage.
 */
#include "ag_replay.h"
#include "ag_explain.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
   int json, stats, timing;
   const char *path;
   ag_replay *rp;
   uint64_t total_bytes;        /* 0 if unknown */
   int progress_shown;
   uint64_t explain;            /* --explain=N: draw the N-th report's cycle */
   int explain_format, explain_rc;
   uint64_t nreports;
   ag_explain *xp;
} tool;

/* ---- input ------------------------------------------------------- */

static long fd_read(void *cookie, void *buf, size_t n)
{
   int fd = *(int *)cookie;
   for (;;) {
      ssize_t got = read(fd, buf, n);
      if (got >= 0) return (long)got;
      if (errno != EINTR) return -1;
   }
}

/* ---- output ------------------------------------------------------ */

static void put_site(tool *tl, uint64_t site)
{
   if (!ag_replay_is_binary(tl->rp)) {
      printf("LOC %lld", (long long)site);
      return;
   }
   const char *txt = ag_replay_site_text(tl->rp, site);
   if (txt) printf("site %llu: %s", (unsigned long long)site, txt);
   else printf("site %llu", (unsigned long long)site);
}

/* "line N (LOC n)" for STD, "event N (site n: text)" for binary */
static void put_at(tool *tl, uint64_t ev, uint64_t site)
{
   printf("%s %llu (", ag_replay_is_binary(tl->rp) ? "event" : "line", (unsigned long long)ev);
   put_site(tl, site);
   printf(")");
}

/* a variable's name (STD) or "N bytes at 0x..." */
static void put_data(tool *tl, ag_addr a, unsigned size)
{
   const char *var = ag_replay_var_name(tl->rp, a);
   if (var) printf("%s", var);
   else printf("%u bytes at 0x%llx", size, (unsigned long long)a);
}

/* A report closed by a synchronisation event: the data behind it, and
   where the other thread held the lock. */
static void print_sync_text(tool *tl, const ag_violation *v, const char *tn, const char *on)
{
   if (v->own_event) {
      printf("   %s %s ", on, (v->other_flags & AG_WRITE) ? "wrote" : "read");
      put_data(tl, v->other_addr, v->other_size);
      printf(" at ");
      put_at(tl, v->other_event, v->other_site);
      printf("\n     after %s's %s at ", tn, (v->own_flags & AG_WRITE) ? "write" : "read");
      put_at(tl, v->own_event, v->own_site);
      printf("\n");
   }
   if (v->lock_rel_event) {
      const char *ln = ag_replay_lock_name(tl->rp, v->lock);
      printf("   %s held %s", on, ln ? ln : "the lock");
      if (v->lock_acq_event) {
         printf(" from ");
         put_at(tl, v->lock_acq_event, v->lock_acq_site);
      }
      printf(" to ");
      put_at(tl, v->lock_rel_event, v->lock_rel_site);
      printf("\n");
   }
}

/* One way into a cycle reported at a region's end (AeroDrome): the event
   of `who`'s region from which it was ordered after `whom`'s region -- an
   access (size > 0), an acquire of lock `a` (size 0), or a join. */
static void print_end_way(tool *tl, const char *who, const char *whom, uint64_t event,
                          uint64_t site, ag_addr a, unsigned size, unsigned flags)
{
   if (!event) return;
   printf("   %s's region came after %s's from its ", who, whom);
   if (size) {
      printf("%s of ", (flags & AG_WRITE) ? "write" : "read");
      put_data(tl, a, size);
   } else if (a) {
      const char *ln = ag_replay_lock_name(tl->rp, a);
      if (ln) printf("acquire of %s", ln);
      else printf("acquire of 0x%llx", (unsigned long long)a);
   } else {
      printf("join");
   }
   printf(" at ");
   put_at(tl, event, site);
   printf("\n");
}

/* A predicted violation (engine predict): the region's two accesses and
   the other thread's access that could run between them. */
static void print_predicted(tool *tl, const ag_violation *v)
{
   ag_replay *rp = tl->rp;
   char tn[256];
   snprintf(tn, sizeof tn, "%s", ag_replay_thread_name(rp, v->local_tid));
   printf("Possible atomicity violation at event %llu, engine %s:\n",
          (unsigned long long)v->event, v->engine);
   printf("   in %s's atomic region begun at ", tn);
   put_at(tl, v->begin_event, v->begin_site);
   printf("\n   its %s at ", (v->e1_flags & AG_WRITE) ? "write" : "read");
   put_at(tl, v->e1_event, v->e1_site);
   printf(" and %s at ", (v->e2_flags & AG_WRITE) ? "write" : "read");
   put_at(tl, v->e2_event, v->e2_site);
   printf("\n   could be interleaved by the %s of thread %s at ",
          (v->other_flags & AG_WRITE) ? "write" : "read", ag_replay_thread_name(rp, v->other_tid));
   put_at(tl, v->other_event, v->other_site);
   printf("\n");
}

static void print_text(tool *tl, const ag_violation *v)
{
   ag_replay *rp = tl->rp;
   int race = v->kind == AG_KIND_RACE;
   if (v->kind == AG_KIND_PREDICT) {
      print_predicted(tl, v);
      return;
   }
   printf("%s at ", race ? "Data race" : "Atomicity violation");
   if (ag_replay_is_binary(rp)) printf("event %llu", (unsigned long long)v->event);
   else printf("line %llu (event %llu)", (unsigned long long)ag_replay_line(rp),
               (unsigned long long)v->event);
   printf(", engine %s:\n", v->engine);

   char tn[256];
   snprintf(tn, sizeof tn, "%s", ag_replay_thread_name(rp, v->tid));
   printf("   thread %s: %s", tn, ag_replay_op_text(rp));
   printf(ag_replay_is_binary(rp) ? " (" : " at ");
   put_site(tl, v->site);
   printf(ag_replay_is_binary(rp) ? ")\n" : "\n");
   if (v->at_end) printf("   detected at the end of %s's atomic region\n", tn);
   if (v->begin_event) {
      printf("   in %s's atomic region begun at ", tn);
      put_at(tl, v->begin_event, v->begin_site);
      printf("\n");
   }
   if (v->other_tid != AG_NO_TID) {
      char on[256];
      snprintf(on, sizeof on, "%s", ag_replay_thread_name(rp, v->other_tid));
      printf("   %s thread %s", race ? "races with" : "conflicts with", on);
      /* the other event as the engine named it, unless it is the data
         behind a synchronisation-closed cycle (print_sync_text says so) */
      if (v->other_event && !v->own_event && !v->at_end) {
         printf(": %s", race ? "earlier access at " : "");
         put_at(tl, v->other_event, v->other_site);
      }
      printf("\n");
      if (v->at_end) {
         print_end_way(tl, on, tn, v->other_event, v->other_site, v->other_addr, v->other_size,
                       v->other_flags);
         print_end_way(tl, tn, on, v->own_event, v->own_site, v->own_addr, v->own_size,
                       v->own_flags);
      } else if (!race) {
         print_sync_text(tl, v, tn, on);
      }
      if (v->other_begin_event) {
         printf("   in %s's atomic region begun at ", on);
         put_at(tl, v->other_begin_event, v->other_begin_site);
         printf("\n");
      }
   }
}

static int utf8_valid(const unsigned char *s)
{
   while (*s) {
      int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2
            : (*s & 0xf8) == 0xf0 ? 3 : -1;
      if (n < 0) return 0;
      s++;
      while (n--) { if ((*s & 0xc0) != 0x80) return 0; s++; }
   }
   return 1;
}

static void json_str(const char *s)
{
   int raw_high = utf8_valid((const unsigned char *)s);
   putchar('"');
   for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
      if (*p == '"' || *p == '\\') { putchar('\\'); putchar(*p); }
      else if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !raw_high)) printf("\\u%04x", *p);
      else putchar(*p);
   }
   putchar('"');
}

static void json_site(tool *tl, const char *key, uint64_t site)
{
   if (ag_replay_is_binary(tl->rp)) {
      printf(",\"%s\":%llu", key, (unsigned long long)site);
      const char *txt = ag_replay_site_text(tl->rp, site);
      if (txt) {
         printf(",\"%s_text\":", key);
         json_str(txt);
      }
   } else {
      printf(",\"%s\":%lld", key, (long long)site);
   }
}

static void json_event(tool *tl, const char *key, uint64_t ev)
{
   printf(",\"%s_event\":%llu", key, (unsigned long long)ev);
   if (!ag_replay_is_binary(tl->rp)) printf(",\"%s_line\":%llu", key, (unsigned long long)ev);
}

static void print_json(tool *tl, const ag_violation *v)
{
   ag_replay *rp = tl->rp;
   int bin = ag_replay_is_binary(rp);
   printf("{\"engine\":");
   json_str(v->engine);
   printf(",\"kind\":\"%s\",\"event\":%llu", v->kind == AG_KIND_RACE ? "race"
          : v->kind == AG_KIND_PREDICT ? "predicted" : "atomicity", (unsigned long long)v->event);
   if (v->kind == AG_KIND_PREDICT) {
      json_event(tl, "e1", v->e1_event);
      json_event(tl, "e2", v->e2_event);
   }
   if (!bin) printf(",\"line\":%llu", (unsigned long long)ag_replay_line(rp));
   printf(",\"thread\":");
   json_str(ag_replay_thread_name(rp, v->tid));
   printf(",\"op\":");
   json_str(ag_replay_op_text(rp));
   json_site(tl, "loc", v->site);
   if (v->size) {
      const char *var = ag_replay_var_name(rp, v->addr);
      if (var) { printf(",\"var\":"); json_str(var); }
      else printf(",\"addr\":\"0x%llx\",\"size\":%u", (unsigned long long)v->addr, v->size);
      printf(",\"write\":%s", (v->flags & AG_WRITE) ? "true" : "false");
   }
   if (v->lock) {
      const char *ln = ag_replay_lock_name(rp, v->lock);
      printf(",\"lock\":");
      if (ln) json_str(ln);
      else printf("\"0x%llx\"", (unsigned long long)v->lock);
      if (v->shared) printf(",\"shared\":true");
   }
   printf(",\"at_end\":%s", v->at_end ? "true" : "false");
   if (v->begin_event) {
      json_event(tl, "begin", v->begin_event);
      json_site(tl, "begin_loc", v->begin_site);
   }
   printf(",\"other_thread\":");
   if (v->other_tid != AG_NO_TID) json_str(ag_replay_thread_name(rp, v->other_tid));
   else printf("null");
   if (v->other_event) {
      json_event(tl, "other", v->other_event);
      json_site(tl, "other_loc", v->other_site);
   }
   if (v->other_begin_event) {
      json_event(tl, "other_begin", v->other_begin_event);
      json_site(tl, "other_begin_loc", v->other_begin_site);
   }
   if (v->own_event) {         /* the data behind a synchronisation-closed cycle */
      json_event(tl, "own", v->own_event);
      json_site(tl, "own_loc", v->own_site);
      const char *var = ag_replay_var_name(rp, v->other_addr);
      if (var) { printf(",\"other_var\":"); json_str(var); }
      else printf(",\"other_addr\":\"0x%llx\"", (unsigned long long)v->other_addr);
      printf(",\"other_write\":%s", (v->other_flags & AG_WRITE) ? "true" : "false");
   }
   if (v->lock_acq_event) json_event(tl, "lock_acq", v->lock_acq_event);
   if (v->lock_rel_event) json_event(tl, "lock_rel", v->lock_rel_event);
   printf("}\n");
}

static void clear_progress(tool *tl)
{
   if (tl->progress_shown) {
      fputs("\r\033[K", stderr);
      tl->progress_shown = 0;
   }
}

static void on_report(void *cookie, ag_replay *rp, const ag_violation *v)
{
   tool *tl = cookie;
   (void)rp;
   clear_progress(tl);
   if (tl->explain) {
      if (++tl->nreports != tl->explain) return;
      if (tl->explain_format == AG_EXPLAIN_TEXT) print_text(tl, v);
      fflush(stdout);
      tl->explain_rc = ag_explain_report(tl->xp, rp, v, tl->explain_format, stdout) ? 2 : 0;
      return;
   }
   if (tl->json) print_json(tl, v);
   else print_text(tl, v);
}

static void on_event(void *cookie, ag_replay *rp, const ag_replay_event *ev)
{
   tool *tl = cookie;
   (void)rp;
   if (tl->nreports < tl->explain) ag_explain_event(tl->xp, ev);
}

static void on_progress(void *cookie, ag_replay *rp)
{
   tool *tl = cookie;
   uint64_t ev = ag_replay_get_stats(rp)->events;
   if (tl->total_bytes)
      fprintf(stderr, "\ratomgrind-trace: %llu M events, %.0f%%", (unsigned long long)(ev >> 20),
              100.0 * (double)ag_replay_bytes(rp) / (double)tl->total_bytes);
   else
      fprintf(stderr, "\ratomgrind-trace: %llu M events", (unsigned long long)(ev >> 20));
   tl->progress_shown = 1;
}

static void print_stats(FILE *f, const ag_replay_stats *s)
{
   fprintf(f, "Number of threads = %llu\n", (unsigned long long)s->threads);
   fprintf(f, "Number of locks = %llu\n", (unsigned long long)s->locks);
   fprintf(f, "Number of variables = %llu\n", (unsigned long long)s->variables);
   fprintf(f, "Number of events = %llu\n", (unsigned long long)s->events);
   fprintf(f, "Number of read events = %llu\n", (unsigned long long)s->reads);
   fprintf(f, "Number of write events = %llu\n", (unsigned long long)s->writes);
   fprintf(f, "Number of acquire events = %llu\n", (unsigned long long)s->acquires);
   fprintf(f, "Number of release events = %llu\n", (unsigned long long)s->releases);
   fprintf(f, "Number of fork events = %llu\n", (unsigned long long)s->forks);
   fprintf(f, "Number of join events = %llu\n", (unsigned long long)s->joins);
   fprintf(f, "Number of begin events = %llu\n", (unsigned long long)s->begins);
   fprintf(f, "Number of end events = %llu\n", (unsigned long long)s->ends);
   fprintf(f, "Number of transactions = %llu\n", (unsigned long long)s->transactions);
}

/* ---- main -------------------------------------------------------- */

static void usage(FILE *f)
{
   fprintf(f,
      "usage: atomgrind-trace [OPTIONS] [TRACE|-]\n"
      "Check a recorded trace (RAPID STD text, or atomgrind's binary format).\n"
      "  --engine=NAME          analysis engine (see --list-engines; 'none' only reads)\n"
      "  --check=atomicity|races  what to check (races: engine fasttrack)\n"
      "  --cycles=increasing    report only increasing cycles (atomsanitizer)\n"
      "  --json                 one JSON object per violation per line\n"
      "  --stats                print event counts (like RAPID's MetaInfo)\n"
      "  --parse-only           only read the trace (same as --engine=none)\n"
      "  --max-threads=N        refuse traces with more threads (default 4096)\n"
      "  --convert=FILE         also write the trace read to FILE (binary format)\n"
      "  --convert-format=bin|std  format of --convert (default bin)\n"
      "  --time                 print time, events/s and peak memory on stderr\n"
      "  --explain=N            draw the cycle of the N-th report instead of listing\n"
      "                         reports: its transactions, their events, the edges\n"
      "  --format=text|dot|svg|html  how --explain draws it (default text: a lane\n"
      "                         per thread)\n"
      "  --list-engines         list the engines and exit\n"
      "Exit status: 0 no violation, 1 violations, 2 bad input or usage.\n");
}

static const ag_engine_ops *default_engine(int kind)
{
   const ag_engine_ops *o;
   if (kind == AG_KIND_RACE) return ag_engine_find("fasttrack");
   if ((o = ag_engine_find("atomsanitizer"))) return o;
   if ((o = ag_engine_find("aerodrome"))) return o;
   for (const ag_engine_ops *const *p = ag_engine_all(); *p; p++)
      if (ag_engine_kind(*p) == AG_KIND_ATOMICITY) return *p;
   return NULL;
}

static double now(void)
{
   struct timeval tv;
   gettimeofday(&tv, NULL);
   return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* Command-line choices that are not the replay's own (ag_replay_opts) nor
   the printer's (tool). */
typedef struct {
   const char *engine, *check, *convert;
   int convert_fmt;          /* AG_TW_BIN or AG_TW_STD */
   int parse_only;
} args;

static void list_engines(void)
{
   for (const ag_engine_ops *const *p = ag_engine_all(); *p; p++)
      printf("%-14s %-9s %s\n", ag_engine_name(*p),
             ag_engine_kind(*p) == AG_KIND_RACE ? "races" : "atomicity", ag_engine_help(*p));
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, args *ar, tool *tl, ag_replay_opts *o)
{
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      if (strncmp(a, "--engine=", 9) == 0) ar->engine = a + 9;
      else if (strncmp(a, "--check=", 8) == 0) ar->check = a + 8;
      else if (strcmp(a, "--json") == 0) tl->json = 1;
      else if (strcmp(a, "--stats") == 0) tl->stats = 1;
      else if (strcmp(a, "--time") == 0) tl->timing = 1;
      else if (strncmp(a, "--explain=", 10) == 0) {
         char *end;
         unsigned long long n = strtoull(a + 10, &end, 10);
         if (*end || n == 0 || a[10] < '0' || a[10] > '9') {
            fprintf(stderr, "atomgrind-trace: --explain wants a report number (1, 2, ...), "
                    "not '%s'\n", a + 10);
            return 2;
         }
         tl->explain = n;
      } else if (strncmp(a, "--format=", 9) == 0) {
         static const char *const fmts[] = { "text", "dot", "svg", "html" };
         int k = -1;
         for (int j = 0; j < 4; j++) if (strcmp(a + 9, fmts[j]) == 0) k = j;
         if (k < 0) {
            fprintf(stderr, "atomgrind-trace: --format must be text, dot, svg or html, "
                    "not '%s'\n", a + 9);
            return 2;
         }
         tl->explain_format = k;
      }
      else if (strcmp(a, "--parse-only") == 0) ar->parse_only = 1;
      else if (strncmp(a, "--convert=", 10) == 0) ar->convert = a + 10;
      else if (strcmp(a, "--convert-format=bin") == 0) ar->convert_fmt = AG_TW_BIN;
      else if (strcmp(a, "--convert-format=std") == 0) ar->convert_fmt = AG_TW_STD;
      else if (strcmp(a, "--cycles=increasing") == 0) o->cfg.cycles_increasing = 1;
      else if (strcmp(a, "--cycles=all") == 0) o->cfg.cycles_increasing = 0;
      else if (strncmp(a, "--max-threads=", 14) == 0) {
         char *end;
         unsigned long n = strtoul(a + 14, &end, 10);
         if (*end || n == 0 || n > 1000000) {
            fprintf(stderr, "atomgrind-trace: bad --max-threads value '%s'\n", a + 14);
            return 2;
         }
         o->max_threads = (uint32_t)n;
      } else if (strcmp(a, "--list-engines") == 0) {
         list_engines();
         return 0;
      } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
         usage(stdout);
         return 0;
      } else if (a[0] == '-' && a[1]) {
         fprintf(stderr, "atomgrind-trace: unknown option '%s'\n", a);
         usage(stderr);
         return 2;
      } else if (tl->path) {
         fprintf(stderr, "atomgrind-trace: only one trace can be given\n");
         return 2;
      } else tl->path = a;
   }
   if (!tl->path) tl->path = "-";
   if (ar->engine && strcmp(ar->engine, "none") == 0) ar->parse_only = 1;
   return -1;
}

/* o->ops from --engine and --check (left NULL when only parsing).
   Returns -1 to go on, else the exit code. */
static int choose_engine(const args *ar, ag_replay_opts *o)
{
   int kind = 0;
   if (ar->check) {
      if (strcmp(ar->check, "atomicity") == 0) kind = AG_KIND_ATOMICITY;
      else if (strcmp(ar->check, "races") == 0) kind = AG_KIND_RACE;
      else {
         fprintf(stderr, "atomgrind-trace: --check must be atomicity or races, not '%s'\n",
                 ar->check);
         return 2;
      }
   }
   if (ar->parse_only) return -1;
   if (ar->engine) {
      o->ops = ag_engine_find(ar->engine);
      if (!o->ops) {
         fprintf(stderr, "atomgrind-trace: unknown engine '%s'; available:", ar->engine);
         for (const ag_engine_ops *const *p = ag_engine_all(); *p; p++)
            fprintf(stderr, " %s", ag_engine_name(*p));
         fprintf(stderr, " none\n");
         return 2;
      }
      if (kind && ag_engine_kind(o->ops) != kind) {
         fprintf(stderr, "atomgrind-trace: engine '%s' checks %s, not %s\n", ar->engine,
                 ag_engine_kind(o->ops) == AG_KIND_RACE ? "races" : "atomicity", ar->check);
         return 2;
      }
   } else {
      o->ops = default_engine(kind ? kind : AG_KIND_ATOMICITY);
      if (!o->ops) {
         if (kind == AG_KIND_RACE)
            fprintf(stderr, "atomgrind-trace: --check=races needs the fasttrack engine, "
                    "which this build does not have\n");
         else
            fprintf(stderr, "atomgrind-trace: no atomicity engine in this build\n");
         return 2;
      }
   }
   if (o->cfg.cycles_increasing && strcmp(ag_engine_name(o->ops), "atomsanitizer") != 0)
      fprintf(stderr, "atomgrind-trace: note: --cycles=increasing only changes "
              "engine atomsanitizer\n");
   return -1;
}

/* The trace's file descriptor (0 for stdin), or -1 after a message. */
static int open_trace(tool *tl)
{
   int fd = 0;
   if (strcmp(tl->path, "-") != 0) {
      fd = open(tl->path, O_RDONLY);
      if (fd < 0) {
         fprintf(stderr, "atomgrind-trace: cannot open '%s': %s\n", tl->path, strerror(errno));
         return -1;
      }
   }
   struct stat sb;
   if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) tl->total_bytes = (uint64_t)sb.st_size;
   return fd;
}

static void print_summary(tool *tl, const ag_replay_opts *o, const char *name, int rc)
{
   const ag_replay_stats *st = ag_replay_get_stats(tl->rp);
   uint64_t nrep = ag_replay_reports(tl->rp);
   FILE *sf = tl->json || tl->explain ? stderr : stdout;
   if (o->ops)
      fprintf(sf, "atomgrind-trace: %s: %llu events, %llu %s (engine %s)%s\n", name,
              (unsigned long long)st->events, (unsigned long long)nrep,
              ag_engine_kind(o->ops) == AG_KIND_RACE ? (nrep == 1 ? "race" : "races")
                                          : (nrep == 1 ? "violation" : "violations"),
              ag_engine_name(o->ops), rc ? ", stopped at bad input" : "");
   else
      fprintf(sf, "atomgrind-trace: %s: %llu events read%s\n", name,
              (unsigned long long)st->events, rc ? ", stopped at bad input" : "");
   if (st->warnings)
      fprintf(stderr, "atomgrind-trace: %llu warning%s\n", (unsigned long long)st->warnings,
              st->warnings == 1 ? "" : "s");
   if (tl->stats) print_stats(sf, st);
}

static void print_timing(const ag_replay_stats *st, double dt)
{
   struct rusage ru;
   getrusage(RUSAGE_SELF, &ru);
   double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
   fprintf(stderr, "time: %.3f s wall, %.3f s cpu, %.2f M events/s (cpu), "
           "peak RSS %.1f MiB\n", dt, cpu,
           cpu > 0 ? (double)st->events / cpu / 1e6 : 0.0, ru.ru_maxrss / 1024.0);
}

int main(int argc, char **argv)
{
   tool tl;
   args ar = { .convert_fmt = AG_TW_BIN };
   ag_replay_opts o;
   memset(&tl, 0, sizeof tl);
   memset(&o, 0, sizeof o);
   int rc = parse_args(argc, argv, &ar, &tl, &o);
   if (rc < 0) rc = choose_engine(&ar, &o);
   if (rc >= 0) return rc;

   const char *name = strcmp(tl.path, "-") == 0 ? "<stdin>" : tl.path;
   int fd = open_trace(&tl);
   if (fd < 0) return 2;
   if (isatty(2) && (tl.total_bytes == 0 || tl.total_bytes >= (32u << 20)))
      o.progress = on_progress;

   static ag_twriter tw;
   int cfd = -1;
   if (ar.convert) {
      cfd = open(ar.convert, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (cfd < 0) {
         fprintf(stderr, "atomgrind-trace: cannot create '%s': %s\n", ar.convert,
                 strerror(errno));
         return 2;
      }
      ag_tw_init(&tw, ar.convert_fmt, ag_fd_write, &cfd);
      o.tee = &tw;
   }
   o.stats = tl.stats;
   o.report = on_report;
   o.cookie = &tl;
   if (tl.explain) {
      if (!o.ops || ag_engine_kind(o.ops) != AG_KIND_ATOMICITY) {
         fprintf(stderr, "atomgrind-trace: --explain needs an atomicity engine\n");
         return 2;
      }
      tl.xp = ag_explain_new(0);
      o.on_event = on_event;
   }
   tl.rp = ag_replay_new(&o);
   double t0 = now();
   rc = ag_replay_run(tl.rp, name, fd_read, &fd);
   double t1 = now();
   clear_progress(&tl);
   if (fd) close(fd);
   if (ar.convert && (ag_tw_flush(&tw) || close(cfd) != 0)) {
      fprintf(stderr, "atomgrind-trace: cannot write '%s'\n", ar.convert);
      rc = 2;
   }
   fflush(stdout);
   print_summary(&tl, &o, name, rc);
   if (tl.timing) print_timing(ag_replay_get_stats(tl.rp), t1 - t0);
   uint64_t nrep = ag_replay_reports(tl.rp);
   ag_replay_delete(tl.rp);
   ag_explain_delete(tl.xp);
   if (rc) return 2;
   if (tl.explain) {
      if (nrep < tl.explain) {
         fprintf(stderr, "atomgrind-trace: --explain=%llu: the trace has %llu report%s\n",
                 (unsigned long long)tl.explain, (unsigned long long)nrep, nrep == 1 ? "" : "s");
         return 2;
      }
      return tl.explain_rc ? 2 : 1;
   }
   return nrep ? 1 : 0;
}
