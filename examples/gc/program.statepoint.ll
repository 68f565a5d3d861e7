; The managed program of the collector example, as a front end for a
; language with a precise, moving GC would emit it: every function uses
; gc "statepoint-example" and keeps heap pointers in addrspace(1).
; `opt-16 -passes=rewrite-statepoints-for-gc` turns each call into a
; statepoint whose stack map record lists where every live heap pointer
; (and every pointer derived from one) is, so the collector can move objects.
;
; Object layout (see runtime.c): a header word, then the pointer fields, then
; the scalar fields; every field is 8 bytes. Field i is at word 1 + i.
;
; --hide-root (run.sh) deletes the `; visible-root` line and uncomments the
; `; hide-root:` lines: `keep` then crosses a collection as an integer, a
; root the collector cannot see, and the checksum must come out wrong.

; Allocation, a safepoint: the runtime's gc_alloc_slow called through the
; library's capture trampoline, which hands it this caller's registers.
declare ptr addrspace(1) @pcmap_capture_call(ptr %handler, i64 %num_pointers, i64 %num_scalars)
declare ptr @gc_alloc_slow(ptr %regs, i64 %num_pointers, i64 %num_scalars)

; A tree node: pointer fields left, right; scalar field value.
define ptr addrspace(1) @tree(i64 %depth, i64 %seed) gc "statepoint-example" {
entry:
  %node = call ptr addrspace(1) @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 1)
  %value.field = getelementptr i64, ptr addrspace(1) %node, i64 3
  %value = mul i64 %seed, 31
  %value.1 = add i64 %value, %depth
  store i64 %value.1, ptr addrspace(1) %value.field
  %leaf = icmp eq i64 %depth, 0
  br i1 %leaf, label %done, label %inner

inner:
  ; Derived pointers to the child fields stay live across the recursive
  ; calls: the collector must relocate them with their base, %node.
  %left.field = getelementptr i64, ptr addrspace(1) %node, i64 1
  %right.field = getelementptr i64, ptr addrspace(1) %node, i64 2
  %d = sub i64 %depth, 1
  %s.left = shl i64 %seed, 1
  %left = call ptr addrspace(1) @tree(i64 %d, i64 %s.left)
  store ptr addrspace(1) %left, ptr addrspace(1) %left.field
  %s.right = or i64 %s.left, 1
  %right = call ptr addrspace(1) @tree(i64 %d, i64 %s.right)
  store ptr addrspace(1) %right, ptr addrspace(1) %right.field
  br label %done

done:
  ret ptr addrspace(1) %node
}

; A list cell: pointer fields head, tail.
define ptr addrspace(1) @cons(ptr addrspace(1) %head, ptr addrspace(1) %tail) gc "statepoint-example" {
entry:
  %cell = call ptr addrspace(1) @pcmap_capture_call(ptr @gc_alloc_slow, i64 2, i64 0)
  %head.field = getelementptr i64, ptr addrspace(1) %cell, i64 1
  store ptr addrspace(1) %head, ptr addrspace(1) %head.field
  %tail.field = getelementptr i64, ptr addrspace(1) %cell, i64 2
  store ptr addrspace(1) %tail, ptr addrspace(1) %tail.field
  ret ptr addrspace(1) %cell
}

; A list of `n` garbage cells, to fill the heap between the trees.
define ptr addrspace(1) @garbage(i64 %n) gc "statepoint-example" {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %list = phi ptr addrspace(1) [ null, %entry ], [ %list.next, %loop ]
  %list.next = call ptr addrspace(1) @cons(ptr addrspace(1) null, ptr addrspace(1) %list)
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done

done:
  ret ptr addrspace(1) %list.next
}

; Sum over a tree, weighted by position, so that a lost or stale subtree
; changes it. Allocates nothing.
define i64 @check_tree(ptr addrspace(1) %node) gc "statepoint-example" {
entry:
  %null = icmp eq ptr addrspace(1) %node, null
  br i1 %null, label %empty, label %full

empty:
  ret i64 0

full:
  %value.field = getelementptr i64, ptr addrspace(1) %node, i64 3
  %value = load i64, ptr addrspace(1) %value.field
  %left.field = getelementptr i64, ptr addrspace(1) %node, i64 1
  %left = load ptr addrspace(1), ptr addrspace(1) %left.field
  %right.field = getelementptr i64, ptr addrspace(1) %node, i64 2
  %right = load ptr addrspace(1), ptr addrspace(1) %right.field
  %l = call i64 @check_tree(ptr addrspace(1) %left)
  %r = call i64 @check_tree(ptr addrspace(1) %right)
  %l3 = mul i64 %l, 3
  %r5 = mul i64 %r, 5
  %sum = add i64 %l3, %r5
  %sum.1 = add i64 %sum, %value
  ret i64 %sum.1
}

; The whole run: `rounds` trees, each kept on a list that lives across every
; collection, with garbage in between; then the checksum over the list.
define i64 @gc_main(i64 %rounds) gc "statepoint-example" {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %keep = phi ptr addrspace(1) [ null, %entry ], [ %keep.next, %loop ]
  %depth.mod = urem i64 %i, 4
  %depth = add i64 %depth.mod, 3
  ; hide-root: %keep.hidden = ptrtoint ptr addrspace(1) %keep to i64
  %t = call ptr addrspace(1) @tree(i64 %depth, i64 %i)
  %garbage.cells = mul i64 %depth, 500
  %g = call ptr addrspace(1) @garbage(i64 %garbage.cells)
  %keep.seen = getelementptr i8, ptr addrspace(1) %keep, i64 0 ; visible-root
  ; hide-root: %keep.seen = inttoptr i64 %keep.hidden to ptr addrspace(1)
  %keep.next = call ptr addrspace(1) @cons(ptr addrspace(1) %t, ptr addrspace(1) %keep.seen)
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %rounds
  br i1 %more, label %loop, label %sum

sum:
  %cell = phi ptr addrspace(1) [ %keep.next, %loop ], [ %tail, %sum.next ]
  %acc = phi i64 [ 0, %loop ], [ %acc.next, %sum.next ]
  %head.field = getelementptr i64, ptr addrspace(1) %cell, i64 1
  %head = load ptr addrspace(1), ptr addrspace(1) %head.field
  %c = call i64 @check_tree(ptr addrspace(1) %head)
  %acc.31 = mul i64 %acc, 31
  %acc.next = add i64 %acc.31, %c
  %tail.field = getelementptr i64, ptr addrspace(1) %cell, i64 2
  %tail = load ptr addrspace(1), ptr addrspace(1) %tail.field
  %end = icmp eq ptr addrspace(1) %tail, null
  br i1 %end, label %done, label %sum.next

sum.next:
  br label %sum

done:
  ret i64 %acc.next
}
