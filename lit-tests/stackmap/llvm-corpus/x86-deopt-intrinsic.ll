; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/deopt-intrinsic.ll at 1413ad019348275c5f3dbde380b939c701d2fc58
; original-run: llc < %s        (target triple x86_64-apple-macosx10.11.0 in the file)
; original-run: llc -debug-only=stackmaps < %s 2>&1
; corpus-triples: x86_64
; changed: RUN, REQUIRES (asserts, for -debug-only), CHECK and STACKMAPS lines removed; nothing else.
; llvm.experimental.deoptimize calls __llvm_deoptimize through a statepoint (ID 2882400015).

target datalayout = "e-m:o-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-apple-macosx10.11.0"

declare i32 @llvm.experimental.deoptimize.i32(...)
declare i8  @llvm.experimental.deoptimize.i8(...)

define i32 @caller_0() {
entry:
  %v = call i32(...) @llvm.experimental.deoptimize.i32() [ "deopt"(i32 0) ]
  ret i32 %v
}

define i8 @caller_1() {

entry:
  %v = call i8(...) @llvm.experimental.deoptimize.i8(i32 42, float 500.0) [ "deopt"(i32 1) ]
  ret i8 %v
}
