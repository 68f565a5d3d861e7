; A function with a stack map, linked into the C++ end-to-end program: the
; runtime finds it through pcmap_stackmaps at run time.
declare void @llvm.experimental.stackmap(i64, i32, ...)

define i64 @sm_twice(i64 %x) {
entry:
  %y = add i64 %x, %x
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 77, i32 0, i64 %x, i64 %y)
  ret i64 %y
}
