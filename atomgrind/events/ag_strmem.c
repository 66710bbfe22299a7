/* ag_strmem.c -- the preload library's string functions: glibc's, as
 * plain byte loops that read no byte past the string's end.
 *
 * glibc's strlen, strcmp, strchrnul ... read 16, 32 or 64 aligned bytes
 * at a time and stop at the chunk that holds the terminating NUL, so they
 * read bytes after it: another block's, which another thread may be
 * writing.  The program never reads those bytes, and a report on them is
 * false (a read-only name beside a count that another thread updates:
 * tests/progs/race_strings.c; C++ locale and filesystem code).  Memcheck,
 * Helgrind and DRD replace the same functions for the same reason.
 *
 * strspn, strcspn, strpbrk and strstr (SSE4.2's 16-byte reads), the
 * case-insensitive comparisons (strcasecmp, strncasecmp and their _l
 * forms), the n-bounded copies (strncpy, stpncpy, strncat) and the
 * wide-character ones (wcslen, wcschr, wcscmp, wmemchr) likewise.
 *
 * Unlike the wrappers of ag_intercepts.c, this code is checked: a race
 * through strlen is the program's race.  ag_objects.c keeps this file's
 * code out of "Valgrind's preloads", and counts it as the C runtime's.
 *
 * Names.  A program's call reaches glibc's IFUNC symbol (strlen), which
 * Valgrind redirects as a whole; libc's own calls go straight to the
 * variant the IFUNC chose (__strlen_avx2 ...), named by libc6-dbg, which
 * Debian's valgrind depends on.  Each function is replaced under its name
 * and its variants' names in glibc 2.36 (the resolvers, __X_ifunc, and
 * the checked __X_chk are not variants).  Built with
 * -fno-tree-loop-distribute-patterns, so that GCC does not turn a loop
 * back into a call of the function it replaces. */
#define _GNU_SOURCE                /* tolower_l, locale_t */
#include <ctype.h>                 /* tolower, tolower_l: the locale's case */
#include <locale.h>                /* locale_t */
#include <stddef.h>                /* size_t, NULL */

typedef unsigned char ag_uc;

/* libc's `name`, replaced by ag_sm_<fn>(args): _vgr<tag>ZU_<soname>_<name>,
   the soname "libc.so*" Z-encoded (pub_tool_redir.h, whose config.h
   clashes with ours) */
#define AG_SM_NAME(tag, name) _vgr##tag##ZU_libcZdsoZa_##name
#define AG_SM_AS(tag, name, fn, ret, params, args) \
   ret AG_SM_NAME(tag, name) params; \
   ret AG_SM_NAME(tag, name) params { return ag_sm_##fn args; }

/* The function under its own name and the variants all of them have. */
#define AG_SM_BASE(tag, fn, ...) \
   AG_SM_AS(tag, fn, fn, __VA_ARGS__) \
   AG_SM_AS(tag, __##fn##_sse2, fn, __VA_ARGS__) \
   AG_SM_AS(tag, __##fn##_avx2, fn, __VA_ARGS__) \
   AG_SM_AS(tag, __##fn##_avx2_rtm, fn, __VA_ARGS__) \
   AG_SM_AS(tag, __##fn##_evex, fn, __VA_ARGS__)

static size_t ag_sm_strnlen(const char *s, size_t m)
{
   size_t n = 0;
   while (n < m && s[n]) n++;
   return n;
}

static size_t ag_sm_strlen(const char *s) { return ag_sm_strnlen(s, (size_t)-1); }

static int ag_sm_strcmp(const char *a, const char *b)
{
   const ag_uc *x = (const ag_uc *)a, *y = (const ag_uc *)b;
   while (*x && *x == *y) x++, y++;
   return *x - *y;
}

static int ag_sm_strncmp(const char *a, const char *b, size_t n)
{
   const ag_uc *x = (const ag_uc *)a, *y = (const ag_uc *)b;
   for (; n; n--, x++, y++)
      if (!*x || *x != *y) return *x - *y;
   return 0;
}

static char *ag_sm_strchrnul(const char *s, int c)
{
   while (*s && *s != (char)c) s++;
   return (char *)s;
}

static char *ag_sm_stpcpy(char *d, const char *s)
{
   while ((*d = *s)) d++, s++;
   return d;
}

static char *ag_sm_strchr(const char *s, int c)
{
   const char *p = ag_sm_strchrnul(s, c);
   return *p == (char)c ? (char *)p : NULL;
}

static char *ag_sm_strrchr(const char *s, int c)
{
   const char *last = NULL;
   for (;; s++) {
      if (*s == (char)c) last = s;
      if (!*s) return (char *)last;
   }
}

static void *ag_sm_memchr(const void *s, int c, size_t n)
{
   const ag_uc *p = s;
   for (; n; n--, p++)
      if (*p == (ag_uc)c) return (void *)p;
   return NULL;
}

static void *ag_sm_rawmemchr(const void *s, int c)
{
   const ag_uc *p = s;
   while (*p != (ag_uc)c) p++;
   return (void *)p;
}

static char *ag_sm_strcpy(char *d, const char *s)
{
   ag_sm_stpcpy(d, s);
   return d;
}

static char *ag_sm_strcat(char *d, const char *s)
{
   ag_sm_stpcpy(d + ag_sm_strlen(d), s);
   return d;
}

/* Is c one of set's characters (not its NUL)? */
static int ag_sm_in(const char *set, char c)
{
   for (; *set; set++)
      if (*set == c) return 1;
   return 0;
}

static size_t ag_sm_strspn(const char *s, const char *accept)
{
   size_t n = 0;
   while (s[n] && ag_sm_in(accept, s[n])) n++;
   return n;
}

static size_t ag_sm_strcspn(const char *s, const char *reject)
{
   size_t n = 0;
   while (s[n] && !ag_sm_in(reject, s[n])) n++;
   return n;
}

static char *ag_sm_strpbrk(const char *s, const char *accept)
{
   s += ag_sm_strcspn(s, accept);
   return *s ? (char *)s : NULL;
}

static char *ag_sm_strstr(const char *h, const char *n)
{
   for (;; h++) {
      size_t i = 0;
      while (n[i] && h[i] == n[i]) i++;
      if (!n[i]) return (char *)h;
      if (!*h) return NULL;
   }
}

/* Case-insensitive comparisons fold with the locale's tolower, as glibc
   does (libc's table: read-only); loc NULL: the thread's locale. */
static int ag_sm_fold(ag_uc c, locale_t loc) { return loc ? tolower_l(c, loc) : tolower(c); }

static int ag_sm_strncasecmp_l(const char *a, const char *b, size_t n, locale_t loc)
{
   const ag_uc *x = (const ag_uc *)a, *y = (const ag_uc *)b;
   for (; n; n--, x++, y++) {
      int fx = ag_sm_fold(*x, loc), fy = ag_sm_fold(*y, loc);
      if (!*x || fx != fy) return fx - fy;
   }
   return 0;
}

static int ag_sm_strcasecmp_l(const char *a, const char *b, locale_t loc)
{
   return ag_sm_strncasecmp_l(a, b, (size_t)-1, loc);
}

static int ag_sm_strcasecmp(const char *a, const char *b) { return ag_sm_strcasecmp_l(a, b, NULL); }

static int ag_sm_strncasecmp(const char *a, const char *b, size_t n)
{
   return ag_sm_strncasecmp_l(a, b, n, NULL);
}

/* The n-bounded copies read the source up to its NUL only, and write
   the NULs that pad d to n bytes (strncpy, stpncpy) */
static char *ag_sm_stpncpy(char *d, const char *s, size_t n)
{
   size_t i = 0;
   for (; i < n && s[i]; i++) d[i] = s[i];
   char *end = d + i;
   for (; i < n; i++) d[i] = 0;
   return end;
}

static char *ag_sm_strncpy(char *d, const char *s, size_t n)
{
   ag_sm_stpncpy(d, s, n);
   return d;
}

static char *ag_sm_strncat(char *d, const char *s, size_t n)
{
   char *e = d + ag_sm_strlen(d);
   size_t i = 0;
   for (; i < n && s[i]; i++) e[i] = s[i];
   e[i] = 0;
   return d;
}

typedef __WCHAR_TYPE__ ag_wc;       /* wchar_t, without <wchar.h> */

static size_t ag_sm_wcsnlen(const ag_wc *s, size_t m)
{
   size_t n = 0;
   while (n < m && s[n]) n++;
   return n;
}

static size_t ag_sm_wcslen(const ag_wc *s) { return ag_sm_wcsnlen(s, (size_t)-1); }

static ag_wc *ag_sm_wcschr(const ag_wc *s, ag_wc c)
{
   for (;; s++) {
      if (*s == c) return (ag_wc *)s;
      if (!*s) return NULL;
   }
}

static int ag_sm_wcscmp(const ag_wc *a, const ag_wc *b)
{
   while (*a && *a == *b) a++, b++;
   return *a < *b ? -1 : *a > *b;
}

static ag_wc *ag_sm_wmemchr(const ag_wc *s, ag_wc c, size_t n)
{
   for (; n; n--, s++)
      if (*s == c) return (ag_wc *)s;
   return NULL;
}

typedef const char *ag_cs;
typedef const ag_wc *ag_ws;

/* tag, name, [the function,] type, parameters, arguments */
AG_SM_BASE(20010, strlen, size_t, (ag_cs s), (s))
AG_SM_AS(20010, __strlen_evex512, strlen, size_t, (ag_cs s), (s))
AG_SM_BASE(20020, strnlen, size_t, (ag_cs s, size_t m), (s, m))
AG_SM_AS(20020, __strnlen_evex512, strnlen, size_t, (ag_cs s, size_t m), (s, m))
AG_SM_BASE(20030, strcmp, int, (ag_cs a, ag_cs b), (a, b))
AG_SM_AS(20030, __strcmp_sse2_unaligned, strcmp, int, (ag_cs a, ag_cs b), (a, b))
AG_SM_AS(20030, __strcmp_sse42, strcmp, int, (ag_cs a, ag_cs b), (a, b))
AG_SM_BASE(20040, strncmp, int, (ag_cs a, ag_cs b, size_t n), (a, b, n))
AG_SM_AS(20040, __strncmp_sse42, strncmp, int, (ag_cs a, ag_cs b, size_t n), (a, b, n))
AG_SM_BASE(20050, strchrnul, char *, (ag_cs s, int c), (s, c))
AG_SM_BASE(20060, strchr, char *, (ag_cs s, int c), (s, c))
AG_SM_AS(20060, __strchr_sse2_no_bsf, strchr, char *, (ag_cs s, int c), (s, c))
AG_SM_BASE(20070, strrchr, char *, (ag_cs s, int c), (s, c))
AG_SM_BASE(20080, memchr, void *, (const void *s, int c, size_t n), (s, c, n))
AG_SM_AS(20080, __memchr_evex_rtm, memchr, void *, (const void *s, int c, size_t n), (s, c, n))
AG_SM_BASE(20090, rawmemchr, void *, (const void *s, int c), (s, c))
AG_SM_AS(20090, __rawmemchr_evex_rtm, rawmemchr, void *, (const void *s, int c), (s, c))
AG_SM_BASE(20100, stpcpy, char *, (char *d, ag_cs s), (d, s))
AG_SM_AS(20100, __stpcpy_sse2_unaligned, stpcpy, char *, (char *d, ag_cs s), (d, s))
AG_SM_BASE(20110, strcpy, char *, (char *d, ag_cs s), (d, s))
AG_SM_AS(20110, __strcpy_sse2_unaligned, strcpy, char *, (char *d, ag_cs s), (d, s))
AG_SM_BASE(20120, strcat, char *, (char *d, ag_cs s), (d, s))
AG_SM_AS(20120, __strcat_sse2_unaligned, strcat, char *, (char *d, ag_cs s), (d, s))
AG_SM_BASE(20130, wcslen, size_t, (ag_ws s), (s))
AG_SM_AS(20130, __wcslen_sse4_1, wcslen, size_t, (ag_ws s), (s))
AG_SM_AS(20130, __wcslen_evex512, wcslen, size_t, (ag_ws s), (s))
AG_SM_BASE(20140, wcsnlen, size_t, (ag_ws s, size_t m), (s, m))
AG_SM_AS(20140, __wcsnlen_sse4_1, wcsnlen, size_t, (ag_ws s, size_t m), (s, m))
AG_SM_AS(20140, __wcsnlen_evex512, wcsnlen, size_t, (ag_ws s, size_t m), (s, m))
AG_SM_BASE(20150, wcschr, ag_wc *, (ag_ws s, ag_wc c), (s, c))
AG_SM_BASE(20160, wcscmp, int, (ag_ws a, ag_ws b), (a, b))
AG_SM_BASE(20170, wmemchr, ag_wc *, (ag_ws s, ag_wc c, size_t n), (s, c, n))
AG_SM_AS(20170, __wmemchr_evex_rtm, wmemchr, ag_wc *, (ag_ws s, ag_wc c, size_t n), (s, c, n))
/* (their variants are SSE4.2's and the generic C; __strcspn_c1 ... take
   other arguments) */
AG_SM_AS(20180, strspn, strspn, size_t, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20180, __strspn_sse42, strspn, size_t, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20180, __strspn_generic, strspn, size_t, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20190, strcspn, strcspn, size_t, (ag_cs s, ag_cs r), (s, r))
AG_SM_AS(20190, __strcspn_sse42, strcspn, size_t, (ag_cs s, ag_cs r), (s, r))
AG_SM_AS(20190, __strcspn_generic, strcspn, size_t, (ag_cs s, ag_cs r), (s, r))
AG_SM_AS(20200, strpbrk, strpbrk, char *, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20200, __strpbrk_sse42, strpbrk, char *, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20200, __strpbrk_generic, strpbrk, char *, (ag_cs s, ag_cs a), (s, a))
AG_SM_AS(20210, strstr, strstr, char *, (ag_cs h, ag_cs n), (h, n))
AG_SM_AS(20210, __strstr_sse2_unaligned, strstr, char *, (ag_cs h, ag_cs n), (h, n))
AG_SM_AS(20210, __strstr_avx512, strstr, char *, (ag_cs h, ag_cs n), (h, n))
AG_SM_AS(20210, __strstr_generic, strstr, char *, (ag_cs h, ag_cs n), (h, n))
AG_SM_BASE(20220, strcasecmp, int, (ag_cs a, ag_cs b), (a, b))
AG_SM_AS(20220, __strcasecmp_sse42, strcasecmp, int, (ag_cs a, ag_cs b), (a, b))
AG_SM_BASE(20230, strncasecmp, int, (ag_cs a, ag_cs b, size_t n), (a, b, n))
AG_SM_AS(20230, __strncasecmp_sse42, strncasecmp, int, (ag_cs a, ag_cs b, size_t n), (a, b, n))
AG_SM_BASE(20240, strcasecmp_l, int, (ag_cs a, ag_cs b, locale_t l), (a, b, l))
AG_SM_AS(20240, __strcasecmp_l_sse42, strcasecmp_l, int, (ag_cs a, ag_cs b, locale_t l), (a, b, l))
AG_SM_AS(20240, __strcasecmp_l_nonascii, strcasecmp_l, int, (ag_cs a, ag_cs b, locale_t l),
         (a, b, l))
AG_SM_BASE(20250, strncasecmp_l, int, (ag_cs a, ag_cs b, size_t n, locale_t l), (a, b, n, l))
AG_SM_AS(20250, __strncasecmp_l_sse42, strncasecmp_l, int, (ag_cs a, ag_cs b, size_t n, locale_t l),
         (a, b, n, l))
AG_SM_AS(20250, __strncasecmp_l_nonascii, strncasecmp_l, int,
         (ag_cs a, ag_cs b, size_t n, locale_t l), (a, b, n, l))
AG_SM_BASE(20260, strncpy, char *, (char *d, ag_cs s, size_t n), (d, s, n))
AG_SM_AS(20260, __strncpy_sse2_unaligned, strncpy, char *, (char *d, ag_cs s, size_t n), (d, s, n))
AG_SM_BASE(20270, stpncpy, char *, (char *d, ag_cs s, size_t n), (d, s, n))
AG_SM_AS(20270, __stpncpy_sse2_unaligned, stpncpy, char *, (char *d, ag_cs s, size_t n), (d, s, n))
AG_SM_BASE(20280, strncat, char *, (char *d, ag_cs s, size_t n), (d, s, n))
AG_SM_AS(20280, __strncat_sse2_unaligned, strncat, char *, (char *d, ag_cs s, size_t n), (d, s, n))
