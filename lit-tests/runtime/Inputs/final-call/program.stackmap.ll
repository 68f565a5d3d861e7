; program.statepoint.ll for PowerPC64, whose backend crashes on statepoints:
; the same functions in the same order, each call followed at once by a
; stack map (its record at the call's return address). `outer` lists a
; value live across its call (the walk decodes it: 0x5eed0001). The calls
; of tc_a and tc_b are to functions of this module (dso_local): no TOC
; restore follows them, so each returns to its function's end. `leaf`
; calls the library's trampoline, after which a TOC restore comes, so it
; is a plain frame here (returning, though the handler never returns).

declare void @pcmap_capture_call(ptr, i64, i64, i64, i64, i64)
declare i64 @handler(ptr, i64, i64, i64, i64, i64)
declare i64 @opaque(i64)
declare void @llvm.experimental.stackmap(i64, i32, ...)

define dso_local void @outer(i64 %seed) optsize minsize noinline {
  %v = call i64 @opaque(i64 %seed)
  call void @tc_b()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0, i64 %v)
  call i64 @opaque(i64 %v)
  ret void
}

define dso_local void @leaf() optsize minsize noinline {
  call void @pcmap_capture_call(ptr @handler, i64 0, i64 0, i64 0, i64 0, i64 0)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 0)
  ret void
}

define dso_local void @tc_a() optsize minsize noinline {
  call void @leaf()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 0)
  unreachable
}

define dso_local void @mid(i64 %x) optsize minsize noinline {
  call i64 @opaque(i64 %x)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 4, i32 0)
  ret void
}

define dso_local void @tc_b() optsize minsize noinline {
  call void @tc_a()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 5, i32 0)
  unreachable
}

define dso_local i64 @after(i64 %x) optsize minsize noinline {
  %y = add i64 %x, 1
  ret i64 %y
}
