; Frame states that differ between the records of one function, and a
; record at a function's end. Statepoints (rewrite-statepoints-for-gc).
;
; pushes: with minsize, x86-64 pushes the stack arguments of the call to
; @many (X86CallFrameOptimization), so the CFA is RSP + 48 at that call and
; RSP + 16 at the others: one CFA rule per function would be wrong at one of
; them.
; ends_in_a_call: the call to the noreturn @fail is the function's last
; instruction, so its return address is the function's end, outside its
; FDE; the frame state is the row at the call (pc - 1).
declare void @many(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
declare void @none()
declare void @fail() noreturn

define void @pushes(ptr addrspace(1) %p) minsize gc "statepoint-example" {
entry:
  call void @none()
  call void @many(i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8, i64 9, i64 10)
  call void @none()
  store i8 0, ptr addrspace(1) %p
  ret void
}

define void @ends_in_a_call(ptr addrspace(1) %p) gc "statepoint-example" {
entry:
  call void @none()
  store i8 0, ptr addrspace(1) %p
  call void @fail()
  unreachable
}
