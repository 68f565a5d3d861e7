/* The managed side of scripts/bench-walk: a chain of BENCH_FUNCTIONS
 * distinct functions (managed.h, generated), 64 frames deep, each frame
 * holding three references across its call (rewrite-statepoints-for-gc
 * lists them in the call's statepoint), compiled with frame pointers so the
 * bare frame pointer chain can be walked too. Every frame returns to a
 * different call site: no lookup is the one before again. */
#include "pcmap.h"

typedef __attribute__((address_space(1))) char *ref;
ref bench_ref(uint64_t v);
uint64_t bench_unref(ref r);
void bench_use(uint64_t v);
uint64_t bench_safepoint(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                         uint64_t a5);

#define BENCH_FRAME(name, next)                                              \
  __attribute__((noinline)) void name(uint64_t depth, uint64_t a) {          \
    ref r0 = bench_ref(a), r1 = bench_ref(a + 1), r2 = bench_ref(a + 2);     \
    if (depth == 0)                                                          \
      pcmap_capture_call(bench_safepoint, 0, 0, 0, 0, 0);                    \
    else                                                                     \
      next(depth - 1, a + 3);                                                \
    bench_use(bench_unref(r0) + bench_unref(r1) + bench_unref(r2));         \
  }
#include "managed.h"
