; Exactly which functions and instructions get !pcsections, per encoding
; (in LLVM 19 both are LLVM 19's: %native-checks).
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar;native>' -S %s | %FileCheck %s --check-prefixes=CHECK,%native-checks -DCOVERED=%compact-covered -DMASK=%compact-mask
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar;compact>' -S %s | %FileCheck %s --check-prefixes=CHECK,COMPACT -DCOVERED=%compact-covered -DMASK=%compact-mask
; RUN: %opt -load-pass-plugin=%plugin -passes=pcmap -S %s | %FileCheck %s --check-prefixes=CHECK,COMPACT -DCOVERED=%compact-covered -DMASK=%compact-mask

@c = constant i32 1, align 4

declare void @ext(ptr)
; CHECK: declare void @ext(ptr){{$}}

; CHECK: define i32 @atomics(ptr %p) !pcsections ![[ATOMICS_FN:[0-9]+]] {
; CHECK-NEXT: load atomic i32, ptr %p acquire, align 4, !pcsections ![[ATOMIC:[0-9]+]]
; CHECK-NEXT: store atomic i32 1, ptr %p release, align 4, !pcsections ![[ATOMIC]]
; CHECK-NEXT: atomicrmw add ptr %p, i32 1 seq_cst, align 4, !pcsections ![[ATOMIC]]
; CHECK-NEXT: fence seq_cst, !pcsections ![[ATOMIC]]
; CHECK-NEXT: fence syncscope("singlethread") seq_cst{{$}}
; CHECK-NEXT: load i32, ptr %p, align 4{{$}}
define i32 @atomics(ptr %p) {
  %a = load atomic i32, ptr %p acquire, align 4
  store atomic i32 1, ptr %p release, align 4
  %b = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  fence seq_cst
  fence syncscope("singlethread") seq_cst
  %e = load i32, ptr %p, align 4
  ret i32 %e
}

; LLVM 19 sees that a non-escaping local is not shared: no atomics entry and
; no atomics bit; LLVM 16 tags every cross-thread atomic.
; NATIVE: define i32 @local() !pcsections ![[ATOMICS_FN]] {
; COMPACT: define i32 @local() !pcsections ![[NONE_FN:[0-9]+]] {
; CHECK: store i32 1, ptr %a, align 4{{$}}
; NATIVE-NEXT: load atomic i32, ptr %a acquire, align 4, !pcsections ![[ATOMIC]]
; COMPACT-NEXT: load atomic i32, ptr %a acquire, align 4{{$}}
define i32 @local() {
  %a = alloca i32, align 4
  store i32 1, ptr %a, align 4
  %v = load atomic i32, ptr %a acquire, align 4
  ret i32 %v
}

; Escaping local: the UAR bit (2).
; CHECK: define void @escapes() !pcsections ![[UAR_FN:[0-9]+]] {
define void @escapes() {
  %a = alloca i32, align 4
  call void @ext(ptr %a)
  ret void
}

; Skipped by both releases.
; CHECK-LABEL: define void @disabled(ptr %p) #{{[0-9]+}} {
; CHECK-NEXT: load atomic i32, ptr %p acquire, align 4{{$}}
define void @disabled(ptr %p) disable_sanitizer_instrumentation {
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}
; CHECK-LABEL: define available_externally void @ae(ptr %p) {
define available_externally void @ae(ptr %p) {
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}

; NATIVE-DAG: ![[ATOMICS_FN]] = !{!"sanmd_covered", ![[M1:[0-9]+]]}
; NATIVE-DAG: ![[M1]] = !{i32 1}
; NATIVE-DAG: ![[ATOMIC]] = !{!"sanmd_atomics"}
; NATIVE-DAG: ![[UAR_FN]] = !{!"sanmd_covered", ![[M3:[0-9]+]]}
; NATIVE-DAG: ![[M3]] = !{i32 3}
; In LLVM 16, compact covered entries are requested in `sanmd_covered`
; (COVERED), where LLVM 16's backend appends the stack-arguments size; the
; layout description says `pcmap emit` writes them into sanmd_covered2
; (docs/pcsections-layout.md). In LLVM 19, as LLVM 19's pass requests them.
; COMPACT-DAG: ![[ATOMICS_FN]] = !{!"[[COVERED]]", ![[M1:[0-9]+]]}
; COMPACT-DAG: ![[M1]] = !{[[MASK]] 1}
; COMPACT-DAG: ![[ATOMIC]] = !{!"sanmd_atomics2!C"}
; COMPACT-DAG: ![[NONE_FN]] = !{!"[[COVERED]]", ![[M0:[0-9]+]]}
; COMPACT-DAG: ![[M0]] = !{[[MASK]] 0}
; COMPACT-DAG: ![[UAR_FN]] = !{!"[[COVERED]]", ![[M3:[0-9]+]]}
; COMPACT-DAG: ![[M3]] = !{[[MASK]] 3}
