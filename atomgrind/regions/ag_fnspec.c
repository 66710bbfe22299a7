/* ag_fnspec.c -- which functions are atomic: the patterns of --atomic-fns
 * and --atomic-spec, the functions they matched, and --infer-spec's
 * refinement of them.
 *
 * A pattern is a glob on a function's name, matched as suppressions match
 * fun: (VG_(string_match): * and ?) -- a C++ name with or without its
 * parameter list; !PATTERN excludes, and an exclusion
 * wins over any inclusion.  'all' is every function with a symbol in the
 * main executable or in an object named by --atomic-objs.  Functions the
 * program does not write itself (main, below main, names the
 * implementation reserves) are atomic only when a pattern is their own
 * name; thread start routines likewise (ag_spec.c finds them). */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"          /* VKI_O_* */
#include "pub_tool_clientstate.h"  /* VG_(args_the_exename) */
#include "pub_tool_debuginfo.h"    /* VG_(get_fnname_if_entry), DebugInfo */
#include "pub_tool_libcassert.h"   /* VG_(exit) */
#include "pub_tool_libcbase.h"     /* VG_(str*) */
#include "pub_tool_libcfile.h"     /* VG_(open), VG_(read), VG_(write) */
#include "pub_tool_libcprint.h"    /* VG_(fmsg), VG_(umsg) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc) */
#include "pub_tool_options.h"      /* VG_(clo_verbosity) */
#include "pub_tool_seqmatch.h"     /* VG_(string_match) */
#include "ag_fnspec.h"
#include "ag_ltonames.h"           /* why unnamed inlined frames stayed so */
#include "ag_map.h"                /* name -> function, site -> function */
#include "ag_options.h"            /* --atomic-fns, --atomic-spec, ... */

typedef struct {
   HChar *pat;
   Bool exclude;               /* !PATTERN */
   Bool all;                   /* the word 'all' */
   Bool literal;               /* a name, not a glob: ag_fs_literal */
   HChar *last;                /* its last name, for inlined frames: ag_fs_last */
   Bool rooted;                /* "::name": the global scope's only */
   HChar *from;                /* "--atomic-fns" or "FILE:LINE", for the exit */
} ag_fs_pattern;

static const HChar *ag_fs_from = "--atomic-fns";   /* where ag_fs_add's patterns come from */

typedef struct {
   HChar *name;
   Bool dropped;               /* --infer-spec blamed it */
   Bool entered;               /* a call of it was a region */
   Bool start_routine;         /* seen as a thread's start routine */
   Bool explicit;              /* some pattern is its own name */
   HChar *why;                 /* the report that dropped it */
} ag_fs_fn;

static ag_fs_pattern *ag_fs_pats;
static UInt ag_fs_npats, ag_fs_cap;
static HChar **ag_fs_objs;     /* --atomic-objs patterns */
static UInt ag_fs_nobjs;
static ag_fs_fn *ag_fs_fns;
static UInt ag_fs_nfns, ag_fs_fncap;
static ag_map *ag_fs_by_name;  /* hash of name -> fn + 1 */
static ag_map *ag_fs_by_site;  /* region begin site -> fn + 1 */
/* Answers by a name's hash (+ 2; 0: not asked yet), while no pattern is
   'all' (whose answer depends on the code's object): the translation of
   every superblock asks for each frame of each instruction's inline chain,
   and the same few names recur. */
static ag_map *ag_fs_match_memo, *ag_fs_may_memo;
static Bool ag_fs_any_all;

/* ---- reading patterns -------------------------------------------- */

/* A pattern with a parameter list or an operator's name is a C++ name
   as Valgrind shows it (and as --infer-spec and atomgrind-infer write
   it): its '*' and '?' are the name's own (operator*, operator*=,
   f(char*)), never wildcards, so it is compared, not matched -- as a
   glob '!Counter::operator*(int)' would also exclude operator*=(int). */
static Bool ag_fs_literal(const HChar *text)
{
   return VG_(strchr)(text, '(') != NULL || VG_(strstr)(text, "operator") != NULL;
}

static Bool ag_fs_unparamed(const HChar *name, HChar *buf, SizeT n);

/* Is c, in name s, at a scope named in parentheses, "(anonymous
   namespace)"?  (Its ')' is there then.) */
static Bool ag_fs_anonymous(const HChar *c, const HChar *s)
{
   return *c == '(' && (c == s || (c - s >= 2 && c[-1] == ':' && c[-2] == ':'))
          && VG_(strncmp)(c, "(anonymous namespace)", 21) == 0;
}

/* Does an operator's name ("operator<<", "operator new") begin at c, in
   name s? */
static Bool ag_fs_operator(const HChar *c, const HChar *s)
{
   return VG_(strncmp)(c, "operator", 8) == 0 && (c == s || c[-1] == ':' || c[-1] == ' ');
}

/* The rest of a C++ name after its first "::" outside <> (and before its
   parameter list or an operator's name), or NULL when it has none:
   "Account::withdraw(int)" for "bank::Account::withdraw(int)". */
static const HChar *ag_fs_inner_scope(const HChar *s)
{
   Int angle = 0;
   for (const HChar *c = s; *c; c++) {
      if (ag_fs_operator(c, s)) return NULL;
      if (ag_fs_anonymous(c, s)) {
         c = VG_(strchr)(c, ')');
         continue;
      }
      if (*c == '<') angle++;
      else if (*c == '>' && angle > 0) angle--;
      else if (*c == '(' && angle == 0) return NULL;
      else if (c[0] == ':' && c[1] == ':' && angle == 0) return c + 2;
   }
   return NULL;
}

/* Its last name: "withdraw" of "Account::withdraw", "get" of
   "Map<a::b>::get", "operator<<" of "A::operator<<". */
static const HChar *ag_fs_last_name(const HChar *s)
{
   for (const HChar *in = ag_fs_inner_scope(s); in; in = ag_fs_inner_scope(s)) s = in;
   return s;
}

/* A pattern's last name without a parameter list: the whole of what
   Valgrind names an inlined frame ("withdraw"), before the full name is
   asked for (ag_fnspec_may_name). */
static HChar *ag_fs_last(const HChar *text, Bool literal)
{
   HChar buf[256];
   if (literal && ag_fs_unparamed(text, buf, sizeof buf)) text = buf;
   return VG_(strdup)("ag.fnspec.last", ag_fs_last_name(text));
}

static void ag_fs_add(const HChar *text, Bool exclude)
{
   if (ag_fs_npats == ag_fs_cap) {
      ag_fs_cap = ag_fs_cap ? 2 * ag_fs_cap : 16;
      ag_fs_pats = VG_(realloc)("ag.fnspec.pats", ag_fs_pats, ag_fs_cap * sizeof *ag_fs_pats);
   }
   ag_fs_pattern *p = &ag_fs_pats[ag_fs_npats++];
   p->pat = VG_(strdup)("ag.fnspec.pat", text);
   p->rooted = text[0] == ':' && text[1] == ':' && text[2];
   p->exclude = exclude;
   p->all = VG_STREQ(text, "all");
   ag_fs_any_all |= p->all;
   p->literal = ag_fs_literal(text);
   p->last = ag_fs_last(text, p->literal);
   p->from = VG_(strdup)("ag.fnspec.from", ag_fs_from);
}

/* Check one pattern (without its '!'); NULL if fine, else what is wrong.
   Demangled C++ names have spaces: inside () or <>, after the parameter
   list ("f(int) const", "g() [clone .isra.0]"), in operator names
   ("operator new"), and before the name of a template function, which
   carries its return type ("bool f<char>(char)").  So spaces outside
   brackets are a mistake only in a pattern without a parameter list
   ("withdraw deposit"); --infer-spec writes names as they are. */
static const HChar *ag_fs_malformed(const HChar *s, Bool exclude)
{
   Int paren = 0, angle = 0;
   Bool spaced = VG_(strstr)(s, "operator") != NULL || VG_(strchr)(s, '(') != NULL;
   if (*s == 0) return exclude ? "'!' without a pattern after it" : "empty pattern";
   if (*s == '!') return "more than one '!'";
   if (*s == '-') return "a pattern cannot start with '-' (an option?)";
   if (exclude && VG_STREQ(s, "all")) return "'!all' would exclude everything";
   for (; *s; s++) {
      if ((UChar)*s < ' ') return "control character in pattern";
      if (*s == '(') paren++;
      else if (*s == ')' && --paren < 0) return "unbalanced ')'";
      else if (*s == '<') angle++;
      else if (*s == '>' && angle > 0) angle--;
      else if ((*s == ' ' || *s == '\t') && paren == 0 && angle == 0 && !spaced)
         return "two words on one line (one pattern a line; a name has no spaces)";
   }
   return paren ? "unbalanced '('" : NULL;
}

/* One entry (of the option or of a file line), already trimmed. */
static const HChar *ag_fs_entry(const HChar *s)
{
   Bool exclude = *s == '!';
   if (exclude) {
      s++;
      while (*s == ' ' || *s == '\t') s++;
   }
   const HChar *bad = ag_fs_malformed(s, exclude);
   if (!bad) ag_fs_add(s, exclude);
   return bad;
}

/* Trim spaces (and a trailing "# comment") in place. */
static HChar *ag_fs_trim(HChar *s)
{
   while (*s == ' ' || *s == '\t' || *s == '\r') s++;
   for (HChar *h = s; *h; h++)
      if (*h == '#' && (h == s || h[-1] == ' ' || h[-1] == '\t')) { *h = 0; break; }
   SizeT n = VG_(strlen)(s);
   while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
   return s;
}

/* Split a comma list, commas inside () or <> excepted; fn(item) per item. */
static void ag_fs_split(const HChar *list, const HChar *opt, Bool objs)
{
   HChar *copy = VG_(strdup)("ag.fnspec.list", list), *start = copy;
   Int depth = 0;
   for (HChar *c = copy;; c++) {
      if (*c == '(' || *c == '<') depth++;
      else if ((*c == ')' || *c == '>') && depth > 0) depth--;
      if (*c != 0 && !(*c == ',' && depth == 0)) continue;
      Bool last = *c == 0;
      *c = 0;
      HChar *item = ag_fs_trim(start);
      if (objs) {
         if (*item) {
            ag_fs_objs = VG_(realloc)("ag.fnspec.objs", ag_fs_objs,
                                      (ag_fs_nobjs + 1) * sizeof *ag_fs_objs);
            ag_fs_objs[ag_fs_nobjs++] = item;
         }
      } else {
         const HChar *bad = ag_fs_entry(item);
         if (bad) {
            VG_(fmsg)("%s: bad pattern '%s': %s\n", opt, item, bad);
            VG_(exit)(1);
         }
      }
      if (last) break;
      start = c + 1;
   }
}

static HChar *ag_fs_read_file(const HChar *path)
{
   SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(r)) {
      VG_(fmsg)("--atomic-spec: cannot open '%s'\n", path);
      VG_(exit)(1);
   }
   Int fd = (Int)sr_Res(r);
   SizeT cap = 4096, len = 0;
   HChar *buf = VG_(malloc)("ag.fnspec.file", cap);
   for (;;) {
      if (cap - len < 2048) buf = VG_(realloc)("ag.fnspec.file", buf, cap *= 2);
      Int n = VG_(read)(fd, buf + len, cap - len - 1);
      if (n < 0) {
         VG_(fmsg)("--atomic-spec: cannot read '%s'\n", path);
         VG_(exit)(1);
      }
      if (n == 0) break;
      len += n;
   }
   VG_(close)(fd);
   buf[len] = 0;
   return buf;
}

/* --atomic-spec=FILE: one entry a line; a bad line is FILE:LINE: why. */
static void ag_fs_read_spec(const HChar *path)
{
   HChar *buf = ag_fs_read_file(path), *line = buf;
   for (Int lineno = 1; line; lineno++) {
      HChar *nl = VG_(strchr)(line, '\n');
      if (nl) *nl = 0;
      HChar *s = ag_fs_trim(line);
      if (*s) {
         HChar from[256];
         VG_(snprintf)(from, sizeof from, "%s:%d", path, lineno);
         ag_fs_from = from;
         const HChar *bad = ag_fs_entry(s);
         ag_fs_from = "--atomic-fns";
         if (bad) {
            VG_(fmsg)("%s:%d: %s\n", path, lineno, bad);
            VG_(exit)(1);
         }
      }
      line = nl ? nl + 1 : NULL;
   }
}

void ag_fnspec_init(void)
{
   if (ag_clo_atomic_fns) ag_fs_split(ag_clo_atomic_fns, "--atomic-fns", False);
   if (ag_clo_atomic_spec) ag_fs_read_spec(ag_clo_atomic_spec);
   if (ag_clo_atomic_objs) ag_fs_split(ag_clo_atomic_objs, "--atomic-objs", True);
   if (ag_clo_infer_spec && !ag_fnspec_given()) {
      VG_(fmsg)("--infer-spec needs atomic functions to start from "
                "(--atomic-fns= or --atomic-spec=)\n");
      VG_(exit)(1);
   }
   ag_fs_by_name = ag_map_new(sizeof(UInt));
   ag_fs_by_site = ag_map_new(sizeof(UInt));
}

Bool ag_fnspec_given(void)
{
   for (UInt i = 0; i < ag_fs_npats; i++)
      if (!ag_fs_pats[i].exclude) return True;
   return False;
}

/* ---- matching ---------------------------------------------------- */

static const HChar *ag_fs_basename(const HChar *path)
{
   const HChar *b = VG_(strrchr)(path, '/');
   return b ? b + 1 : path;
}

/* Is the code at a in the main executable or an --atomic-objs object? */
static Bool ag_fs_in_scope(Addr a)
{
   DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (!di) return False;
   const HChar *file = VG_(DebugInfo_get_filename)(di);
   if (!file) return False;
   if (VG_(args_the_exename)
       && VG_STREQ(ag_fs_basename(file), ag_fs_basename(VG_(args_the_exename))))
      return True;
   for (UInt i = 0; i < ag_fs_nobjs; i++)
      if (VG_(string_match)(ag_fs_objs[i], file)
          || VG_(string_match)(ag_fs_objs[i], ag_fs_basename(file)))
         return True;
   return False;
}

/* Code the programmer did not write: atomic only if named explicitly. */
static Bool ag_fs_not_the_programs(const HChar *name)
{
   return VG_(get_fnname_kind)(name) != Vg_FnNameNormal
       || name[0] == '_'                       /* reserved: _start, _init, ... */
       || name[0] == '('                       /* "(below main)" */
       || VG_STREQ(name, "start_thread")          /* a thread's whole life */
       || VG_STREQ(name, "clone") || VG_STREQ(name, "clone3")
       || VG_STREQ(name, "frame_dummy")
       || VG_STREQ(name, "register_tm_clones")
       || VG_STREQ(name, "deregister_tm_clones");
}

static ULong ag_fs_hash(const HChar *s)
{
   ULong h = 1469598103934665603ULL;       /* FNV-1a */
   for (; *s; s++) h = (h ^ (UChar)*s) * 1099511628211ULL;
   return h;
}

static Int ag_fs_intern(const HChar *name, Bool explicit)
{
   Int created = 0;
   UInt *slot = ag_map_lookup(ag_fs_by_name, ag_fs_hash(name), &created);
   if (!created) return (Int)*slot - 1;
   if (ag_fs_nfns == ag_fs_fncap) {
      ag_fs_fncap = ag_fs_fncap ? 2 * ag_fs_fncap : 64;
      ag_fs_fns = VG_(realloc)("ag.fnspec.fns", ag_fs_fns, ag_fs_fncap * sizeof *ag_fs_fns);
   }
   ag_fs_fn *f = &ag_fs_fns[ag_fs_nfns];
   VG_(memset)(f, 0, sizeof *f);
   f->name = VG_(strdup)("ag.fnspec.name", name);
   f->explicit = explicit;
   *slot = ++ag_fs_nfns;
   return (Int)ag_fs_nfns - 1;
}

/* A demangled C++ name without its parameter list ("Account::withdraw"
   for "Account::withdraw(int) const") into buf; False if it has none. */
static Bool ag_fs_unparamed(const HChar *name, HChar *buf, SizeT n)
{
   const HChar *close = VG_(strrchr)(name, ')');
   Int depth = 0;
   if (!close || (name[0] == '(' && !ag_fs_anonymous(name, name))) return False;
   for (const HChar *c = close; c >= name; c--) {
      if (*c == ')') depth++;
      else if (*c == '(' && --depth == 0) {
         SizeT len = c - name;
         if (len == 0 || len >= n) return False;
         VG_(memcpy)(buf, name, len);
         buf[len] = 0;
         return True;
      }
   }
   return False;
}

/* A demangled name without the compiler's clone suffixes ("f(int)" for
   "f(int) [clone .isra.0] [clone .constprop.0]") into buf; False if it
   has none. */
static Bool ag_fs_uncloned(const HChar *name, HChar *buf, SizeT n)
{
   SizeT len = VG_(strlen)(name);
   const HChar *c;
   Bool any = False;
   while (len > 0 && name[len - 1] == ']') {
      for (c = name + len - 1; c > name && *c != '['; c--) {}
      if (c < name + 1 || c[-1] != ' ' || VG_(strncmp)(c, "[clone ", 7) != 0) break;
      len = c - 1 - name;
      any = True;
   }
   if (!any || len == 0 || len >= n) return False;
   VG_(memcpy)(buf, name, len);
   buf[len] = 0;
   return True;
}

/* A pattern matches a function's name, or (C++) its name without the
   parameter list, or without clone suffixes; 'explicit' when it is one of
   them exactly.  A literal pattern (ag_fs_literal) only so. */
static Bool ag_fs_names(const ag_fs_pattern *p, const HChar *name, const HChar *bare,
                        Bool *explicit)
{
   HChar buf[256];
   const HChar *plain = ag_fs_uncloned(name, buf, sizeof buf) ? buf : NULL;
   const HChar *pat = p->pat + (p->rooted ? 2 : 0);
   if (VG_STREQ(pat, name) || (bare && VG_STREQ(pat, bare)) || (plain && VG_STREQ(pat, plain))) {
      *explicit = True;
      return True;
   }
   return !p->literal
          && (VG_(string_match)(pat, name) || (bare && VG_(string_match)(pat, bare)));
}

/* The standard library's own names, which a pattern names only from
   their outermost scope on ("std::*"). */
static Bool ag_fs_std(const HChar *name)
{
   return name[0] == '_' || VG_(strncmp)(name, "std::", 5) == 0;
}

/* Matches name, or one of its inner scopes (ag_fs_names_scoped). */
static Bool ag_fs_names_in_scopes(const ag_fs_pattern *p, const HChar *name, const HChar *bare,
                                  Bool *explicit)
{
   if (ag_fs_names(p, name, bare, explicit)) return True;
   if (p->rooted || ag_fs_std(name)) return False;
   for (const HChar *s = ag_fs_inner_scope(name); s; s = ag_fs_inner_scope(s)) {
      HChar buf[256];
      if (ag_fs_names(p, s, ag_fs_unparamed(s, buf, sizeof buf) ? buf : NULL, explicit))
         return True;
   }
   return False;
}

/* A C++ name as it is declared, into buf: without a function template's
   return type and (unless args) without template arguments before the
   parameter list ("ds::Stack::push(int)" for "ds::Stack<int>::push(int)",
   "get(int*)" or "get<int>(int*)" for "int get<int>(int*)"); False if it
   has none of these. */
static Bool ag_fs_declared(const HChar *name, HChar *buf, SizeT n, Bool args)
{
   const HChar *c = name, *start = name;
   Int angle = 0;
   for (; *c && !(*c == '(' && angle == 0 && !ag_fs_anonymous(c, name)); c++) {
      if (ag_fs_operator(c, name)) break;
      if (ag_fs_anonymous(c, name)) c = VG_(strchr)(c, ')');
      if (*c == '<') angle++;
      else if (*c == '>' && angle > 0) angle--;
      else if (*c == ' ' && angle == 0) start = c + 1;   /* after a return type */
   }
   SizeT used = 0;
   angle = 0;
   for (c = start; *c && used + 1 < n; c++) {
      if (ag_fs_anonymous(c, start)) {
         const HChar *close = VG_(strchr)(c, ')');
         SizeT len = close + 1 - c;
         if (used + len >= n) return False;
         VG_(memcpy)(buf + used, c, len);
         used += len;
         c = close;
         continue;
      }
      Bool named = ag_fs_operator(c, start) || *c == '(';
      if (named && angle == 0) {                 /* the rest as it is */
         SizeT rest = VG_(strlen)(c);
         if (used + rest >= n) return False;
         VG_(memcpy)(buf + used, c, rest);
         used += rest;
         break;
      }
      if (*c == '<') angle++;
      else if (*c == '>' && angle > 0) angle--;
      else if (angle == 0) buf[used++] = *c;
      if (args && (angle > 0 || *c == '>')) buf[used++] = *c;
   }
   buf[used] = 0;
   return used > 0 && VG_(strcmp)(buf, name) != 0;
}

/* A pattern matches a C++ name also from any of its scopes on, as gdb
   finds a function, and without template arguments unless it gives some:
   "withdraw", "Account::withdraw" and "bank::Account::withdraw" name
   "bank::Account::withdraw(int)", and "Stack::push" names
   "ds::Stack<int>::push(int)", so that one pattern names a function
   whether the compiler inlined it or not.  Not inside the standard
   library (from "std::" on only), nor for a pattern that starts with
   "::" (the global scope's). */
static Bool ag_fs_names_scoped(const ag_fs_pattern *p, const HChar *name, const HChar *bare,
                               Bool *explicit)
{
   if (ag_fs_names_in_scopes(p, name, bare, explicit)) return True;
   for (Int args = 1; args >= 0; args--) {
      HChar decl[256], buf[256];
      if (ag_fs_declared(name, decl, sizeof decl, args)
          && ag_fs_names_in_scopes(p, decl, ag_fs_unparamed(decl, buf, sizeof buf) ? buf : NULL,
                                   explicit))
         return True;
   }
   return False;
}

/* The function called name, with code at a, if a pattern makes it atomic. */
static Int ag_fs_match_name(const HChar *name, Addr a)
{
   const HChar *bare = NULL;
   HChar buf[256];
   Bool included = False, explicit = False;
   if (ag_fs_unparamed(name, buf, sizeof buf)) bare = buf;
   for (UInt i = 0; i < ag_fs_npats; i++) {
      const ag_fs_pattern *p = &ag_fs_pats[i];
      Bool m = p->all ? ag_fs_in_scope(a) : ag_fs_names_scoped(p, name, bare, &explicit);
      if (!m) continue;
      if (p->exclude) return AG_NO_FN;
      included = True;
   }
   if (!included || (!explicit && ag_fs_not_the_programs(name))) return AG_NO_FN;
   return ag_fs_intern(name, explicit);
}

/* *memo's slot for name, or NULL when answers depend on the address. */
static UInt *ag_fs_memo_slot(ag_map **memo, const HChar *name)
{
   if (ag_fs_any_all) return NULL;
   if (!*memo) *memo = ag_map_new(sizeof(UInt));
   return ag_map_lookup(*memo, ag_fs_hash(name), NULL);
}

Int ag_fnspec_match_name(const HChar *name, Addr a)
{
   if (ag_fs_npats == 0) return AG_NO_FN;
   UInt *m = ag_fs_memo_slot(&ag_fs_match_memo, name);
   if (m && *m) return (Int)*m - 2;
   Int fn = ag_fs_match_name(name, a);
   if (m) *m = (UInt)(fn + 2);
   return fn;
}

static Bool ag_fs_last_matches(const ag_fs_pattern *p, const HChar *last)
{
   return p->literal ? VG_STREQ(p->last, last) : VG_(string_match)(p->last, last);
}

static Bool ag_fs_may_name(const HChar *last, Addr a)
{
   HChar buf[256];
   const HChar *plain = ag_fs_declared(last, buf, sizeof buf, False) ? buf : NULL;  /* get<int> */
   for (UInt i = 0; i < ag_fs_npats; i++) {
      const ag_fs_pattern *p = &ag_fs_pats[i];
      if (p->all ? ag_fs_in_scope(a)
                 : ag_fs_last_matches(p, last) || (plain && ag_fs_last_matches(p, plain)))
         return True;
   }
   return False;
}

Bool ag_fnspec_may_name(const HChar *last, Addr a)
{
   UInt *m = ag_fs_memo_slot(&ag_fs_may_memo, last);
   if (m && *m) return *m == 2 + True;
   Bool may = ag_fs_may_name(last, a);
   if (m) *m = 2 + may;
   return may;
}

Int ag_fnspec_match(Addr a)
{
   const HChar *name;
   if (ag_fs_npats == 0) return AG_NO_FN;
   if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name)) return AG_NO_FN;
   return ag_fnspec_match_name(name, a);
}

Bool ag_fnspec_atomic(Int fn) { return !ag_fs_fns[fn].dropped; }
Bool ag_fnspec_explicit(Int fn) { return ag_fs_fns[fn].explicit; }
const HChar *ag_fnspec_name(Int fn) { return ag_fs_fns[fn].name; }
void ag_fnspec_start_routine(Int fn) { ag_fs_fns[fn].start_routine = True; }

static Bool ag_fs_unnamed;           /* ag_fnspec_unnamed_inline was called */
void ag_fnspec_unnamed_inline(void) { ag_fs_unnamed = True; }

void ag_fnspec_entered(Int fn, ULong site)
{
   ag_fs_fns[fn].entered = True;
   if (site) *(UInt *)ag_map_lookup(ag_fs_by_site, site, NULL) = (UInt)fn + 1;
}

Int ag_fnspec_of_site(ULong site)
{
   if (!ag_fs_by_site || !site) return AG_NO_FN;
   UInt *f = ag_map_get(ag_fs_by_site, site);
   return f ? (Int)*f - 1 : AG_NO_FN;
}

/* ---- inference ---------------------------------------------------- */

Bool ag_fnspec_inferring(void) { return ag_clo_infer_spec != NULL; }

Bool ag_fnspec_drop(Int fn, const HChar *why)
{
   if (!ag_clo_infer_spec || fn == AG_NO_FN || ag_fs_fns[fn].dropped) return False;
   ag_fs_fns[fn].dropped = True;
   ag_fs_fns[fn].why = VG_(strdup)("ag.fnspec.why", why);
   return True;
}

static void ag_fs_put(Int fd, const HChar *s)
{
   VG_(write)(fd, s, VG_(strlen)(s));
}

/* "#   " before each line of a multi-line text. */
static void ag_fs_put_comment(Int fd, const HChar *text)
{
   const HChar *s = text;
   while (*s) {
      const HChar *nl = VG_(strchr)(s, '\n');
      SizeT n = nl ? (SizeT)(nl - s) : VG_(strlen)(s);
      ag_fs_put(fd, "#   ");
      VG_(write)(fd, s, n);
      ag_fs_put(fd, "\n");
      s += n + (nl != NULL);
   }
}

/* Still atomic: functions whose calls were regions, and functions named
   explicitly; never one that was only seen as a start routine (the next
   run would make it atomic by naming it). */
static Bool ag_fs_keeps(const ag_fs_fn *f)
{
   return !f->dropped && (f->explicit || (f->entered && !f->start_routine));
}

/* ---- patterns that checked nothing ------------------------------- */

/* Core-private, but linkable: the symbol table of an object.  SymAVMAs is
   one address on amd64. */
typedef struct { Addr main; } ag_fs_avmas;
extern Int VG_(DebugInfo_syms_howmany)(const DebugInfo *di);
extern void VG_(DebugInfo_syms_getidx)(const DebugInfo *di, Int idx, ag_fs_avmas *ad,
                                       UInt *size, const HChar **pri_name,
                                       const HChar ***sec_names, Bool *isText,
                                       Bool *isIFunc, Bool *isGlobal);

/* A function the pattern names, in any object's symbol table (a C++
   symbol is mangled there: demangled, as Valgrind names the function). */
static const HChar *ag_fs_defined(const ag_fs_pattern *p)
{
   for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
      Int n = VG_(DebugInfo_syms_howmany)(di);
      for (Int i = 0; i < n; i++) {
         const HChar *name;
         HChar buf[256];
         Bool text = False, ifunc, global, expl = False;
         VG_(DebugInfo_syms_getidx)(di, i, NULL, NULL, &name, NULL, &text, &ifunc, &global);
         if (!text || !name) continue;
         const HChar *d = name[0] == '_' && name[1] == 'Z' ? ag_lto_demangle(name) : name;
         if (ag_fs_names_scoped(p, d, ag_fs_unparamed(d, buf, sizeof buf) ? buf : NULL, &expl))
            return name;
      }
   }
   return NULL;
}

/* Each pattern under which no region ran, with the reason: a function it
   matched ran only as a thread's start routine, or it names a function
   that was never called, or no function at all. */
static void ag_fs_report_patterns(void)
{
   if (VG_(clo_verbosity) < 1) return;
   for (UInt i = 0; i < ag_fs_npats; i++) {
      const ag_fs_pattern *p = &ag_fs_pats[i];
      Bool ran = False, start = False, expl = False;
      if (p->exclude) continue;
      for (UInt j = 0; j < ag_fs_nfns && !ran; j++) {
         HChar buf[256];
         const ag_fs_fn *f = &ag_fs_fns[j];
         const HChar *bare = ag_fs_unparamed(f->name, buf, sizeof buf) ? buf : NULL;
         if (!p->all && !ag_fs_names_scoped(p, f->name, bare, &expl)) continue;
         ran |= f->entered;
         start |= f->start_routine;
      }
      if (ran) continue;
      if (start) {
         VG_(umsg)("atomgrind: %s: '%s' checked nothing: what it names ran only as a "
                   "thread's start routine (name the function exactly to check it)\n",
                   p->from, p->pat);
      } else if (p->all) {
         VG_(umsg)("atomgrind: %s: 'all' checked nothing: no function of the program "
                   "(or of --atomic-objs) ran\n", p->from);
      } else {
         const HChar *def = ag_fs_defined(p);
         if (def)
            VG_(umsg)("atomgrind: %s: '%s' checked nothing: %s is defined but was never "
                      "called\n", p->from, p->pat, def);
         else if (ag_fs_unnamed)
            VG_(umsg)("atomgrind: %s: '%s' checked nothing: no such function among those "
                      "the debug info names; some code that ran is inlined from functions "
                      "whose names Valgrind cannot read (link-time optimisation keeps them "
                      "in another unit)%s%s: build without -flto, or mark the region in the "
                      "source\n", p->from, p->pat, *ag_lto_failure() ? " and " : "",
                      ag_lto_failure());
         else
            VG_(umsg)("atomgrind: %s: '%s' checked nothing: no such function\n",
                      p->from, p->pat);
      }
   }
}

void ag_fnspec_fini(void)
{
   UInt kept = 0, dropped = 0, entered = 0;
   HChar line[256];
   ag_fs_report_patterns();
   if (!ag_clo_infer_spec) return;
   for (UInt i = 0; i < ag_fs_nfns; i++) {
      kept += ag_fs_keeps(&ag_fs_fns[i]);
      dropped += ag_fs_fns[i].dropped;
      entered += ag_fs_fns[i].entered || ag_fs_fns[i].explicit;
   }
   SysRes r = VG_(open)(ag_clo_infer_spec, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
   if (sr_isError(r)) {
      VG_(umsg)("atomgrind: cannot write --infer-spec file '%s'\n", ag_clo_infer_spec);
      return;
   }
   Int fd = (Int)sr_Res(r);
   ag_fs_put(fd, "# atomgrind atomic-function spec, refined by --infer-spec\n");
   VG_(snprintf)(line, sizeof line, "# functions: %u at start, %u atomic, %u dropped\n",
                 entered, kept, dropped);
   ag_fs_put(fd, line);
   for (UInt i = 0; i < ag_fs_nfns; i++)
      if (ag_fs_keeps(&ag_fs_fns[i])) {
         ag_fs_put(fd, ag_fs_fns[i].name);
         ag_fs_put(fd, "\n");
      }
   for (UInt i = 0; i < ag_fs_nfns; i++)
      if (ag_fs_fns[i].dropped) {
         VG_(snprintf)(line, sizeof line, "# dropped: %s\n", ag_fs_fns[i].name);
         ag_fs_put(fd, line);
         ag_fs_put_comment(fd, ag_fs_fns[i].why);
      }
   VG_(close)(fd);
   VG_(umsg)("atomgrind: --infer-spec: %u function(s) atomic, %u dropped; "
             "spec written to %s\n", kept, dropped, ag_clo_infer_spec);
}
