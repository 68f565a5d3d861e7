; Stack map and patchpoint sites, for every target (sites.test).
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
declare void @ext(i64)

; IR IDs are i64, often negative: the record's ID is the unsigned value.
define void @stackmaps(i64 %x) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 -1, i32 8, i64 %x)
  call void @ext(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 16, i64 %x)
  ret void
}

define i64 @patchpoints(i64 %x) {
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 5, i32 40, ptr null, i32 0, i64 %x)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 -6, i32 32, ptr null, i32 0)
  ret i64 %r
}

; Several sites of one function share ID 3 with different kinds and sizes.
define void @shared(i64 %x) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 4, i64 %x)
  call void @ext(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 12, i64 %x)
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 3, i32 16, ptr null, i32 0)
  ret void
}

; Names that need escapes; \01 asks for the name verbatim (LLVM drops it).
define void @"odd %name\0A\C3\A9 x"() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0)
  ret void
}

define void @"\01verbatim"() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 4)
  ret void
}

; No name the pass can know: unnamed (`__unnamed_1` in the object) and
; private (a `.L` label, in no symbol table).
define void @0() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 4)
  ret void
}

define private void @hidden_label() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 10, i32 8)
  ret void
}

define void @keep() {
  call void @hidden_label()
  ret void
}

; Not sites: a plain call, an intrinsic with a deopt bundle.
declare void @llvm.donothing()
define void @none() {
  call void @ext(i64 0)
  call void @llvm.donothing() [ "deopt"(i32 1) ]
  ret void
}
