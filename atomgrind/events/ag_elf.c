/* ag_elf.c -- see ag_elf.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"     /* VG_(memcmp), VG_(strcmp) */
#include "pub_tool_libcfile.h"     /* VG_(read), VG_(lseek) */
#include "pub_tool_mallocfree.h"   /* VG_(malloc), VG_(free) */
#include "pub_tool_vki.h"          /* VKI_SEEK_SET */
#include "ag_elf.h"

/* len bytes at off of file fd into buf; False when short. */
static Bool ag_elf_pread(Int fd, ULong off, void *buf, ULong len)
{
   if (VG_(lseek)(fd, (Off64T)off, VKI_SEEK_SET) != (Off64T)off) return False;
   for (ULong done = 0; done < len;) {
      Int n = VG_(read)(fd, (UChar *)buf + done, (Int)(len - done > (1u << 30) ? (1u << 30) : len - done));
      if (n <= 0) return False;
      done += (ULong)n;
   }
   return True;
}

UChar *ag_elf_section(Int fd, const HChar *name, ULong *len, ULong max)
{
   UChar eh[64];
   if (!ag_elf_pread(fd, 0, eh, 64) || VG_(memcmp)(eh, "\177ELF\2\1", 6) != 0) return NULL;
   ULong shoff = *(ULong *)(eh + 0x28);
   UInt shentsize = *(UShort *)(eh + 0x3a), shnum = *(UShort *)(eh + 0x3c);
   UInt shstrndx = *(UShort *)(eh + 0x3e);
   if (shentsize != 64 || shnum == 0 || shnum > 4096 || shstrndx >= shnum) return NULL;
   UChar *sh = VG_(malloc)("ag.elf.sh", 64 * shnum);
   UChar *res = NULL;
   if (!ag_elf_pread(fd, shoff, sh, 64 * shnum)) goto out;
   UChar *strh = sh + 64 * shstrndx;
   ULong stroff = *(ULong *)(strh + 0x18), strsz = *(ULong *)(strh + 0x20);
   if (strsz > (1u << 20)) goto out;
   HChar *names = VG_(malloc)("ag.elf.names", strsz + 1);
   if (ag_elf_pread(fd, stroff, names, strsz)) {
      names[strsz] = 0;
      for (UInt i = 0; i < shnum && !res; i++) {
         UChar *s = sh + 64 * i;
         UInt nm = *(UInt *)s;
         ULong flags = *(ULong *)(s + 8), off = *(ULong *)(s + 0x18), sz = *(ULong *)(s + 0x20);
         if (nm >= strsz || VG_(strcmp)(names + nm, name) != 0) continue;
         if ((flags & 0x800) || sz == 0 || sz > max) break; /* SHF_COMPRESSED */
         res = VG_(malloc)("ag.elf.sec", sz);
         if (!ag_elf_pread(fd, off, res, sz)) { VG_(free)(res); res = NULL; break; }
         *len = sz;
      }
   }
   VG_(free)(names);
out:
   VG_(free)(sh);
   return res;
}
