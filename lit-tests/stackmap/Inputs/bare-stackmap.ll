; llvm.experimental.stackmap with nothing after the shadow byte count.
declare void @f()
declare void @llvm.experimental.stackmap(i64, i32, ...)
define void @g() {
  call void @f()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0)
  call void @f()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 0, i64 5)
  ret void
}
