; Two stackmaps with one ID and different shadows in one function: nothing
; tells which record is which, so their kinds and sizes stay unknown.
declare void @llvm.experimental.stackmap(i64, i32, ...)

define void @twice(i64 %a) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 4, i64 %a)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 8, i64 %a)
  ret void
}
