//! Instruction rules pcmap needs: the call that ends at a statepoint's return
//! address, and the instructions that realign the stack.

use iced_x86::{
    Code, Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind, Register,
};

use super::Target;

/// Size of the call instruction of `code` (a function's bytes) that ends at
/// `end`, if the instruction there is a call. x86-64 decodes linearly from
/// the function's start (LLVM puts no data in x86 code, so instruction
/// boundaries are exact); the others read the one word before `end`.
pub fn call_ending_at(target: Target, code: &[u8], end: u64) -> Option<u32> {
    match target {
        Target::X86_64 => Calls::new(target, code).ending_at(end),
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

/// [`call_ending_at`] for the records of one function, asked in increasing
/// offset order: on x86-64 one decoding pass serves them all (each call of
/// `call_ending_at` decodes from the function's start). A smaller offset
/// than the last one asked starts over.
pub struct Calls<'a> {
    target: Target,
    code: &'a [u8],
    decoder: Decoder<'a>,
    /// The last instruction decoded; the decoder is at its end.
    last: Option<Instruction>,
    /// The last offset asked for.
    asked: u64,
    /// An undecodable instruction came before `asked`.
    invalid: bool,
}

impl<'a> Calls<'a> {
    pub fn new(target: Target, code: &'a [u8]) -> Self {
        Calls {
            target,
            code,
            decoder: Decoder::with_ip(64, code, 0, DecoderOptions::NONE),
            last: None,
            asked: 0,
            invalid: false,
        }
    }

    /// As `call_ending_at(target, code, end)`.
    pub fn ending_at(&mut self, end: u64) -> Option<u32> {
        if self.target != Target::X86_64 {
            return call_ending_at(self.target, self.code, end);
        }
        if end < self.asked {
            *self = Calls::new(self.target, self.code);
        }
        self.asked = end;
        if self.invalid {
            return None;
        }
        // The first instruction ending at or after `end` decides, as in
        // `call_ending_at`: instructions already decoded end before it.
        loop {
            if let Some(i) = &self.last {
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
            if !self.decoder.can_decode() {
                return None;
            }
            let i = self.decoder.decode();
            if i.is_invalid() {
                self.invalid = true;
                return None;
            }
            self.last = Some(i);
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

/// What LLVM may put in a patch region: for a patchpoint, the call it
/// lowers to (a target address materialized into a scratch register, then
/// an indirect call; or a direct call of a symbolic target) and nops; for a statepoint's patch bytes, nops. The
/// offset of the first instruction that is neither, if any (an IR whose
/// `numBytes` is larger than the code's: the region holds the function's
/// own instructions). `region` must end where the patch bytes end.
pub fn foreign_in_patch_region(target: Target, region: &[u8], call: bool) -> Option<usize> {
    match target {
        Target::X86_64 => {
            let mut d = Decoder::with_ip(64, region, 0, DecoderOptions::NONE);
            while d.can_decode() {
                let at = d.ip() as usize;
                let i = d.decode();
                let ok = !i.is_invalid()
                    && (i.mnemonic() == Mnemonic::Nop
                        || (call
                            && (i.code() == Code::Mov_r64_imm64
                                || i.code() == Code::Call_rel32_64
                                || (i.code() == Code::Call_rm64
                                    && i.op0_kind() == OpKind::Register))));
                if !ok || i.next_ip() as usize > region.len() {
                    return Some(at);
                }
            }
            None
        }
        Target::Aarch64 => (0..region.len() / 4)
            .find(|&k| {
                let w = word(target, region, k as u64 * 4).unwrap_or(0);
                let nop = w == 0xD503_201F;
                // movz/movk (64-bit) and blr of the scratch register, or bl.
                let call_part = w & 0xFF80_0000 == 0xD280_0000
                    || w & 0xFF80_0000 == 0xF280_0000
                    || w & 0xFFFF_FC1F == 0xD63F_0000
                    || w & 0xFC00_0000 == 0x9400_0000;
                !(nop || (call && call_part))
            })
            .map(|k| k * 4),
        Target::PowerPc64 { .. } => (0..region.len() / 4)
            .find(|&k| {
                let w = word(target, region, k as u64 * 4).unwrap_or(0);
                let nop = w == 0x6000_0000;
                // The address into r12 (addis, addi, ori, oris, rldicr), the TOC
                // saved and restored (std/ld r2), mtctr r12, bctrl; or bl.
                let call_part = matches!(w >> 26, 14 | 15 | 24 | 25 | 30 | 58 | 62)
                    || w & 0xFC1F_FFFF == 0x7C09_03A6
                    || w == 0x4E80_0421
                    || w & 0xFC00_0003 == 0x4800_0001;
                !(nop || (call && call_part))
            })
            .map(|k| k * 4),
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

#[cfg(test)]
mod calls_tests {
    use super::*;

    /// push rbp; mov rbp,rsp; call rel32; nop; call rax; ud 0x06 (invalid in
    /// 64-bit mode); call rel32.
    const CODE: &[u8] = &[
        0x55, 0x48, 0x89, 0xe5, 0xe8, 1, 2, 3, 4, 0x90, 0xff, 0xd0, 0x06, 0xe8, 1, 2, 3, 4,
    ];

    #[test]
    fn one_pass_answers_as_decoding_from_the_start() {
        let ends: Vec<u64> = (0..=CODE.len() as u64 + 1).collect();
        let expected: Vec<_> = ends
            .iter()
            .map(|&e| call_ending_at(Target::X86_64, CODE, e))
            .collect();
        assert_eq!(expected[9], Some(5));
        assert_eq!(expected[12], Some(2));
        assert_eq!(expected[18], None, "after the invalid byte");
        // Ascending, repeated, then descending (starts over).
        let mut calls = Calls::new(Target::X86_64, CODE);
        for (&e, want) in ends.iter().zip(&expected) {
            assert_eq!(calls.ending_at(e), *want, "end {e}");
            assert_eq!(calls.ending_at(e), *want, "end {e} again");
        }
        for (&e, want) in ends.iter().zip(&expected).rev() {
            assert_eq!(calls.ending_at(e), *want, "end {e} going down");
        }
    }
}
