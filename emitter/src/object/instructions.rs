//! Instruction rules pcmap needs: the call that ends at a statepoint's return
//! address, the instructions that realign the stack, and what kind of
//! instruction an atomics PC points at.

use iced_x86::{
    Code, Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind, Register,
};

use super::target::Target;
use super::x86_length;

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
/// than the last one asked starts over. The common instruction forms are
/// measured by [`x86_length::quick`], the rest decoded by iced.
pub struct Calls<'a> {
    target: Target,
    code: &'a [u8],
    /// For the forms `quick` leaves (made on the first).
    decoder: Option<Decoder<'a>>,
    /// Where the next instruction starts: the end of the last decoded.
    at: usize,
    /// The length and call-ness of the last instruction decoded (length
    /// 0: none yet).
    last: (u32, bool),
    /// The last offset asked for.
    asked: u64,
    /// An undecodable instruction came before `asked`.
    invalid: bool,
    /// An instruction decoded so far realigns the stack (x86-64).
    realigned: bool,
}

impl<'a> Calls<'a> {
    pub fn new(target: Target, code: &'a [u8]) -> Self {
        Calls {
            target,
            code,
            decoder: None,
            at: 0,
            last: (0, false),
            asked: 0,
            invalid: false,
            realigned: false,
        }
    }

    /// As `call_ending_at(target, code, end)`.
    #[inline(never)]
    pub fn ending_at(&mut self, end: u64) -> Option<u32> {
        // Records of one function often share an offset or lie in one
        // instruction's reach: answered without decoding, in line.
        if self.target == Target::X86_64 && end >= self.asked && (self.at as u64) >= end {
            self.asked = end;
            let (len, call) = self.last;
            return (!self.invalid && self.at as u64 == end && call).then_some(len);
        }
        self.decode_to(end)
    }

    /// [`ending_at`](Self::ending_at), decoding on to `end`.
    #[inline(never)]
    fn decode_to(&mut self, end: u64) -> Option<u32> {
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
        // The common forms are measured here, in one tight loop.
        let code = self.code;
        let (mut at, mut last, mut realigned) = (self.at, self.last, false);
        while (at as u64) < end {
            match x86_length::quick(&code[at..]) {
                Some(q) => {
                    at += q.len;
                    last = (q.len as u32, q.call);
                    realigned |= q.realign;
                }
                None => {
                    (self.at, self.last) = (at, last);
                    self.realigned |= realigned;
                    if !self.decode_next() {
                        return None;
                    }
                    (at, last) = (self.at, self.last);
                }
            }
        }
        (self.at, self.last) = (at, last);
        self.realigned |= realigned;
        (at as u64 == end && last.1).then_some(last.0)
    }

    /// Decodes the instruction at `at` with iced into `last`; false at the
    /// code's end or at an undecodable instruction (then `invalid`).
    #[inline(never)]
    fn decode_next(&mut self) -> bool {
        if self.at >= self.code.len() {
            return false;
        }
        let Some(i) = self.decode() else {
            self.invalid = true;
            return false;
        };
        self.realigned |= realigns(&i);
        self.at += i.len();
        self.last = (i.len() as u32, is_call(&i));
        true
    }

    /// Decodes the next instruction into `last`; false at the code's end
    /// or at an undecodable instruction (then `invalid`).
    fn step(&mut self) -> bool {
        match x86_length::quick(self.code.get(self.at..).unwrap_or_default()) {
            Some(q) => {
                self.at += q.len;
                self.last = (q.len as u32, q.call);
                self.realigned |= q.realign;
                true
            }
            None => self.decode_next(),
        }
    }

    /// The instruction at `at`, decoded in full; `None` if undecodable.
    fn decode(&mut self) -> Option<Instruction> {
        let code = self.code;
        let d = self
            .decoder
            .get_or_insert_with(|| Decoder::with_ip(64, code, 0, DecoderOptions::NONE));
        d.set_position(self.at).ok()?;
        d.set_ip(self.at as u64);
        let i = d.decode();
        (!i.is_invalid()).then_some(i)
    }

    /// [`realigns_stack`] of the code, decoding only what
    /// [`ending_at`](Self::ending_at) has not: one pass over the function
    /// for both. Ask it after the records' offsets.
    pub fn realigns_stack(&mut self) -> bool {
        if self.target == Target::X86_64 && !self.realigned && !may_realign(self.code) {
            return false;
        }
        if self.target != Target::X86_64 || self.invalid {
            return realigns_stack(self.target, self.code);
        }
        while !self.realigned && self.at < self.code.len() {
            if !self.step() {
                // realigns_stack decodes on past it.
                return realigns_stack(self.target, self.code);
            }
        }
        self.realigned
    }
}

/// Whether iced's instruction is a call (direct or indirect).
fn is_call(i: &Instruction) -> bool {
    matches!(
        i.flow_control(),
        FlowControl::Call | FlowControl::IndirectCall
    )
}

/// Whether `code` aligns the stack pointer (dynamic stack realignment).
pub fn realigns_stack(target: Target, code: &[u8]) -> bool {
    match target {
        Target::X86_64 => {
            if !may_realign(code) {
                return false;
            }
            let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
            while d.can_decode() {
                if realigns(&d.decode()) {
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

/// Whether x86-64 `code` may hold an `and rsp, imm` (`REX.W 83 /4 ib` or
/// `REX.W 81 /4 id`, ModRM `0xE4`): without the opcode byte followed by
/// that ModRM anywhere, no instruction realigns the stack, and decoding
/// the function to its end to find none is skipped.
fn may_realign(code: &[u8]) -> bool {
    memchr::memchr_iter(0xE4, code).any(|i| i > 0 && matches!(code[i - 1], 0x81 | 0x83))
}

/// An x86-64 `and rsp, -N`.
pub(crate) fn realigns(i: &Instruction) -> bool {
    matches!(i.code(), Code::And_rm64_imm8 | Code::And_rm64_imm32)
        && i.op0_kind() == OpKind::Register
        && i.op0_register() == Register::RSP
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

/// What the instruction at an atomics PC is (`pcmap verify`): a PC must be
/// an instruction that accesses memory the way LLVM lowers atomics, or one
/// of a load-reserve/store-conditional loop AtomicExpandPass built (it
/// copies `!pcsections` to every instruction of the loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PcForm {
    /// Atomic in its own right: x86 `lock`, `xchg` with memory, fences;
    /// AArch64 exclusives, acquire/release, LSE, barriers; PowerPC
    /// reservations, store-conditionals, `sync`/`isync`/`eieio`.
    Atomic,
    /// A plain load or store (how LLVM lowers atomic loads and stores on
    /// x86-64 and PowerPC, and relaxed ones on AArch64).
    Access,
    /// An instruction of a load-reserve/store-conditional loop, from the
    /// load-reserve to the branch after the store-conditional.
    LlSc,
    /// A call: LLVM 19 tags calls to outlined atomics (`__aarch64_ldadd4…`).
    Call,
    /// Anything else: no memory access (`sete`, `cset`, a compare). The
    /// atomic whose PC this was has none of its own.
    NoAccess,
    /// Not the start of an instruction, or undecodable.
    NotAnInstruction,
}

impl PcForm {
    /// Whether the PC marks the instruction that does the atomic access.
    pub fn is_access(self) -> bool {
        matches!(self, PcForm::Atomic | PcForm::Access | PcForm::LlSc)
    }
}

/// The form of the instruction at `offset` of `code` (a function's bytes)
/// and its name (mnemonic, or the encoding class).
pub fn pc_form(target: Target, code: &[u8], offset: u64) -> (PcForm, String) {
    match target {
        Target::X86_64 => x86_form(code, offset),
        Target::Aarch64 | Target::PowerPc64 { .. } => word_form(target, code, offset),
    }
}

fn x86_form(code: &[u8], offset: u64) -> (PcForm, String) {
    // LLVM puts no data in x86 code: decoding from the start is exact.
    let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    while d.can_decode() && d.ip() < offset {
        if d.decode().is_invalid() {
            break;
        }
    }
    if d.ip() != offset || !d.can_decode() {
        return (PcForm::NotAnInstruction, "inside an instruction".into());
    }
    let i = d.decode();
    if i.is_invalid() {
        return (PcForm::NotAnInstruction, "undecodable".into());
    }
    let mnemonic = format!("{:?}", i.mnemonic()).to_lowercase();
    let name = if i.has_lock_prefix() {
        format!("lock {mnemonic}")
    } else {
        mnemonic
    };
    let memory = (0..i.op_count()).any(|n| i.op_kind(n) == OpKind::Memory)
        && !matches!(i.mnemonic(), Mnemonic::Lea | Mnemonic::Nop);
    let form = if i.has_lock_prefix()
        || (i.mnemonic() == Mnemonic::Xchg && memory)
        || matches!(
            i.mnemonic(),
            Mnemonic::Mfence | Mnemonic::Lfence | Mnemonic::Sfence
        ) {
        PcForm::Atomic
    } else if memory {
        PcForm::Access
    } else if matches!(
        i.flow_control(),
        FlowControl::Call | FlowControl::IndirectCall
    ) {
        PcForm::Call
    } else {
        PcForm::NoAccess
    };
    (form, name)
}

/// One encoding class of a fixed-width instruction set: `word & mask ==
/// value`. The first matching row decides.
struct Encoding {
    mask: u32,
    value: u32,
    form: PcForm,
    name: &'static str,
    /// Starts (load-reserve) or ends (store-conditional) an LL/SC loop.
    llsc: Option<LlSc>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LlSc {
    Reserve,
    Conditional,
}

const fn enc(mask: u32, value: u32, form: PcForm, name: &'static str) -> Encoding {
    Encoding {
        mask,
        value,
        form,
        name,
        llsc: None,
    }
}

const fn llsc(mask: u32, value: u32, name: &'static str, kind: LlSc) -> Encoding {
    Encoding {
        mask,
        value,
        form: PcForm::Atomic,
        name,
        llsc: Some(kind),
    }
}

/// AArch64 (Arm ARM, "Loads and Stores" and "Branches, Exception
/// Generating and System instructions").
const AARCH64: &[Encoding] = &[
    // Load/store exclusive (bits 29-24 = 001000; o2 bit 23, L bit 22, o1
    // bit 21): LDXR/LDAXR (o2 = 0, L = 1, o1 = 0), LDXP/LDAXP (the same
    // with o1 = 1, 64-bit: bit 31 set); STXR/STLXR and STXP (L = 0).
    llsc(0x3FE0_0000, 0x0840_0000, "ldxr/ldaxr", LlSc::Reserve),
    llsc(0xBFE0_0000, 0x8860_0000, "ldxp/ldaxp", LlSc::Reserve),
    llsc(0x3FE0_0000, 0x0800_0000, "stxr/stlxr", LlSc::Conditional),
    llsc(0xBFE0_0000, 0x8820_0000, "stxp/stlxp", LlSc::Conditional),
    // The rest of the class: LDAR/STLR, LDLAR/STLLR, CAS, CASP.
    enc(0x3F00_0000, 0x0800_0000, PcForm::Atomic, "ldar/stlr/cas"),
    // Atomic memory operations (LSE LDADD…, SWP…) and LDAPR.
    enc(0x3F20_0C00, 0x3820_0000, PcForm::Atomic, "ldadd/swp/ldapr"),
    // LDAPUR/STLUR (RCpc, unscaled).
    enc(0x3F20_0C00, 0x1900_0000, PcForm::Atomic, "ldapur/stlur"),
    // DSB, DMB, ISB.
    enc(0xFFFF_F0DF, 0xD503_309F, PcForm::Atomic, "dsb/dmb"),
    enc(0xFFFF_F0FF, 0xD503_30DF, PcForm::Atomic, "isb"),
    // Every other load and store (op0 = x1x0).
    enc(0x0A00_0000, 0x0800_0000, PcForm::Access, "load/store"),
    // BL, BLR.
    enc(0xFC00_0000, 0x9400_0000, PcForm::Call, "bl"),
    enc(0xFFFF_FC1F, 0xD63F_0000, PcForm::Call, "blr"),
];

/// PowerPC (Power ISA 3.0: primary opcode in bits 0-5, X-form extended
/// opcode in bits 21-30, big-endian bit numbering).
const PO: u32 = 0xFC00_0000;
const XO: u32 = PO | 0x7FE;
const XO_RC: u32 = XO | 1;
const fn x(xo: u32) -> u32 {
    (31 << 26) | (xo << 1)
}
const fn d(po: u32) -> u32 {
    po << 26
}
const POWERPC: &[Encoding] = &[
    llsc(XO, x(20), "lwarx", LlSc::Reserve),
    llsc(XO, x(84), "ldarx", LlSc::Reserve),
    llsc(XO, x(52), "lbarx", LlSc::Reserve),
    llsc(XO, x(116), "lharx", LlSc::Reserve),
    llsc(XO, x(276), "lqarx", LlSc::Reserve),
    llsc(XO_RC, x(150) | 1, "stwcx.", LlSc::Conditional),
    llsc(XO_RC, x(214) | 1, "stdcx.", LlSc::Conditional),
    llsc(XO_RC, x(694) | 1, "stbcx.", LlSc::Conditional),
    llsc(XO_RC, x(726) | 1, "sthcx.", LlSc::Conditional),
    llsc(XO_RC, x(182) | 1, "stqcx.", LlSc::Conditional),
    enc(XO, x(598), PcForm::Atomic, "sync/lwsync"),
    enc(XO, x(854), PcForm::Atomic, "eieio"),
    enc(XO, (19 << 26) | (150 << 1), PcForm::Atomic, "isync"),
    // D-form loads and stores: opcodes 32-47 (lwz … stmw) and 48-55 (lfs
    // … stfdu); DS-form 58 (ld, ldu, lwa) and 62 (std, stdu).
    enc(0xC000_0000, d(32), PcForm::Access, "load/store"),
    enc(0xE000_0000, d(48), PcForm::Access, "lfs/lfd/stfs/stfd"),
    enc(PO, d(58), PcForm::Access, "ld/lwa"),
    enc(PO, d(62), PcForm::Access, "std"),
    // X-form indexed loads and stores.
    enc(XO, x(23), PcForm::Access, "lwzx"),
    enc(XO, x(55), PcForm::Access, "lwzux"),
    enc(XO, x(87), PcForm::Access, "lbzx"),
    enc(XO, x(119), PcForm::Access, "lbzux"),
    enc(XO, x(279), PcForm::Access, "lhzx"),
    enc(XO, x(311), PcForm::Access, "lhzux"),
    enc(XO, x(343), PcForm::Access, "lhax"),
    enc(XO, x(21), PcForm::Access, "ldx"),
    enc(XO, x(53), PcForm::Access, "ldux"),
    enc(XO, x(341), PcForm::Access, "lwax"),
    enc(XO, x(151), PcForm::Access, "stwx"),
    enc(XO, x(183), PcForm::Access, "stwux"),
    enc(XO, x(215), PcForm::Access, "stbx"),
    enc(XO, x(407), PcForm::Access, "sthx"),
    enc(XO, x(149), PcForm::Access, "stdx"),
    enc(XO, x(181), PcForm::Access, "stdux"),
    enc(XO, x(534), PcForm::Access, "lwbrx"),
    enc(XO, x(662), PcForm::Access, "stwbrx"),
    enc(XO, x(532), PcForm::Access, "ldbrx"),
    enc(XO, x(660), PcForm::Access, "stdbrx"),
    // bl (AA = 0, LK = 1), bctrl.
    enc(0xFC00_0003, 0x4800_0001, PcForm::Call, "bl"),
    enc(0xFFFF_FFFF, 0x4E80_0421, PcForm::Call, "bctrl"),
];

fn encodings(target: Target) -> &'static [Encoding] {
    match target {
        Target::Aarch64 => AARCH64,
        _ => POWERPC,
    }
}

fn lookup(target: Target, w: u32) -> Option<&'static Encoding> {
    encodings(target).iter().find(|e| w & e.mask == e.value)
}

/// Longest LL/SC loop LLVM builds, in instructions (a masked part-word
/// cmpxchg with its barriers stays well below).
const LLSC_WINDOW: u64 = 24;

fn word_form(target: Target, code: &[u8], offset: u64) -> (PcForm, String) {
    let Some(w) = (offset & 3 == 0)
        .then(|| word(target, code, offset))
        .flatten()
    else {
        return (
            PcForm::NotAnInstruction,
            "not at a 4-byte instruction".into(),
        );
    };
    if let Some(e) = lookup(target, w) {
        return (e.form, e.name.into());
    }
    let name = format!("{w:#010x}");
    if in_llsc_loop(target, code, offset) {
        return (PcForm::LlSc, name);
    }
    (PcForm::NoAccess, name)
}

/// The site of the atomics PC at `offset`: the IR instruction it belongs to,
/// as far as the code tells. AtomicExpandPass copies one atomic's
/// `!pcsections` to every instruction of the load-reserve/store-conditional
/// loop it builds, so the PCs of one loop are one site, named by the loop's
/// load-reserve; any other PC is a site of its own.
pub fn pc_site(target: Target, code: &[u8], offset: u64) -> u64 {
    match target {
        Target::X86_64 => offset,
        _ => llsc_loop_start(target, code, offset).unwrap_or(offset),
    }
}

/// The offset of the load-reserve starting the loop `offset` lies in: the
/// nearest load-reserve at or before it (within a loop's length) whose
/// next load-reserve or store-conditional is a store-conditional, if
/// `offset` is at most the instruction after that store-conditional or the
/// last branch back to the load-reserve (the loop may merge a retry test
/// after the store-conditional, as `atomic_flag_test_and_set` in a `while`
/// does).
fn llsc_loop_start(target: Target, code: &[u8], offset: u64) -> Option<u64> {
    if offset & 3 != 0 {
        return None;
    }
    let kind = |at: u64| word(target, code, at).and_then(|w| lookup(target, w)?.llsc);
    let start = (0..LLSC_WINDOW)
        .map_while(|k| offset.checked_sub(4 * k))
        .find(|&a| kind(a) == Some(LlSc::Reserve))?;
    let (end, k) = (1..LLSC_WINDOW)
        .map(|k| start + 4 * k)
        .find_map(|a| kind(a).map(|k| (a, k)))?;
    if k != LlSc::Conditional {
        return None;
    }
    let back = (1..LLSC_WINDOW)
        .map(|k| start + 4 * k)
        .filter(|&a| word(target, code, a).and_then(|w| branch_target(target, w, a)) == Some(start))
        .max()
        .unwrap_or(0);
    (offset <= (end + 4).max(back)).then_some(start)
}

/// Where the conditional branch `w` at `at` goes (AArch64 CBZ/CBNZ, TBZ/TBNZ,
/// B.cond; PowerPC bc without AA), if it is one.
fn branch_target(target: Target, w: u32, at: u64) -> Option<u64> {
    let (field, bits) = match target {
        Target::Aarch64 if w & 0x7E00_0000 == 0x3400_0000 || w & 0xFF00_0010 == 0x5400_0000 => {
            ((w >> 5) & 0x7_FFFF, 19)
        }
        Target::Aarch64 if w & 0x7E00_0000 == 0x3600_0000 => ((w >> 5) & 0x3FFF, 14),
        Target::PowerPc64 { .. } if w >> 26 == 16 && w & 2 == 0 => ((w >> 2) & 0x3FFF, 14),
        _ => return None,
    };
    // Sign-extend the word displacement.
    let shift = 32 - bits;
    let words = ((field << shift) as i32) >> shift;
    at.checked_add_signed(i64::from(words) * 4)
}

/// Whether `offset` lies in a load-reserve/store-conditional loop.
fn in_llsc_loop(target: Target, code: &[u8], offset: u64) -> bool {
    llsc_loop_start(target, code, offset).is_some()
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

#[cfg(test)]
mod pc_form_tests {
    use super::*;
    use PcForm::*;

    const PPCLE: Target = Target::PowerPc64 {
        big_endian: false,
        elfv1: false,
    };
    const PPCBE: Target = Target::PowerPc64 {
        big_endian: true,
        elfv1: true,
    };

    fn form_of(target: Target, words: &[u32], at: usize) -> PcForm {
        let big = target == PPCBE;
        let code: Vec<u8> = words
            .iter()
            .flat_map(|w| {
                if big {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                }
            })
            .collect();
        pc_form(target, &code, at as u64 * 4).0
    }

    /// Encodings from `llvm-mc-16 -show-encoding` (AArch64 with +lse,+rcpc).
    const A64: &[(u32, PcForm, &str)] = &[
        (0x885F_7C20, Atomic, "ldxr w0, [x1]"),
        (0xC85F_FC20, Atomic, "ldaxr x0, [x1]"),
        (0x085F_7C20, Atomic, "ldxrb w0, [x1]"),
        (0xC87F_8820, Atomic, "ldaxp x0, x2, [x1]"),
        (0x8803_7C20, Atomic, "stxr w3, w0, [x1]"),
        (0xC803_FC20, Atomic, "stlxr w3, x0, [x1]"),
        (0xC823_8820, Atomic, "stlxp w3, x0, x2, [x1]"),
        (0x88DF_FC20, Atomic, "ldar w0, [x1]"),
        (0xC89F_FC20, Atomic, "stlr x0, [x1]"),
        (0x08DF_FC20, Atomic, "ldarb w0, [x1]"),
        (0x88A0_7C22, Atomic, "cas w0, w2, [x1]"),
        (0xC8E0_FC22, Atomic, "casal x0, x2, [x1]"),
        (0x4860_FC82, Atomic, "caspal x0, x1, x2, x3, [x4]"),
        (0xB820_0022, Atomic, "ldadd w0, w2, [x1]"),
        (0xF8E0_0022, Atomic, "ldaddal x0, x2, [x1]"),
        (0xB8E0_8022, Atomic, "swpal w0, w2, [x1]"),
        (0x3820_1022, Atomic, "ldclrb w0, w2, [x1]"),
        (0xB8BF_C020, Atomic, "ldapr w0, [x1]"),
        (0xD503_3BBF, Atomic, "dmb ish"),
        (0xD503_39BF, Atomic, "dmb ishld"),
        (0xD503_3F9F, Atomic, "dsb sy"),
        (0xD503_3FDF, Atomic, "isb"),
        (0xB940_0020, Access, "ldr w0, [x1]"),
        (0x3940_0C20, Access, "ldrb w0, [x1, #3]"),
        (0xF862_7820, Access, "ldr x0, [x1, x2, lsl #3]"),
        (0xB900_0020, Access, "str w0, [x1]"),
        (0xA9BF_7BFD, Access, "stp x29, x30, [sp, #-16]!"),
        (0x3DC0_0020, Access, "ldr q0, [x1]"),
        (0x0B02_0020, NoAccess, "add w0, w1, w2"),
        (0x1A9F_17E0, NoAccess, "cset w0, eq"),
        (0x7100_041F, NoAccess, "cmp w0, #1"),
        (0x3500_0003, NoAccess, "cbnz w3, ."),
        (0x5400_0001, NoAccess, "b.ne ."),
        (0x9400_0000, Call, "bl ."),
        (0xD63F_0100, Call, "blr x8"),
        (0xD65F_03C0, NoAccess, "ret"),
        (0xD503_3F5F, NoAccess, "clrex"),
    ];

    /// Encodings from `llvm-mc-16 -show-encoding` (PowerPC64 LE).
    const PPC: &[(u32, PcForm, &str)] = &[
        (0x7C60_2028, Atomic, "lwarx 3, 0, 4"),
        (0x7C60_20A8, Atomic, "ldarx 3, 0, 4"),
        (0x7C60_2068, Atomic, "lbarx 3, 0, 4"),
        (0x7C60_20E8, Atomic, "lharx 3, 0, 4"),
        (0x7C60_212D, Atomic, "stwcx. 3, 0, 4"),
        (0x7C60_21AD, Atomic, "stdcx. 3, 0, 4"),
        (0x7C60_256D, Atomic, "stbcx. 3, 0, 4"),
        (0x7C60_25AD, Atomic, "sthcx. 3, 0, 4"),
        (0x7C00_04AC, Atomic, "sync"),
        (0x7C20_04AC, Atomic, "lwsync"),
        (0x4C00_012C, Atomic, "isync"),
        (0x7C00_06AC, Atomic, "eieio"),
        (0x8064_0008, Access, "lwz 3, 8(4)"),
        (0x8864_0000, Access, "lbz 3, 0(4)"),
        (0xA064_0000, Access, "lhz 3, 0(4)"),
        (0x9064_0000, Access, "stw 3, 0(4)"),
        (0x9864_0000, Access, "stb 3, 0(4)"),
        (0xE864_0008, Access, "ld 3, 8(4)"),
        (0xF864_0008, Access, "std 3, 8(4)"),
        (0xF821_FFE1, Access, "stdu 1, -32(1)"),
        (0xC823_0000, Access, "lfd 1, 0(3)"),
        (0xD823_0000, Access, "stfd 1, 0(3)"),
        (0x7C64_282E, Access, "lwzx 3, 4, 5"),
        (0x7C64_282A, Access, "ldx 3, 4, 5"),
        (0x7C64_292A, Access, "stdx 3, 4, 5"),
        (0x7C64_2C2C, Access, "lwbrx 3, 4, 5"),
        (0x7C03_2000, NoAccess, "cmpw 3, 4"),
        (0x4082_0000, NoAccess, "bne 0, ."),
        (0x7C78_0026, NoAccess, "mfocrf 3, 128"),
        (0x3860_0000, NoAccess, "li 3, 0"),
        (0x4800_0001, Call, "bl ."),
        (0x4E80_0421, Call, "bctrl"),
        (0x4E80_0020, NoAccess, "blr"),
    ];

    #[test]
    fn aarch64_encodings() {
        for &(w, want, asm) in A64 {
            assert_eq!(form_of(Target::Aarch64, &[w], 0), want, "{asm}");
        }
    }

    #[test]
    fn powerpc_encodings_both_byte_orders() {
        for &(w, want, asm) in PPC {
            assert_eq!(form_of(PPCLE, &[w], 0), want, "{asm} (LE)");
            assert_eq!(form_of(PPCBE, &[w], 0), want, "{asm} (BE)");
        }
    }

    #[test]
    fn llsc_loops() {
        // AArch64 atomicrmw add without LSE: ldaxr; add; stlxr; cbnz, then
        // an add after the loop.
        let a64 = [
            0xC85F_FC20,
            0x0B02_0020,
            0xC803_FC20,
            0x3500_0003,
            0x0B02_0020,
        ];
        let forms: Vec<_> = (0..a64.len())
            .map(|k| form_of(Target::Aarch64, &a64, k))
            .collect();
        assert_eq!(forms, [Atomic, LlSc, Atomic, LlSc, NoAccess]);
        // PowerPC: lwsync; lwarx; cmpw; bne; stwcx.; bne; isync, then a cmpw.
        let ppc = [
            0x7C20_04AC,
            0x7C60_2028,
            0x7C03_2000,
            0x4082_0000,
            0x7C60_212D,
            0x4082_0000,
            0x4C00_012C,
            0x7C03_2000,
        ];
        let forms: Vec<_> = (0..ppc.len()).map(|k| form_of(PPCLE, &ppc, k)).collect();
        assert_eq!(
            forms,
            [Atomic, Atomic, LlSc, LlSc, Atomic, LlSc, Atomic, NoAccess]
        );
        // A compare before any loop is no access.
        assert_eq!(form_of(PPCLE, &[0x7C03_2000, 0x7C60_212D], 0), NoAccess);
        // Not at an instruction.
        assert_eq!(
            pc_form(Target::Aarch64, &[0; 8], 2).0,
            NotAnInstruction,
            "unaligned"
        );
        assert_eq!(
            pc_form(Target::Aarch64, &[0; 4], 4).0,
            NotAnInstruction,
            "past the end"
        );
    }

    #[test]
    fn x86_forms() {
        // lock cmpxchg %ecx,(%rdi); sete %al; mov (%rdi),%eax; xchg %eax,(%rdi);
        // mfence; lea (%rdi),%rax; call rel32; movzbl (%rdi),%eax.
        let code: &[u8] = &[
            0xF0, 0x0F, 0xB1, 0x0F, 0x0F, 0x94, 0xC0, 0x8B, 0x07, 0x87, 0x07, 0x0F, 0xAE, 0xF0,
            0x48, 0x8D, 0x07, 0xE8, 0, 0, 0, 0, 0x0F, 0xB6, 0x07,
        ];
        let f = |at| pc_form(Target::X86_64, code, at);
        assert_eq!(f(0), (Atomic, "lock cmpxchg".to_string()));
        assert_eq!(f(4), (NoAccess, "sete".to_string()));
        assert_eq!(f(7), (Access, "mov".to_string()));
        assert_eq!(f(9).0, Atomic, "xchg with memory");
        assert_eq!(f(11).0, Atomic, "mfence");
        assert_eq!(f(14).0, NoAccess, "lea");
        assert_eq!(f(17).0, Call);
        assert_eq!(f(22), (Access, "movzx".to_string()));
        assert_eq!(f(1).0, NotAnInstruction);
        assert_eq!(f(25).0, NotAnInstruction, "past the end");
    }
}

#[cfg(test)]
mod pc_site_tests {
    use super::*;

    const PPC: Target = Target::PowerPc64 {
        big_endian: false,
        elfv1: false,
    };

    #[test]
    fn one_site_per_llsc_loop() {
        // add; ldaxr; add; stlxr; cbnz; add: the loop's four PCs are the
        // site of its ldaxr (offset 4); the adds around it are their own.
        let words = [
            0x0B02_0020u32,
            0xC85F_FC20,
            0x0B02_0020,
            0xC803_FC20,
            0x3500_0003,
            0x0B02_0020,
        ];
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let sites: Vec<u64> = (0..6)
            .map(|k| pc_site(Target::Aarch64, &code, k * 4))
            .collect();
        assert_eq!(sites, [0, 4, 4, 4, 4, 20]);
        // x86: every PC is its own site.
        assert_eq!(pc_site(Target::X86_64, &[0x90; 4], 3), 3);
    }

    #[test]
    fn loops_closed_after_a_retry_test() {
        // atomic_flag_test_and_set in a while loop (clang-16 -O2 AArch64,
        // no outline atomics): ldaxrb; stlxrb; and; orr; cbnz back to the
        // ldaxrb; ret.
        let words = [
            0x085F_FD2Au32,
            0x080B_FD28,
            0x1200_014A,
            0x2A0A_016A,
            0x35FF_FF8A,
            0xD65F_03C0,
        ];
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let sites: Vec<Option<u64>> = (0..6)
            .map(|k| llsc_loop_start(Target::Aarch64, &code, k * 4))
            .collect();
        assert_eq!(sites, [Some(0), Some(0), Some(0), Some(0), Some(0), None]);
        assert_eq!(pc_form(Target::Aarch64, &code, 16).0, PcForm::LlSc);
        assert_eq!(branch_target(Target::Aarch64, 0x35FF_FF8A, 16), Some(0));
        // PowerPC bne- back by 3 words.
        assert_eq!(branch_target(PPC, 0x4082_FFF4, 12), Some(0));
    }
}
