; pcmap dump --json is compared with checked-in golden files, one per triple;
; scripts/update-golden rewrites them on purpose. Only covered metadata is
; requested, so the goldens hold one function entry per defined function.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered>' %s -o %t.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.bc -o %t.x86_64.o
; RUN: %pcmap dump --json %t.x86_64.o > %t.x86_64.json
; RUN: %golden %S/golden/dump-json-golden.x86_64.json %t.x86_64.json
; RUN: %llc -mtriple=%triple-aarch64 -filetype=obj %t.bc -o %t.aarch64.o
; RUN: %pcmap dump --json %t.aarch64.o > %t.aarch64.json
; RUN: %golden %S/golden/dump-json-golden.aarch64.json %t.aarch64.json
; RUN: %llc -mtriple=%triple-ppc64le -filetype=obj %t.bc -o %t.ppc64le.o
; RUN: %pcmap dump --json %t.ppc64le.o > %t.ppc64le.json
; RUN: %golden %S/golden/dump-json-golden.ppc64le.json %t.ppc64le.json
; RUN: %llc -mtriple=%triple-ppc64 -filetype=obj %t.bc -o %t.ppc64.o
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
