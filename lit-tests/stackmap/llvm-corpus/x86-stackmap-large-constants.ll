; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/stackmap-large-constants.ll at 3e239e56014cddfefc6710016f64550ec62d665a
; original-run: llc -combiner-topological-sorting < %s -mtriple=x86_64-apple-darwin
; corpus-triples: x86_64
; changed: RUN lines, CHECK lines and the comments annotating CHECK lines removed; nothing else.

declare void @llvm.experimental.stackmap(i64, i32, ...)

define void @foo() {
  tail call void (i64, i32, ...) @llvm.experimental.stackmap(i64 0, i32 0, i64 9223372036854775807)
  ret void
}


define void @bar() {
  tail call void (i64, i32, ...) @llvm.experimental.stackmap(i64 0, i32 0, i64 -9223372036854775808)
  ret void
}
