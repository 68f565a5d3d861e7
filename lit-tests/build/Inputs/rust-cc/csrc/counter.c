// C with atomics, compiled by build.rs through the cc crate: with
// CC="pcmap cc clang-16" its PC tables reach the Rust program's callbacks.
#include <stdatomic.h>

static atomic_long total;

long c_bump(long n) { return atomic_fetch_add_explicit(&total, n, memory_order_relaxed) + n; }

long c_total(void) { return atomic_load_explicit(&total, memory_order_acquire); }
