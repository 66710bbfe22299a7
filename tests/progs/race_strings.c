/* glibc's string functions read whole chunks (16-64 bytes), past a
 * string's end, into the next fields.  Each item has a name that nobody
 * writes after main set it, and a count beside it.  Thread 1 counts under
 * a mutex; thread 2 runs strlen, strcmp, strchr, strcasecmp, strncpy ...
 * on the names, without the mutex, as the program may: the names are
 * read-only.
 *   clean  the above                                  -> no report
 *   race   thread 1 also writes a byte of item 7's name, and a character
 *          of wide string 9, unlocked, while thread 2 measures them
 *                                                     -> races in strlen, wcslen
 * A 19-character name 16 bytes into a 32-byte line ends in the line whose
 * other bytes are the count: AVX2's 32-byte reads take both. */
#include <strings.h>
#include <wchar.h>
#include "common.h"

#define N 64
struct item {
   long id, spare;
   char name[20];
   int count;
} __attribute__((aligned(32)));
static struct item items[N];
static wchar_t wide[N][8];          /* the same, as wide strings */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int racy;
static volatile size_t sink;

static void *counter(void *arg)
{
   (void)arg;
   for (int r = 0; r < 50; r++)
      for (int i = 0; i < N; i++) {
         pthread_mutex_lock(&mu);
         items[i].count++;
         pthread_mutex_unlock(&mu);
         if (racy && i == 7) items[7].name[1] = 'a' + r % 26;
         if (racy && i == 9) wide[9][1] = L'a' + r % 26;
      }
   return NULL;
}

static void *reader(void *arg)
{
   char buf[48];
   (void)arg;
   for (int r = 0; r < 50; r++)
      for (int i = 0; i < N; i++) {
         const char *s = items[i].name;
         sink += strlen(s) + strnlen(s, 20) + (strcmp(s, "xyz") > 0) + (strncmp(s, "x", 5) > 0);
         sink += (strchr(s, 'q') != NULL) + (strrchr(s, 'x') != NULL) + (memchr(s, 'q', 4) != NULL);
         sink += (size_t)(strchrnul(s, 'q') - s) + (size_t)((char *)rawmemchr(s, 0) - s);
         strcpy(buf, s);
         strcat(buf, "+");
         sink += (size_t)(stpcpy(buf, s) - buf);
         sink += strspn(s, "xyz") + strcspn(s, ";") + (strpbrk(s, ";!") != NULL)
                 + (strstr(s, "zx") != NULL);
         sink += (strcasecmp(s, "ABC") > 0) + (strncasecmp(s, "AB", 5) > 0);
         strncpy(buf, s, 30);
         sink += (size_t)(stpncpy(buf, s, 30) - buf);
         strncat(buf, s, 20);
         const wchar_t *w = wide[i];
         sink += wcslen(w) + wcsnlen(w, 5) + (wcschr(w, L'q') != NULL) + (wcscmp(w, L"xy") > 0)
                 + (wmemchr(w, L'q', 2) != NULL);
      }
   return NULL;
}

int main(int argc, char **argv)
{
   racy = argc > 1 && !strcmp(argv[1], "race");
   for (int i = 0; i < N; i++)
      strcpy(items[i].name, i % 2 ? "abc" : "xyzxyzxyzxyzxyzxyzx");
   for (int i = 0; i < N; i++)
      wcscpy(wide[i], i % 2 ? L"abc" : L"xyzxyzx");
   pthread_t c = spawn(counter, NULL), r = spawn(reader, NULL);
   pthread_join(c, NULL);
   pthread_join(r, NULL);
   printf("%zu\n", sink);
   return 0;
}
