//! An architecture's unwinding conventions ([`Arch`]), and what the
//! architectures' chain steps share: a checked read of the stack, the frame
//! record step of x86-64 and AArch64.

use crate::walk::memory::Memory;
use crate::walk::registers::{RegisterSet, Registers};
use crate::walk::stop::Stop;

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
    /// record after one of these is the frame's ([`lookup`](crate::walk::lookup)).
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

/// A read of the stack for a chain step: `BadStack` if refused.
#[inline]
pub(super) fn read<M: Memory>(memory: &M, address: u64) -> Result<u64, Stop> {
    memory.read_u64(address).ok_or(Stop::BadStack)
}

/// The frame record step of x86-64 and AArch64: caller's frame pointer at
/// `[fp]`, return address at `[fp + 8]`; `sp_past` the caller's SP's
/// distance above the record, if the ABI fixes it.
#[inline]
pub(super) fn frame_record_step<A: Arch, M: Memory>(
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
