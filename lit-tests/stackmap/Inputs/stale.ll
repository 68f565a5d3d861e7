; A patchpoint followed by ordinary code, and a stackmap; stale copies of
; this IR (other numBytes / shadow) must be refused, not believed. (No call
; after the patchpoint: llc-16 crashes computing x86 live-outs there.)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
declare void @llvm.experimental.stackmap(i64, i32, ...)

define i64 @pp(i64 %a, i64 %b) {
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 5, i32 16, ptr null, i32 0, i64 %a)
  %s = add i64 %a, %b
  %t = mul i64 %s, %s
  %u = xor i64 %t, %a
  store volatile i64 %u, ptr @g
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 8, i64 %u)
  ret i64 %u
}

@g = global i64 0
