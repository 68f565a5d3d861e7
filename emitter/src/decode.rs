//! Instruction rules pcmap needs: the call that ends at a statepoint's return
//! address, and the instructions that realign the stack.

use iced_x86::{Code, Decoder, DecoderOptions, FlowControl, OpKind, Register};

use crate::target::Target;

/// Size of the call instruction of `code` (a function's bytes) that ends at
/// `end`, if the instruction there is a call.
pub fn call_ending_at(target: Target, code: &[u8], end: u64) -> Option<u32> {
    match target {
        Target::X86_64 => {
            // Linear decode from the function's start: LLVM puts no data in
            // x86 code, so instruction boundaries are exact.
            let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
            while d.can_decode() {
                let i = d.decode();
                if i.is_invalid() {
                    return None;
                }
                if i.next_ip() == end {
                    return matches!(
                        i.flow_control(),
                        FlowControl::Call | FlowControl::IndirectCall
                    )
                    .then_some(i.len() as u32);
                }
                if i.next_ip() > end {
                    return None;
                }
            }
            None
        }
        Target::Aarch64 => {
            let w = word(target, code, end.checked_sub(4)?)?;
            // BL imm26, BLR Xn.
            (w & 0xFC00_0000 == 0x9400_0000 || w & 0xFFFF_FC1F == 0xD63F_0000).then_some(4)
        }
        Target::PowerPc64 { .. } => {
            let w = word(target, code, end.checked_sub(4)?)?;
            // bl target (AA=0, LK=1), bctrl.
            (w & 0xFC00_0003 == 0x4800_0001 || w == 0x4E80_0421).then_some(4)
        }
    }
}

/// Whether `code` aligns the stack pointer (dynamic stack realignment).
pub fn realigns_stack(target: Target, code: &[u8]) -> bool {
    match target {
        Target::X86_64 => {
            let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
            while d.can_decode() {
                let i = d.decode();
                if matches!(i.code(), Code::And_rm64_imm8 | Code::And_rm64_imm32)
                    && i.op0_kind() == OpKind::Register
                    && i.op0_register() == Register::RSP
                {
                    return true;
                }
            }
            false
        }
        // AND (immediate), 64-bit, Rd = SP.
        Target::Aarch64 => words(target, code).any(|w| w & 0xFF80_001F == 0x9200_001F),
        // rldicl rA, r1, 0, mb (clrldi of the stack pointer).
        Target::PowerPc64 { .. } => words(target, code).any(|w| {
            w >> 26 == 30
                && (w >> 2) & 7 == 0
                && (w >> 21) & 31 == 1
                && (w >> 11) & 31 == 0
                && (w >> 1) & 1 == 0
        }),
    }
}

fn word(target: Target, code: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    let b: [u8; 4] = code.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(match target {
        Target::PowerPc64 {
            big_endian: true, ..
        } => u32::from_be_bytes(b),
        _ => u32::from_le_bytes(b),
    })
}

fn words(target: Target, code: &[u8]) -> impl Iterator<Item = u32> + '_ {
    (0..code.len() as u64 / 4).filter_map(move |i| word(target, code, i * 4))
}
