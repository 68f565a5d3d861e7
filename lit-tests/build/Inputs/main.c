// A program for cc.test: bump.c's atomics and probe.ll's stack map.
#include <stdio.h>

#include "build.h"

int sm_probe(int x);

int main(void) {
  bump(1);
  printf("bumped=%ld probe=%d\n", bump(2), sm_probe(5));
  return 0;
}
