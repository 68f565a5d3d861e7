; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/X86/deopt-bundles.ll at 22e35b8831a63c1c06695d7999622704665c39f7
; original-run: llc     < %s        (target triple x86_64-apple-macosx10.11.0 in the file)
; original-run: llc -O3 < %s
; original-run: llc -O3 -debug-only=stackmaps < %s 2>&1
; corpus-triples: x86_64
; corpus-llc-args:
; corpus-llc-args: -O3
; changed: RUN, REQUIRES (asserts, for -debug-only), CHECK and STACKMAPS lines and the comments annotating
; them removed; nothing else. Calls with "deopt" bundles are lowered as statepoints: ID 2882400015 unless
; the call says "statepoint-id", patch bytes from "statepoint-num-patch-bytes".

target datalayout = "e-m:o-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-apple-macosx10.11.0"


declare i32 @callee_0()
declare i32 @callee_1(i32)
declare i32 @callee_vararg(...)

define i32 @caller_0() {
entry:
  %v = call i32 @callee_0() [ "deopt"(i32 0) ]
  %v2 = add i32 %v, 1
  ret i32 %v2
}

define i32 @caller_1() {
entry:
  %v = call i32 @callee_1(i32 42) "statepoint-id"="4242" [ "deopt"(i32 1) ]
  ret i32 %v
}

define i32 @caller_vararg() {
entry:
  %v = call i32(...) @callee_vararg(i32 42, double 500.0) "statepoint-id"="4243" [ "deopt"(i32 16) ]
  ret i32 %v
}

define i32 @invoker_0() personality i8 0 {
entry:
  %v = invoke i32 @callee_0() [ "deopt"(i32 2) ]
          to label %normal unwind label %uw

normal:
  ret i32 %v

uw:
  %ehvals = landingpad { ptr, i32 }
      cleanup
  ret i32 1
}

define i32 @invoker_1() personality i8 0 {
entry:
  %v = invoke i32 @callee_1(i32 45) "statepoint-num-patch-bytes"="9" [ "deopt"(i32 3) ]
          to label %normal unwind label %uw

normal:
  ret i32 %v

uw:
  %ehvals = landingpad { ptr, i32 }
      cleanup
  ret i32 1
}

define i32 @invoker_2() personality ptr @__CxxFrameHandler3 {
entry:
  %val = invoke i32 @callee_1(i32 1)
          to label %try.cont unwind label %catch.dispatch

catch.dispatch:
  %cs1 = catchswitch within none [label %catch] unwind to caller

catch:
  %cp1 = catchpad within %cs1 [ptr null, i32 64, ptr null]
  %val2 = call i32 @callee_1(i32 100) "statepoint-id"="4243" [ "funclet"(token %cp1), "deopt"(i32 55) ]
  catchret from %cp1 to label %try.cont

try.cont:
  ret i32 0
}

declare i32 @__CxxFrameHandler3(...)

define void @f_0(i64 %n) {
  %s = alloca i64
  %vl = alloca i64, i64 %n
  ; Check that the stackmap does not reference %s through
  ; SP since the offset is not static because of %vl.
  call void @g_0(ptr %vl) [ "deopt"(ptr %s) ]
  ret void
}

declare void @g_0(ptr %vl)

define void @vector_deopt_bundle(<32 x ptr addrspace(1)> %val) {
  call void @unknown() [ "deopt"(<32 x ptr addrspace(1)> %val) ]
  ret void
}

declare void @unknown()
