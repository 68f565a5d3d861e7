// The cache tests' program: bump.c's atomics, nothing else.
#include <stdio.h>

#include "build.h"

int main(void) {
  bump(1);
  printf("bumped=%ld\n", bump(2));
  return 0;
}
