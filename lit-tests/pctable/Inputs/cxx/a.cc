// The C++ end-to-end program (with b.cc and shared.h): exceptions thrown in
// one object and caught in the other, std::atomic, an inline variable and
// template static members with dynamic initializers, templates in both
// objects, and a function with a stack map (stackmap.ll). Prints what it
// computed; the test checks every value.
#include "shared.h"

#include <cstdio>

std::atomic<int> init_runs{0};

int seed(int x) {
  init_runs.fetch_add(1);
  return x + 2;
}

// Thrown in b.cc (through accumulate<long>), caught here.
__attribute__((noinline)) static long catch_from_b(long v) {
  try {
    return throw_from_b(v);
  } catch (const Overflow &e) {
    return -e.at;
  }
}

int main() {
  std::atomic<long> local{0};
  long sum = 0;
  for (long i = 1; i <= 10; i++)
    sum = accumulate(local, i, 1000L);
  std::printf("sum: %ld\n", sum);

  std::printf("threads: %ld, caught in threads: %d\n", work_b(4, 1000), caught_in_threads());
  std::printf("caught from b: %ld\n", catch_from_b(5));

  int rethrown = 0;
  try {
    try {
      accumulate(local, 1000L, 100L);
    } catch (...) {
      rethrown++;
      throw;
    }
  } catch (const std::runtime_error &e) {
    std::printf("rethrown %d, caught as runtime_error: %s\n", rethrown, e.what());
  }

  std::printf("inline_base: %d, one object: %s\n", inline_base,
              &inline_base == inline_base_in_b() ? "yes" : "no");
  std::printf("Registry<long>::value: %ld, one object: %s\n", Registry<long>::value,
              &Registry<long>::value == registry_value_in_b() ? "yes" : "no");
  std::printf("dynamic initializations: %d\n", init_runs.load());
  std::printf("sm_twice(21): %ld\n", sm_twice(21));
  return 0;
}
