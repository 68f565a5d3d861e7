; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/AArch64/stackmap-liveness.ll at bffd38809346597f411e078e830dd61751dfba64
; original-run: llc < %s -mtriple=aarch64-apple-darwin
; corpus-triples: aarch64
; changed: RUN lines, CHECK lines and the comments annotating CHECK lines removed; nothing else.

target datalayout = "e-m:o-i64:64-i128:128-n32:64-S128"

; Test that the return register is recognized as an live-out.
define i64 @stackmap_liveness(i1 %c) {
  %1 = select i1 %c, i64 1, i64 2
  call anyregcc void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 1, i32 32, ptr null, i32 0)
  ret i64 %1
}

declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
