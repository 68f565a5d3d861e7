; Patch points for examples/patching: compiled ahead of time with a null
; target (the region is all nops), patched by main.c at start-up to call the
; runtime's handlers. 32 bytes: room for the call sequence of
; docs/patching.md on every target (x86-64 13, AArch64 16, PowerPC64 ELFv2
; 32 with the TOC save and restore).

declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)

; Patch point 100: becomes a call of double_it(x).
define i64 @compute(i64 %x) {
entry:
  %r = call i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 100, i32 32, ptr null, i32 1, i64 %x)
  %s = add i64 %r, 1
  ret i64 %s
}

; Patch point 101 twice (one ID, two sites): both become calls of square(x).
define i64 @compute2(i64 %x, i1 %which) {
entry:
  br i1 %which, label %a, label %b
a:
  %ra = call i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 101, i32 32, ptr null, i32 1, i64 %x)
  ret i64 %ra
b:
  %y = add i64 %x, 1
  %rb = call i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 101, i32 32, ptr null, i32 1, i64 %y)
  %sb = sub i64 %rb, 1
  ret i64 %sb
}
