// clang -fpass-plugin on C11 atomics, escaping locals and tail calls: the
// object holds the requested sections on every target (LLVM 16: raw, plus
// .pcmap.layout; LLVM 19: final). Inputs/c11.c has 10 functions, 7
// cross-thread atomic instructions in IR (fetch_add, load, store, cmpxchg,
// test_and_set, clear, thread fence; the signal fence is single-threaded)
// and 2 UAR candidates. Lines of one release: prefixes ending in 16 or 19.
//
// RUN: env PCMAP_STATS=1 %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.x86.o 2>&1 | %FileCheck %s --check-prefix=STATS
// STATS: pcmap-stats v1 encoding=compact covered=10 atomics=7 uar=2 recorded=0 fences=1 module={{.*}}c11.c
//
// Every target: 10 function entries in the covered section.
// COVERED16: sanmd_covered: {{[0-9]+}} bytes, 10 relocations; raw{{.*}}emit rewrites it into sanmd_covered2
// COVERED19: sanmd_covered2: {{[0-9]+}} bytes, 10 relocations; compact, version 2
//
// Atomics PCs that reach the object (one relocation per PC). x86_64 keeps
// all 7 (LLVM 19 tags cmpxchg's lock cmpxchg and the sete after it: 8).
// RUN: %pcmap dump %t.x86.o | %FileCheck %s --check-prefixes=COVERED%llvm-major,X86-%llvm-major
// X86-16: sanmd_atomics2!C: {{[0-9]+}} bytes, 7 relocations
// X86-19: sanmd_atomics2: {{[0-9]+}} bytes, 8 relocations
//
// AArch64 (no LSE) silently loses the PCs of cmpxchg and test_and_set, whose
// pseudo expansions drop the metadata in LLVM 16: 5 survive. LLVM 19 tags
// the calls to outlined atomics and cmpxchg's compare and cset: 9.
// RUN: %clang --target=%triple-aarch64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.a64.o
// RUN: %pcmap dump %t.a64.o | %FileCheck %s --check-prefixes=COVERED%llvm-major,A64-%llvm-major
// A64-16: sanmd_atomics2!C: {{[0-9]+}} bytes, 5 relocations
// A64-19: sanmd_atomics2: {{[0-9]+}} bytes, 9 relocations
//
// PowerPC: LLVM 16 warns "loosing !pcsections metadata" and keeps 4 of 7.
// LLVM 19 says nothing: it tags the barriers around the atomic loads and
// stores and still drops the atomicrmw/cmpxchg loops (verify-forms.test).
// RUN: %clang --target=%triple-ppc64le -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.ppcle.o 2>&1 | %FileCheck %s --allow-empty --check-prefix=PPCWARN%llvm-major
// RUN: %pcmap dump %t.ppcle.o | %FileCheck %s --check-prefixes=COVERED%llvm-major,PPC%llvm-major
// RUN: %clang --target=%triple-ppc64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.ppc.o 2>&1 | %FileCheck %s --allow-empty --check-prefix=PPCWARN%llvm-major
// RUN: %pcmap dump %t.ppc.o | %FileCheck %s --check-prefixes=COVERED%llvm-major,PPC%llvm-major
// PPCWARN16-COUNT-7: warning: loosing !pcsections metadata
// PPCWARN19-NOT: warning
// PPC16: sanmd_atomics2!C: {{[0-9]+}} bytes, 4 relocations
// PPC19: sanmd_atomics2: {{[0-9]+}} bytes, 13 relocations
//
// LLVM 16: the layout description is SHF_EXCLUDE and not allocated; with
// x86_64's small code model a covered entry is 4 (PC) + 4 (size) + 4 (mask)
// bytes, and LLVM 16's MachineSanitizerBinaryMetadata appends a 4-byte
// stack-arguments size to the 2 UAR functions' entries: 10*12 + 2*4 (the
// plugin requests covered entries as LLVM 16's pass does, in
// `sanmd_covered` with an i32 mask, the one request it completes). LLVM 19:
// the compact section, final (PC, then size and mask as ULEB128: 10*6), no
// layout description.
// RUN: %readobj --sections %t.x86.o | %FileCheck %s --check-prefix=SECTIONS%llvm-major
// SECTIONS16:      Name: sanmd_covered
// SECTIONS19:      Name: sanmd_covered2
// SECTIONS16-NEXT: Type: SHT_PROGBITS
// SECTIONS16-NEXT: Flags [
// SECTIONS16-NEXT:   SHF_ALLOC
// SECTIONS16-NEXT:   SHF_LINK_ORDER
// SECTIONS16-NEXT:   SHF_WRITE
// SECTIONS16:      Size: 128
// SECTIONS19:      Size: 60
// SECTIONS16:      Name: .pcmap.layout
// SECTIONS16-NEXT: Type: SHT_PROGBITS
// SECTIONS16-NEXT: Flags [
// SECTIONS16-NEXT:   SHF_EXCLUDE
// SECTIONS16-NEXT: ]
// SECTIONS19-NOT:  .pcmap.layout
//
// Native encoding: LLVM 16's final sections, no layout description. Entries
// are 4 + 4 + 4 bytes, and LLVM 16's MachineSanitizerBinaryMetadata appends a
// 4-byte stack-arguments size to the 2 UAR functions' entries: 10*12 + 2*4.
// In LLVM 19, its native encoding: the same object as compact.
// RUN: env PCMAP_ENCODING=native %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %S/Inputs/c11.c -o %t.native.o
// RUN: %readobj --sections %t.native.o | %FileCheck %s --check-prefix=NATIVE%llvm-major
// NATIVE16: Name: sanmd_covered
// NATIVE16: Size: 128
// NATIVE16: Name: sanmd_atomics
// NATIVE16-NOT: .pcmap.layout
// NATIVE19: Name: sanmd_covered2
// NATIVE19: Size: 60
// RUN: %if plugin-llvm19 %{ cmp %t.native.o %t.x86.o %}
//
// REQUIRES: target-x86_64, target-aarch64, target-ppc64le, target-ppc64
