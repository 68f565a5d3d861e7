; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/PowerPC/ppc64-stackmap-nops.ll at 25d293f0cb7a0e243bb0d27e75ee31e0e06fb861
; original-run: llc -verify-machineinstrs < %s -mcpu=ppc -mtriple=powerpc64-unknown-gnu-linux
; corpus-triples: ppc64le ppc64
; corpus-llc-args: -mcpu=ppc
; changed: RUN and CHECK lines removed; nothing else.

define void @test_shadow_optimization() {
entry:
; Expect 12 bytes worth of nops here rather than 32: With the shadow optimization
; in place, 20 bytes will be consumed by the frame teardown and return instr.

  tail call void (i64, i32, ...) @llvm.experimental.stackmap(i64  0, i32  32)
  ret void
}

declare void @llvm.experimental.stackmap(i64, i32, ...)

