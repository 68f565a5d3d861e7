; Statepoint sites (x86_64 and AArch64: LLVM 16 crashes on statepoints for
; PowerPC), for sites.test.
declare void @callee()
declare i32 @__gxx_personality_v0(...)
declare token @llvm.experimental.gc.statepoint.p0(i64, i32, ptr, i32, i32, ...)
declare void @llvm.experimental.deoptimize.isVoid(...)

; LLVM 16 keeps the low 32 bits of a statepoint's ID: i64 -1 is 4294967295,
; 4294967298 is 2.
define void @statepoints() gc "statepoint-example" {
  %a = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 -1, i32 0, ptr elementtype(void ()) @callee, i32 0, i32 0, i32 0, i32 0)
  %b = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 4294967298, i32 8, ptr elementtype(void ()) @callee, i32 0, i32 0, i32 0, i32 0)
  ret void
}

; A "deopt" operand bundle makes a call a statepoint: ID and patch bytes from
; the call's own attributes when they parse, else 0xABCDEF0F and 0; the
; callee's attributes do not count.
declare void @callee_with_id() #3
define void @deopt_calls() {
  call void @callee() [ "deopt"(i32 1) ]
  call void @callee() #0 [ "deopt"(i32 2) ]
  call void @callee() #1 [ "deopt"(i32 3) ]
  call void @callee_with_id() [ "deopt"(i32 4) ]
  call void asm sideeffect "nop", ""() [ "deopt"(i32 5) ]
  ret void
}

define void @deopt_invoke() personality ptr @__gxx_personality_v0 {
  invoke void @callee() #2 [ "deopt"(i32 6) ] to label %ok unwind label %bad
ok:
  ret void
bad:
  %lp = landingpad { ptr, i32 } cleanup
  ret void
}

define void @deoptimize() {
  call void (...) @llvm.experimental.deoptimize.isVoid(i32 7) #0 [ "deopt"(i32 7) ]
  ret void
}

attributes #0 = { "statepoint-id"="77" "statepoint-num-patch-bytes"="16" }
attributes #1 = { "statepoint-id"="-1" "statepoint-num-patch-bytes"="+8" }
attributes #2 = { "statepoint-id"="18446744073709551615" }
attributes #3 = { "statepoint-id"="99" }
