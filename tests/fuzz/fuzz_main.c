/* fuzz_main.c -- replay files through LLVMFuzzerTestOneInput without
 * libFuzzer (for the regression test of the corpus).  Arguments are files
 * or directories (one level). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
   FILE *f = fopen(path, "rb");
   if (!f) { perror(path); return 1; }
   size_t cap = 1 << 16, n = 0;
   uint8_t *buf = malloc(cap);
   size_t got;
   while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
      n += got;
      if (n == cap) buf = realloc(buf, cap *= 2);
   }
   fclose(f);
   LLVMFuzzerTestOneInput(buf, n);
   free(buf);
   return 0;
}

int main(int argc, char **argv)
{
   int files = 0, bad = 0;
   for (int i = 1; i < argc; i++) {
      struct stat sb;
      if (stat(argv[i], &sb) != 0) { perror(argv[i]); bad++; continue; }
      if (!S_ISDIR(sb.st_mode)) { bad += run_file(argv[i]); files++; continue; }
      DIR *d = opendir(argv[i]);
      struct dirent *de;
      while (d && (de = readdir(d))) {
         if (de->d_name[0] == '.') continue;
         char p[4096];
         snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
         if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) { bad += run_file(p); files++; }
      }
      if (d) closedir(d);
   }
   printf("fuzz_main: %d inputs replayed\n", files);
   return bad != 0;
}
