; pcmap dump --json is compared with checked-in golden files, one per triple;
; scripts/update-golden rewrites them on purpose. Only covered metadata is
; requested, so the goldens hold one function entry per defined function,
; decoded (raw: LLVM 16's fixed widths, described by .pcmap.layout). The
; pass runs per triple so that its layout description names the object's
; PC width (4 bytes on x86_64/AArch64, 8 on PowerPC64).
; RUN: %opt -mtriple=%triple-x86_64 -load-pass-plugin=%plugin -passes='pcmap<covered>' %s -o %t.x86_64.bc
; RUN: %llc -filetype=obj %t.x86_64.bc -o %t.x86_64.o
; RUN: %pcmap dump --json %t.x86_64.o > %t.x86_64.json
; RUN: %golden %S/golden/dump-json-golden.x86_64.json %t.x86_64.json
; RUN: %opt -mtriple=%triple-aarch64 -load-pass-plugin=%plugin -passes='pcmap<covered>' %s -o %t.aarch64.bc
; RUN: %llc -filetype=obj %t.aarch64.bc -o %t.aarch64.o
; RUN: %pcmap dump --json %t.aarch64.o > %t.aarch64.json
; RUN: %golden %S/golden/dump-json-golden.aarch64.json %t.aarch64.json
; RUN: %opt -mtriple=%triple-ppc64le -load-pass-plugin=%plugin -passes='pcmap<covered>' %s -o %t.ppc64le.bc
; RUN: %llc -filetype=obj %t.ppc64le.bc -o %t.ppc64le.o
; RUN: %pcmap dump --json %t.ppc64le.o > %t.ppc64le.json
; RUN: %golden %S/golden/dump-json-golden.ppc64le.json %t.ppc64le.json
; RUN: %opt -mtriple=%triple-ppc64 -load-pass-plugin=%plugin -passes='pcmap<covered>' %s -o %t.ppc64.bc
; RUN: %llc -filetype=obj %t.ppc64.bc -o %t.ppc64.o
; RUN: %pcmap dump --json %t.ppc64.o > %t.ppc64.json
; RUN: %golden %S/golden/dump-json-golden.ppc64.json %t.ppc64.json
; REQUIRES: target-x86_64, target-aarch64, target-ppc64le, target-ppc64

define i64 @two(ptr %p) {
  %a = atomicrmw add ptr %p, i64 2 seq_cst
  ret i64 %a
}

define void @one() {
  ret void
}
