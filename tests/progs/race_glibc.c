/* race_glibc.c -- glibc's own benign races, from two threads at once:
 * NSS lookups (getpwuid_r, getgrgid_r: the nscd retry counter) and the
 * first wide-character conversions of a locale (mbstowcs, wcstombs:
 * the converters' double-checked loading).  --check=races: clean. */
#include <grp.h>
#include <locale.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static void *lookups(void *arg)
{
   long n = 0;
   for (int i = 0; i < 10; i++) {
      struct passwd pw, *pr;
      struct group gr, *gp;
      char buf[4096];
      wchar_t wide[16];
      char narrow[16];
      n += getpwuid_r(0, &pw, buf, sizeof buf, &pr) == 0 && pr != NULL;
      n += getgrgid_r(0, &gr, buf, sizeof buf, &gp) == 0 && gp != NULL;
      n += mbstowcs(wide, "atomgrind", 16) == 9;
      n += wcstombs(narrow, wide, sizeof narrow) == 9;
   }
   return (void *)n;
}

int main(void)
{
   setlocale(LC_ALL, "C.UTF-8");
   pthread_t t[2];
   for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, lookups, NULL);
   long n = 0;
   for (int i = 0; i < 2; i++) {
      void *r;
      pthread_join(t[i], &r);
      n += (long)r;
   }
   printf("%ld\n", n);
   return 0;
}
