// pcmap parity input (issue 19): one of LLVM's own SanitizerBinaryMetadata runtime tests, Apache-2.0 WITH LLVM-exception (LICENSE.TXT, README.md).
// origin: llvm/llvm-project compiler-rt/test/metadata/nocallback.cpp at 8df9cb32e66c4d5b10fda04a8f485932a827521a
// original-run: %clangxx %s -o %t -fexperimental-sanitize-metadata=all && %t | FileCheck %s
// changed: RUN and CHECK lines removed; nothing else.
//
// Test that the compiler emits weak declarations to the callbacks, which are
// not called if they do not exist.

#include <stdio.h>

int main() {
  printf("main\n");
  return 0;
}
