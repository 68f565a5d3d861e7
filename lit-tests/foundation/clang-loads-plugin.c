// clang -fpass-plugin (16 or 19) runs the pass at the optimizer-last extension point
// at every -O level, for every target; the program still links and runs (under
// qemu-user off the host) and computes the same result.
//
// RUN: %clang --target=%triple-x86_64 -O0 -fpass-plugin=%plugin -c %S/Inputs/counter.c -o %t.x86_64.O0.o
// RUN: %pcmap dump %t.x86_64.O0.o | %FileCheck %s --check-prefix=SEC%llvm-major
// RUN: %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %S/Inputs/counter.c -o %t.x86_64.o
// RUN: %pcmap dump %t.x86_64.o | %FileCheck %s --check-prefix=SEC%llvm-major
// RUN: %cc-x86_64 %t.x86_64.o -o %t.x86_64 && %run-x86_64 %t.x86_64 | %FileCheck %s --check-prefix=OUT
//
// RUN: %clang --target=%triple-aarch64 -O2 -fpass-plugin=%plugin -c %S/Inputs/counter.c -o %t.aarch64.o
// RUN: %pcmap dump %t.aarch64.o | %FileCheck %s --check-prefix=SEC%llvm-major
// RUN: %cc-aarch64 %t.aarch64.o -o %t.aarch64 && %run-aarch64 %t.aarch64 | %FileCheck %s --check-prefix=OUT
//
// RUN: %clang --target=%triple-ppc64le -O2 -fpass-plugin=%plugin -c %S/Inputs/counter.c -o %t.ppc64le.o 2>&1
// RUN: %pcmap dump %t.ppc64le.o | %FileCheck %s --check-prefix=SEC%llvm-major
// RUN: %cc-ppc64le %t.ppc64le.o -o %t.ppc64le && %run-ppc64le %t.ppc64le | %FileCheck %s --check-prefix=OUT
//
// RUN: %clang --target=%triple-ppc64 -O2 -fpass-plugin=%plugin -c %S/Inputs/counter.c -o %t.ppc64.o 2>&1
// RUN: %pcmap dump %t.ppc64.o | %FileCheck %s --check-prefix=SEC%llvm-major
// RUN: %cc-ppc64 %t.ppc64.o -o %t.ppc64 && %run-ppc64 %t.ppc64 | %FileCheck %s --check-prefix=OUT
//
// Two defined functions (bump, main): two function entries, two relocations,
// raw in LLVM 16 (for `pcmap emit`), final in LLVM 19.
// SEC16: sanmd_covered: {{[0-9]+}} bytes, 2 relocations; raw
// SEC19: sanmd_covered2: {{[0-9]+}} bytes, 2 relocations; compact, version 2, {{.*}} 2 function entries
// OUT: counter=55
//
// REQUIRES: run-x86_64, run-aarch64, run-ppc64le, run-ppc64
