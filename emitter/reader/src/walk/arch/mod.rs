//! What the walker knows of each architecture: one module and type per
//! architecture implementing [`Arch`], chosen at compile time. The C library walks its
//! own host ([`Host`]); tests and fuzz targets walk all four.
//!
//! | | x86-64 | AArch64 | PowerPC64 (ELFv2 LE, ELFv1 BE) |
//! |---|---|---|---|
//! | SP, FP, return address (DWARF) | RSP 7, RBP 6, RIP 16 | SP 31, x29, x30 | r1, r31, LR 65 |
//! | callee-saved general registers | RBX, RBP, R12-R15 | x19-x29 | r14-r31 |
//! | return address | CFA − 8 | the saved x30 | the saved LR, else CFA + 16 |
//! | frame pointer chain | caller's RBP at [RBP], return address at [RBP + 8], SP = RBP + 16 | caller's x29 at [x29], return address at [x29 + 8], SP unknown | caller's r1 at [r1], return address at [caller's r1 + 16] |
//! | after a call, before a record | | | a TOC restore: `nop`, ELFv2 `ld r2, 24(r1)`, ELFv1 `ld r2, 40(r1)` |

use super::memory::Memory;
use super::registers::{RegisterSet, Registers, REGISTER_SLOTS};
use super::Stop;

/// An architecture's unwinding conventions: its register set
/// ([`RegisterSet`]), the registers a callee preserves, the return address
/// rule and the frame pointer chain's step.
pub trait Arch: RegisterSet + Copy + Default + core::fmt::Debug + Send + Sync + 'static {
    /// Its name, for messages.
    const NAME: &'static str;
    /// Slots of the general registers a callee preserves (the stack pointer
    /// apart): their values in a caller are the callee's unless the
    /// callee's frame state says it saved them.
    const CALLEE_SAVED: u64;
    /// Where the return address is, as an offset from the CFA, when the
    /// frame state does not say where the return address column is saved;
    /// `None`: it must say (AArch64: x30 is a register, saved or not).
    const RA_FROM_CFA: Option<i32>;
    /// Instruction words that may follow a call and precede its record
    /// (PowerPC64's TOC restores): with no record at a return address, a
    /// record after one of these is the frame's ([`lookup`](super::lookup)).
    const TOC_RESTORES: &'static [u32] = &[];

    /// The caller's registers by the frame pointer chain, from a frame
    /// without a table entry whose registers are `regs` (the caller
    /// asserts that such frames keep the chain). Only what the chain gives
    /// is known afterwards. The chain must go up the stack: a frame record
    /// above SP (when known) and above the slot its address was read from;
    /// a back chain that rises. Otherwise [`Stop::BadStack`].
    fn chain_step<M: Memory>(regs: &Registers, memory: &M) -> Result<Registers, Stop>;
}

/// The slot bit of the return address column, if it is a tracked register.
#[inline(always)]
pub(crate) fn ra_bit<A: Arch>() -> u64 {
    A::slot(A::RA).map_or(0, |s| 1 << s)
}

mod aarch64;
mod powerpc64;
mod x86_64;

pub use aarch64::AArch64;
pub use powerpc64::{PowerPc64ElfV1, PowerPc64ElfV2};
pub use x86_64::X86_64;

/// The architecture this code is compiled for.
#[cfg(target_arch = "x86_64")]
pub type Host = X86_64;
/// The architecture this code is compiled for.
#[cfg(target_arch = "aarch64")]
pub type Host = AArch64;
/// The architecture this code is compiled for.
#[cfg(all(target_arch = "powerpc64", target_endian = "little"))]
pub type Host = PowerPc64ElfV2;
/// The architecture this code is compiled for.
#[cfg(all(target_arch = "powerpc64", target_endian = "big"))]
pub type Host = PowerPc64ElfV1;

/// A read of the stack for a chain step: `BadStack` if refused.
#[inline]
fn read<M: Memory>(memory: &M, address: u64) -> Result<u64, Stop> {
    memory.read_u64(address).ok_or(Stop::BadStack)
}

/// The frame record step of x86-64 and AArch64: caller's frame pointer at
/// `[fp]`, return address at `[fp + 8]`; `sp_past` the caller's SP's
/// distance above the record, if the ABI fixes it.
#[inline]
fn frame_record_step<A: Arch, M: Memory>(
    regs: &Registers,
    memory: &M,
    sp_past: Option<u64>,
) -> Result<Registers, Stop> {
    let fp = regs.get::<A>(A::FP).ok_or(Stop::RegisterUnknown(A::FP))?;
    if fp == 0 {
        return Err(Stop::EndOfStack);
    }
    if regs.sp::<A>().is_some_and(|sp| fp < sp) {
        return Err(Stop::BadStack);
    }
    // A frame record lies above the slot its FP was saved in (a callee's
    // frame): on AArch64, where a chain step leaves SP unknown, this is
    // what ends a chain that loops.
    if regs.address::<A>(A::FP).is_some_and(|slot| fp <= slot) {
        return Err(Stop::BadStack);
    }
    // Nothing of this frame's registers is known in the caller but what
    // the chain gives.
    let mut next = *regs;
    next.known = 0;
    next.saved = 0;
    next.pc = read(memory, fp.wrapping_add(8))?;
    next.set::<A>(A::FP, read(memory, fp)?, Some(fp));
    if let Some(past) = sp_past {
        next.set::<A>(A::SP, fp.wrapping_add(past), None);
    }
    Ok(next)
}
