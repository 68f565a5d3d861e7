; The managed program of the collector example (program.statepoint.ll),
; written the way a front end must for a target whose backend cannot lower
; gc.statepoint (LLVM 16's PowerPC): every heap pointer that is live across
; a call that may collect lives in an entry-block alloca, and right after
; each such call `llvm.experimental.stackmap` lists the slots, so the record
; (at the call's return address) has a Direct [SP + offset] location for
; each. The collector rewrites the slots; the code reloads them afterwards
; (the intrinsic may read and write any memory).
;
; The slots are listed in (base, derived) pairs as a statepoint lists its
; relocations: a plain root is (slot, slot); a slot holding a pointer into
; an object is (slot of the object, slot of the derived pointer).
;
; A site with no live heap pointer lists no location
; (`stackmap(i64 ID, i32 0)`).
;
; Object layout, checksum and --hide-root as in program.statepoint.ll.

; Allocation, a safepoint: the runtime's gc_alloc_slow called through the
; library's capture trampoline, which hands it this caller's registers. Its
; result, like that of every function that may collect, comes back in
; @gc_result: a value returned in a register is moved before the stack map,
; which then no longer directly follows the call (the library's walker
; takes a frame's record at its return address, or after PowerPC's TOC
; restore, and nowhere else).
declare void @pcmap_capture_call(ptr %handler, i64 %num_pointers, i64 %num_scalars)
declare ptr @gc_alloc_slow(ptr %regs, i64 %num_pointers, i64 %num_scalars)
@gc_result = external global ptr
declare void @llvm.experimental.stackmap(i64, i32, ...)

define void @tree(i64 %depth, i64 %seed) {
entry:
  %node.slot = alloca ptr
  %left.field.slot = alloca ptr
  %right.field.slot = alloca ptr
  call void @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 1)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0)
  %node = load ptr, ptr @gc_result
  store ptr %node, ptr %node.slot
  %value.field = getelementptr i64, ptr %node, i64 3
  %value = mul i64 %seed, 31
  %value.1 = add i64 %value, %depth
  store i64 %value.1, ptr %value.field
  %leaf = icmp eq i64 %depth, 0
  br i1 %leaf, label %done, label %inner

inner:
  %left.field = getelementptr i64, ptr %node, i64 1
  store ptr %left.field, ptr %left.field.slot
  %right.field = getelementptr i64, ptr %node, i64 2
  store ptr %right.field, ptr %right.field.slot
  %d = sub i64 %depth, 1
  %s.left = shl i64 %seed, 1
  call void @tree(i64 %d, i64 %s.left)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 2, i32 0, ptr %node.slot, ptr %node.slot, ptr %node.slot, ptr %left.field.slot, ptr %node.slot, ptr %right.field.slot)
  %left = load ptr, ptr @gc_result
  %left.field.1 = load ptr, ptr %left.field.slot
  store ptr %left, ptr %left.field.1
  %s.right = or i64 %s.left, 1
  call void @tree(i64 %d, i64 %s.right)
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

define void @cons(ptr %head, ptr %tail) {
entry:
  %head.slot = alloca ptr
  %tail.slot = alloca ptr
  store ptr %head, ptr %head.slot
  store ptr %tail, ptr %tail.slot
  call void @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 0)
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

define void @garbage(i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %list = phi ptr [ null, %entry ], [ %list.next, %loop ]
  ; %list is dead after the call: no root.
  call void @cons(ptr null, ptr %list)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 5, i32 0)
  %list.next = load ptr, ptr @gc_result
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %n
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

define i64 @gc_main(i64 %rounds) {
entry:
  %keep.slot = alloca ptr
  %t.slot = alloca ptr
  store ptr null, ptr %keep.slot
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %depth.mod = urem i64 %i, 4
  %depth = add i64 %depth.mod, 3
  ; hide-root: %keep.before = load ptr, ptr %keep.slot
  ; hide-root: %keep.hidden = ptrtoint ptr %keep.before to i64
  call void @tree(i64 %depth, i64 %i)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 0, ptr %keep.slot, ptr %keep.slot)
  %t = load ptr, ptr @gc_result
  store ptr %t, ptr %t.slot
  %garbage.cells = mul i64 %depth, 500
  call void @garbage(i64 %garbage.cells)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0, ptr %keep.slot, ptr %keep.slot, ptr %t.slot, ptr %t.slot)
  %keep.seen = load ptr, ptr %keep.slot ; visible-root
  ; hide-root: %keep.seen = inttoptr i64 %keep.hidden to ptr
  %t.1 = load ptr, ptr %t.slot
  call void @cons(ptr %t.1, ptr %keep.seen)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 0)
  %keep.next = load ptr, ptr @gc_result
  store ptr %keep.next, ptr %keep.slot
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %rounds
  br i1 %more, label %loop, label %sum

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
