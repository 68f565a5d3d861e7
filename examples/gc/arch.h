/* What the stack walk needs of each architecture beyond the flat stack
 * map: the DWARF numbers of the stack pointer (SP, as it is after the call
 * at the safepoint returns) and of the return address, and where the return
 * address is when the frame state names no slot for it. Each record's frame
 * state gives the CFA (the caller's SP) as a register plus an offset. */
#ifndef ARCH_H
#define ARCH_H

#if defined(__x86_64__)
/* `call` pushes the return address above the frame LLVM reports: CFA =
 * SP + stack size + 8 (more while arguments are pushed for a call), return
 * address at CFA - 8 (the CFI says so: RIP, 16). */
#define ARCH_NAME "x86_64"
#define ARCH_SP_DWARF 7
#define ARCH_RA_DWARF 16
#define ARCH_DEFAULT_RA_SLOT(cfa) ((cfa) - 8)
#elif defined(__aarch64__)
/* CFA = SP + stack size; the prologue saves LR (x30) in the frame, where
 * the frame state's saved registers (from the CFI) say. */
#define ARCH_NAME "aarch64"
#define ARCH_SP_DWARF 31
#define ARCH_RA_DWARF 30
#define ARCH_DEFAULT_RA_SLOT(cfa) ((void)(cfa), 0) /* none: must be a saved register */
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
/* CFA = r1 + stack size (the caller's r1, also at [r1], the back chain);
 * the prologue saves LR in the caller's frame, at CFA + 16 (ELFv2). */
#define ARCH_NAME "ppc64le"
#define ARCH_SP_DWARF 1
#define ARCH_RA_DWARF 65
#define ARCH_DEFAULT_RA_SLOT(cfa) ((cfa) + 16)
/* A function with a stack map gets the frame pointer r31, set to r1 right
 * after the prologue allocates the frame: in a frame without a
 * variable-sized alloca the two are equal, and locations use r31. */
#define ARCH_FP_EQUAL_TO_SP_DWARF 31
#else
#error "the collector example supports x86_64, aarch64 and ppc64le"
#endif

#endif
