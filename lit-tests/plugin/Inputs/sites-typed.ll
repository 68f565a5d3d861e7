; A gc.statepoint in typed-pointer IR (sites.test): under
; opt -opaque-pointers=0 the overload keeps its typed name.
declare void @callee()
declare token @llvm.experimental.gc.statepoint.p0f_isVoidf(i64, i32, void ()*, i32, i32, ...)

define void @typed() gc "statepoint-example" {
  %t = call token (i64, i32, void ()*, i32, i32, ...) @llvm.experimental.gc.statepoint.p0f_isVoidf(i64 -1, i32 4, void ()* elementtype(void ()) @callee, i32 0, i32 0, i32 0, i32 0)
  ret void
}
