; Sites after optimization (sites.test): clang -O2 inlines @inner into
; @outer twice and drops it, so the sites are outer's; the pass alone under
; opt sees them in @inner.
declare void @llvm.experimental.stackmap(i64, i32, ...)

define internal void @inner(i64 %x) {
  call void @ext(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 8, i64 %x)
  ret void
}

define void @outer(i64 %x) {
  call void @inner(i64 %x)
  call void @inner(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 16, i64 %x)
  ret void
}

define i32 @main() {
  call void @outer(i64 1)
  ret i32 0
}

define void @ext(i64 %x) noinline {
  ret void
}
