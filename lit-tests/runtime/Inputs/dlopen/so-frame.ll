; A managed frame of the shared object libmanaged.so: it keeps its object in
; a stack slot across a call, the stack map after the call (ID 2) names the
; slot (a Direct location), and it returns what the slot holds afterwards:
; the object the collector moved it to.
declare void @llvm.experimental.stackmap(i64, i32, ...)

define ptr @so_frame(ptr %obj, ptr %next) uwtable {
entry:
  %slot = alloca ptr, align 8
  store volatile ptr %obj, ptr %slot
  call void %next()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 0, ptr %slot)
  %moved = load volatile ptr, ptr %slot
  ret ptr %moved
}
