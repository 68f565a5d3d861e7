; Two functions with one prologue (one CFI class) and different sizes:
; records of the longer one lie past the shorter one's end, in its last row.
declare void @g()
declare void @stop() noreturn
declare void @llvm.experimental.stackmap(i64, i32, ...)

define void @short() #0 {
  call void @g()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0)
  call void @stop()
  unreachable
}

define void @long() #0 {
  call void @g()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 0)
  call void @g()
  call void @g()
  call void @g()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 0)
  call void @g()
  call void @g()
  call void @g()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 4, i32 0)
  call void @stop()
  unreachable
}

attributes #0 = { "frame-pointer"="all" }
