; The managed program of the collector example (program.statepoint.ll),
; written the way a front end must for a target whose backend cannot lower
; gc.statepoint (LLVM 16's and 19's PowerPC), so that it stays right through
; any optimization level (clang -O0 to -O3, -Os, -Oz; llc -O2):
;
; * Every heap pointer that is live across a call that may collect lives in
;   an entry-block alloca marked by llvm.gcroot. The marker makes the slot
;   escape before the first call, so the optimizer keeps it in memory and
;   lets every later call read and write it: the collector rewrites it during
;   the call. (An alloca that escaped only at the stack map after the call
;   would, to LLVM, be out of the call's reach: the call could be marked
;   `tail`, the slot's stores and loads moved across it.)
; * Right after each such call, llvm.experimental.stackmap lists the slots,
;   so the record (at the call's return address) has a Direct [SP or FP +
;   offset] location for each. The code reloads the slots after it (the
;   intrinsic may read and write any memory).
; * Every such call is `noinline` (#0): a call that may collect stays a call
;   with its own record. Inlined, its callee's stack map would list the
;   callee's slots only, and the caller's roots live across the inlined
;   allocation would be missed.
; * Nothing but memory is live across such a call: the scalars that are
;   used after one (arguments, loop counters) live in allocas too, and
;   results come back in @gc_result. A value held in a register across the
;   call could be reloaded or moved between the call and the stack map (the
;   register allocator at -O0 reloads right after the call), and the record
;   would no longer be at the return address, where the library's walker
;   takes it (on PowerPC also after the TOC restore, `nop` / `ld r2`, that
;   follows a call to another function's global entry, and nowhere else).
;   With optimization, the scalar allocas become registers again.
;
; The slots are listed in (base, derived) pairs as a statepoint lists its
; relocations: a plain root is (slot, slot); a slot holding a pointer into
; an object is (slot of the object, slot of the derived pointer).
;
; A site with no live heap pointer lists no location
; (`stackmap(i64 ID, i32 0)`).
;
; llvm.gcroot needs a `gc` strategy: "statepoint-example", as in
; program.statepoint.ll, emits no metadata of its own (the runtime reads
; only the stack map records) and inserts no safepoints. Code generation
; null-initializes each root (GCLowering) unless the entry block stores to
; it first, as every function here does.
;
; Object layout, checksum and --hide-root as in program.statepoint.ll.

; Allocation, a safepoint: the runtime's gc_alloc_slow called through the
; library's capture trampoline, which hands it this caller's registers. Its
; result, like that of every function that may collect, comes back in
; @gc_result, read after the stack map.
declare void @pcmap_capture_call(ptr %handler, i64 %num_pointers, i64 %num_scalars)
declare ptr @gc_alloc_slow(ptr %regs, i64 %num_pointers, i64 %num_scalars)
@gc_result = external global ptr
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.gcroot(ptr, ptr)

define void @tree(i64 %depth, i64 %seed) gc "statepoint-example" {
entry:
  %node.slot = alloca ptr
  %left.field.slot = alloca ptr
  %right.field.slot = alloca ptr
  %depth.slot = alloca i64
  %seed.slot = alloca i64
  call void @llvm.gcroot(ptr %node.slot, ptr null)
  call void @llvm.gcroot(ptr %left.field.slot, ptr null)
  call void @llvm.gcroot(ptr %right.field.slot, ptr null)
  store ptr null, ptr %node.slot
  store ptr null, ptr %left.field.slot
  store ptr null, ptr %right.field.slot
  store i64 %depth, ptr %depth.slot
  store i64 %seed, ptr %seed.slot
  call void @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 1) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0)
  %node = load ptr, ptr @gc_result
  store ptr %node, ptr %node.slot
  %depth.1 = load i64, ptr %depth.slot
  %seed.1 = load i64, ptr %seed.slot
  %value.field = getelementptr i64, ptr %node, i64 3
  %value = mul i64 %seed.1, 31
  %value.1 = add i64 %value, %depth.1
  store i64 %value.1, ptr %value.field
  %leaf = icmp eq i64 %depth.1, 0
  br i1 %leaf, label %done, label %inner

inner:
  %left.field = getelementptr i64, ptr %node, i64 1
  store ptr %left.field, ptr %left.field.slot
  %right.field = getelementptr i64, ptr %node, i64 2
  store ptr %right.field, ptr %right.field.slot
  %d = sub i64 %depth.1, 1
  %s.left = shl i64 %seed.1, 1
  call void @tree(i64 %d, i64 %s.left) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 0, ptr %node.slot, ptr %node.slot, ptr %node.slot, ptr %left.field.slot, ptr %node.slot, ptr %right.field.slot)
  %left = load ptr, ptr @gc_result
  %left.field.1 = load ptr, ptr %left.field.slot
  store ptr %left, ptr %left.field.1
  %depth.2 = load i64, ptr %depth.slot
  %seed.2 = load i64, ptr %seed.slot
  %d.2 = sub i64 %depth.2, 1
  %s.left.2 = shl i64 %seed.2, 1
  %s.right = or i64 %s.left.2, 1
  call void @tree(i64 %d.2, i64 %s.right) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 0, ptr %node.slot, ptr %node.slot, ptr %node.slot, ptr %right.field.slot)
  %right = load ptr, ptr @gc_result
  %right.field.1 = load ptr, ptr %right.field.slot
  store ptr %right, ptr %right.field.1
  br label %done

done:
  %result = load ptr, ptr %node.slot
  store ptr %result, ptr @gc_result
  ret void
}

define void @cons(ptr %head, ptr %tail) gc "statepoint-example" {
entry:
  %head.slot = alloca ptr
  %tail.slot = alloca ptr
  call void @llvm.gcroot(ptr %head.slot, ptr null)
  call void @llvm.gcroot(ptr %tail.slot, ptr null)
  store ptr %head, ptr %head.slot
  store ptr %tail, ptr %tail.slot
  call void @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 0) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 4, i32 0, ptr %head.slot, ptr %head.slot, ptr %tail.slot, ptr %tail.slot)
  %cell = load ptr, ptr @gc_result
  %head.1 = load ptr, ptr %head.slot
  %head.field = getelementptr i64, ptr %cell, i64 1
  store ptr %head.1, ptr %head.field
  %tail.1 = load ptr, ptr %tail.slot
  %tail.field = getelementptr i64, ptr %cell, i64 2
  store ptr %tail.1, ptr %tail.field
  store ptr %cell, ptr @gc_result
  ret void
}

define void @garbage(i64 %n) gc "statepoint-example" {
entry:
  %n.slot = alloca i64
  %i.slot = alloca i64
  store i64 %n, ptr %n.slot
  store i64 0, ptr %i.slot
  br label %loop

loop:
  ; %list is dead after the call: no root.
  %list = phi ptr [ null, %entry ], [ %list.next, %loop ]
  call void @cons(ptr null, ptr %list) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 5, i32 0)
  %list.next = load ptr, ptr @gc_result
  %i = load i64, ptr %i.slot
  %i.next = add i64 %i, 1
  store i64 %i.next, ptr %i.slot
  %n.1 = load i64, ptr %n.slot
  %more = icmp ult i64 %i.next, %n.1
  br i1 %more, label %loop, label %done

done:
  ret void
}

define i64 @check_tree(ptr %node) {
entry:
  %null = icmp eq ptr %node, null
  br i1 %null, label %empty, label %full

empty:
  ret i64 0

full:
  %value.field = getelementptr i64, ptr %node, i64 3
  %value = load i64, ptr %value.field
  %left.field = getelementptr i64, ptr %node, i64 1
  %left = load ptr, ptr %left.field
  %right.field = getelementptr i64, ptr %node, i64 2
  %right = load ptr, ptr %right.field
  %l = call i64 @check_tree(ptr %left)
  %r = call i64 @check_tree(ptr %right)
  %l3 = mul i64 %l, 3
  %r5 = mul i64 %r, 5
  %sum = add i64 %l3, %r5
  %sum.1 = add i64 %sum, %value
  ret i64 %sum.1
}

define i64 @gc_main(i64 %rounds) gc "statepoint-example" {
entry:
  %keep.slot = alloca ptr
  %t.slot = alloca ptr
  %rounds.slot = alloca i64
  %i.slot = alloca i64
  ; hide-root: %keep.hidden.slot = alloca i64
  call void @llvm.gcroot(ptr %keep.slot, ptr null)
  call void @llvm.gcroot(ptr %t.slot, ptr null)
  store ptr null, ptr %keep.slot
  store ptr null, ptr %t.slot
  store i64 %rounds, ptr %rounds.slot
  store i64 0, ptr %i.slot
  br label %loop

loop:
  %i = load i64, ptr %i.slot
  %depth.mod = urem i64 %i, 4
  %depth = add i64 %depth.mod, 3
  ; hide-root: %keep.before = load ptr, ptr %keep.slot
  ; hide-root: %keep.hidden = ptrtoint ptr %keep.before to i64
  ; hide-root: store i64 %keep.hidden, ptr %keep.hidden.slot
  call void @tree(i64 %depth, i64 %i) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 0, ptr %keep.slot, ptr %keep.slot)
  %t = load ptr, ptr @gc_result
  store ptr %t, ptr %t.slot
  %i.1 = load i64, ptr %i.slot
  %depth.mod.1 = urem i64 %i.1, 4
  %depth.1 = add i64 %depth.mod.1, 3
  %garbage.cells = mul i64 %depth.1, 500
  call void @garbage(i64 %garbage.cells) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0, ptr %keep.slot, ptr %keep.slot, ptr %t.slot, ptr %t.slot)
  %keep.seen = load ptr, ptr %keep.slot ; visible-root
  ; hide-root: %keep.hidden.1 = load i64, ptr %keep.hidden.slot
  ; hide-root: %keep.seen = inttoptr i64 %keep.hidden.1 to ptr
  %t.1 = load ptr, ptr %t.slot
  call void @cons(ptr %t.1, ptr %keep.seen) #0
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 0)
  %keep.next = load ptr, ptr @gc_result
  store ptr %keep.next, ptr %keep.slot
  %i.2 = load i64, ptr %i.slot
  %i.next = add i64 %i.2, 1
  store i64 %i.next, ptr %i.slot
  %rounds.1 = load i64, ptr %rounds.slot
  %more = icmp ult i64 %i.next, %rounds.1
  br i1 %more, label %loop, label %sum

; No call below may collect: no slots, no stack maps.
sum:
  %cell = phi ptr [ %keep.next, %loop ], [ %tail, %sum.next ]
  %acc = phi i64 [ 0, %loop ], [ %acc.next, %sum.next ]
  %head.field = getelementptr i64, ptr %cell, i64 1
  %head = load ptr, ptr %head.field
  %c = call i64 @check_tree(ptr %head)
  %acc.31 = mul i64 %acc, 31
  %acc.next = add i64 %acc.31, %c
  %tail.field = getelementptr i64, ptr %cell, i64 2
  %tail = load ptr, ptr %tail.field
  %end = icmp eq ptr %tail, null
  br i1 %end, label %done, label %sum.next

sum.next:
  br label %sum

done:
  ret i64 %acc.next
}

; A call that may collect stays a call, with its record after it.
attributes #0 = { noinline }
