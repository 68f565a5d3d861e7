/* What the generated corpus (gen.py) and the test driver (driver.c) share. */
#ifndef CORPUS_H
#define CORPUS_H

#include "pcmap.h"

typedef uint64_t u64;
#define CORPUS_NOINLINE __attribute__((noinline))

/* Renamed to llvm.experimental.stackmap in the IR (gen.py --fix). */
extern void __pcmap_stackmap(long long id, int shadow, ...);

/* The driver's (unmanaged) helpers. */
void corpus_sink(void *p);
extern volatile u64 corpus_acc;
/* After the call: the walk saw value `v` as location `k` of the frame at
 * `depth`, and `n` locations in all. */
void corpus_check(u64 depth, unsigned k, u64 v);
void corpus_check_count(u64 depth, unsigned n);
/* Statepoint corpora (x86-64, AArch64): references live across calls are
 * `ref`s (addrspace(1) in the IR, which rewrite-statepoints-for-gc lists in
 * each statepoint). The safepoint moves every root it finds: a reference
 * comes back as its value ^ CORPUS_MOVE, a derived one with its base. */
typedef __attribute__((address_space(1))) char *ref;
#define CORPUS_MOVE 0x4000000000000000ull
ref corpus_ref(u64 v);
u64 corpus_unref(ref r);
void corpus_check_root(u64 depth, unsigned k, u64 got, u64 want);

/* The safepoint's handler, called through pcmap_capture_call. */
u64 corpus_safepoint(pcmap_registers *regs, u64 path, u64 a2, u64 a3, u64 a4, u64 a5);

/* The corpus: entry `entry` (0 .. corpus_entries; corpus_entries itself is
 * the deep recursive chain) walks `depth` managed calls down, then calls
 * the safepoint. */
void corpus_entry(unsigned entry, u64 depth, u64 path, u64 a, u64 b);
extern const unsigned corpus_entries;

#endif
