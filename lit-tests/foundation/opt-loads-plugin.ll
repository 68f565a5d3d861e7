; The plugin loads into opt-16, attaches !pcsections to defined functions only,
; and LLVM 16's backend turns that into a PC section on every target.
;
; RUN: %opt -load-pass-plugin=%plugin -passes=pcmap -S %s | %FileCheck %s --check-prefix=IR
; IR: define i32 @load_acquire(ptr %p) !pcsections ![[MD:[0-9]+]]
; IR: declare void @external()
; IR-NOT: declare {{.*}}!pcsections
; Covered entries are requested in `sanmd_covered`, the section LLVM 16's
; backend gives the stack-arguments size (docs/pcsections-layout.md).
; IR: ![[MD]] = !{!"sanmd_covered", ![[AUX:[0-9]+]]}
; IR: ![[AUX]] = !{i32

; For each triple: one function entry in the raw section, with one relocation
; against the function's code.
; RUN: %opt -load-pass-plugin=%plugin -passes=pcmap %s -o %t.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.bc -o %t.x86_64.o
; RUN: %readobj --sections --relocations %t.x86_64.o | %FileCheck %s --check-prefixes=OBJ,X86
; RUN: %llc -mtriple=%triple-aarch64 -filetype=obj %t.bc -o %t.aarch64.o
; RUN: %readobj --sections --relocations %t.aarch64.o | %FileCheck %s --check-prefixes=OBJ,A64
; RUN: %llc -mtriple=%triple-ppc64le -filetype=obj %t.bc -o %t.ppc64le.o
; RUN: %readobj --sections --relocations %t.ppc64le.o | %FileCheck %s --check-prefixes=OBJ,PPC
; RUN: %llc -mtriple=%triple-ppc64 -filetype=obj %t.bc -o %t.ppc64.o
; RUN: %readobj --sections --relocations %t.ppc64.o | %FileCheck %s --check-prefixes=OBJ,PPC
;
; OBJ:      Name: sanmd_covered
; X86:      Size: 12
; A64:      Size: 12
; PPC:      Size: 16
; OBJ:      Section ({{[0-9]+}}) .relasanmd_covered {
; X86-NEXT:   0x0 R_X86_64_PC32 .text 0x0
; A64-NEXT:   0x0 R_AARCH64_PREL32 .text 0x0
; PPC-NEXT:   0x0 R_PPC64_REL64 .text 0x0
; OBJ-NEXT: }

; pcmap sees the same section in every object.
; RUN: %pcmap dump %t.x86_64.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.aarch64.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.ppc64le.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.ppc64.o | %FileCheck %s --check-prefix=DUMP
; DUMP: sanmd_covered: {{[0-9]+}} bytes, 1 relocations

; REQUIRES: target-x86_64, target-aarch64, target-ppc64le, target-ppc64

define i32 @load_acquire(ptr %p) {
  %v = load atomic i32, ptr %p acquire, align 4
  ret i32 %v
}

declare void @external()
