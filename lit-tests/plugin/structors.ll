; Module ctor/dtor per section, exactly as each release writes them: weak
; callbacks called only when linked, __start_/__stop_ markers, COMDAT,
; priority 2, llvm.used; version 1 or 2, | 1<<16 for medium/large models.
; (In LLVM 19 `native` is LLVM 19's encoding: %native-checks.)
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;native>' -S %s | %FileCheck %s --check-prefixes=%native-checks
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics>' -S %s | %FileCheck %s --check-prefixes=COMPACT
; RUN: sed -e '/^!llvm.module.flags = !{!0, !1}$/d' -e 's/^;CM: //' %s > %t.large.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;native>' -S %t.large.ll | %FileCheck %s --check-prefixes=%native-checks-LARGE
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics>' -S %t.large.ll | %FileCheck %s --check-prefixes=COMPACT-LARGE
; A module without instrumented functions gets no structors.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<uar>' -S %s | %FileCheck %s --check-prefixes=NONE

; NATIVE: $__sanitizer_metadata_atomics.module_ctor = comdat any
; NATIVE: @__start_sanmd_atomics = extern_weak hidden global ptr
; NATIVE: @__stop_sanmd_atomics = extern_weak hidden global ptr
; NATIVE: @llvm.used = appending global [4 x ptr] [ptr @__sanitizer_metadata_atomics.module_ctor, ptr @__sanitizer_metadata_atomics.module_dtor, ptr @__sanitizer_metadata_covered.module_ctor, ptr @__sanitizer_metadata_covered.module_dtor], section "llvm.metadata"
; NATIVE: @llvm.global_ctors = appending global [3 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @user_ctor, ptr null }, { i32, ptr, ptr } { i32 2, ptr @__sanitizer_metadata_atomics.module_ctor, ptr @__sanitizer_metadata_atomics.module_ctor }, { i32, ptr, ptr } { i32 2, ptr @__sanitizer_metadata_covered.module_ctor, ptr @__sanitizer_metadata_covered.module_ctor }]
; NATIVE: @llvm.global_dtors = appending global [2 x { i32, ptr, ptr }]
; NATIVE: declare extern_weak void @__sanitizer_metadata_atomics_add(i32, ptr, ptr)
; NATIVE: define internal void @__sanitizer_metadata_atomics.module_ctor() #[[ATTR:[0-9]+]] comdat {
; NATIVE-NEXT: entry:
; NATIVE-NEXT: br i1 icmp ne (ptr @__sanitizer_metadata_atomics_add, ptr null), label %callfunc, label %ret
; NATIVE-EMPTY:
; NATIVE-NEXT: callfunc:
; NATIVE-NEXT: call void @__sanitizer_metadata_atomics_add(i32 1, ptr @__start_sanmd_atomics, ptr @__stop_sanmd_atomics)
; NATIVE-NEXT: br label %ret
; NATIVE-EMPTY:
; NATIVE-NEXT: ret:
; NATIVE-NEXT: ret void
; NATIVE: define internal void @__sanitizer_metadata_atomics.module_dtor() #[[ATTR]] comdat {
; NATIVE: call void @__sanitizer_metadata_atomics_del(i32 1, ptr @__start_sanmd_atomics, ptr @__stop_sanmd_atomics)
; NATIVE: define internal void @__sanitizer_metadata_covered.module_ctor() #[[ATTR]] comdat {
; NATIVE: call void @__sanitizer_metadata_covered_add(i32 1, ptr @__start_sanmd_covered, ptr @__stop_sanmd_covered)
; NATIVE: attributes #[[ATTR]] = { nounwind uwtable "frame-pointer"="all" }

; COMPACT: @__start_sanmd_atomics2 = extern_weak hidden global ptr
; COMPACT: @llvm.global_ctors = appending global [3 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @user_ctor, ptr null }, { i32, ptr, ptr } { i32 2, ptr @__sanitizer_metadata_atomics2.module_ctor, ptr @__sanitizer_metadata_atomics2.module_ctor }, { i32, ptr, ptr } { i32 2, ptr @__sanitizer_metadata_covered2.module_ctor, ptr @__sanitizer_metadata_covered2.module_ctor }]
; COMPACT: define hidden void @__sanitizer_metadata_atomics2.module_ctor() #[[ATTR:[0-9]+]] comdat {
; COMPACT: call void @__sanitizer_metadata_atomics_add(i32 2, ptr @__start_sanmd_atomics2, ptr @__stop_sanmd_atomics2)
; COMPACT: define hidden void @__sanitizer_metadata_covered2.module_dtor() #[[ATTR]] comdat {
; COMPACT: call void @__sanitizer_metadata_covered_del(i32 2, ptr @__start_sanmd_covered2, ptr @__stop_sanmd_covered2)

; NATIVE-LARGE: call void @__sanitizer_metadata_atomics_add(i32 65537, ptr @__start_sanmd_atomics, ptr @__stop_sanmd_atomics)
; NATIVE-LARGE: !{!"sanmd_atomics"}
; COMPACT-LARGE: define hidden void @__sanitizer_metadata_atomics65538.module_ctor()
; COMPACT-LARGE: call void @__sanitizer_metadata_atomics_add(i32 65538, ptr @__start_sanmd_atomics65538, ptr @__stop_sanmd_atomics65538)
; COMPACT-LARGE: !{!"sanmd_atomics65538!C"}

; NONE-NOT: module_ctor
; NONE-NOT: sanitizer_metadata

target triple = "x86_64-unknown-linux-gnu"

@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @user_ctor, ptr null }]

define void @user_ctor() {
  ret void
}

define i32 @f(ptr %p) {
  %v = load atomic i32, ptr %p acquire, align 4
  ret i32 %v
}

!llvm.module.flags = !{!0, !1}
!0 = !{i32 7, !"uwtable", i32 2}
!1 = !{i32 7, !"frame-pointer", i32 2}
;CM: !llvm.module.flags = !{!0, !1, !2}
;CM: !2 = !{i32 1, !"Code Model", i32 4}
