; The plugin loads into opt (16 or 19), attaches !pcsections to defined
; functions only, and the backend turns that into a PC section on every
; target.
;
; RUN: %opt -load-pass-plugin=%plugin -passes=pcmap -S %s | %FileCheck %s --check-prefixes=IR,IR%llvm-major
; IR: define i32 @load_acquire(ptr %p) !pcsections ![[MD:[0-9]+]]
; IR: declare void @external()
; IR-NOT: declare {{.*}}!pcsections
; In LLVM 16, covered entries are requested in `sanmd_covered`, the section
; LLVM 16's backend gives the stack-arguments size
; (docs/pcsections-layout.md); in LLVM 19, as LLVM 19's pass requests them.
; IR16: ![[MD]] = !{!"sanmd_covered", ![[AUX:[0-9]+]]}
; IR16: ![[AUX]] = !{i32
; IR19: ![[MD]] = !{!"sanmd_covered2!C", ![[AUX:[0-9]+]]}
; IR19: ![[AUX]] = !{i64
; LLVM 19 finishes every section itself: no layout description for emit.
; RUN: %if plugin-llvm19 %{ %opt -load-pass-plugin=%plugin -passes=pcmap -S %s | %FileCheck %s --check-prefix=NOLAYOUT %}
; NOLAYOUT-NOT: pcmap.layout
; NOLAYOUT: !"sanmd_covered2!C"
; NOLAYOUT-NOT: pcmap.layout

; For each triple: one function entry in the raw section (LLVM 16) or the
; final compact one (LLVM 19: PC, then the size and the mask as ULEB128),
; with one relocation against the function's code.
; RUN: %opt -load-pass-plugin=%plugin -passes=pcmap %s -o %t.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.bc -o %t.x86_64.o
; RUN: %readobj --sections --relocations %t.x86_64.o | %FileCheck %s --check-prefixes=OBJ,X86,X86-%llvm-major
; RUN: %llc -mtriple=%triple-aarch64 -filetype=obj %t.bc -o %t.aarch64.o
; RUN: %readobj --sections --relocations %t.aarch64.o | %FileCheck %s --check-prefixes=OBJ,A64,A64-%llvm-major
; RUN: %llc -mtriple=%triple-ppc64le -filetype=obj %t.bc -o %t.ppc64le.o
; RUN: %readobj --sections --relocations %t.ppc64le.o | %FileCheck %s --check-prefixes=OBJ,PPC,PPC-%llvm-major
; RUN: %llc -mtriple=%triple-ppc64 -filetype=obj %t.bc -o %t.ppc64.o
; RUN: %readobj --sections --relocations %t.ppc64.o | %FileCheck %s --check-prefixes=OBJ,PPC,PPC-%llvm-major
;
; OBJ:      Name: sanmd_covered
; X86-16:   Size: 12
; A64-16:   Size: 12
; PPC-16:   Size: 16
; X86-19:   Size: 6
; A64-19:   Size: 6
; PPC-19:   Size: 10
; OBJ:      Section ({{[0-9]+}}) .relasanmd_covered{{2?}} {
; X86-NEXT:   0x0 R_X86_64_PC32 .text 0x0
; A64-NEXT:   0x0 R_AARCH64_PREL32 .text 0x0
; PPC-NEXT:   0x0 R_PPC64_REL64 .text 0x0
; OBJ-NEXT: }

; pcmap sees the same section in every object.
; RUN: %pcmap dump %t.x86_64.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.aarch64.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.ppc64le.o | %FileCheck %s --check-prefix=DUMP
; RUN: %pcmap dump %t.ppc64.o | %FileCheck %s --check-prefix=DUMP
; DUMP: sanmd_covered{{2?}}: {{[0-9]+}} bytes, 1 relocations

; REQUIRES: target-x86_64, target-aarch64, target-ppc64le, target-ppc64

define i32 @load_acquire(ptr %p) {
  %v = load atomic i32, ptr %p acquire, align 4
  ret i32 %v
}

declare void @external()
