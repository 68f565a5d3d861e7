; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/patchpoint-invoke.ll at 3e239e56014cddfefc6710016f64550ec62d665a
; original-run: llc -combiner-topological-sorting -mtriple=x86_64-unknown-linux -mcpu=corei7 < %s
; corpus-triples: x86_64
; corpus-llc-args: -mcpu=corei7
; changed: RUN lines, CHECK lines and the comments annotating CHECK lines removed; nothing else.

; Test invoking of patchpoints
;
define i64 @patchpoint_invoke(i64 %p1, i64 %p2) personality ptr @__gxx_personality_v0 {
entry:
  %resolveCall = inttoptr i64 -559038736 to ptr
  %result = invoke i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 2, i32 15, ptr %resolveCall, i32 1, i64 %p1, i64 %p2)
            to label %success unwind label %threw

success:
  ret i64 %result

threw:
  %0 = landingpad { ptr, i32 }
          catch ptr null
  ret i64 0
}


declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
declare i32 @__gxx_personality_v0(...)
