; Stack map inputs for every target, modelled on LLVM's own
; CodeGen/*/stackmap.ll and patchpoint.ll: constants small, negative and
; large, registers, spills (Indirect), allocas (Direct), live-outs, anyregcc,
; patch areas over 255 bytes, a variable-sized frame and a realigned one.
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
declare void @use(ptr)

define void @constants() {
entry:
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 4, i16 65535, i16 65536, i32 -1, i32 2147483647, i64 -1, i64 4294967296, i64 4294967297, i64 -4294967296, i64 12345678901234567)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 4, i64 4294967296, i64 12345678901234567)
  ret void
}

define i64 @registers_and_spills(i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, ptr %p) {
entry:
  %v1 = load volatile i64, ptr %p
  %v2 = load volatile i64, ptr %p
  %v3 = load volatile i64, ptr %p
  %v4 = load volatile i64, ptr %p
  %v5 = load volatile i64, ptr %p
  %v6 = load volatile i64, ptr %p
  %v7 = load volatile i64, ptr %p
  %v8 = load volatile i64, ptr %p
  %v9 = load volatile i64, ptr %p
  %v10 = load volatile i64, ptr %p
  %v11 = load volatile i64, ptr %p
  %v12 = load volatile i64, ptr %p
  %v13 = load volatile i64, ptr %p
  %v14 = load volatile i64, ptr %p
  %v15 = load volatile i64, ptr %p
  %v16 = load volatile i64, ptr %p
  %v17 = load volatile i64, ptr %p
  %v18 = load volatile i64, ptr %p
  %v19 = load volatile i64, ptr %p
  %v20 = load volatile i64, ptr %p
  %v21 = load volatile i64, ptr %p
  %v22 = load volatile i64, ptr %p
  %v23 = load volatile i64, ptr %p
  %v24 = load volatile i64, ptr %p
  %v25 = load volatile i64, ptr %p
  %v26 = load volatile i64, ptr %p
  %v27 = load volatile i64, ptr %p
  %v28 = load volatile i64, ptr %p
  %v29 = load volatile i64, ptr %p
  %v30 = load volatile i64, ptr %p
  %v31 = load volatile i64, ptr %p
  %v32 = load volatile i64, ptr %p
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 16, i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, i64 %v1, i64 %v2, i64 %v3, i64 %v4, i64 %v5, i64 %v6, i64 %v7, i64 %v8, i64 %v9, i64 %v10, i64 %v11, i64 %v12, i64 %v13, i64 %v14, i64 %v15, i64 %v16, i64 %v17, i64 %v18, i64 %v19, i64 %v20, i64 %v21, i64 %v22, i64 %v23, i64 %v24, i64 %v25, i64 %v26, i64 %v27, i64 %v28, i64 %v29, i64 %v30, i64 %v31, i64 %v32)
  call void @use(ptr %p)
  %s1 = add i64 %v1, %v2
  %s2 = add i64 %s1, %v32
  ret i64 %s2
}

define void @allocas() {
entry:
  %x = alloca i64
  %y = alloca [4 x i32]
  call void @use(ptr %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 4, i32 0, ptr %x, ptr %y)
  call void @use(ptr %y)
  ret void
}

define i64 @patchpoints(i64 %a, i64 %b, ptr %target) {
entry:
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 5, i32 20, ptr null, i32 0, i64 %a, i64 %b)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 6, i32 300, ptr null, i32 2, i64 %a, i64 %b, i64 %a)
  %s = add i64 %r, %a
  %t = add i64 %s, %b
  ret i64 %t
}

define void @dynamic_frame(i64 %n) {
entry:
  %buf = alloca i8, i64 %n
  call void @use(ptr %buf)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, ptr %buf)
  ret void
}

define void @realigned() {
entry:
  %big = alloca i64, align 64
  call void @use(ptr %big)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 4, ptr %big)
  ret void
}

define void @repeated(i64 %a) {
entry:
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 0, i64 %a, i64 0, i64 1)
  call void @use(ptr null)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 0, i64 %a, i64 0, i64 1)
  ret void
}
