; A safepoint as a front end writes one with stack maps
; (examples/gc/program.stackmap.ll): a call, then a stack map listing a
; root slot, its record at the call's return address.
declare void @collect()
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.gcroot(ptr, ptr)

define void @f(ptr %object) gc "statepoint-example" {
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  call void @collect() noinline
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0, ptr %slot, ptr %slot)
  ret void
}
