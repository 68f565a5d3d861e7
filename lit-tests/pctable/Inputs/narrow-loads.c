/* Atomic loads of 8, 16 and 32 bits whose value is zero-extended: on
   x86_64 LLVM 16 folds the narrow ones into movzbl/movzwl and drops their
   !pcsections; the 32-bit one keeps its PC. clang-19 keeps all four. */
#include <stdatomic.h>
_Atomic unsigned char flag8;
_Atomic unsigned short flag16;
_Atomic unsigned int flag32;
unsigned long load8(void) { return atomic_load_explicit(&flag8, memory_order_relaxed); }
unsigned long load16(void) { return atomic_load_explicit(&flag16, memory_order_acquire); }
int test8(void) { return atomic_load(&flag8) ? 3 : 5; }
unsigned long load32(void) { return atomic_load_explicit(&flag32, memory_order_relaxed); }
