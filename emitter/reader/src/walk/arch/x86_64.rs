//! x86-64 (System V): RSP 7, RBP 6, RIP 16; callee-saved RBX, RBP,
//! R12-R15; the return address at CFA − 8 (the call pushed it); the frame
//! pointer chain's record {caller's RBP, return address} at RBP.

use super::conventions::{frame_record_step, Arch};
use crate::walk::memory::Memory;
use crate::walk::registers::{RegisterSet, Registers};
use crate::walk::stop::Stop;

/// x86-64 (System V).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct X86_64;

impl RegisterSet for X86_64 {
    const SP: u16 = 7;
    const FP: u16 = 6;
    const RA: u16 = 16;

    #[inline(always)]
    fn slot(dwarf: u16) -> Option<usize> {
        (dwarf <= 15).then_some(dwarf as usize)
    }
}

impl Arch for X86_64 {
    const NAME: &'static str = "x86-64";
    const CALLEE_SAVED: u64 = 1 << 3 | 1 << 6 | 0xf << 12;
    // The call pushed it; RIP is not a tracked register, so a frame state
    // listing it changes nothing.
    const RA_FROM_CFA: Option<i32> = Some(-8);

    #[inline]
    fn chain_step<M: Memory>(regs: &Registers, memory: &M) -> Result<Registers, Stop> {
        // push rbp; mov rbp, rsp: the frame's CFA is RBP + 16.
        frame_record_step::<Self, M>(regs, memory, Some(16))
    }
}
