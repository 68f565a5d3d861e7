//! The lengths of the x86-64 instructions compilers emit most, read from
//! tables of their opcode and ModRM bytes without a full decoder.
//!
//! `pcmap emit` decodes each function from its start to its last record to
//! find the calls that end at records. A general decoder (iced) spends
//! about a hundred instructions on each instruction; the common forms
//! (moves, ALU operations, pushes and pops, jumps, calls, SSE moves and
//! arithmetic) need a few table lookups. [`quick`] answers for those and
//! only those: anything else (VEX and EVEX, lock, 67, several of 66/F2/F3,
//! rare opcodes, forms whose validity depends on operands not handled
//! here) is left to the full decoder. Every form it accepts is valid in
//! 64-bit mode with every ModRM and REX it accepts, so the length is the
//! whole answer; the tests below check it against iced, exhaustively over
//! opcodes, prefixes and ModRM bytes, on random bytes and on every
//! instruction of real objects.

/// What [`quick`] read: the instruction's length, whether it is a call
/// (as iced's flow control `Call` / `IndirectCall` says) and whether it
/// realigns the stack (`and rsp, imm`, as `instructions::realigns` says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quick {
    pub len: usize,
    pub call: bool,
    pub realign: bool,
}

// An opcode's descriptor: 0 (not read here), else VALID with its operands.
/// Read here.
const VALID: u8 = 0x80;
/// A ModRM (with SIB and displacement) follows the opcode.
const MODRM: u8 = 0x08;
/// The ModRM's reg field selects the form: see [`group`].
const GROUP: u8 = 0x10;
/// A call.
const CALL: u8 = 0x20;
/// The ModRM must name memory (mod != 3).
const MEM: u8 = 0x40;
/// The immediate, bits 0-2: none, 8 bits, 16 bits, `z` (16 bits with the
/// operand-size prefix, else 32), `v` (16, 32 or with REX.W 64 bits),
/// 32 bits (rel32 whatever the prefixes).
const IMM: u8 = 0x07;
const I0: u8 = 0;
const IB: u8 = 1;
const IW: u8 = 2;
const IZ: u8 = 3;
const IV: u8 = 4;
const ID: u8 = 5;

/// Immediate bytes by kind (`IMM`) and operand size: index `kind * 4 +
/// rex_w * 2 + o16`.
const IMM_LEN: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut s = 0;
    while s < 4 {
        let (w, o16) = (s & 2 != 0, s & 1 != 0);
        t[IB as usize * 4 + s] = 1;
        t[IW as usize * 4 + s] = 2;
        t[IZ as usize * 4 + s] = if o16 && !w { 2 } else { 4 };
        t[IV as usize * 4 + s] = if w {
            8
        } else if o16 {
            2
        } else {
            4
        };
        t[ID as usize * 4 + s] = 4;
        s += 1;
    }
    t
};

/// The prefix classes, each with its own tables: none, 66, F3, F2.
const P_NONE: usize = 0;
const P_66: usize = 1;
const P_F3: usize = 2;
const P_F2: usize = 3;

const fn set(t: &mut [u8; 256], from: usize, to: usize, d: u8) {
    let mut op = from;
    while op <= to {
        t[op] = d;
        op += 1;
    }
}

/// One-byte opcodes under prefix class `p`.
const fn one_byte(p: usize) -> [u8; 256] {
    let mut t = [0u8; 256];
    if p == P_F3 {
        t[0x90] = VALID; // pause
        t[0xC3] = VALID; // rep ret
        return t;
    }
    if p == P_F2 {
        return t;
    }
    let o16 = p == P_66;
    let mut op = 0;
    while op < 0x40 {
        // The eight ALU operations: r/m,r and r,r/m (8 and 16/32/64
        // bits), then AL,imm8 and eAX,immz; 6 and 7 are prefixes, invalid
        // or 0F.
        t[op] = match op & 7 {
            0..=3 => VALID | MODRM,
            4 => VALID | IB,
            5 => VALID | IZ,
            _ => 0,
        };
        op += 1;
    }
    set(&mut t, 0x50, 0x5F, VALID); // push, pop
    if !o16 {
        t[0x63] = VALID | MODRM; // movsxd
        t[0x68] = VALID | IZ; // push imm32
        t[0x6A] = VALID | IB; // push imm8
        set(&mut t, 0x70, 0x7F, VALID | IB); // jcc rel8
    }
    t[0x69] = VALID | MODRM | IZ; // imul r, r/m, immz
    t[0x6B] = VALID | MODRM | IB; // imul r, r/m, imm8
    t[0x80] = VALID | MODRM | IB; // ALU r/m8, imm8
    t[0x81] = VALID | MODRM | GROUP | IZ; // ALU r/m, immz (and rsp: see `group`)
    t[0x83] = VALID | MODRM | GROUP | IB; // ALU r/m, imm8 (and rsp)
    set(&mut t, 0x84, 0x8B, VALID | MODRM); // test, xchg, mov
    t[0x8D] = VALID | MODRM | MEM; // lea
    set(&mut t, 0x90, 0x99, VALID); // nop, xchg eAX, cwde/cdqe, cdq/cqo
    t[0xA8] = VALID | IB; // test al, imm8
    t[0xA9] = VALID | IZ; // test eAX, immz
    set(&mut t, 0xB0, 0xB7, VALID | IB); // mov r8, imm8
    set(&mut t, 0xB8, 0xBF, VALID | IV); // mov r, immv
                                         // Shifts and rotates by imm8, by 1, by CL (reg 6, `sal`, aside).
    t[0xC0] = VALID | MODRM | GROUP | IB;
    t[0xC1] = VALID | MODRM | GROUP | IB;
    set(&mut t, 0xD0, 0xD3, VALID | MODRM | GROUP);
    t[0xC3] = VALID; // ret
    t[0xC6] = VALID | MODRM | GROUP | IB; // mov r/m8, imm8 (reg 0)
    t[0xC7] = VALID | MODRM | GROUP | IZ; // mov r/m, immz (reg 0)
    t[0xC9] = VALID; // leave
    t[0xCC] = VALID; // int3
    if !o16 {
        t[0xE8] = VALID | CALL | ID; // call rel32
        t[0xE9] = VALID | ID; // jmp rel32
        t[0xEB] = VALID | IB; // jmp rel8
    }
    t[0xF6] = VALID | MODRM | GROUP; // test, not, neg, mul, imul, div, idiv
    t[0xF7] = VALID | MODRM | GROUP;
    t[0xFE] = VALID | MODRM | GROUP; // inc, dec r/m8
    t[0xFF] = VALID | MODRM | GROUP; // inc, dec, call, jmp, push
    t
}

/// Two-byte opcodes (`0F xx`) under prefix class `p`.
const fn two_byte(p: usize) -> [u8; 256] {
    let mut t = [0u8; 256];
    let m = VALID | MODRM;
    match p {
        P_NONE => {
            t[0x0B] = VALID; // ud2
            t[0x10] = m; // movups
            t[0x11] = m;
            t[0x14] = m; // unpcklps, unpckhps
            t[0x15] = m;
            t[0x1F] = m | GROUP; // nop r/m (reg 0)
            t[0x28] = m; // movaps
            t[0x29] = m;
            t[0x2E] = m; // ucomiss, comiss
            t[0x2F] = m;
            set(&mut t, 0x40, 0x4F, m); // cmovcc
            t[0x51] = m; // sqrtps
            set(&mut t, 0x54, 0x5F, m); // andps … maxps
            set(&mut t, 0x80, 0x8F, VALID | ID); // jcc rel32
            set(&mut t, 0x90, 0x9F, m); // setcc (its reg field ignored)
            t[0xA2] = VALID; // cpuid
            t[0xA3] = m; // bt
            t[0xA4] = m | IB; // shld
            t[0xA5] = m;
            t[0xAB] = m; // bts
            t[0xAC] = m | IB; // shrd
            t[0xAD] = m;
            t[0xAF] = m; // imul
            t[0xB0] = m; // cmpxchg
            t[0xB1] = m;
            t[0xB3] = m; // btr
            t[0xB6] = m; // movzx
            t[0xB7] = m;
            t[0xBA] = m | GROUP | IB; // bt, bts, btr, btc imm8 (reg 4-7)
            t[0xBB] = m; // btc
            t[0xBC] = m; // bsf, bsr
            t[0xBD] = m;
            t[0xBE] = m; // movsx
            t[0xBF] = m;
            t[0xC0] = m; // xadd
            t[0xC1] = m;
            t[0xC6] = m | IB; // shufps
            set(&mut t, 0xC8, 0xCF, VALID); // bswap
        }
        P_66 => {
            t[0x10] = m; // movupd
            t[0x11] = m;
            t[0x14] = m; // unpcklpd, unpckhpd
            t[0x15] = m;
            t[0x1F] = m | GROUP; // nop r/m16 (reg 0)
            t[0x28] = m; // movapd
            t[0x29] = m;
            t[0x2E] = m; // ucomisd, comisd
            t[0x2F] = m;
            set(&mut t, 0x40, 0x4F, m); // cmovcc (16 bits)
            t[0x51] = m; // sqrtpd
            set(&mut t, 0x54, 0x5F, m); // andpd … maxpd
            set(&mut t, 0x60, 0x6F, m); // punpck…, packs…, movd/movq, movdqa
            t[0x70] = m | IB; // pshufd
            set(&mut t, 0x74, 0x76, m); // pcmpeqb/w/d
            t[0x7E] = m; // movd/movq r/m, xmm
            t[0x7F] = m; // movdqa
            t[0xAF] = m; // imul (16 bits)
            t[0xB6] = m; // movzx (16 bits)
            t[0xBE] = m; // movsx (16 bits)
            t[0xC6] = m | IB; // shufpd
            set(&mut t, 0xD4, 0xD6, m); // paddq, pmullw, movq
            set(&mut t, 0xD8, 0xE6, m); // psubusb … cvttpd2dq
            set(&mut t, 0xE8, 0xEF, m); // psubsb … pxor
            set(&mut t, 0xF1, 0xF6, m); // psllw … psadbw
            set(&mut t, 0xF8, 0xFE, m); // psubb … paddd
        }
        P_F3 => {
            t[0x10] = m; // movss
            t[0x11] = m;
            t[0x2A] = m; // cvtsi2ss
            t[0x2C] = m; // cvttss2si, cvtss2si
            t[0x2D] = m;
            t[0x51] = m; // sqrtss
            set(&mut t, 0x58, 0x5F, m); // addss … maxss, cvtss2sd, cvttps2dq
            t[0x6F] = m; // movdqu
            t[0x7E] = m; // movq xmm, r/m64
            t[0x7F] = m; // movdqu
            t[0xB8] = m; // popcnt
            t[0xBC] = m; // tzcnt
            t[0xBD] = m; // lzcnt
        }
        _ => {
            t[0x10] = m; // movsd
            t[0x11] = m;
            t[0x2A] = m; // cvtsi2sd
            t[0x2C] = m; // cvttsd2si, cvtsd2si
            t[0x2D] = m;
            t[0x51] = m; // sqrtsd
            set(&mut t, 0x58, 0x5F, m); // addsd … maxsd, cvtsd2ss (not 5B)
            t[0x5B] = 0;
            t[0x70] = m | IB; // pshuflw
        }
    }
    t
}

/// The tables: `[one-byte, 0F] × prefix class`.
static ONE_BYTE: [[u8; 256]; 4] = [one_byte(0), one_byte(1), one_byte(2), one_byte(3)];
static TWO_BYTE: [[u8; 256]; 4] = [two_byte(0), two_byte(1), two_byte(2), two_byte(3)];

/// Bytes of the ModRM `m` with its displacement (a SIB's own byte and
/// its displacement aside), and 0x80 when a SIB follows.
static MODRM_LEN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        let (md, rm) = (m >> 6, m & 7);
        let sib = md != 3 && rm == 4;
        let disp = match md {
            // disp32: RIP-relative (rm 5); a SIB without base adds its own.
            0 if rm == 5 => 4,
            1 => 1,
            2 => 4,
            _ => 0,
        };
        t[m] = 1 + disp + if sib { 0x80 } else { 0 };
        m += 1;
    }
    t
};

/// Whether byte `b` is a legacy prefix read here (segments and branch
/// hints, 66, F2, F3; not lock or 67), as a bit of a prefix set.
static PREFIX: [u8; 256] = {
    let mut t = [0u8; 256];
    t[0x26] = 1;
    t[0x2E] = 1;
    t[0x36] = 1;
    t[0x3E] = 1;
    t[0x64] = 1;
    t[0x65] = 1;
    t[0x66] = 2;
    t[0xF3] = 4;
    t[0xF2] = 8;
    t
};

/// The forms without legacy prefixes by opcode and ModRM byte, for the
/// common case read with three lookups at most: index `0F? << 16 |
/// opcode << 8 | ModRM` (the ModRM's place holds any byte when the opcode
/// has none). 0: not read there; else [`F_VALID`], the bytes after the
/// opcode (ModRM, SIB, displacement, immediate) in bits 0-3, and:
static FAST: [u8; 1 << 17] = {
    let mut t = [0u8; 1 << 17];
    let mut i = 0;
    while i < t.len() {
        t[i] = fast_entry(i >> 16 != 0, (i >> 8) as u8, i as u8);
        i += 1;
    }
    t
};
/// Read there.
const F_VALID: u8 = 0x40;
/// A SIB follows a ModRM with mod 0: base 5 adds a disp32.
const F_SIB0: u8 = 0x10;
/// A `v` immediate: 4 more bytes with REX.W.
const F_WIDE: u8 = 0x20;
/// A call.
const F_CALL: u8 = 0x80;

/// [`FAST`]'s entry for opcode `op` (`0F op` if `two`) with ModRM `m`.
const fn fast_entry(two: bool, op: u8, m: u8) -> u8 {
    let d = if two {
        TWO_BYTE[P_NONE][op as usize]
    } else {
        ONE_BYTE[P_NONE][op as usize]
    };
    if d == 0 {
        return 0;
    }
    let (mut imm, mut call) = (d & IMM, d & CALL != 0);
    let mut n = 0;
    let mut f = F_VALID;
    if d & MODRM != 0 {
        // `and rsp` (and the others with that ModRM) to `read`, which
        // says whether it realigns the stack.
        if !two && (op == 0x81 || op == 0x83) && m == 0xE4 {
            return 0;
        }
        if d & GROUP != 0 {
            match group(P_NONE, two, op, d, m) {
                Some((i, c)) => (imm, call) = (i, c),
                None => return 0,
            }
        }
        if d & MEM != 0 && m >= 0xC0 {
            return 0;
        }
        let l = MODRM_LEN[m as usize];
        n += l & 0x7F;
        if l & 0x80 != 0 {
            n += 1;
            if m < 0x40 {
                f |= F_SIB0;
            }
        }
    }
    n += IMM_LEN[imm as usize * 4];
    if imm == IV {
        f |= F_WIDE;
    }
    if call {
        f |= F_CALL;
    }
    f | n
}

/// The length and call-ness of the instruction at the start of `code`, if
/// it is one of the forms read here and lies whole within `code`; `None`
/// otherwise (decode it in full).
#[inline(always)]
pub fn quick(code: &[u8]) -> Option<Quick> {
    // An instruction has 15 bytes at most: with 16 at hand no read needs
    // a bounds check (the index is masked: all the bytes read lie within
    // the first 9), else each is checked.
    let Some(w) = code.first_chunk::<16>() else {
        return read_checked(code);
    };
    // The common case: [REX] opcode or 0F opcode, [ModRM [SIB] [disp]]
    // [imm], from [`FAST`] (13 bytes at most: within `w`).
    let mut o = 0;
    let rex_w = w[0] & 0xF0 == 0x40 && w[0] & 8 != 0;
    if w[0] & 0xF0 == 0x40 {
        o = 1;
    }
    let mut row = usize::from(w[o]) << 8;
    if w[o] == 0x0F {
        o += 1;
        row = 1 << 16 | usize::from(w[o & 15]) << 8;
    }
    let e = FAST[row | usize::from(w[(o + 1) & 15])];
    if e != 0 {
        let mut len = o + 1 + usize::from(e & 15);
        if e & F_SIB0 != 0 && w[(o + 2) & 15] & 7 == 5 {
            len += 4;
        }
        if e & F_WIDE != 0 && rex_w {
            len += 4;
        }
        return Some(Quick {
            len,
            call: e & F_CALL != 0,
            realign: false,
        });
    }
    // Next most common: one of 66, F3, F2, [REX], then 0F and an opcode
    // with a ModRM and no group (SSE moves and arithmetic), from the
    // prefix's table without `read`'s prefix loop.
    let p = PREFIX[usize::from(w[0])];
    if p >= 2 {
        // 66 → P_66, F3 → P_F3, F2 → P_F2.
        let class = p.trailing_zeros() as usize;
        let rex_w = w[1] & 0xF0 == 0x40 && w[1] & 8 != 0;
        let o = if w[1] & 0xF0 == 0x40 { 2 } else { 1 };
        if w[o] == 0x0F {
            let d = TWO_BYTE[class & 3][usize::from(w[(o + 1) & 15])];
            if d & (VALID | MODRM | GROUP | MEM) == VALID | MODRM {
                let m = w[(o + 2) & 15];
                let l = MODRM_LEN[usize::from(m)];
                let mut len = o + 2 + usize::from(l & 0x7F);
                if l & 0x80 != 0 {
                    if m < 0x40 && w[len & 15] & 7 == 5 {
                        len += 4;
                    }
                    len += 1;
                }
                let s = usize::from(rex_w) * 2 + usize::from(class == P_66);
                len += usize::from(IMM_LEN[usize::from(d & IMM) * 4 + s]);
                return Some(Quick {
                    len,
                    call: false,
                    realign: false,
                });
            }
        }
    }
    read_window(w)
}

/// [`read`] of the 16 bytes at hand, out of the common case's line.
#[inline(never)]
fn read_window(w: &[u8; 16]) -> Option<Quick> {
    read(|i| Some(w[i & 15]), 16)
}

/// [`read`] of fewer bytes, each read checked.
#[inline(never)]
fn read_checked(code: &[u8]) -> Option<Quick> {
    read(|i| code.get(i).copied(), code.len())
}

/// [`quick`] of the `len` bytes `byte` gives.
#[inline(always)]
fn read(byte: impl Fn(usize) -> Option<u8>, len: usize) -> Option<Quick> {
    let mut at = 0;
    let mut b = byte(0)?;
    // Legacy prefixes, each kind at most once: 66, F2 and F3 select the
    // tables; two of them (which one is mandatory) are left to iced.
    let mut class = P_NONE;
    if PREFIX[b as usize] != 0 {
        let mut seen = 0u8;
        loop {
            let p = PREFIX[b as usize];
            if p == 0 {
                break;
            }
            if seen & p != 0 {
                return None;
            }
            seen |= p;
            at += 1;
            b = byte(at)?;
        }
        class = match seen >> 1 {
            0 => P_NONE,
            1 => P_66,
            2 => P_F3,
            4 => P_F2,
            _ => return None,
        };
    }
    let (mut rex_w, mut rex_b) = (false, false);
    if b & 0xF0 == 0x40 {
        rex_w = b & 8 != 0;
        rex_b = b & 1 != 0;
        at += 1;
        b = byte(at)?;
    }
    at += 1;
    let two = b == 0x0F;
    let d = if two {
        b = byte(at)?;
        at += 1;
        TWO_BYTE[class][b as usize]
    } else {
        ONE_BYTE[class][b as usize]
    };
    if d == 0 {
        return None;
    }
    let mut imm = d & IMM;
    let mut call = d & CALL != 0;
    let mut realign = false;
    if d & MODRM != 0 {
        let m = byte(at)?;
        // and rsp, imm: REX.W, not REX.B, reg 4, rm 4, mod 3.
        realign = !two && (b == 0x81 || b == 0x83) && m == 0xE4 && rex_w && !rex_b;
        if d & GROUP != 0 {
            (imm, call) = group(class, two, b, d, m)?;
        }
        if d & MEM != 0 && m >= 0xC0 {
            return None;
        }
        let l = MODRM_LEN[m as usize];
        at += usize::from(l & 0x7F);
        if l & 0x80 != 0 {
            // The SIB; base 5 without displacement means disp32.
            let sib = byte(at)?;
            at += 1;
            if m < 0x40 && sib & 7 == 5 {
                at += 4;
            }
        }
    }
    let s = usize::from(rex_w) * 2 + usize::from(class == P_66);
    at += usize::from(IMM_LEN[usize::from(imm) * 4 + s]);
    // 15 bytes at most (many prefixes); whole within the code.
    (at <= 15 && at <= len).then_some(Quick {
        len: at,
        call,
        realign,
    })
}

/// The immediate kind and call-ness of group opcode `op` (one byte, or
/// the second of `0F op` if `two`) with descriptor `d` and ModRM `m`
/// under prefix class `class`; `None` for forms not read here.
const fn group(class: usize, two: bool, op: u8, d: u8, m: u8) -> Option<(u8, bool)> {
    let reg = (m >> 3) & 7;
    let imm = d & IMM;
    let ok = match (two, op) {
        // nop r/m (reg 0: the multi-byte nops compilers pad with).
        (true, 0x1F) => reg == 0,
        // bt, bts, btr, btc r/m, imm8.
        (true, 0xBA) => reg >= 4,
        (true, _) => false,
        (false, 0x81 | 0x83) => true,
        (false, 0xC0 | 0xC1 | 0xD0..=0xD3) => reg != 6,
        // mov r/m, imm (reg 0; others are xabort/xbegin or invalid).
        (false, 0xC6 | 0xC7) => reg == 0,
        // test r/m, imm (reg 0), not, neg, mul, imul, div, idiv.
        (false, 0xF6 | 0xF7) => reg != 1,
        (false, 0xFE) => reg <= 1,
        // inc, dec, call, jmp, push; the far forms, reg 7 and the 16-bit
        // branches to iced.
        (false, 0xFF) if class == P_66 => reg <= 1,
        (false, 0xFF) => matches!(reg, 0 | 1 | 2 | 4 | 6),
        _ => false,
    };
    if !ok {
        return None;
    }
    Some(match (two, op) {
        (false, 0xF6) if reg == 0 => (IB, false),
        (false, 0xF7) if reg == 0 => (IZ, false),
        (false, 0xF6 | 0xF7) => (I0, false),
        (false, 0xFF) => (I0, reg == 2),
        _ => (imm, false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::{Decoder, DecoderOptions, FlowControl};
    use proptest::prelude::*;

    /// What iced says of the instruction at the start of `code`, when it
    /// is valid.
    fn iced(code: &[u8]) -> Option<Quick> {
        let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
        let i = d.decode();
        (!i.is_invalid()).then(|| Quick {
            len: i.len(),
            realign: crate::object::instructions::realigns(&i),
            call: matches!(
                i.flow_control(),
                FlowControl::Call | FlowControl::IndirectCall
            ),
        })
    }

    #[test]
    fn agrees_with_iced_on_every_opcode_and_modrm() {
        // Every prefix combination read here (and some not), REX (or
        // none), opcode byte (and 0F second byte), ModRM and SIB, with
        // varied displacement and immediate bytes, at every truncation:
        // each answer must be iced's.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut answered = 0;
        let mut wrong = Vec::new();
        let prefixes: [&[u8]; 9] = [
            &[],
            &[0x66],
            &[0xF2],
            &[0xF3],
            &[0x2E, 0x66],
            &[0x64],
            &[0x66, 0xF3],
            &[0xF0],
            &[0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65],
        ];
        for (prefix, rex) in prefixes.into_iter().flat_map(|p| {
            [
                None,
                Some(0x40u8),
                Some(0x41),
                Some(0x48),
                Some(0x4C),
                Some(0x4F),
            ]
            .map(|r| (p, r))
        }) {
            for op in 0..=255u8 {
                for op2 in 0..=255u8 {
                    if op != 0x0F && op2 != 0 {
                        continue;
                    }
                    for modrm in 0..=255u8 {
                        let mut code: Vec<u8> = prefix.iter().copied().chain(rex).collect();
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
        assert!(answered > 1_000_000, "{answered}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// On any bytes, either iced's answer or none.
        #[test]
        fn random_bytes_agree_with_iced(code in proptest::collection::vec(any::<u8>(), 0..20)) {
            if let Some(q) = quick(&code) {
                prop_assert_eq!(Some(q), iced(&code), "{:02x?}", code);
            }
        }

        /// The same, with the prefixes, REX and opcodes read here most.
        #[test]
        fn prefixed_bytes_agree_with_iced(
            pre in proptest::collection::vec(
                proptest::sample::select(vec![0x66u8, 0xF2, 0xF3, 0x2E, 0x3E, 0x64, 0x65, 0x48, 0x41, 0x0F]),
                0..5,
            ),
            rest in proptest::collection::vec(any::<u8>(), 0..16),
        ) {
            let code: Vec<u8> = pre.into_iter().chain(rest).collect();
            if let Some(q) = quick(&code) {
                prop_assert_eq!(Some(q), iced(&code), "{:02x?}", code);
            }
        }
    }

    /// Every x86-64 object at hand: the fuzz seeds, the members of the
    /// Rust sysroot's libraries (LLVM's code), the bench objects when
    /// made (`scripts/bench-emit`), and any in `PCMAP_X86_OBJECTS`
    /// (colon-separated paths: objects, archives, or directories searched
    /// for `.o` and `.a` files, such as `lit-tests`).
    fn real_objects() -> Vec<(String, Vec<u8>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut paths: Vec<std::path::PathBuf> = Vec::new();
        let dir = |d: std::path::PathBuf, ext: &str| -> Vec<std::path::PathBuf> {
            let mut v: Vec<_> = std::fs::read_dir(d)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect();
            v.sort();
            v
        };
        paths.extend(dir(root.join("emitter/fuzz/seeds/objects"), "o"));
        paths.extend(dir(root.join("target/bench-emit"), "o"));
        let sysroot =
            std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
                .args(["--print", "sysroot"])
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        if let Some(s) = sysroot {
            let lib = std::path::Path::new(&s).join("lib/rustlib/x86_64-unknown-linux-gnu/lib");
            paths.extend(dir(lib, "rlib").into_iter().filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                ["libcore-", "libstd-", "liballoc-"]
                    .iter()
                    .any(|k| n.starts_with(k))
            }));
        }
        // Directories (the lit tests' outputs) are searched for objects.
        fn walk(p: std::path::PathBuf, out: &mut Vec<std::path::PathBuf>) {
            match std::fs::read_dir(&p) {
                Ok(entries) => {
                    let mut v: Vec<_> = entries.flatten().map(|e| e.path()).collect();
                    v.sort();
                    for e in v {
                        if e.is_dir() {
                            walk(e, out);
                        } else if e.extension().is_some_and(|x| x == "o" || x == "a") {
                            out.push(e);
                        }
                    }
                }
                Err(_) => out.push(p),
            }
        }
        if let Ok(more) = std::env::var("PCMAP_X86_OBJECTS") {
            for p in more.split(':').filter(|p| !p.is_empty()) {
                walk(p.into(), &mut paths);
            }
        }
        let mut out = Vec::new();
        for p in paths {
            let Ok(data) = std::fs::read(&p) else {
                continue;
            };
            let name = p.display().to_string();
            match object::read::archive::ArchiveFile::parse(&*data) {
                Ok(a) => {
                    for m in a.members().flatten() {
                        if let Ok(d) = m.data(&*data) {
                            let member = String::from_utf8_lossy(m.name()).into_owned();
                            out.push((format!("{name}({member})"), d.to_vec()));
                        }
                    }
                }
                Err(_) => out.push((name, data)),
            }
        }
        out
    }

    #[test]
    fn agrees_with_iced_on_real_code() {
        // At every instruction iced finds decoding each code section of
        // each object from its start: the quick answer, on the rest of the
        // section and on the instruction's bytes alone, is iced's.
        use object::{Architecture, Object, ObjectSection, SectionKind};
        let (mut objects, mut instructions, mut answered) = (0, 0u64, 0u64);
        let mut wrong = Vec::new();
        for (name, data) in real_objects() {
            let Ok(file) = object::File::parse(&*data) else {
                continue;
            };
            if file.architecture() != Architecture::X86_64 {
                continue;
            }
            objects += 1;
            for section in file.sections() {
                if section.kind() != SectionKind::Text {
                    continue;
                }
                let Ok(code) = section.data() else { continue };
                let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
                while d.can_decode() {
                    let at = d.ip() as usize;
                    let i = d.decode();
                    let len = if i.is_invalid() { 1 } else { i.len() };
                    instructions += 1;
                    for c in [&code[at..], &code[at..(at + len).min(code.len())]] {
                        if let Some(q) = quick(c) {
                            answered += 1;
                            if Some(q) != iced(c) {
                                wrong.push(format!(
                                    "{name} {}+{at:#x}: {:02x?}: {q:?}, iced {:?}",
                                    section.name().unwrap_or("?"),
                                    &c[..c.len().min(16)],
                                    iced(c)
                                ));
                            }
                        }
                    }
                    if i.is_invalid() {
                        d.set_position(at + 1).unwrap();
                        d.set_ip(at as u64 + 1);
                    }
                }
            }
        }
        eprintln!(
            "{objects} x86-64 objects, {instructions} instructions, {answered} quick answers (2 per instruction)"
        );
        assert!(
            wrong.is_empty(),
            "{} wrong: {:#?}",
            wrong.len(),
            &wrong[..wrong.len().min(40)]
        );
        // The sysroot's libraries alone hold ~130,000 (a fresh checkout's
        // floor); the bench objects, once made, add millions.
        assert!(instructions > 100_000, "{instructions}");
        assert!(answered > instructions, "{answered} of {instructions}");
    }

    #[test]
    fn says_which_instructions_realign_the_stack() {
        let q = |len, call, realign| Some(Quick { len, call, realign });
        // and rsp, -16 / and rsp, -4096 (also with REX.R and the 66
        // prefix REX.W overrides); and r12, -16 and and esp, -16 do not.
        assert_eq!(quick(&[0x48, 0x83, 0xE4, 0xF0]), q(4, false, true));
        assert_eq!(quick(&[0x4C, 0x83, 0xE4, 0xF0]), q(4, false, true));
        assert_eq!(quick(&[0x66, 0x48, 0x83, 0xE4, 0xF0]), q(5, false, true));
        assert_eq!(
            quick(&[0x48, 0x81, 0xE4, 0, 0xF0, 0xFF, 0xFF]),
            q(7, false, true)
        );
        assert_eq!(quick(&[0x49, 0x83, 0xE4, 0xF0]), q(4, false, false));
        assert_eq!(quick(&[0x83, 0xE4, 0xF0]), q(3, false, false));
        assert_eq!(quick(&[0x41, 0xFF, 0xD3]), q(3, true, false));
    }
}
