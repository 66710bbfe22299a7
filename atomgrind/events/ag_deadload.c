/* ag_deadload.c -- recognising, from its machine code, a load that VEX's
 * optimiser deleted: a `mov` from a global (RIP-relative) whose value the
 * program never uses.  Only RIP-relative operands are decoded: their
 * address is a constant of the instruction.  A load through a register is
 * left alone -- inside an optimised block the guest registers are not
 * exact at that point, and a wrong address would be a false report. */
#include "ag_deadload.h"

Bool ag_deadload_decode(Addr ip, UInt len, Addr *addr, UInt *size)
{
   const UChar *p = (const UChar *)ip, *end = p + len;
   Bool opsize16 = False, rexw = False;
   if (len < 6 || len > 15) return False;
   if (*p == 0x66) { opsize16 = True; p++; }
   if (p < end && (*p & 0xf0) == 0x40) { rexw = (*p & 0x08) != 0; p++; }
   if (p >= end) return False;
   UInt sz;
   switch (*p++) {
   case 0x8b: sz = rexw ? 8 : opsize16 ? 2 : 4; break;     /* mov r, r/m */
   case 0x8a: sz = 1; break;                                 /* mov r8, r/m8 */
   case 0x63: if (!rexw) return False; sz = 4; break;       /* movsxd */
   case 0x0f:
      if (p >= end) return False;
      switch (*p++) {
      case 0xb6: case 0xbe: sz = 1; break;                   /* movzx, movsx r/m8 */
      case 0xb7: case 0xbf: sz = 2; break;                   /* movzx, movsx r/m16 */
      default: return False;
      }
      break;
   default: return False;     /* other prefixes (lock, rep, fs:, gs:), other ops */
   }
   /* ModRM: mod = 00, rm = 101 is [rip + disp32], which must end the
      instruction (no immediate follows for these opcodes) */
   if (p >= end || (*p & 0xc7) != 0x05 || p + 5 != end) return False;
   Int disp = (Int)((UInt)p[1] | (UInt)p[2] << 8 | (UInt)p[3] << 16 | (UInt)p[4] << 24);
   *addr = ip + len + (Long)disp;
   *size = sz;
   return True;
}
