#include <stdatomic.h>
#include <stdio.h>

static atomic_long counter;

__attribute__((noinline)) long bump(long by) {
  return atomic_fetch_add_explicit(&counter, by, memory_order_relaxed);
}

int main(void) {
  for (long i = 1; i <= 10; i++)
    bump(i);
  printf("counter=%ld\n", atomic_load(&counter));
  return 0;
}
