//! Capturing a safepoint's registers (feature `capture`):
//! `pcmap_capture_call`, an assembly trampoline per architecture, so that
//! no runtime writes its own.
//!
//! ```c
//! uint64_t pcmap_capture_call(pcmap_safepoint_fn handler, a1, a2, a3, a4, a5);
//! /* calls */ handler(pcmap_registers *caller, a1, a2, a3, a4, a5)
//! ```
//!
//! Managed code calls `pcmap_capture_call` at a safepoint (e.g. an
//! allocation that may collect) with the runtime's handler as the first
//! argument. The trampoline builds a [`Registers`] (552 bytes) in its own
//! frame, describing the managed caller as it will be when the call
//! returns:
//!
//! | field | x86-64 | AArch64 | PowerPC64 (ELFv1 and v2) |
//! |---|---|---|---|
//! | `pc` | the return address | x30 | LR |
//! | SP slot (known) | RSP + 8 at entry | SP | r1 |
//! | callee-saved slots (known, saved) | RBX, RBP, R12-R15 | x19-x29 | r14-r31 |
//!
//! Each callee-saved slot's `address` is its `value` field in that
//! struct, and the trampoline loads the registers back from there when the
//! handler returns: a moving collector that updates a root held in a
//! callee-saved register of the innermost managed frame (through the
//! decoded location's address, or its slot) updates the register itself.
//! Arguments `a1..a5` stay in their registers (the handler replaces only
//! the first argument register, so they are passed through untouched), and
//! the handler's result is returned. A NULL handler is refused: nothing is
//! called, and the result is all ones (`PCMAP_ERR_ARGUMENT` as a signed
//! 64-bit value). Floating-point and vector callee-saved registers are not
//! captured (no root lives there); the handler preserves them as the ABI
//! requires.
//!
//! The trampoline has CFI (its callers' registers are in the struct, and
//! libgcc's unwinder walks through it) and a frame record or back chain,
//! so frame pointer walkers go through it too. It allocates nothing and is
//! async-signal-safe. The symbol is the C library's too: a program links
//! either libpcmap or this crate with `capture`, not both.
//!
//! `global_asm!` is stable on x86-64 and AArch64; on PowerPC64 it needs the
//! `asm_experimental_arch` feature, which the crate enables there with
//! `capture` (a nightly feature: `RUSTC_BOOTSTRAP=pcmap_reader` on a stable
//! compiler, as `emitter/capi/build-lib.sh` does; the assembly has no
//! operands, so it is text for the assembler as a `.S` file would be).

use super::registers::{Registers, REGISTER_SLOTS};

/// Byte offsets of [`Registers`]' fields, which the assembly writes.
mod layout {
    use super::{Registers, REGISTER_SLOTS};
    pub const PC: usize = 0;
    pub const KNOWN: usize = 8;
    pub const SAVED: usize = 16;
    pub const VALUE: usize = 24;
    pub const ADDRESS: usize = VALUE + 8 * REGISTER_SLOTS;
    pub const SIZE: usize = ADDRESS + 8 * REGISTER_SLOTS;
    const _: () = assert!(SIZE == core::mem::size_of::<Registers>());
    const _: () = assert!(core::mem::offset_of!(Registers, pc) == PC);
    const _: () = assert!(core::mem::offset_of!(Registers, known) == KNOWN);
    const _: () = assert!(core::mem::offset_of!(Registers, saved) == SAVED);
    const _: () = assert!(core::mem::offset_of!(Registers, value) == VALUE);
    const _: () = assert!(core::mem::offset_of!(Registers, address) == ADDRESS);
    // The assembly's literal offsets: the values at 24, the addresses at
    // 24 + 33 * 8 = 288.
    const _: () = assert!(VALUE == 24 && ADDRESS == 288);
}

/// The handler [`pcmap_capture_call`] calls: the managed caller's
/// registers, then the trampoline's other arguments; its result is the
/// call's.
pub type SafepointFn = unsafe extern "C" fn(*mut Registers, u64, u64, u64, u64, u64) -> u64;

extern "C" {
    /// Calls `handler(regs, a1, a2, a3, a4, a5)` with `regs` describing the
    /// managed caller of this function as it will be when the call returns
    /// (its PC, a return address; SP; the callee-saved registers, with the
    /// slots they are loaded back from when the handler returns), and
    /// returns the handler's result. Call it from managed code at a
    /// safepoint (see the module documentation).
    pub fn pcmap_capture_call(
        handler: SafepointFn,
        a1: u64,
        a2: u64,
        a3: u64,
        a4: u64,
        a5: u64,
    ) -> u64;
}

// x86-64 System V. Frame: push rbp (CFA - 16), then 560 bytes: the
// registers at rsp + 0; rsp stays 16-aligned for the call. CFA = rsp + 576.
// known: RBX 3, RBP 6, RSP 7, R12-R15 = 0xf0c8; saved: without RSP 0xf048.
#[cfg(target_arch = "x86_64")]
core::arch::global_asm!(
    ".text",
    ".globl pcmap_capture_call",
    ".type pcmap_capture_call, @function",
    ".p2align 4",
    "pcmap_capture_call:",
    ".cfi_startproc",
    "test rdi, rdi",
    "jz .Lpcmap_capture_null",
    "push rbp",
    ".cfi_def_cfa_offset 16",
    ".cfi_offset rbp, -16",
    "mov rbp, rsp",
    "sub rsp, 560",
    ".cfi_def_cfa_offset 576",
    "mov rax, [rsp + 568]",
    "mov [rsp + 0], rax",
    "lea rax, [rsp + 576]",
    "mov [rsp + 24 + 7 * 8], rax",
    "mov rax, [rsp + 560]",
    "mov [rsp + 24 + 6 * 8], rax",
    ".cfi_offset rbp, 24 + 6 * 8 - 576",
    "mov [rsp + 24 + 3 * 8], rbx",
    ".cfi_offset rbx, 24 + 3 * 8 - 576",
    "mov [rsp + 24 + 12 * 8], r12",
    ".cfi_offset r12, 24 + 12 * 8 - 576",
    "mov [rsp + 24 + 13 * 8], r13",
    ".cfi_offset r13, 24 + 13 * 8 - 576",
    "mov [rsp + 24 + 14 * 8], r14",
    ".cfi_offset r14, 24 + 14 * 8 - 576",
    "mov [rsp + 24 + 15 * 8], r15",
    ".cfi_offset r15, 24 + 15 * 8 - 576",
    "mov qword ptr [rsp + 8], 0xf0c8",
    "mov qword ptr [rsp + 16], 0xf048",
    "lea rax, [rsp + 24 + 3 * 8]",
    "mov [rsp + 288 + 3 * 8], rax",
    "lea rax, [rsp + 24 + 6 * 8]",
    "mov [rsp + 288 + 6 * 8], rax",
    "lea rax, [rsp + 24 + 12 * 8]",
    "mov [rsp + 288 + 12 * 8], rax",
    "lea rax, [rsp + 24 + 13 * 8]",
    "mov [rsp + 288 + 13 * 8], rax",
    "lea rax, [rsp + 24 + 14 * 8]",
    "mov [rsp + 288 + 14 * 8], rax",
    "lea rax, [rsp + 24 + 15 * 8]",
    "mov [rsp + 288 + 15 * 8], rax",
    "mov rax, rdi",
    "mov rdi, rsp",
    "call rax",
    "mov rbx, [rsp + 24 + 3 * 8]",
    "mov rbp, [rsp + 24 + 6 * 8]",
    "mov r12, [rsp + 24 + 12 * 8]",
    "mov r13, [rsp + 24 + 13 * 8]",
    "mov r14, [rsp + 24 + 14 * 8]",
    "mov r15, [rsp + 24 + 15 * 8]",
    "add rsp, 568",
    ".cfi_def_cfa_offset 8",
    "ret",
    ".Lpcmap_capture_null:",
    "mov rax, -1",
    "ret",
    ".cfi_endproc",
    ".size pcmap_capture_call, . - pcmap_capture_call",
);

// AArch64 AAPCS64. Frame of 576 bytes: the frame record {x29, x30} at
// sp + 0 (x29 points to it), the registers at sp + 16. CFA = sp + 576.
// known: x19-x29 and SP 31 = 0xbff80000; saved: x19-x29 = 0x3ff80000.
#[cfg(target_arch = "aarch64")]
core::arch::global_asm!(
    ".text",
    ".globl pcmap_capture_call",
    ".type pcmap_capture_call, %function",
    ".p2align 2",
    "pcmap_capture_call:",
    ".cfi_startproc",
    "cbz x0, .Lpcmap_capture_null",
    "sub sp, sp, #576",
    ".cfi_def_cfa_offset 576",
    "stp x29, x30, [sp]",
    ".cfi_offset x30, -576 + 8",
    "str x30, [sp, #16]",
    "add x9, sp, #576",
    "str x9, [sp, #16 + 24 + 31 * 8]",
    "str x19, [sp, #16 + 24 + 19 * 8]",
    "stp x20, x21, [sp, #16 + 24 + 20 * 8]",
    "stp x22, x23, [sp, #16 + 24 + 22 * 8]",
    "stp x24, x25, [sp, #16 + 24 + 24 * 8]",
    "stp x26, x27, [sp, #16 + 24 + 26 * 8]",
    "stp x28, x29, [sp, #16 + 24 + 28 * 8]",
    ".cfi_offset x19, 16 + 24 + 19 * 8 - 576",
    ".cfi_offset x20, 16 + 24 + 20 * 8 - 576",
    ".cfi_offset x21, 16 + 24 + 21 * 8 - 576",
    ".cfi_offset x22, 16 + 24 + 22 * 8 - 576",
    ".cfi_offset x23, 16 + 24 + 23 * 8 - 576",
    ".cfi_offset x24, 16 + 24 + 24 * 8 - 576",
    ".cfi_offset x25, 16 + 24 + 25 * 8 - 576",
    ".cfi_offset x26, 16 + 24 + 26 * 8 - 576",
    ".cfi_offset x27, 16 + 24 + 27 * 8 - 576",
    ".cfi_offset x28, 16 + 24 + 28 * 8 - 576",
    ".cfi_offset x29, 16 + 24 + 29 * 8 - 576",
    "mov x29, sp",
    "mov x9, #0xbff80000",
    "str x9, [sp, #16 + 8]",
    "mov x9, #0x3ff80000",
    "str x9, [sp, #16 + 16]",
    "add x9, sp, #16 + 24 + 19 * 8",
    "str x9, [sp, #16 + 288 + 19 * 8]",
    "add x9, sp, #16 + 24 + 20 * 8",
    "str x9, [sp, #16 + 288 + 20 * 8]",
    "add x9, sp, #16 + 24 + 21 * 8",
    "str x9, [sp, #16 + 288 + 21 * 8]",
    "add x9, sp, #16 + 24 + 22 * 8",
    "str x9, [sp, #16 + 288 + 22 * 8]",
    "add x9, sp, #16 + 24 + 23 * 8",
    "str x9, [sp, #16 + 288 + 23 * 8]",
    "add x9, sp, #16 + 24 + 24 * 8",
    "str x9, [sp, #16 + 288 + 24 * 8]",
    "add x9, sp, #16 + 24 + 25 * 8",
    "str x9, [sp, #16 + 288 + 25 * 8]",
    "add x9, sp, #16 + 24 + 26 * 8",
    "str x9, [sp, #16 + 288 + 26 * 8]",
    "add x9, sp, #16 + 24 + 27 * 8",
    "str x9, [sp, #16 + 288 + 27 * 8]",
    "add x9, sp, #16 + 24 + 28 * 8",
    "str x9, [sp, #16 + 288 + 28 * 8]",
    "add x9, sp, #16 + 24 + 29 * 8",
    "str x9, [sp, #16 + 288 + 29 * 8]",
    "mov x9, x0",
    "add x0, sp, #16",
    "blr x9",
    "ldr x19, [sp, #16 + 24 + 19 * 8]",
    "ldp x20, x21, [sp, #16 + 24 + 20 * 8]",
    "ldp x22, x23, [sp, #16 + 24 + 22 * 8]",
    "ldp x24, x25, [sp, #16 + 24 + 24 * 8]",
    "ldp x26, x27, [sp, #16 + 24 + 26 * 8]",
    "ldp x28, x29, [sp, #16 + 24 + 28 * 8]",
    "ldr x30, [sp, #8]",
    "add sp, sp, #576",
    ".cfi_def_cfa_offset 0",
    "ret",
    ".Lpcmap_capture_null:",
    "mov x0, #-1",
    "ret",
    ".cfi_endproc",
    ".size pcmap_capture_call, . - pcmap_capture_call",
);

// PowerPC64, ELFv1 (big-endian) and ELFv2 (little-endian). LR saved in the
// caller's frame at 16(r1); frame of 672 bytes with the back chain: a
// 112-byte header and parameter save area (ELFv1's minimum; more than
// ELFv2 needs), the registers at r1 + 112. CFA = r1 + 672.
// known: r1 and r14-r31 = 0xffffc002; saved: r14-r31 = 0xffffc000.
// The handler is called through CTR: ELFv2 with its address in r12, ELFv1
// through its function descriptor (entry, TOC, environment); the TOC
// pointer r2 is saved in the TOC save doubleword (24 / 40) around it.
#[cfg(target_arch = "powerpc64")]
macro_rules! powerpc64_capture_call {
    ($entry:literal, [$($prologue:literal),*], [$($call:literal),*], [$($epilogue:literal),*]) => {
        core::arch::global_asm!(
            $($prologue,)*
            ".cfi_startproc",
            "cmpdi 3, 0",
            "beq 0, .Lpcmap_capture_null",
            "mflr 0",
            "std 0, 16(1)",
            "stdu 1, -672(1)",
            ".cfi_def_cfa_offset 672",
            ".cfi_offset 65, 16",
            "std 0, 112 + 0(1)",
            "addi 11, 1, 672",
            "std 11, 112 + 24 + 1 * 8(1)",
            "std 14, 112 + 24 + 14 * 8(1)",
            "std 15, 112 + 24 + 15 * 8(1)",
            "std 16, 112 + 24 + 16 * 8(1)",
            "std 17, 112 + 24 + 17 * 8(1)",
            "std 18, 112 + 24 + 18 * 8(1)",
            "std 19, 112 + 24 + 19 * 8(1)",
            "std 20, 112 + 24 + 20 * 8(1)",
            "std 21, 112 + 24 + 21 * 8(1)",
            "std 22, 112 + 24 + 22 * 8(1)",
            "std 23, 112 + 24 + 23 * 8(1)",
            "std 24, 112 + 24 + 24 * 8(1)",
            "std 25, 112 + 24 + 25 * 8(1)",
            "std 26, 112 + 24 + 26 * 8(1)",
            "std 27, 112 + 24 + 27 * 8(1)",
            "std 28, 112 + 24 + 28 * 8(1)",
            "std 29, 112 + 24 + 29 * 8(1)",
            "std 30, 112 + 24 + 30 * 8(1)",
            "std 31, 112 + 24 + 31 * 8(1)",
            ".cfi_offset 14, 112 + 24 + 14 * 8 - 672",
            ".cfi_offset 15, 112 + 24 + 15 * 8 - 672",
            ".cfi_offset 16, 112 + 24 + 16 * 8 - 672",
            ".cfi_offset 17, 112 + 24 + 17 * 8 - 672",
            ".cfi_offset 18, 112 + 24 + 18 * 8 - 672",
            ".cfi_offset 19, 112 + 24 + 19 * 8 - 672",
            ".cfi_offset 20, 112 + 24 + 20 * 8 - 672",
            ".cfi_offset 21, 112 + 24 + 21 * 8 - 672",
            ".cfi_offset 22, 112 + 24 + 22 * 8 - 672",
            ".cfi_offset 23, 112 + 24 + 23 * 8 - 672",
            ".cfi_offset 24, 112 + 24 + 24 * 8 - 672",
            ".cfi_offset 25, 112 + 24 + 25 * 8 - 672",
            ".cfi_offset 26, 112 + 24 + 26 * 8 - 672",
            ".cfi_offset 27, 112 + 24 + 27 * 8 - 672",
            ".cfi_offset 28, 112 + 24 + 28 * 8 - 672",
            ".cfi_offset 29, 112 + 24 + 29 * 8 - 672",
            ".cfi_offset 30, 112 + 24 + 30 * 8 - 672",
            ".cfi_offset 31, 112 + 24 + 31 * 8 - 672",
            "li 11, 0",
            "oris 11, 11, 0xffff",
            "ori 11, 11, 0xc002",
            "std 11, 112 + 8(1)",
            "li 11, 0",
            "oris 11, 11, 0xffff",
            "ori 11, 11, 0xc000",
            "std 11, 112 + 16(1)",
            "addi 11, 1, 112 + 24 + 14 * 8",
            "std 11, 112 + 288 + 14 * 8(1)",
            "addi 11, 1, 112 + 24 + 15 * 8",
            "std 11, 112 + 288 + 15 * 8(1)",
            "addi 11, 1, 112 + 24 + 16 * 8",
            "std 11, 112 + 288 + 16 * 8(1)",
            "addi 11, 1, 112 + 24 + 17 * 8",
            "std 11, 112 + 288 + 17 * 8(1)",
            "addi 11, 1, 112 + 24 + 18 * 8",
            "std 11, 112 + 288 + 18 * 8(1)",
            "addi 11, 1, 112 + 24 + 19 * 8",
            "std 11, 112 + 288 + 19 * 8(1)",
            "addi 11, 1, 112 + 24 + 20 * 8",
            "std 11, 112 + 288 + 20 * 8(1)",
            "addi 11, 1, 112 + 24 + 21 * 8",
            "std 11, 112 + 288 + 21 * 8(1)",
            "addi 11, 1, 112 + 24 + 22 * 8",
            "std 11, 112 + 288 + 22 * 8(1)",
            "addi 11, 1, 112 + 24 + 23 * 8",
            "std 11, 112 + 288 + 23 * 8(1)",
            "addi 11, 1, 112 + 24 + 24 * 8",
            "std 11, 112 + 288 + 24 * 8(1)",
            "addi 11, 1, 112 + 24 + 25 * 8",
            "std 11, 112 + 288 + 25 * 8(1)",
            "addi 11, 1, 112 + 24 + 26 * 8",
            "std 11, 112 + 288 + 26 * 8(1)",
            "addi 11, 1, 112 + 24 + 27 * 8",
            "std 11, 112 + 288 + 27 * 8(1)",
            "addi 11, 1, 112 + 24 + 28 * 8",
            "std 11, 112 + 288 + 28 * 8(1)",
            "addi 11, 1, 112 + 24 + 29 * 8",
            "std 11, 112 + 288 + 29 * 8(1)",
            "addi 11, 1, 112 + 24 + 30 * 8",
            "std 11, 112 + 288 + 30 * 8(1)",
            "addi 11, 1, 112 + 24 + 31 * 8",
            "std 11, 112 + 288 + 31 * 8(1)",
            $($call,)*
            "ld 14, 112 + 24 + 14 * 8(1)",
            "ld 15, 112 + 24 + 15 * 8(1)",
            "ld 16, 112 + 24 + 16 * 8(1)",
            "ld 17, 112 + 24 + 17 * 8(1)",
            "ld 18, 112 + 24 + 18 * 8(1)",
            "ld 19, 112 + 24 + 19 * 8(1)",
            "ld 20, 112 + 24 + 20 * 8(1)",
            "ld 21, 112 + 24 + 21 * 8(1)",
            "ld 22, 112 + 24 + 22 * 8(1)",
            "ld 23, 112 + 24 + 23 * 8(1)",
            "ld 24, 112 + 24 + 24 * 8(1)",
            "ld 25, 112 + 24 + 25 * 8(1)",
            "ld 26, 112 + 24 + 26 * 8(1)",
            "ld 27, 112 + 24 + 27 * 8(1)",
            "ld 28, 112 + 24 + 28 * 8(1)",
            "ld 29, 112 + 24 + 29 * 8(1)",
            "ld 30, 112 + 24 + 30 * 8(1)",
            "ld 31, 112 + 24 + 31 * 8(1)",
            "addi 1, 1, 672",
            ".cfi_def_cfa_offset 0",
            "ld 0, 16(1)",
            "mtlr 0",
            ".cfi_restore 65",
            "blr",
            ".Lpcmap_capture_null:",
            "li 3, -1",
            "blr",
            ".cfi_endproc",
            $($epilogue,)*
        );
    };
}

#[cfg(all(target_arch = "powerpc64", target_endian = "little"))]
powerpc64_capture_call!(
    "pcmap_capture_call",
    [
        ".abiversion 2",
        ".text",
        ".globl pcmap_capture_call",
        ".type pcmap_capture_call, @function",
        ".p2align 4",
        "pcmap_capture_call:"
    ],
    [
        "mr 12, 3",
        "mtctr 12",
        "std 2, 24(1)",
        "addi 3, 1, 112",
        "bctrl",
        "ld 2, 24(1)"
    ],
    [".size pcmap_capture_call, . - pcmap_capture_call"]
);

#[cfg(all(target_arch = "powerpc64", target_endian = "big"))]
powerpc64_capture_call!(
    "pcmap_capture_call",
    [
        ".section .opd, \"aw\"",
        ".p2align 3",
        ".globl pcmap_capture_call",
        ".type pcmap_capture_call, @function",
        "pcmap_capture_call:",
        ".quad .Lpcmap_capture_call_entry, .TOC.@tocbase, 0",
        ".text",
        ".p2align 4",
        ".Lpcmap_capture_call_entry:"
    ],
    [
        "ld 0, 0(3)",
        "mtctr 0",
        "std 2, 40(1)",
        "ld 11, 16(3)",
        "ld 2, 8(3)",
        "addi 3, 1, 112",
        "bctrl",
        "ld 2, 40(1)"
    ],
    [".size pcmap_capture_call, 24"]
);
