//! `pcmap_capture_call`, the capture trampoline: declared here for the
//! header (`pcmap.h`) and for Rust callers of this crate; the assembly is
//! `pcmap_reader::walk::capture`'s (feature `capture`), which this library
//! links. See docs/runtime.md.

/// The handler `pcmap_capture_call` calls: the managed caller's registers,
/// then the trampoline's other arguments.
#[allow(non_camel_case_types)]
pub type pcmap_safepoint_fn =
    unsafe extern "C" fn(*mut crate::types::pcmap_registers, u64, u64, u64, u64, u64) -> u64;

extern "C" {
    /// Calls `handler(regs, a1, a2, a3, a4, a5)` with `regs` describing the
    /// managed caller of this function as it will be when the call returns
    /// (its PC, SP and callee-saved registers, with the slots they are
    /// loaded back from when the handler returns), and returns the
    /// handler's result. Call it from managed code at a safepoint. A NULL
    /// `handler` is refused: nothing is called, and the result is
    /// `(uint64_t)(int64_t)PCMAP_ERR_ARGUMENT` (all ones).
    pub fn pcmap_capture_call(
        handler: pcmap_safepoint_fn,
        a1: u64,
        a2: u64,
        a3: u64,
        a4: u64,
        a5: u64,
    ) -> u64;
}

// The assembly is the reader's: referenced so that it is linked.
#[doc(hidden)]
pub use pcmap_reader::walk::capture as _trampoline;
