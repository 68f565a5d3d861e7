// pcmap parity input (issue 19): one of LLVM's own SanitizerBinaryMetadata runtime tests, Apache-2.0 WITH LLVM-exception (LICENSE.TXT, README.md).
// origin: llvm/llvm-project compiler-rt/test/metadata/uar.cpp at 03a5b92df2dd58ec447a46f18d1640e43f91d04a
// original-run: %clangxx %s -O1 -o %t -fexperimental-sanitize-metadata=covered,uar && %t | FileCheck %s
// changed: RUN and CHECK lines removed; nothing else. The CHECK lines stated x86-64's stack-argument sizes; the tests compare the program's output with the same program built by clang-19 instead, on each target.
//
__attribute__((noinline, not_tail_called)) void escape(const volatile void *p) {
  static const volatile void *sink;
  sink = p;
}

__attribute__((noinline, not_tail_called)) void use(int x) {
  static volatile int sink;
  sink += x;
}

void empty() {}

void ellipsis(const char *fmt, ...) {
  int x;
  escape(&x);
}

void non_empty_function() {
  int x;
  escape(&x);
}

void no_stack_args(long a0, long a1, long a2, long a3, long a4, long a5) {
  int x;
  escape(&x);
}

void stack_args(long a0, long a1, long a2, long a3, long a4, long a5, long a6) {
  int x;
  escape(&x);
}

void more_stack_args(long a0, long a1, long a2, long a3, long a4, long a5,
                     long a6, long a7, long a8) {
  int x;
  escape(&x);
}

struct large {
  char x[131];
};
void struct_stack_args(large a) {
  int x;
  escape(&x);
}

__attribute__((noinline)) int tail_called(int x) { return x; }

int with_tail_call(int x) { [[clang::musttail]] return tail_called(x); }

void local_array(int x) {
  int data[10];
  use(data[x]);
}

void local_alloca(int size, int i, int j) {
  volatile int *p = static_cast<int *>(__builtin_alloca(size));
  p[i] = 0;
  use(p[j]);
}

void escaping_alloca(int size, int i) {
  volatile int *p = static_cast<int *>(__builtin_alloca(size));
  escape(&p[i]);
}

#define FUNCTIONS                                                              \
  FN(empty);                                                                   \
  FN(ellipsis);                                                                \
  FN(non_empty_function);                                                      \
  FN(no_stack_args);                                                           \
  FN(stack_args);                                                              \
  FN(more_stack_args);                                                         \
  FN(struct_stack_args);                                                       \
  FN(with_tail_call);                                                          \
  FN(local_array);                                                             \
  FN(local_alloca);                                                            \
  FN(escaping_alloca);                                                         \
  /**/

#include "common.h"
