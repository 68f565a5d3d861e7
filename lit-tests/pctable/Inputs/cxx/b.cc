// The other half of the C++ end-to-end program (see a.cc).
#include "shared.h"

#include <climits>
#include <thread>
#include <vector>

static std::atomic<int> thread_catches{0};

// Each thread adds `per` through accumulate<long>, then makes it throw once
// and catches the exception in the thread.
long work_b(int threads, int per) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back([per] {
      for (int i = 0; i < per; i++)
        accumulate(Registry<long>::total, 1L, LONG_MAX);
      try {
        accumulate(Registry<long>::total, 0L, -1L);
      } catch (const Overflow &) {
        thread_catches.fetch_add(1);
      }
    });
  for (auto &t : pool)
    t.join();
  return Registry<long>::total.load();
}

int caught_in_threads() { return thread_catches.load(); }

// Throws Overflow (100 + v > 100) for a.cc to catch.
long throw_from_b(long v) {
  static std::atomic<long> start{100};
  return accumulate(start, v, 100L);
}

const int *inline_base_in_b() { return &inline_base; }
const long *registry_value_in_b() { return &Registry<long>::value; }
