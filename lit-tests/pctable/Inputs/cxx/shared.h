// Shared by a.cc and b.cc: everything here is emitted in both objects, in
// COMDAT groups the linker merges (one copy kept, the other discarded with
// its PC table entries).
#pragma once
#include <atomic>
#include <stdexcept>

// Defined in a.cc (not inline): counts every dynamic initialization, so a
// guard variable that is not merged shows as a second run.
int seed(int x);

// A C++17 inline variable with a dynamic initializer (guarded, COMDAT).
inline int inline_base = seed(40);

// A template static data member with a dynamic initializer, and one that
// is constant-initialized; instantiated in both objects.
template <typename T> struct Registry {
  static T value;
  static std::atomic<T> total;
};
template <typename T> T Registry<T>::value = T(seed(7)) * 3;
template <typename T> std::atomic<T> Registry<T>::total{0};

struct Overflow : std::runtime_error {
  long at;
  explicit Overflow(long at) : std::runtime_error("overflow"), at(at) {}
};

// A function template instantiated in both objects: an atomic add that
// throws past a limit.
template <typename T>
__attribute__((noinline)) T accumulate(std::atomic<T> &sum, T v, T limit) {
  T now = sum.fetch_add(v, std::memory_order_relaxed) + v;
  if (now > limit)
    throw Overflow(now);
  return now;
}

// stackmap.ll: a function with a stack map.
extern "C" long sm_twice(long);

// b.cc
long work_b(int threads, int per);
long throw_from_b(long v);
int caught_in_threads();
const int *inline_base_in_b();
const long *registry_value_in_b();
