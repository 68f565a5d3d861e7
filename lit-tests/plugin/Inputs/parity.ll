; Oracle-parity input: every construct SanitizerBinaryMetadata distinguishes.
; Alignments are explicit so that LLVM 16 and 19 print instructions alike.
target triple = "x86_64-unknown-linux-gnu"

@g = global i32 0, align 4
@c = constant i32 1, align 4
@arr = global [4 x i32] zeroinitializer, align 4
@carr = constant [4 x i32] zeroinitializer, align 4
@__profc_f = private global [2 x i64] zeroinitializer, section "__llvm_prf_cnts", align 8
@__llvm_gcov_ctr = internal global [1 x i64] zeroinitializer, align 8
@__llvm_gcda_x = internal global i32 0, align 4

declare void @ext(ptr)
declare void @ext_noret(ptr) noreturn
declare void @__asan_report(ptr)
declare void @__tsan_func(ptr)
declare void @__other_func(ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.assume(i1)

define i32 @atomic_orderings(ptr %p) {
  %l0 = load atomic i32, ptr %p unordered, align 4
  %l1 = load atomic i32, ptr %p monotonic, align 4
  %l2 = load atomic i32, ptr %p acquire, align 4
  %l3 = load atomic i32, ptr %p seq_cst, align 4
  store atomic i32 0, ptr %p unordered, align 4
  store atomic i32 1, ptr %p monotonic, align 4
  store atomic i32 2, ptr %p release, align 4
  store atomic i32 3, ptr %p seq_cst, align 4
  %v = load volatile i32, ptr %p, align 4
  ret i32 %l3
}

define void @rmw_kinds(ptr %p, ptr %q) {
  %a0 = atomicrmw xchg ptr %p, i32 1 monotonic, align 4
  %a1 = atomicrmw add ptr %p, i32 1 acquire, align 4
  %a2 = atomicrmw sub ptr %p, i32 1 release, align 4
  %a3 = atomicrmw and ptr %p, i32 1 acq_rel, align 4
  %a4 = atomicrmw nand ptr %p, i32 1 seq_cst, align 4
  %a5 = atomicrmw or ptr %p, i32 1 seq_cst, align 4
  %a6 = atomicrmw xor ptr %p, i32 1 seq_cst, align 4
  %a7 = atomicrmw max ptr %p, i32 1 seq_cst, align 4
  %a8 = atomicrmw min ptr %p, i32 1 seq_cst, align 4
  %a9 = atomicrmw umax ptr %p, i32 1 seq_cst, align 4
  %b0 = atomicrmw umin ptr %p, i32 1 seq_cst, align 4
  %b1 = atomicrmw fadd ptr %q, float 1.0 seq_cst, align 4
  %b2 = atomicrmw fsub ptr %q, float 1.0 seq_cst, align 4
  %b3 = atomicrmw xchg ptr %q, ptr null seq_cst, align 8
  %c0 = cmpxchg ptr %p, i32 0, i32 1 monotonic monotonic, align 4
  %c1 = cmpxchg weak ptr %p, i32 0, i32 1 acq_rel acquire, align 4
  %c2 = cmpxchg ptr %p, i32 0, i32 1 seq_cst seq_cst, align 4
  ret void
}

define void @fences() {
  fence acquire
  fence release
  fence acq_rel
  fence seq_cst
  fence syncscope("singlethread") seq_cst
  fence syncscope("agent") seq_cst
  ret void
}

define void @singlethread_scopes(ptr %p) {
  %l = load atomic i32, ptr %p syncscope("singlethread") acquire, align 4
  store atomic i32 1, ptr %p syncscope("singlethread") release, align 4
  %r = atomicrmw add ptr %p, i32 1 syncscope("singlethread") seq_cst, align 4
  %x = cmpxchg ptr %p, i32 0, i32 1 syncscope("singlethread") seq_cst seq_cst, align 4
  ret void
}

define i32 @plain_accesses(ptr %p) {
  %v = load i32, ptr %p, align 4
  store i32 %v, ptr @g, align 4
  ret i32 %v
}

define i32 @no_memory(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

define i32 @constant_globals() {
  %a = load i32, ptr @c, align 4
  %e = getelementptr inbounds [4 x i32], ptr @carr, i64 0, i64 2
  %b = load i32, ptr %e, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @atomic_on_constant() {
  %a = load atomic i32, ptr @c acquire, align 4
  ret i32 %a
}

define void @profile_counters() {
  %p = load i64, ptr @__profc_f, align 8
  %n = add i64 %p, 1
  store i64 %n, ptr @__profc_f, align 8
  %e = getelementptr inbounds [2 x i64], ptr @__profc_f, i64 0, i64 1
  store i64 %n, ptr %e, align 8
  %g = load i64, ptr @__llvm_gcov_ctr, align 8
  store i32 1, ptr @__llvm_gcda_x, align 4
  ret void
}

define i32 @local_not_escaping() {
  %a = alloca i32, align 4
  store i32 1, ptr %a, align 4
  %v = load i32, ptr %a, align 4
  %w = load atomic i32, ptr %a acquire, align 4
  %arr = alloca [4 x i32], align 4
  %e = getelementptr inbounds [4 x i32], ptr %arr, i64 0, i64 1
  store i32 %w, ptr %e, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %a)
  call void @llvm.lifetime.end.p0(i64 4, ptr %a)
  ret i32 %v
}

define i32 @local_escaping() {
  %a = alloca i32, align 4
  call void @ext(ptr %a)
  %v = load atomic i32, ptr %a acquire, align 4
  %w = load i32, ptr %a, align 4
  ret i32 %w
}

define void @local_escapes_via_store(ptr %out) {
  %a = alloca i32, align 4
  store ptr %a, ptr %out, align 8
  store i32 1, ptr %a, align 4
  ret void
}

define ptr @local_returned() {
  %a = alloca i32, align 4
  store i32 1, ptr %a, align 4
  ret ptr %a
}

define void @local_via_gep_escapes() {
  %a = alloca [2 x i32], align 4
  %e = getelementptr [2 x i32], ptr %a, i64 0, i64 1
  call void @ext(ptr %e)
  ret void
}

define void @local_via_select(i1 %c) {
  %a = alloca i32, align 4
  %b = alloca i32, align 4
  %s = select i1 %c, ptr %a, ptr %b
  store i32 1, ptr %s, align 4
  ret void
}

define void @local_to_safe_calls() {
  %a = alloca i32, align 4
  call void @__asan_report(ptr %a)
  call void @__tsan_func(ptr %a)
  call void @llvm.memset.p0.i64(ptr %a, i8 0, i64 4, i1 false)
  ret void
}

define void @local_to_unsafe_prefix() {
  %a = alloca i32, align 4
  call void @__other_func(ptr %a)
  ret void
}

define void @local_to_noreturn() {
  %a = alloca i32, align 4
  call void @ext_noret(ptr %a)
  unreachable
}

define void @tail_call(ptr %p) {
  tail call void @ext(ptr %p)
  ret void
}

define void @musttail_call(ptr %p) {
  musttail call void @ext(ptr %p)
  ret void
}

define void @tail_call_safe(ptr %p) {
  tail call void @__tsan_func(ptr %p)
  tail call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 4, i1 false)
  ret void
}

define void @tail_call_noreturn(ptr %p) {
  tail call void @ext_noret(ptr %p)
  unreachable
}

define void @tail_call_indirect(ptr %f) {
  tail call void %f(ptr null)
  ret void
}

define void @varargs(ptr %p, ...) {
  %a = alloca i32, align 4
  call void @ext(ptr %a)
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}

define void @varargs_tail(...) {
  tail call void @ext(ptr null)
  ret void
}

define void @naked_fn() naked {
  call void asm sideeffect "ret", ""()
  unreachable
}

define void @disabled(ptr %p) disable_sanitizer_instrumentation {
  %l = load atomic i32, ptr %p acquire, align 4
  %a = alloca i32, align 4
  call void @ext(ptr %a)
  ret void
}

define void @no_sanitize_thread_fn(ptr %p) "no_sanitize_thread" {
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}

define void @no_sanitize_thread_uar(ptr %p) "no_sanitize_thread" {
  %a = alloca i32, align 4
  call void @ext(ptr %a)
  ret void
}

define available_externally void @avail_ext(ptr %p) {
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}

define linkonce_odr void @linkonce(ptr %p) {
  %l = load atomic i32, ptr %p acquire, align 4
  ret void
}

define internal void @internal_fn(ptr %p) {
  store atomic i32 1, ptr %p seq_cst, align 4
  ret void
}

define void @invoke_and_calls(ptr %p) personality ptr null {
  %a = alloca i32, align 4
  call void @ext(ptr %p)
  invoke void @ext(ptr %a) to label %ok unwind label %lp
ok:
  ret void
lp:
  %x = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %x
}

define void @assume_only(i1 %c) {
  call void @llvm.assume(i1 %c)
  ret void
}

define void @uses_all(ptr %p) {
  call void @internal_fn(ptr %p)
  ret void
}
