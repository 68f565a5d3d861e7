; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/stackmap-shadow-optimization.ll at 3e239e56014cddfefc6710016f64550ec62d665a
; original-run: llc -combiner-topological-sorting < %s -mtriple=x86_64-apple-darwin -mcpu=corei7
; corpus-triples: x86_64
; corpus-llc-args: -mcpu=corei7
; changed: RUN and CHECK lines removed; nothing else.

; Check that the X86 stackmap shadow optimization is only outputting a 3-byte
; nop here. 8-bytes are requested, but 5 are covered by the code for the call to
; bar.  However, the frame teardown and the return do not count towards the
; stackmap shadow as the call return counts as a branch target so must flush
; the shadow.
; Note that in order for a thread to not return in to the patched space
; the call must be at the end of the shadow, so the required nop must be
; before the call, not after.
define void @shadow_optimization_test() {
entry:
  call void @bar()
  tail call void (i64, i32, ...) @llvm.experimental.stackmap(i64 0, i32 8)
  call void @bar()
  call void @bar()
  ret void
}

declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @bar()
