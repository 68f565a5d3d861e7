; A managed AArch64 function whose frame holds a scalable vector and no
; frame pointer: LLVM defines its CFA with a DWARF expression (SP + N +
; M * VG), which the flat table marks (a frame state without a CFA rule).
; It enters the safepoint through pcmap_capture_call (a statepoint after
; rewrite-statepoints-for-gc: the record at the return address); the walk
; must stop at it with PCMAP_STOP_NO_CFA_RULE (sve.c).
target triple = "aarch64-unknown-linux-gnu"

declare void @sve_use(ptr)
declare i64 @pcmap_capture_call(ptr, i64, i64, i64, i64, i64)
declare i64 @sve_safepoint(ptr, i64, i64, i64, i64, i64)

define void @sve_frame(ptr addrspace(1) %p) "target-features"="+sve" "frame-pointer"="none" gc "statepoint-example" {
entry:
  %v = alloca <vscale x 4 x i32>
  call void @sve_use(ptr %v)
  %r = call i64 @pcmap_capture_call(ptr @sve_safepoint, i64 1, i64 2, i64 3, i64 4, i64 5)
  store i8 0, ptr addrspace(1) %p
  call void @sve_use(ptr %v)
  ret void
}
