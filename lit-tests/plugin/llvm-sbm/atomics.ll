; pcmap parity input (issue 19): one of LLVM's own SanitizerBinaryMetadata tests, Apache-2.0 WITH LLVM-exception (LICENSE.TXT, README.md).
; origin: llvm/llvm-project llvm/test/Instrumentation/SanitizerBinaryMetadata/atomics.ll at 23e88aa8c0430a3aca1c974ee9d2a63dda9c402c
; original-run: opt < %s -passes='module(sanmd-module)' -sanitizer-metadata-atomics -S | FileCheck %s
; changed: RUN and CHECK lines removed, and the comment that only introduced the callback CHECK lines; nothing else. The module has no target triple: the tests give opt -mtriple=x86_64-unknown-linux-gnu (the plugin refuses non-ELF targets, LLVM 16 crashes writing PC sections there).
;
; Check that atomic memory operations receive PC sections metadata.

target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v64:64:64-v128:128:128-a0:0:64-s0:64:64-f80:128:128-n8:16:32:64-S128"

define i8 @atomic8_load_unordered(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i8, ptr %a unordered, align 1
  ret i8 %0
}

define i8 @atomic8_load_monotonic(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i8, ptr %a monotonic, align 1
  ret i8 %0
}

define i8 @atomic8_load_acquire(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i8, ptr %a acquire, align 1
  ret i8 %0
}

define i8 @atomic8_load_seq_cst(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i8, ptr %a seq_cst, align 1
  ret i8 %0
}

define void @atomic8_store_unordered(ptr %a) nounwind uwtable {
entry:
  store atomic i8 0, ptr %a unordered, align 1
  ret void
}

define void @atomic8_store_monotonic(ptr %a) nounwind uwtable {
entry:
  store atomic i8 0, ptr %a monotonic, align 1
  ret void
}

define void @atomic8_store_release(ptr %a) nounwind uwtable {
entry:
  store atomic i8 0, ptr %a release, align 1
  ret void
}

define void @atomic8_store_seq_cst(ptr %a) nounwind uwtable {
entry:
  store atomic i8 0, ptr %a seq_cst, align 1
  ret void
}

define void @atomic8_xchg_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_add_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_sub_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_and_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_or_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_xor_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_nand_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i8 0 monotonic
  ret void
}

define void @atomic8_xchg_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_add_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_sub_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_and_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_or_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_xor_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_nand_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i8 0 acquire
  ret void
}

define void @atomic8_xchg_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i8 0 release
  ret void
}

define void @atomic8_add_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i8 0 release
  ret void
}

define void @atomic8_sub_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i8 0 release
  ret void
}

define void @atomic8_and_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i8 0 release
  ret void
}

define void @atomic8_or_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i8 0 release
  ret void
}

define void @atomic8_xor_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i8 0 release
  ret void
}

define void @atomic8_nand_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i8 0 release
  ret void
}

define void @atomic8_xchg_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_add_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_sub_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_and_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_or_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_xor_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_nand_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i8 0 acq_rel
  ret void
}

define void @atomic8_xchg_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_add_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_sub_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_and_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_or_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_xor_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_nand_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i8 0 seq_cst
  ret void
}

define void @atomic8_cas_monotonic(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i8 0, i8 1 monotonic monotonic
  cmpxchg ptr %a, i8 0, i8 1 monotonic acquire
  cmpxchg ptr %a, i8 0, i8 1 monotonic seq_cst
  ret void
}

define void @atomic8_cas_acquire(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i8 0, i8 1 acquire monotonic
  cmpxchg ptr %a, i8 0, i8 1 acquire acquire
  cmpxchg ptr %a, i8 0, i8 1 acquire seq_cst
  ret void
}

define void @atomic8_cas_release(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i8 0, i8 1 release monotonic
  cmpxchg ptr %a, i8 0, i8 1 release acquire
  cmpxchg ptr %a, i8 0, i8 1 release seq_cst
  ret void
}

define void @atomic8_cas_acq_rel(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i8 0, i8 1 acq_rel monotonic
  cmpxchg ptr %a, i8 0, i8 1 acq_rel acquire
  cmpxchg ptr %a, i8 0, i8 1 acq_rel seq_cst
  ret void
}

define void @atomic8_cas_seq_cst(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i8 0, i8 1 seq_cst monotonic
  cmpxchg ptr %a, i8 0, i8 1 seq_cst acquire
  cmpxchg ptr %a, i8 0, i8 1 seq_cst seq_cst
  ret void
}

define i16 @atomic16_load_unordered(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i16, ptr %a unordered, align 2
  ret i16 %0
}

define i16 @atomic16_load_monotonic(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i16, ptr %a monotonic, align 2
  ret i16 %0
}

define i16 @atomic16_load_acquire(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i16, ptr %a acquire, align 2
  ret i16 %0
}

define i16 @atomic16_load_seq_cst(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i16, ptr %a seq_cst, align 2
  ret i16 %0
}

define void @atomic16_store_unordered(ptr %a) nounwind uwtable {
entry:
  store atomic i16 0, ptr %a unordered, align 2
  ret void
}

define void @atomic16_store_monotonic(ptr %a) nounwind uwtable {
entry:
  store atomic i16 0, ptr %a monotonic, align 2
  ret void
}

define void @atomic16_store_release(ptr %a) nounwind uwtable {
entry:
  store atomic i16 0, ptr %a release, align 2
  ret void
}

define void @atomic16_store_seq_cst(ptr %a) nounwind uwtable {
entry:
  store atomic i16 0, ptr %a seq_cst, align 2
  ret void
}

define void @atomic16_xchg_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_add_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_sub_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_and_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_or_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_xor_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_nand_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i16 0 monotonic
  ret void
}

define void @atomic16_xchg_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_add_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_sub_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_and_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_or_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_xor_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_nand_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i16 0 acquire
  ret void
}

define void @atomic16_xchg_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i16 0 release
  ret void
}

define void @atomic16_add_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i16 0 release
  ret void
}

define void @atomic16_sub_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i16 0 release
  ret void
}

define void @atomic16_and_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i16 0 release
  ret void
}

define void @atomic16_or_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i16 0 release
  ret void
}

define void @atomic16_xor_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i16 0 release
  ret void
}

define void @atomic16_nand_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i16 0 release
  ret void
}

define void @atomic16_xchg_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_add_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_sub_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_and_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_or_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_xor_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_nand_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i16 0 acq_rel
  ret void
}

define void @atomic16_xchg_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_add_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_sub_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_and_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_or_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_xor_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_nand_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i16 0 seq_cst
  ret void
}

define void @atomic16_cas_monotonic(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i16 0, i16 1 monotonic monotonic
  cmpxchg ptr %a, i16 0, i16 1 monotonic acquire
  cmpxchg ptr %a, i16 0, i16 1 monotonic seq_cst
  ret void
}

define void @atomic16_cas_acquire(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i16 0, i16 1 acquire monotonic
  cmpxchg ptr %a, i16 0, i16 1 acquire acquire
  cmpxchg ptr %a, i16 0, i16 1 acquire seq_cst
  ret void
}

define void @atomic16_cas_release(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i16 0, i16 1 release monotonic
  cmpxchg ptr %a, i16 0, i16 1 release acquire
  cmpxchg ptr %a, i16 0, i16 1 release seq_cst
  ret void
}

define void @atomic16_cas_acq_rel(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i16 0, i16 1 acq_rel monotonic
  cmpxchg ptr %a, i16 0, i16 1 acq_rel acquire
  cmpxchg ptr %a, i16 0, i16 1 acq_rel seq_cst
  ret void
}

define void @atomic16_cas_seq_cst(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i16 0, i16 1 seq_cst monotonic
  cmpxchg ptr %a, i16 0, i16 1 seq_cst acquire
  cmpxchg ptr %a, i16 0, i16 1 seq_cst seq_cst
  ret void
}

define i32 @atomic32_load_unordered(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i32, ptr %a unordered, align 4
  ret i32 %0
}

define i32 @atomic32_load_monotonic(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i32, ptr %a monotonic, align 4
  ret i32 %0
}

define i32 @atomic32_load_acquire(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i32, ptr %a acquire, align 4
  ret i32 %0
}

define i32 @atomic32_load_seq_cst(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i32, ptr %a seq_cst, align 4
  ret i32 %0
}

define void @atomic32_store_unordered(ptr %a) nounwind uwtable {
entry:
  store atomic i32 0, ptr %a unordered, align 4
  ret void
}

define void @atomic32_store_monotonic(ptr %a) nounwind uwtable {
entry:
  store atomic i32 0, ptr %a monotonic, align 4
  ret void
}

define void @atomic32_store_release(ptr %a) nounwind uwtable {
entry:
  store atomic i32 0, ptr %a release, align 4
  ret void
}

define void @atomic32_store_seq_cst(ptr %a) nounwind uwtable {
entry:
  store atomic i32 0, ptr %a seq_cst, align 4
  ret void
}

define void @atomic32_xchg_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_add_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_sub_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_and_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_or_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_xor_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_nand_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i32 0 monotonic
  ret void
}

define void @atomic32_xchg_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_add_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_sub_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_and_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_or_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_xor_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_nand_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i32 0 acquire
  ret void
}

define void @atomic32_xchg_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i32 0 release
  ret void
}

define void @atomic32_add_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i32 0 release
  ret void
}

define void @atomic32_sub_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i32 0 release
  ret void
}

define void @atomic32_and_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i32 0 release
  ret void
}

define void @atomic32_or_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i32 0 release
  ret void
}

define void @atomic32_xor_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i32 0 release
  ret void
}

define void @atomic32_nand_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i32 0 release
  ret void
}

define void @atomic32_xchg_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_add_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_sub_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_and_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_or_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_xor_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_nand_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i32 0 acq_rel
  ret void
}

define void @atomic32_xchg_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_add_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_sub_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_and_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_or_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_xor_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_nand_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i32 0 seq_cst
  ret void
}

define void @atomic32_cas_monotonic(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i32 0, i32 1 monotonic monotonic
  cmpxchg ptr %a, i32 0, i32 1 monotonic acquire
  cmpxchg ptr %a, i32 0, i32 1 monotonic seq_cst
  ret void
}

define void @atomic32_cas_acquire(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i32 0, i32 1 acquire monotonic
  cmpxchg ptr %a, i32 0, i32 1 acquire acquire
  cmpxchg ptr %a, i32 0, i32 1 acquire seq_cst
  ret void
}

define void @atomic32_cas_release(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i32 0, i32 1 release monotonic
  cmpxchg ptr %a, i32 0, i32 1 release acquire
  cmpxchg ptr %a, i32 0, i32 1 release seq_cst
  ret void
}

define void @atomic32_cas_acq_rel(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i32 0, i32 1 acq_rel monotonic
  cmpxchg ptr %a, i32 0, i32 1 acq_rel acquire
  cmpxchg ptr %a, i32 0, i32 1 acq_rel seq_cst
  ret void
}

define void @atomic32_cas_seq_cst(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i32 0, i32 1 seq_cst monotonic
  cmpxchg ptr %a, i32 0, i32 1 seq_cst acquire
  cmpxchg ptr %a, i32 0, i32 1 seq_cst seq_cst
  ret void
}

define i64 @atomic64_load_unordered(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i64, ptr %a unordered, align 8
  ret i64 %0
}

define i64 @atomic64_load_monotonic(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i64, ptr %a monotonic, align 8
  ret i64 %0
}

define i64 @atomic64_load_acquire(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i64, ptr %a acquire, align 8
  ret i64 %0
}

define i64 @atomic64_load_seq_cst(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i64, ptr %a seq_cst, align 8
  ret i64 %0
}

define ptr @atomic64_load_seq_cst_ptr_ty(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic ptr, ptr %a seq_cst, align 8
  ret ptr %0
}

define void @atomic64_store_unordered(ptr %a) nounwind uwtable {
entry:
  store atomic i64 0, ptr %a unordered, align 8
  ret void
}

define void @atomic64_store_monotonic(ptr %a) nounwind uwtable {
entry:
  store atomic i64 0, ptr %a monotonic, align 8
  ret void
}

define void @atomic64_store_release(ptr %a) nounwind uwtable {
entry:
  store atomic i64 0, ptr %a release, align 8
  ret void
}

define void @atomic64_store_seq_cst(ptr %a) nounwind uwtable {
entry:
  store atomic i64 0, ptr %a seq_cst, align 8
  ret void
}

define void @atomic64_store_seq_cst_ptr_ty(ptr %a, ptr %v) nounwind uwtable {
entry:
  store atomic ptr %v, ptr %a seq_cst, align 8
  ret void
}

define void @atomic64_xchg_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_add_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_sub_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_and_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_or_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_xor_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_nand_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i64 0 monotonic
  ret void
}

define void @atomic64_xchg_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_add_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_sub_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_and_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_or_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_xor_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_nand_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i64 0 acquire
  ret void
}

define void @atomic64_xchg_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i64 0 release
  ret void
}

define void @atomic64_add_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i64 0 release
  ret void
}

define void @atomic64_sub_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i64 0 release
  ret void
}

define void @atomic64_and_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i64 0 release
  ret void
}

define void @atomic64_or_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i64 0 release
  ret void
}

define void @atomic64_xor_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i64 0 release
  ret void
}

define void @atomic64_nand_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i64 0 release
  ret void
}

define void @atomic64_xchg_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_add_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_sub_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_and_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_or_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_xor_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_nand_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i64 0 acq_rel
  ret void
}

define void @atomic64_xchg_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_add_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_sub_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_and_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_or_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_xor_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_nand_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i64 0 seq_cst
  ret void
}

define void @atomic64_cas_monotonic(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i64 0, i64 1 monotonic monotonic
  cmpxchg ptr %a, i64 0, i64 1 monotonic acquire
  cmpxchg ptr %a, i64 0, i64 1 monotonic seq_cst
  ret void
}

define void @atomic64_cas_acquire(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i64 0, i64 1 acquire monotonic
  cmpxchg ptr %a, i64 0, i64 1 acquire acquire
  cmpxchg ptr %a, i64 0, i64 1 acquire seq_cst
  ret void
}

define void @atomic64_cas_release(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i64 0, i64 1 release monotonic
  cmpxchg ptr %a, i64 0, i64 1 release acquire
  cmpxchg ptr %a, i64 0, i64 1 release seq_cst
  ret void
}

define void @atomic64_cas_acq_rel(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i64 0, i64 1 acq_rel monotonic
  cmpxchg ptr %a, i64 0, i64 1 acq_rel acquire
  cmpxchg ptr %a, i64 0, i64 1 acq_rel seq_cst
  ret void
}

define void @atomic64_cas_seq_cst(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i64 0, i64 1 seq_cst monotonic
  cmpxchg ptr %a, i64 0, i64 1 seq_cst acquire
  cmpxchg ptr %a, i64 0, i64 1 seq_cst seq_cst
  ret void
}

define void @atomic64_cas_seq_cst_ptr_ty(ptr %a, ptr %v1, ptr %v2) nounwind uwtable {
entry:
  cmpxchg ptr %a, ptr %v1, ptr %v2 seq_cst seq_cst
  ret void
}

define i128 @atomic128_load_unordered(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i128, ptr %a unordered, align 16
  ret i128 %0
}

define i128 @atomic128_load_monotonic(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i128, ptr %a monotonic, align 16
  ret i128 %0
}

define i128 @atomic128_load_acquire(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i128, ptr %a acquire, align 16
  ret i128 %0
}

define i128 @atomic128_load_seq_cst(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i128, ptr %a seq_cst, align 16
  ret i128 %0
}

define void @atomic128_store_unordered(ptr %a) nounwind uwtable {
entry:
  store atomic i128 0, ptr %a unordered, align 16
  ret void
}

define void @atomic128_store_monotonic(ptr %a) nounwind uwtable {
entry:
  store atomic i128 0, ptr %a monotonic, align 16
  ret void
}

define void @atomic128_store_release(ptr %a) nounwind uwtable {
entry:
  store atomic i128 0, ptr %a release, align 16
  ret void
}

define void @atomic128_store_seq_cst(ptr %a) nounwind uwtable {
entry:
  store atomic i128 0, ptr %a seq_cst, align 16
  ret void
}

define void @atomic128_xchg_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_add_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_sub_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_and_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_or_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_xor_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_nand_monotonic(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i128 0 monotonic
  ret void
}

define void @atomic128_xchg_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_add_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_sub_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_and_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_or_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_xor_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_nand_acquire(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i128 0 acquire
  ret void
}

define void @atomic128_xchg_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i128 0 release
  ret void
}

define void @atomic128_add_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i128 0 release
  ret void
}

define void @atomic128_sub_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i128 0 release
  ret void
}

define void @atomic128_and_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i128 0 release
  ret void
}

define void @atomic128_or_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i128 0 release
  ret void
}

define void @atomic128_xor_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i128 0 release
  ret void
}

define void @atomic128_nand_release(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i128 0 release
  ret void
}

define void @atomic128_xchg_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_add_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_sub_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_and_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_or_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_xor_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_nand_acq_rel(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i128 0 acq_rel
  ret void
}

define void @atomic128_xchg_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xchg ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_add_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw add ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_sub_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw sub ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_and_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw and ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_or_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw or ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_xor_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw xor ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_nand_seq_cst(ptr %a) nounwind uwtable {
entry:
  atomicrmw nand ptr %a, i128 0 seq_cst
  ret void
}

define void @atomic128_cas_monotonic(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i128 0, i128 1 monotonic monotonic
  ret void
}

define void @atomic128_cas_acquire(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i128 0, i128 1 acquire acquire
  ret void
}

define void @atomic128_cas_release(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i128 0, i128 1 release monotonic
  ret void
}

define void @atomic128_cas_acq_rel(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i128 0, i128 1 acq_rel acquire
  ret void
}

define void @atomic128_cas_seq_cst(ptr %a) nounwind uwtable {
entry:
  cmpxchg ptr %a, i128 0, i128 1 seq_cst seq_cst
  ret void
}

; Check that callbacks are emitted.
