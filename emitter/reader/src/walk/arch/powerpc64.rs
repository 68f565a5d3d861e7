//! PowerPC64, ELFv2 (little-endian Linux) and ELFv1 (big-endian Linux):
//! r1, r31, LR 65 (slot 32); callee-saved r14-r31; the return address is
//! the saved LR, else the LR save doubleword at CFA + 16; the back chain
//! (caller's r1 at [r1]); after a call, a TOC restore may precede the
//! record (each ABI's own `ld r2`).

use super::conventions::{read, Arch};
use crate::walk::memory::Memory;
use crate::walk::registers::{RegisterSet, Registers, REGISTER_SLOTS};
use crate::walk::stop::Stop;

/// PowerPC64 ELFv2 (little-endian Linux): the TOC restore after a call is
/// `ld r2, 24(r1)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PowerPc64ElfV2;

/// PowerPC64 ELFv1 (big-endian Linux): the TOC restore after a call is
/// `ld r2, 40(r1)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PowerPc64ElfV1;

/// The back chain step of PowerPC64: the caller's r1 at `[r1]`, its LR
/// save doubleword at `[caller's r1 + 16]`.
#[inline]
fn back_chain_step<A: Arch, M: Memory>(regs: &Registers, memory: &M) -> Result<Registers, Stop> {
    let sp = regs.sp::<A>().ok_or(Stop::RegisterUnknown(A::SP))?;
    let caller_sp = read(memory, sp)?;
    if caller_sp == 0 {
        return Err(Stop::EndOfStack);
    }
    if caller_sp <= sp {
        return Err(Stop::BadStack);
    }
    let mut next = *regs;
    next.known = 0;
    next.saved = 0;
    next.pc = read(memory, caller_sp.wrapping_add(16))?;
    next.set::<A>(A::SP, caller_sp, None);
    Ok(next)
}

/// PowerPC64's slot of LR (DWARF 65).
const LR_SLOT: usize = 32;
const _: () = assert!(LR_SLOT < REGISTER_SLOTS);

/// The two PowerPC64 ABIs' conventions, but for the TOC restore.
macro_rules! powerpc64 {
    ($name:ident, $label:literal, $toc_restore:literal) => {
        impl RegisterSet for $name {
            const SP: u16 = 1;
            const FP: u16 = 31;
            const RA: u16 = 65;

            #[inline(always)]
            fn slot(dwarf: u16) -> Option<usize> {
                match dwarf {
                    0..=31 => Some(dwarf as usize),
                    65 => Some(LR_SLOT),
                    _ => None,
                }
            }

            #[inline(always)]
            fn dwarf(slot: usize) -> u16 {
                if slot == LR_SLOT {
                    65
                } else {
                    slot as u16
                }
            }
        }

        impl Arch for $name {
            const NAME: &'static str = $label;
            const CALLEE_SAVED: u64 = 0x3ffff << 14;
            // The LR save doubleword of the caller's frame, where every
            // non-leaf function saves it.
            const RA_FROM_CFA: Option<i32> = Some(16);
            // `nop` (the linker found no TOC change) or the TOC pointer
            // reload from the TOC save doubleword.
            const TOC_RESTORES: &'static [u32] = &[0x6000_0000, $toc_restore];

            #[inline]
            fn chain_step<M: Memory>(regs: &Registers, memory: &M) -> Result<Registers, Stop> {
                back_chain_step::<Self, M>(regs, memory)
            }
        }
    };
}

powerpc64!(PowerPc64ElfV2, "PowerPC64 ELFv2", 0xe841_0018);
powerpc64!(PowerPc64ElfV1, "PowerPC64 ELFv1", 0xe841_0028);
