; An AArch64 frame with a scalable vector and no frame pointer: LLVM
; defines the CFA with a DWARF expression (SP + 16 + 8 * VG), not a
; register and an offset, at every statepoint.
target triple = "aarch64-unknown-linux-gnu"
declare void @use(ptr)
declare void @none()

define void @sve_frame(ptr addrspace(1) %p) "target-features"="+sve" "frame-pointer"="none" gc "statepoint-example" {
entry:
  %v = alloca <vscale x 4 x i32>
  call void @use(ptr %v)
  call void @none()
  store i8 0, ptr addrspace(1) %p
  call void @use(ptr %v)
  ret void
}
