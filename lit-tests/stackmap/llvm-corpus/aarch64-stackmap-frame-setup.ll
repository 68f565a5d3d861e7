; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/AArch64/stackmap-frame-setup.ll at 7b3c1006f764bd2ce0a7b7a088029b600b078e71
; original-run: llc -o - -verify-machineinstrs -mtriple=aarch64-apple-darwin -stop-after machine-sink %s
; original-run: llc -o - -verify-machineinstrs -mtriple=aarch64-apple-darwin -fast-isel -fast-isel-abort=1 -stop-after machine-sink %s
; corpus-triples: aarch64
; corpus-llc-args:
; corpus-llc-args: -fast-isel -fast-isel-abort=1
; changed: RUN and ISEL/FAST-ISEL lines removed; compiled to an object instead of stopping after machine-sink.

define void @caller_meta_leaf() {
entry:
  %metadata = alloca i64, i32 3, align 8
  store i64 11, ptr %metadata
  store i64 12, ptr %metadata
  store i64 13, ptr %metadata
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 4, i32 0, ptr %metadata)
  ret void
}

declare void @llvm.experimental.stackmap(i64, i32, ...)
