; Compact mode leaves a layout description of every requested section in
; .pcmap.layout (docs/pcsections-layout.md); native mode needs none, and
; neither does LLVM 19, whose backend writes every section final
; (foundation/opt-loads-plugin.ll checks that it writes none).
; REQUIRES: plugin-llvm16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;record=fence@my_fences:i8=1>' -S %s | %FileCheck %s --check-prefix=IR
; IR: @__pcmap_layout = private constant [{{[0-9]+}} x i8] c"pcmap-layout 2\0Atriple x86_64-unknown-linux-gnu\0Acode-model default\0Apc-width 4\0Asection sanmd_atomics2!C final=sanmd_atomics2 options=C entries=instruction size=0 aux=- version=2 stack-args=-\0Asection sanmd_covered final=sanmd_covered2 options=C entries=function size=4 aux=4 version=2 stack-args=1\0Asection my_fences final=my_fences options=- entries=instruction size=0 aux=1 version=- stack-args=-\0Aend\0A", section ".pcmap.layout", align 1, !exclude ![[EMPTY:[0-9]+]]
; IR: @llvm.compiler.used = appending global [1 x ptr] [ptr @__pcmap_layout], section "llvm.metadata"
; IR: ![[EMPTY]] = !{}
;
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;native>' -S %s | %FileCheck %s --check-prefix=NATIVE
; NATIVE-NOT: pcmap.layout
;
; Medium/large code models: version | 1<<16 and 8-byte PCs; PowerPC defaults
; to the medium model (8-byte PCs) without changing the version.
; RUN: sed -e 's/^;CM: //' %s > %t.large.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics>' -S %t.large.ll | %FileCheck %s --check-prefix=LARGE
; LARGE: code-model large\0Apc-width 8\0Asection sanmd_atomics65538!C final=sanmd_atomics65538 options=C entries=instruction size=0 aux=- version=65538 stack-args=-
; RUN: %opt -mtriple=%triple-ppc64le -load-pass-plugin=%plugin -passes='pcmap<atomics>' -S %s | %FileCheck %s --check-prefix=PPC
; PPC: triple powerpc64le-unknown-linux-gnu\0Acode-model default\0Apc-width 8\0A
;
; The section survives llc as SHF_EXCLUDE and never reaches a linked program.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics>' %s -o %t.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.bc -o %t.o
; RUN: %readobj --sections %t.o | %FileCheck %s --check-prefix=OBJ
; OBJ: Name: .pcmap.layout
; OBJ-NEXT: Type: SHT_PROGBITS
; OBJ-NEXT: Flags [ (0x80000000)
; OBJ-NEXT:   SHF_EXCLUDE
; OBJ-NEXT: ]
; RUN: %cc-x86_64 %t.o -o %t.exe
; RUN: %readobj --sections %t.exe | %FileCheck %s --check-prefix=EXE
; EXE-NOT: .pcmap.layout
; EXE: Name: sanmd_covered
; EXE-NOT: .pcmap.layout
; REQUIRES: run-x86_64

target triple = "x86_64-unknown-linux-gnu"

define i32 @main() {
  fence seq_cst
  ret i32 0
}
;CM: !llvm.module.flags = !{!0}
;CM: !0 = !{i32 1, !"Code Model", i32 4}
