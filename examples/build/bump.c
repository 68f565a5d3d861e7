// A second translation unit with atomics: its PCs land in the program's
// tables beside main.c's, each object finished by `pcmap cc`.
#include <stdatomic.h>

#include "build.h"

static atomic_long counter;

long bump(long n) {
  return atomic_fetch_add_explicit(&counter, n, memory_order_relaxed) + n;
}

long bumped(void) { return atomic_load_explicit(&counter, memory_order_acquire); }
