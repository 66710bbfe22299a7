/* test_deadload.c -- ag_deadload_decode (atomgrind/events/ag_deadload.c) on
 * machine code: the RIP-relative loads it must recognise, with their
 * address and size, and what it must leave alone (stores, TLS, loads
 * through registers, locked or longer instructions). */
#include <stdio.h>
#include <string.h>
#include "ag_deadload.h"

static int failures;

static void check(const char *what, const unsigned char *code, unsigned len,
                  int want, long want_off, unsigned want_size)
{
   Addr a = 0;
   UInt size = 0;
   int got = ag_deadload_decode((Addr)code, len, &a, &size);
   if (got != want || (want && (a != (Addr)code + len + want_off || size != want_size))) {
      printf("FAIL %s: got %d addr %+ld size %u\n", what, got, (long)(a - (Addr)code - len), size);
      failures++;
   }
}

int main(void)
{
   /* the loads, each reading [rip + disp] from the next instruction */
   static const unsigned char mov32[] = { 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char mov64[] = { 0x48, 0x8b, 0x05, 0xf0, 0xff, 0xff, 0xff };
   static const unsigned char mov16[] = { 0x66, 0x8b, 0x0d, 0x00, 0x01, 0x00, 0x00 };
   static const unsigned char mov8[] = { 0x8a, 0x05, 0x04, 0x00, 0x00, 0x00 };
   static const unsigned char mov8r[] = { 0x44, 0x8a, 0x05, 0x04, 0x00, 0x00, 0x00 };
   static const unsigned char movzb[] = { 0x0f, 0xb6, 0x05, 0x08, 0x00, 0x00, 0x00 };
   static const unsigned char movsw[] = { 0x48, 0x0f, 0xbf, 0x15, 0x08, 0x00, 0x00, 0x00 };
   static const unsigned char movsxd[] = { 0x48, 0x63, 0x05, 0x20, 0x00, 0x00, 0x00 };
   check("mov eax, [rip+16]", mov32, sizeof mov32, 1, 16, 4);
   check("mov rax, [rip-16]", mov64, sizeof mov64, 1, -16, 8);
   check("mov cx, [rip+256]", mov16, sizeof mov16, 1, 256, 2);
   check("mov al, [rip+4]", mov8, sizeof mov8, 1, 4, 1);
   check("mov r8b, [rip+4]", mov8r, sizeof mov8r, 1, 4, 1);
   check("movzx eax, byte [rip+8]", movzb, sizeof movzb, 1, 8, 1);
   check("movsx rdx, word [rip+8]", movsw, sizeof movsw, 1, 8, 2);
   check("movsxd rax, [rip+32]", movsxd, sizeof movsxd, 1, 32, 4);

   /* not loads from a constant address */
   static const unsigned char store[] = { 0x89, 0x05, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char storei[] = { 0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 };
   static const unsigned char tls[] = { 0x64, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char tlsrip[] = { 0x64, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char viareg[] = { 0x8b, 0x45, 0xf8, 0x90, 0x90, 0x90 };
   static const unsigned char sib[] = { 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char regreg[] = { 0x48, 0x8b, 0xc3, 0x90, 0x90, 0x90 };
   static const unsigned char locked[] = { 0xf0, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 };
   static const unsigned char longer[] = { 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00, 0x90 };
   static const unsigned char movsxd32[] = { 0x63, 0x05, 0x20, 0x00, 0x00, 0x00 };
   check("store", store, sizeof store, 0, 0, 0);
   check("store imm", storei, sizeof storei, 0, 0, 0);
   check("fs: absolute", tls, sizeof tls, 0, 0, 0);
   check("fs: rip", tlsrip, sizeof tlsrip, 0, 0, 0);
   check("[rbp-8]", viareg, 3, 0, 0, 0);
   check("[abs32] via SIB", sib, sizeof sib, 0, 0, 0);
   check("register to register", regreg, 3, 0, 0, 0);
   check("lock prefix", locked, sizeof locked, 0, 0, 0);
   check("length disagrees", longer, sizeof longer, 0, 0, 0);
   check("movsxd without REX.W", movsxd32, sizeof movsxd32, 0, 0, 0);
   printf("%s\n", failures ? "FAILED" : "ok");
   return failures != 0;
}
