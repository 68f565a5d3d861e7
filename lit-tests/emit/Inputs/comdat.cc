// C++ whose object has COMDAT groups next to PC sections: an exception
// thrown and caught beside a std::atomic, a C++17 inline variable and a
// template static data member with dynamic initializers.
#include <atomic>
#include <stdexcept>

std::atomic<int> counter{0};
int next_value() { return counter.fetch_add(1) + 41; }

template <typename T> struct Holder { static T value; };
template <typename T> T Holder<T>::value = next_value();
inline int inline_var = next_value();

int thrower(int x) {
  if (x > 2)
    throw std::runtime_error("boom");
  return counter.load() + x;
}

int catcher(int x) {
  try {
    return thrower(x);
  } catch (const std::exception &) {
    return Holder<int>::value + inline_var;
  }
}
