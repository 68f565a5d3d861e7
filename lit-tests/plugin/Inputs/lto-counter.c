// LTO test program, module 2 of 2: kept out of line so that the link keeps
// two covered functions.
#include <stdatomic.h>

atomic_long total;

__attribute__((noinline)) long bump(long n) { return atomic_fetch_add(&total, n); }
