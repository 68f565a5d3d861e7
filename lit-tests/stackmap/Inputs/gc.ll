; gc.statepoint input: opt-16 -passes=rewrite-statepoints-for-gc turns the
; calls below into statepoints with the live GC pointers relocated.
declare void @callee(ptr addrspace(1))
declare void @callee2()

define ptr addrspace(1) @gc_direct(ptr addrspace(1) %obj, ptr addrspace(1) %other) gc "statepoint-example" {
entry:
  call void @callee(ptr addrspace(1) %obj)
  call void @callee2()
  %x = getelementptr i8, ptr addrspace(1) %other, i64 16
  store i8 1, ptr addrspace(1) %x
  ret ptr addrspace(1) %obj
}

define ptr addrspace(1) @gc_indirect(ptr addrspace(1) %obj, ptr %fn) gc "statepoint-example" {
entry:
  call void %fn(ptr addrspace(1) %obj)
  ret ptr addrspace(1) %obj
}
