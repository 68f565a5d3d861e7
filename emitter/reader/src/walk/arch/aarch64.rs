//! AArch64 (AAPCS64): SP 31, x29, x30; callee-saved x19-x29; the return
//! address is x30, which a frame state must say where it saved; the frame
//! pointer chain's record {caller's x29, x30} at x29, SP unknown after it.

use super::conventions::{frame_record_step, Arch};
use crate::walk::memory::Memory;
use crate::walk::registers::{RegisterSet, Registers};
use crate::walk::stop::Stop;

/// AArch64 (AAPCS64).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AArch64;

impl RegisterSet for AArch64 {
    const SP: u16 = 31;
    const FP: u16 = 29;
    const RA: u16 = 30;

    #[inline(always)]
    fn slot(dwarf: u16) -> Option<usize> {
        (dwarf <= 31).then_some(dwarf as usize)
    }
}

impl Arch for AArch64 {
    const NAME: &'static str = "AArch64";
    const CALLEE_SAVED: u64 = 0x7ff << 19;
    const RA_FROM_CFA: Option<i32> = None;

    #[inline]
    fn chain_step<M: Memory>(regs: &Registers, memory: &M) -> Result<Registers, Stop> {
        // The record {x29, x30} may be anywhere in the frame: SP unknown.
        frame_record_step::<Self, M>(regs, memory, None)
    }
}
