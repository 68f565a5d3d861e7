; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/stackmap-frame-setup.ll at 3e239e56014cddfefc6710016f64550ec62d665a
; original-run: llc -combiner-topological-sorting -o - -verify-machineinstrs -mtriple=x86_64-apple-darwin -mcpu=corei7 -stop-after machine-sink %s
; original-run: llc -combiner-topological-sorting -o - -verify-machineinstrs -mtriple=x86_64-apple-darwin -mcpu=corei7 -fast-isel -fast-isel-abort=1 -stop-after machine-sink %s
; corpus-triples: x86_64
; corpus-llc-args: -mcpu=corei7
; corpus-llc-args: -mcpu=corei7 -fast-isel -fast-isel-abort=1
; changed: RUN and CHECK lines removed; compiled to an object instead of stopping after machine-sink.

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
