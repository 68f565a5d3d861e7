// clang-16 -fpass-plugin on C11 atomics, escaping locals and tail calls: the
// object holds the requested sections on every target, plus .pcmap.layout.
// Inputs/c11.c has 10 functions, 7 cross-thread atomic instructions in IR
// (fetch_add, load, store, cmpxchg, test_and_set, clear, thread fence; the
// signal fence is single-threaded) and 2 UAR candidates.
//
// RUN: env PCMAP_STATS=1 %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.x86.o 2>&1 | %FileCheck %s --check-prefix=STATS
// STATS: pcmap-stats v1 encoding=compact covered=10 atomics=7 uar=2 recorded=0 fences=1 module={{.*}}c11.c
//
// Every target: 10 function entries in the covered section.
// COVERED: sanmd_covered: {{[0-9]+}} bytes, 10 relocations; raw{{.*}}emit rewrites it into sanmd_covered2
//
// Atomics PCs that reach the object (one relocation per PC). x86_64 keeps all 7.
// RUN: %pcmap dump %t.x86.o | %FileCheck %s --check-prefixes=COVERED,X86
// X86: sanmd_atomics2!C: {{[0-9]+}} bytes, 7 relocations
//
// AArch64 (no LSE) silently loses the PCs of cmpxchg and test_and_set, whose
// pseudo expansions drop the metadata in LLVM 16: 5 survive.
// RUN: %clang --target=%triple-aarch64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.a64.o
// RUN: %pcmap dump %t.a64.o | %FileCheck %s --check-prefixes=COVERED,A64
// A64: sanmd_atomics2!C: {{[0-9]+}} bytes, 5 relocations
//
// PowerPC: LLVM 16 warns "loosing !pcsections metadata" and keeps 4 of 7.
// RUN: %clang --target=%triple-ppc64le -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.ppcle.o 2>&1 | %FileCheck %s --check-prefix=PPCWARN
// RUN: %pcmap dump %t.ppcle.o | %FileCheck %s --check-prefixes=COVERED,PPC
// RUN: %clang --target=%triple-ppc64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.ppc.o 2>&1 | %FileCheck %s --check-prefix=PPCWARN
// RUN: %pcmap dump %t.ppc.o | %FileCheck %s --check-prefixes=COVERED,PPC
// PPCWARN-COUNT-7: warning: loosing !pcsections metadata
// PPC: sanmd_atomics2!C: {{[0-9]+}} bytes, 4 relocations
//
// The layout description is SHF_EXCLUDE and not allocated; with x86_64's
// small code model a covered entry is 4 (PC) + 4 (size) + 4 (mask) bytes,
// and LLVM 16's MachineSanitizerBinaryMetadata appends a 4-byte
// stack-arguments size to the 2 UAR functions' entries: 10*12 + 2*4 (the
// plugin requests covered entries as LLVM 16's pass does, in
// `sanmd_covered` with an i32 mask, the one request it completes).
// RUN: %readobj --sections %t.x86.o | %FileCheck %s --check-prefix=SECTIONS
// SECTIONS:      Name: sanmd_covered
// SECTIONS-NEXT: Type: SHT_PROGBITS
// SECTIONS-NEXT: Flags [
// SECTIONS-NEXT:   SHF_ALLOC
// SECTIONS-NEXT:   SHF_LINK_ORDER
// SECTIONS-NEXT:   SHF_WRITE
// SECTIONS:      Size: 128
// SECTIONS:      Name: .pcmap.layout
// SECTIONS-NEXT: Type: SHT_PROGBITS
// SECTIONS-NEXT: Flags [
// SECTIONS-NEXT:   SHF_EXCLUDE
// SECTIONS-NEXT: ]
//
// Native encoding: LLVM 16's final sections, no layout description. Entries
// are 4 + 4 + 4 bytes, and LLVM 16's MachineSanitizerBinaryMetadata appends a
// 4-byte stack-arguments size to the 2 UAR functions' entries: 10*12 + 2*4.
// RUN: env PCMAP_ENCODING=native %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.native.o
// RUN: %readobj --sections %t.native.o | %FileCheck %s --check-prefix=NATIVE
// NATIVE: Name: sanmd_covered
// NATIVE: Size: 128
// NATIVE: Name: sanmd_atomics
// NATIVE-NOT: .pcmap.layout
//
// REQUIRES: target-x86_64, target-aarch64, target-ppc64le, target-ppc64
