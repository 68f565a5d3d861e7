; The seed of the emit fuzz target's corpus (make-seeds.sh): atomics (PC
; tables), a stack map and a patchpoint (.llvm_stackmaps, .pcmap.sites), and
; a function in a COMDAT group, compiled for each target.
$inl = comdat any

@flag = global i32 0
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
declare void @ext(i64)

define i32 @poll() {
  %v = load atomic i32, ptr @flag acquire, align 4
  ret i32 %v
}

define void @sm(i64 %x) {
  call void @ext(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, i64 %x)
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 5, i32 16, ptr null, i32 0, i64 %x)
  ret void
}

define linkonce_odr i32 @inl(i32 %x) comdat {
  %o = atomicrmw add ptr @flag, i32 %x seq_cst
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 4, i32 %o)
  ret i32 %o
}
