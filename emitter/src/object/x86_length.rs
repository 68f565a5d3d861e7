//! The lengths of the x86-64 instructions LLVM emits most, read from their
//! opcode and ModRM bytes without a full decoder.
//!
//! `pcmap emit` decodes each function from its start to its last record to
//! find the calls that end at records. A general decoder (iced) spends
//! about a hundred instructions on each instruction; the common forms
//! (moves, ALU operations, pushes and pops, jumps, direct calls) need a
//! table lookup and the ModRM arithmetic. [`quick`] answers for those and
//! only those: anything else (prefixes other than one REX, SSE/AVX, rare
//! opcodes) is left to the full decoder. Every form it accepts is valid in
//! 64-bit mode with every ModRM and REX it accepts, so the length is the
//! whole answer; the test below checks it against iced.

/// What [`quick`] read: the instruction's length and whether it is a call
/// (as iced's flow control `Call` / `IndirectCall` says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quick {
    pub len: usize,
    pub call: bool,
}

/// How an opcode's operands follow it.
#[derive(Clone, Copy)]
enum Form {
    /// Not read here.
    No,
    /// No operand bytes.
    Bare,
    /// An immediate (or relative offset) of this many bytes.
    Imm(u8),
    /// ModRM (with SIB and displacement), then an immediate of this many
    /// bytes.
    ModRm(u8),
}

/// One-byte opcodes. Only forms valid with any ModRM are `ModRm` here;
/// those whose ModRM's reg field selects the instruction, or whose
/// register form is invalid, are handled in [`quick`].
const fn one_byte() -> [Form; 256] {
    let mut t = [Form::No; 256];
    let mut op = 0;
    while op < 0x40 {
        // The eight ALU operations: r/m,r and r,r/m (8 and 32/64 bits),
        // then AL,imm8 and eAX,imm32; 6 and 7 are prefixes, invalid or 0F.
        t[op] = match op & 7 {
            0..=3 => Form::ModRm(0),
            4 => Form::Imm(1),
            5 => Form::Imm(4),
            _ => Form::No,
        };
        op += 1;
    }
    let mut r = 0x50;
    while r < 0x60 {
        t[r] = Form::Bare; // push, pop
        r += 1;
    }
    t[0x63] = Form::ModRm(0); // movsxd
    t[0x69] = Form::ModRm(4); // imul r, r/m, imm32
    t[0x6B] = Form::ModRm(1); // imul r, r/m, imm8
    let mut j = 0x70;
    while j < 0x80 {
        t[j] = Form::Imm(1); // jcc rel8
        j += 1;
    }
    t[0x81] = Form::ModRm(4); // ALU r/m, imm32 (and rsp: see `quick`)
    t[0x83] = Form::ModRm(1); // ALU r/m, imm8 (and rsp: see `quick`)
    let mut m = 0x84;
    while m < 0x8C {
        t[m] = Form::ModRm(0); // test, xchg, mov
        m += 1;
    }
    t[0x90] = Form::Bare; // nop (xchg r8, rax with REX.B)
    t[0x98] = Form::Bare; // cwde, cdqe
    t[0x99] = Form::Bare; // cdq, cqo
    t[0xA8] = Form::Imm(1); // test al, imm8
    t[0xA9] = Form::Imm(4); // test eax, imm32
    let mut b = 0xB0;
    while b < 0xB8 {
        t[b] = Form::Imm(1); // mov r8, imm8
        b += 1;
    }
    while b < 0xC0 {
        t[b] = Form::Imm(4); // mov r32, imm32 (imm64 with REX.W: see `quick`)
        b += 1;
    }
    t[0xC3] = Form::Bare; // ret
    t[0xCC] = Form::Bare; // int3
    t[0xE8] = Form::Imm(4); // call rel32
    t[0xE9] = Form::Imm(4); // jmp rel32
    t[0xEB] = Form::Imm(1); // jmp rel8
    t
}

static ONE_BYTE: [Form; 256] = one_byte();

/// The length and call-ness of the instruction at the start of `code`, if
/// it is one of the forms read here and lies whole within `code`; `None`
/// otherwise (decode it in full). `and rsp, imm` (stack realignment,
/// which the caller looks for) is never answered here.
pub fn quick(code: &[u8]) -> Option<Quick> {
    // One operand-size or mandatory prefix (66, F2, F3), then one REX.
    let mut at = 0;
    let mut prefix = 0;
    if let Some(&b @ (0x66 | 0xF2 | 0xF3)) = code.first() {
        prefix = b;
        at = 1;
    }
    let mut rex_w = false;
    if let Some(&b @ 0x40..=0x4F) = code.get(at) {
        rex_w = b & 8 != 0;
        at += 1;
    }
    let op = *code.get(at)?;
    at += 1;
    if op == 0x0F {
        return two_byte(code, at, prefix);
    }
    let modrm = code.get(at).copied();
    let reg = modrm.map(|m| (m >> 3) & 7);
    let (form, call) = match (prefix, op) {
        // 66: operands of 16 bits; only forms without an immediate, and
        // mov r/m16, imm16 (imm32 with REX.W).
        (0x66, _) if matches!(ONE_BYTE[op as usize], Form::ModRm(0)) && op != 0x63 => {
            (Form::ModRm(0), false)
        }
        (0x66, 0xC7) if reg? == 0 => (Form::ModRm(if rex_w { 4 } else { 2 }), false),
        (0, _) => one_byte_form(op, modrm, reg, rex_w)?,
        _ => return None,
    };
    let len = operands(code, at, form)?;
    Some(Quick { len, call })
}

/// The form of one-byte opcode `op` without a prefix, and whether it is
/// a call; `None` if not read here.
fn one_byte_form(op: u8, modrm: Option<u8>, reg: Option<u8>, rex_w: bool) -> Option<(Form, bool)> {
    Some(match op {
        // Group 1 with ModRM 0xE4 may be `and rsp` (REX.W, reg 4): the
        // full decoder says.
        0x81 | 0x83 if modrm == Some(0xE4) => return None,
        // lea: a memory operand only.
        0x8D if modrm? >> 6 != 3 => (Form::ModRm(0), false),
        // mov r/m, imm (reg 0; others are xabort/xbegin or invalid).
        0xC6 if reg? == 0 => (Form::ModRm(1), false),
        0xC7 if reg? == 0 => (Form::ModRm(4), false),
        // Shifts and rotates by 1, by CL, by imm8 (reg 6, `sal`, aside).
        0xD1 | 0xD3 if reg? != 6 => (Form::ModRm(0), false),
        0xC1 if reg? != 6 => (Form::ModRm(1), false),
        // test (reg 0, imm32), not, neg, mul, imul, div, idiv.
        0xF7 if reg? == 0 => (Form::ModRm(4), false),
        0xF7 if reg? >= 2 => (Form::ModRm(0), false),
        // inc, dec, call, jmp, push (reg 0, 1, 2, 4, 6); the far forms
        // and reg 7 to the full decoder.
        0xFF if matches!(reg?, 0 | 1 | 2 | 4 | 6) => (Form::ModRm(0), reg == Some(2)),
        // mov r64, imm64.
        0xB8..=0xBF if rex_w => (Form::Imm(8), false),
        0xE8 => (Form::Imm(4), true),
        _ => (ONE_BYTE[op as usize], false),
    })
}

/// Two-byte opcodes (`0F xx`) after `prefix` (0: none), `xx` at `at`:
/// the ones LLVM emits most, all with a ModRM and no immediate but ud2
/// and jcc.
fn two_byte(code: &[u8], at: usize, prefix: u8) -> Option<Quick> {
    let op = *code.get(at)?;
    let at = at + 1;
    let form = match (prefix, op) {
        (0, 0x0B) => Form::Bare,          // ud2
        (0, 0x80..=0x8F) => Form::Imm(4), // jcc rel32
        // nop r/m (reg 0: the multi-byte nops LLVM pads with).
        (0 | 0x66, 0x1F) if (code.get(at)? >> 3) & 7 == 0 => Form::ModRm(0),
        // movups/movaps (66: movupd/movapd; F3/F2 0F 10/11: movss/movsd).
        (0 | 0x66, 0x10 | 0x11 | 0x28 | 0x29) | (0xF2 | 0xF3, 0x10 | 0x11) => Form::ModRm(0),
        // cmovcc, setcc (its reg field ignored), imul, movzx, movsx.
        (0, 0x40..=0x4F | 0x90..=0x9F | 0xAF | 0xB6 | 0xB7 | 0xBE | 0xBF) => Form::ModRm(0),
        // movdqa, movdqu, punpcklqdq, pxor, movq xmm.
        (0x66, 0x6F | 0x7F | 0x6C | 0xEF | 0xD6) | (0xF3, 0x6F | 0x7F | 0x7E) => Form::ModRm(0),
        _ => return None,
    };
    let len = operands(code, at, form)?;
    Some(Quick { len, call: false })
}

/// The instruction's length when its operands (`form`) start at `at`, if
/// they lie within `code`.
fn operands(code: &[u8], at: usize, form: Form) -> Option<usize> {
    let end = match form {
        Form::No => return None,
        Form::Bare => at,
        Form::Imm(n) => at + usize::from(n),
        Form::ModRm(imm) => at + modrm_len(code, at)? + usize::from(imm),
    };
    (end <= code.len()).then_some(end)
}

/// The bytes of the ModRM at `at` with its SIB and displacement.
fn modrm_len(code: &[u8], at: usize) -> Option<usize> {
    let m = *code.get(at)?;
    let (md, rm) = (m >> 6, m & 7);
    let mut len = 1;
    let mut base = rm;
    if md != 3 && rm == 4 {
        base = *code.get(at + 1)? & 7;
        len += 1;
    }
    len += match md {
        // disp32: RIP-relative (rm 5), or a SIB without base (base 5).
        0 if rm == 5 || (rm == 4 && base == 5) => 4,
        1 => 1,
        2 => 4,
        _ => 0,
    };
    Some(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::{Decoder, DecoderOptions, FlowControl};

    /// What iced says of the instruction at the start of `code`, when it
    /// is valid.
    fn iced(code: &[u8]) -> Option<Quick> {
        let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
        let i = d.decode();
        (!i.is_invalid()).then(|| Quick {
            len: i.len(),
            call: matches!(
                i.flow_control(),
                FlowControl::Call | FlowControl::IndirectCall
            ),
        })
    }

    #[test]
    fn agrees_with_iced_on_every_opcode_and_modrm() {
        // Every REX (or none), opcode byte (and 0F second byte), ModRM and
        // SIB, with varied displacement and immediate bytes, at every
        // truncation: each answer must be iced's.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut answered = 0;
        let mut wrong = Vec::new();
        for (prefix, rex) in [None, Some(0x66u8), Some(0xF2), Some(0xF3)]
            .into_iter()
            .flat_map(|p| {
                [
                    None,
                    Some(0x40u8),
                    Some(0x41),
                    Some(0x48),
                    Some(0x4C),
                    Some(0x4F),
                ]
                .map(|r| (p, r))
            })
        {
            for op in 0..=255u8 {
                for op2 in 0..=255u8 {
                    if op != 0x0F && op2 != 0 {
                        continue;
                    }
                    for modrm in 0..=255u8 {
                        let mut code: Vec<u8> = prefix.into_iter().chain(rex).collect();
                        code.push(op);
                        if op == 0x0F {
                            code.push(op2);
                        }
                        code.push(modrm);
                        code.extend((next().to_le_bytes()).iter().chain(&next().to_le_bytes()));
                        let cut = (next() % code.len() as u64 + 1) as usize;
                        for c in [&code[..], &code[..cut]] {
                            if let Some(q) = quick(c) {
                                answered += 1;
                                if Some(q) != iced(c) {
                                    wrong.push(format!("{c:02x?}: {q:?}, iced {:?}", iced(c)));
                                }
                            }
                        }
                    }
                }
            }
        }
        wrong.sort();
        wrong.dedup();
        assert!(
            wrong.is_empty(),
            "{} wrong: {:#?}",
            wrong.len(),
            &wrong[..wrong.len().min(40)]
        );
        assert!(answered > 200_000, "{answered}");
    }

    #[test]
    fn leaves_stack_realignment_to_the_decoder() {
        // and rsp, -16 / and rsp, -4096.
        assert_eq!(quick(&[0x48, 0x83, 0xE4, 0xF0]), None);
        assert_eq!(quick(&[0x48, 0x81, 0xE4, 0, 0xF0, 0xFF, 0xFF]), None);
        assert_eq!(
            quick(&[0x41, 0xFF, 0xD3]),
            Some(Quick { len: 3, call: true })
        );
    }
}
