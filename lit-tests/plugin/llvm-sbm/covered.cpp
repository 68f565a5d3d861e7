// pcmap parity input (issue 19): one of LLVM's own SanitizerBinaryMetadata runtime tests, Apache-2.0 WITH LLVM-exception (LICENSE.TXT, README.md).
// origin: llvm/llvm-project compiler-rt/test/metadata/covered.cpp at 2abc4c3efd7c5ac6e72383b5dcbd7ee2b3aa47f4
// original-run: %clangxx %s -o %t [-fexperimental-sanitize-metadata=F] && %t | FileCheck [-check-prefix=CHECK-F] %s, for F = none and every subset of covered, atomics, uar
// changed: RUN and CHECK lines removed; nothing else. The tests compare the program's output with the same program built by clang-19.
//
void empty() {}

void normal() {
  volatile int x;
  x = 0;
}

int with_atomic(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

void ellipsis(int *p, ...) {
  volatile int x;
  x = 0;
}

int ellipsis_with_atomic(int *p, ...) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

#define FUNCTIONS                                                              \
  FN(empty);                                                                   \
  FN(normal);                                                                  \
  FN(with_atomic);                                                             \
  FN(ellipsis);                                                                \
  FN(ellipsis_with_atomic);                                                    \
  /**/

#include "common.h"
