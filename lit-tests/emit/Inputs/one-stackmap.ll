; One function, one stack map after a call with one live value in a
; register: small enough to corrupt field by field.
; Layout of .llvm_stackmaps (v3): header 16 bytes, 1 function (24 bytes), no
; constants; record 0 at 40: ID (8), instruction offset at 48 (4), flags (2),
; locations (2); location 0 at 56: kind (1), 0 (1), size at 58 (2),
; DWARF register at 60 (2), 0 (2), offset (4).
declare void @f()
declare void @llvm.experimental.stackmap(i64, i32, ...)

define i64 @g(i64 %a) {
  call void @f()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0, i64 %a)
  ret i64 %a
}
