; Frames whose return address is the next function's first byte: `leaf`,
; `tc_a` and `tc_b` end with a call (then `unreachable`: the safepoint's
; handler never returns), and the function after each follows with no
; padding (`minsize`: x86-64 functions unaligned; AArch64 and PowerPC
; instructions are 4 bytes and functions 4-aligned). `outer` keeps a heap
; reference live across its call: the walk must reach its frame and find
; it. Module order (the code's order): outer, leaf, tc_a, mid, tc_b, after.
; `tc_b` is the last function with records (the image's code range ends at
; its end); `mid` has records (the lookup of tc_a's return address by
; the function starting there finds a function without a record there),
; `after` has none (the same lookup finds no function: unmanaged).

declare ptr addrspace(1) @pcmap_capture_call(ptr, i64, i64, i64, i64, i64)
declare i64 @handler(ptr, i64, i64, i64, i64, i64)
declare void @use(ptr addrspace(1))

define void @outer(ptr addrspace(1) %obj) optsize minsize noinline gc "statepoint-example" {
  call void @tc_b()
  call void @use(ptr addrspace(1) %obj)
  ret void
}

define void @leaf() optsize minsize noinline gc "statepoint-example" {
  call ptr addrspace(1) @pcmap_capture_call(ptr @handler, i64 0, i64 0, i64 0, i64 0, i64 0)
  unreachable
}

define void @tc_a() optsize minsize noinline gc "statepoint-example" {
  call void @leaf()
  unreachable
}

define void @mid(ptr addrspace(1) %obj) optsize minsize noinline gc "statepoint-example" {
  call void @use(ptr addrspace(1) %obj)
  call void @use(ptr addrspace(1) %obj)
  ret void
}

define void @tc_b() optsize minsize noinline gc "statepoint-example" {
  call void @tc_a()
  unreachable
}

define i64 @after(i64 %x) optsize minsize noinline {
  %y = add i64 %x, 1
  ret i64 %y
}
