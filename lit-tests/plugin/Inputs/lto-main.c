// LTO test program, module 1 of 2: atomics here and, through bump(), in
// lto-counter.c.
#include <stdatomic.h>
#include <stdio.h>

long bump(long n);
extern atomic_long total;

int main(void) {
  for (long i = 1; i <= 10; i++)
    bump(i);
  long t = atomic_load_explicit(&total, memory_order_acquire);
  printf("total=%ld\n", t);
  return t == 55 ? 0 : 1;
}
