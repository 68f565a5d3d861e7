//! The IR facts SanitizerBinaryMetadata bases its decisions on: which calls
//! are safe for use-after-return, which stack addresses escape, which
//! accesses touch shared mutable memory.

use crate::llvm::{Instruction, Opcode, Value};

/// Runtimes whose entry points neither leak their arguments nor return into
/// freed frames.
const SANITIZER_RUNTIME_PREFIXES: [&str; 5] =
    ["__asan_", "__hwsan_", "__ubsan_", "__msan_", "__tsan_"];

/// Section suffix of instrumentation profile counters (`IPSK_cnts` on ELF):
/// racy by design, so their accesses count as atomic.
const PROFILE_COUNTERS_SECTION: &str = "__llvm_prf_cnts";
/// gcov's counters and state, racy by design as well.
const GCOV_GLOBAL_PREFIXES: [&str; 2] = ["__llvm_gcov", "__llvm_gcda"];

/// A call after which a stack address cannot be used: intrinsics leak
/// nothing, a non-returning callee never returns, sanitizer runtimes are
/// trusted. Such calls may also be tail calls.
pub fn is_uar_safe_call(call: Instruction<'_>) -> bool {
    let Some(callee) = call.called_function() else {
        return false;
    };
    if callee.is_intrinsic() || callee.has_fn_attr("noreturn") {
        return true;
    }
    let name = callee.name();
    SANITIZER_RUNTIME_PREFIXES
        .iter()
        .any(|p| name.starts_with(p))
}

/// Whether some use of the stack address `v` may keep it alive past return.
fn has_use_after_return_unsafe_uses(v: Value<'_>) -> bool {
    v.users().any(|user| {
        let Some(user) = user.as_instruction() else {
            return true; // Used by a constant or metadata: assume the worst.
        };
        if user.is_lifetime_marker_or_droppable() {
            return false;
        }
        match user.opcode() {
            Opcode::LLVMCall if is_uar_safe_call(user) => false,
            Opcode::LLVMLoad => false,
            // Storing *to* the slot does not take its address.
            Opcode::LLVMStore if user.operand(1) == Some(v) => false,
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast => {
                has_use_after_return_unsafe_uses(user.as_value())
            }
            _ => true,
        }
    })
}

/// Whether `inst` makes its function a use-after-return candidate: an
/// escaping alloca, or a tail call (no call instruction a runtime could
/// intercept) to anything but a UAR-safe callee.
pub fn use_after_return_unsafe(inst: Instruction<'_>) -> bool {
    match inst.opcode() {
        Opcode::LLVMAlloca => has_use_after_return_unsafe_uses(inst.as_value()),
        Opcode::LLVMCall => inst.is_tail_call() && !is_uar_safe_call(inst),
        _ => false,
    }
}

/// Compiler-generated counters whose races are intended.
pub fn pretend_atomic_access(addr: Option<Value<'_>>) -> bool {
    let Some(gv) = addr.and_then(|a| a.strip_in_bounds_offsets().as_global_variable()) else {
        return false;
    };
    if gv
        .section()
        .is_some_and(|s| s.ends_with(PROFILE_COUNTERS_SECTION))
    {
        return true;
    }
    let name = gv.name();
    GCOV_GLOBAL_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether memory at `addr` may be written by one thread and seen by
/// another. Unknown addresses (calls, atomics other than load/store) may.
pub fn maybe_shared_mutable(addr: Option<Value<'_>>) -> bool {
    let Some(addr) = addr else {
        return true;
    };
    if addr.underlying_object_is_alloca() && !addr.may_be_captured() {
        return false; // On the stack and never escapes.
    }
    match addr.strip_in_bounds_offsets().as_global_variable() {
        Some(gv) if gv.is_constant() => false, // Shared, but immutable.
        _ => true,
    }
}
