/* How a frame of one managed function leads to its caller's frame on each
 * architecture, given the function's stack size from the flat stack map and
 * the stack pointer (SP) as it is after the call at the safepoint returns. */
#ifndef ARCH_H
#define ARCH_H

#if defined(__x86_64__)
/* `call` pushes the return address above the frame LLVM reports:
 * CFA = SP + stack size + 8, return address at CFA - 8. */
#define ARCH_NAME "x86_64"
#define ARCH_SP_DWARF 7
#define ARCH_RA_DWARF 16
#define ARCH_CFA_EXTRA 8
#define ARCH_DEFAULT_RA_SLOT(cfa) ((cfa) - 8)
#elif defined(__aarch64__)
/* CFA = SP + stack size; the prologue saves LR (x30) in the frame, where
 * the function's frame registers (from its CFI) say. */
#define ARCH_NAME "aarch64"
#define ARCH_SP_DWARF 31
#define ARCH_RA_DWARF 30
#define ARCH_CFA_EXTRA 0
#define ARCH_DEFAULT_RA_SLOT(cfa) ((void)(cfa), 0) /* none: must be a frame register */
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
/* CFA = r1 + stack size (the caller's r1, also at [r1], the back chain);
 * the prologue saves LR in the caller's frame, at CFA + 16 (ELFv2). */
#define ARCH_NAME "ppc64le"
#define ARCH_SP_DWARF 1
#define ARCH_RA_DWARF 65
#define ARCH_CFA_EXTRA 0
#define ARCH_DEFAULT_RA_SLOT(cfa) ((cfa) + 16)
/* A function with a stack map gets the frame pointer r31, set to r1 right
 * after the prologue allocates the frame: in a frame without a
 * variable-sized alloca the two are equal, and locations use r31. */
#define ARCH_FP_EQUAL_TO_SP_DWARF 31
#else
#error "the collector example supports x86_64, aarch64 and ppc64le"
#endif

#endif
