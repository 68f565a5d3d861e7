//! The reader's unwind cursor on every architecture it supports (x86-64,
//! AArch64, PowerPC64 ELFv2 and ELFv1), over tables and a stack the input both shape,
//! against a reference walk written here from the rules the walk module
//! documents (its module doc, [`Options`], [`Stop`], [`lookup`]): no code
//! shared with the cursor but the types.
//!
//! The input is read a byte at a time (zeros past its end):
//!
//! ```text
//! flags  [max frames]  functions  per function: records, TOC word, per record: state, register, offset, saved count, saved (register, offset)…
//! start record  SP  FP  callee-saved value  stack words (tag, u16)…
//! ```
//!
//! flags: bits 0-1 the architecture (the reference's own names for the
//! walker's four `Arch` types), 2 the frame pointer chain, 3 a frame
//! limit under 16 (the next byte; else 256). Stack words are as in the C API's `walk` target:
//! tag 0 an address in the stack, 1 a code address (a record's PC, or near
//! one), 2 the number, 3 zero.
//!
//! What must hold: no panic; every walk ends; the cursor without a cache,
//! with caches of 2 and 8 entries (cold, then warm: entries evict each
//! other in the small one), and with a memory that allows a frame's reads
//! at once ([`Memory::can_read`]) all give the reference walk's frames
//! (PC, known registers' values and save slots, CFA, what the tables say)
//! and the same stop.
#![no_main]
use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use pcmap_reader::flat::Pc;
use pcmap_reader::walk::{
    self, Cache, CacheKey, CfaRule, Cursor, FrameAt, Memory, Options, Registers, Slot, State, Stop,
    UnwindTables, REGISTER_SLOTS,
};

const CODE: u64 = 0x10_0000;
const FUNCTION_SIZE: u64 = 0x100;
const STACK: u64 = 0x7f00_0000;
/// PowerPC64's TOC restores after a call (ELFv2, ELFv1) and `nop`, and one
/// word that is none of them.
const CODE_WORDS: [u32; 4] = [0xe841_0018, 0xe841_0028, 0x6000_0000, 0x3860_0000];

/// The architectures, as the reference names them (no code shared with
/// the walker's `Arch` types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Abi {
    X86_64,
    AArch64,
    /// PowerPC64 ELFv2: its TOC restore is `ld r2, 24(r1)`.
    PowerPc64V2,
    /// PowerPC64 ELFv1: `ld r2, 40(r1)`.
    PowerPc64V1,
}

impl Abi {
    fn powerpc(self) -> bool {
        matches!(self, Abi::PowerPc64V2 | Abi::PowerPc64V1)
    }
    /// The words after a call a record may follow: `nop`, the ABI's TOC
    /// restore.
    fn toc_restores(self) -> &'static [u32] {
        match self {
            Abi::PowerPc64V2 => &[0x6000_0000, 0xe841_0018],
            Abi::PowerPc64V1 => &[0x6000_0000, 0xe841_0028],
            _ => &[],
        }
    }
}

/// Bytes of the input in turn, zero past its end.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
}

/// A record: its PC, frame state and saved registers (DWARF, CFA offset).
struct Record {
    pc: u64,
    state: State,
    saved: Vec<(u16, i32)>,
}

/// Functions `CODE + i * FUNCTION_SIZE`, each `FUNCTION_SIZE` long.
struct Tables(Vec<Vec<Record>>);

impl Tables {
    /// The function holding the PC's byte (a return address's: the byte
    /// before it), the record at the PC.
    fn at(&self, at: Pc) -> FrameAt<u64, (usize, usize)> {
        let (pc, byte) = match at {
            Pc::ReturnAddress(pc) => (pc, pc.wrapping_sub(1)),
            Pc::Instruction(pc) => (pc, pc),
        };
        let Some(f) = byte
            .checked_sub(CODE)
            .filter(|_| pc != 0)
            .map(|o| (o / FUNCTION_SIZE) as usize)
        else {
            return FrameAt::Unmanaged;
        };
        let Some(records) = self.0.get(f) else {
            return FrameAt::Unmanaged;
        };
        let start = CODE + f as u64 * FUNCTION_SIZE;
        match records.iter().position(|r| r.pc == pc) {
            Some(r) => FrameAt::Record(start, (f, r)),
            None => FrameAt::NoRecord(start),
        }
    }
    fn state(&self, &(f, r): &(usize, usize)) -> State {
        self.0[f][r].state
    }
}

impl UnwindTables for Tables {
    type Function = u64;
    type Record = (usize, usize);
    fn frame_at(&self, pc: Pc) -> Result<FrameAt<u64, (usize, usize)>, Stop> {
        Ok(self.at(pc))
    }
    fn state(&self, r: &(usize, usize)) -> State {
        Tables::state(self, r)
    }
    fn kind(&self, _: &(usize, usize)) -> u8 {
        0
    }
    fn locations<'r>(
        &'r self,
        _: &'r (usize, usize),
    ) -> impl Iterator<Item = pcmap_reader::Result<pcmap_reader::Location>> + 'r {
        core::iter::empty()
    }
    fn constant(&self, _: &(usize, usize), _: u32) -> pcmap_reader::Result<u64> {
        Err(pcmap_reader::Error::Inconsistent("no constants"))
    }
    fn cache_key(&self) -> CacheKey {
        [1, 0, 0, 0]
    }
    fn saved_registers(
        &self,
        &(f, r): &(usize, usize),
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        for &(reg, off) in &self.0[f][r].saved {
            visit(reg, off);
        }
        Ok(())
    }
}

/// The stack's words from `STACK`, and code words by address.
struct Stack {
    words: Vec<u64>,
    code: HashMap<u64, u32>,
}

impl Stack {
    fn index(&self, address: u64) -> Option<usize> {
        let o = address.checked_sub(STACK)?;
        (o % 8 == 0 && o / 8 < self.words.len() as u64).then_some((o / 8) as usize)
    }
}

/// Reads one word at a time.
#[derive(Clone, Copy)]
struct Checked<'s>(&'s Stack);

impl Memory for Checked<'_> {
    fn read_u64(&self, address: u64) -> Option<u64> {
        self.0.index(address).map(|i| self.0.words[i])
    }
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        self.0.code.get(&address).copied()
    }
}

/// Allows a span of reads at once where the whole span is on the stack;
/// an unchecked read outside it panics (indexing).
#[derive(Clone, Copy)]
struct Bulk<'s>(&'s Stack);

impl Memory for Bulk<'_> {
    fn read_u64(&self, address: u64) -> Option<u64> {
        Checked(self.0).read_u64(address)
    }
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        Checked(self.0).read_code_u32(address)
    }
    fn can_read(&self, low: u64, high: u64) -> bool {
        low <= high
            && self.0.index(low).is_some()
            && (high == low || self.0.index(high - 8).is_some())
    }
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        let o = address - STACK;
        assert_eq!(o % 8, 0, "unchecked read misaligned");
        self.0.words[(o / 8) as usize]
    }
}

/// One frame as compared: PC, known registers (value, save slot if
/// saved), CFA, what the tables say.
type Frame = (
    u64,
    Vec<(usize, u64, Option<u64>)>,
    Option<u64>,
    FrameAt<u64, (usize, usize)>,
);

fn frame(t: &Tables, arch: Abi, r: &Registers, at: FrameAt<u64, (usize, usize)>) -> Frame {
    let known = (0..REGISTER_SLOTS)
        .filter(|&s| r.known >> s & 1 != 0)
        .map(|s| {
            (
                s,
                r.value[s],
                (r.saved >> s & 1 != 0).then_some(r.address[s]),
            )
        })
        .collect();
    let cfa = match at {
        FrameAt::Record(_, rec) => match t.state(&rec) {
            State::Cfa(rule) => {
                get(arch, r, rule.register).map(|v| v.wrapping_add(rule.offset as i64 as u64))
            }
            _ => None,
        },
        _ => None,
    };
    (r.pc, known, cfa, at)
}

// ---- The reference walk: the documented rules, written out plainly. ----

/// The register slot of a DWARF number: x86-64 0-15; AArch64 and
/// PowerPC64 0-31; PowerPC64's LR (65) in slot 32.
fn slot(arch: Abi, dwarf: u16) -> Option<usize> {
    match arch {
        Abi::X86_64 if dwarf < 16 => Some(dwarf.into()),
        _ if arch != Abi::X86_64 && dwarf < 32 => Some(dwarf.into()),
        _ if arch.powerpc() && dwarf == 65 => Some(32),
        _ => None,
    }
}

fn get(arch: Abi, r: &Registers, dwarf: u16) -> Option<u64> {
    let s = slot(arch, dwarf)?;
    (r.known >> s & 1 != 0).then_some(r.value[s])
}

fn set(arch: Abi, r: &mut Registers, dwarf: u16, value: u64, address: Option<u64>) {
    if let Some(s) = slot(arch, dwarf) {
        r.value[s] = value;
        r.known |= 1 << s;
        r.saved &= !(1 << s);
        if let Some(a) = address {
            r.address[s] = a;
            r.saved |= 1 << s;
        }
    }
}

/// The registers a callee preserves (DWARF numbers), SP apart.
fn callee_saved(arch: Abi) -> Vec<u16> {
    match arch {
        Abi::X86_64 => vec![3, 6, 12, 13, 14, 15],
        Abi::AArch64 => (19..=29).collect(),
        _ => (14..=31).collect(),
    }
}

/// (SP, FP, return address column) as DWARF numbers.
fn columns(arch: Abi) -> (u16, u16, u16) {
    match arch {
        Abi::X86_64 => (7, 6, 16),
        Abi::AArch64 => (31, 29, 30),
        _ => (1, 31, 65),
    }
}

/// What the tables say about return address `pc`, with PowerPC64's rule:
/// no record at `pc`, the ABI's TOC restore (or `nop`) there and a record
/// at return address `pc + 4`: that record.
fn reference_lookup(t: &Tables, s: &Stack, arch: Abi, pc: u64) -> FrameAt<u64, (usize, usize)> {
    let at = t.at(Pc::ReturnAddress(pc));
    let restore = s
        .code
        .get(&pc)
        .is_some_and(|w| arch.toc_restores().contains(w));
    if matches!(at, FrameAt::NoRecord(_)) && restore {
        let next = t.at(Pc::ReturnAddress(pc.wrapping_add(4)));
        if matches!(next, FrameAt::Record(..)) {
            return next;
        }
    }
    at
}

/// The caller's registers, or why the frame cannot be unwound.
fn reference_step(
    t: &Tables,
    s: &Stack,
    arch: Abi,
    options: Options,
    r: &Registers,
    at: FrameAt<u64, (usize, usize)>,
) -> Result<Registers, Stop> {
    let read = |a: u64| Checked(s).read_u64(a).ok_or(Stop::BadStack);
    let (sp_col, fp_col, ra_col) = columns(arch);
    let sp = get(arch, r, sp_col);
    let mut next = *r;
    next.known = 0;
    next.saved = 0;
    let state = match at {
        FrameAt::Record(_, rec) => t.state(&rec),
        _ => State::None,
    };
    match (at, state) {
        (FrameAt::Record(_, (f, ri)), State::Cfa(rule)) => {
            let base = get(arch, r, rule.register).ok_or(Stop::RegisterUnknown(rule.register))?;
            let cfa = base.wrapping_add(rule.offset as i64 as u64);
            if sp.is_some_and(|sp| cfa <= sp) {
                return Err(Stop::BadStack);
            }
            // A callee keeps the callee-saved registers; the rest of the
            // caller's are unknown.
            for reg in callee_saved(arch) {
                let s = slot(arch, reg).unwrap();
                if r.known >> s & 1 != 0 {
                    next.known |= 1 << s;
                    next.saved |= r.saved & 1 << s;
                }
            }
            for &(reg, off) in &t.0[f][ri].saved {
                if slot(arch, reg).is_some() {
                    let at = cfa.wrapping_add(off as i64 as u64);
                    let v = read(at)?;
                    set(arch, &mut next, reg, v, Some(at));
                }
            }
            next.pc = match arch {
                Abi::X86_64 => read(cfa.wrapping_sub(8))?,
                Abi::AArch64 => get(arch, &next, ra_col).ok_or(Stop::ReturnAddressNotSaved)?,
                _ => match get(arch, &next, ra_col) {
                    Some(ra) => ra,
                    None => read(cfa.wrapping_add(16))?,
                },
            };
            if let Some(s) = slot(arch, ra_col) {
                next.known &= !(1 << s);
                next.saved &= !(1 << s);
            }
            set(arch, &mut next, sp_col, cfa, None);
        }
        (FrameAt::Record(..), State::NoCfaRule) => return Err(Stop::NoCfaRule),
        _ if !options.frame_pointer_chain => {
            return Err(match at {
                FrameAt::Unmanaged => Stop::Unmanaged,
                FrameAt::NoRecord(_) => Stop::NoRecord,
                _ => Stop::NoFrameState,
            })
        }
        _ => match arch {
            Abi::X86_64 | Abi::AArch64 => {
                let fp = get(arch, r, fp_col).ok_or(Stop::RegisterUnknown(fp_col))?;
                if fp == 0 {
                    return Err(Stop::EndOfStack);
                }
                if sp.is_some_and(|sp| fp < sp) {
                    return Err(Stop::BadStack);
                }
                // The slot this FP was restored from is in a callee's frame.
                let fp_slot = slot(arch, fp_col).unwrap();
                if r.saved >> fp_slot & 1 != 0 && fp <= r.address[fp_slot] {
                    return Err(Stop::BadStack);
                }
                next.pc = read(fp.wrapping_add(8))?;
                set(arch, &mut next, fp_col, read(fp)?, Some(fp));
                if arch == Abi::X86_64 {
                    set(arch, &mut next, sp_col, fp.wrapping_add(16), None);
                }
            }
            _ => {
                let sp = sp.ok_or(Stop::RegisterUnknown(sp_col))?;
                let caller = read(sp)?;
                if caller == 0 {
                    return Err(Stop::EndOfStack);
                }
                if caller <= sp {
                    return Err(Stop::BadStack);
                }
                next.pc = read(caller.wrapping_add(16))?;
                set(arch, &mut next, sp_col, caller, None);
            }
        },
    }
    if next.pc == 0 {
        return Err(Stop::EndOfStack);
    }
    Ok(next)
}

fn reference_walk(
    t: &Tables,
    s: &Stack,
    arch: Abi,
    mut r: Registers,
    options: Options,
) -> (Vec<Frame>, Stop) {
    let mut at = reference_lookup(t, s, arch, r.pc);
    let mut frames = vec![];
    loop {
        frames.push(frame(t, arch, &r, at));
        if frames.len() > options.max_frames as usize {
            return (frames, Stop::BadStack);
        }
        match reference_step(t, s, arch, options, &r, at) {
            Ok(next) => {
                r = next;
                at = reference_lookup(t, s, arch, r.pc);
            }
            Err(stop) => return (frames, stop),
        }
    }
}

// ---- The cursor. ----

fn cursor_walk<A: walk::Arch, M: Memory>(
    t: &Tables,
    memory: M,
    arch: Abi,
    r: Registers,
    options: Options,
    cache: Option<&mut Cache<'_, u64, (usize, usize)>>,
) -> (Vec<Frame>, Stop) {
    let c = match cache {
        Some(cache) => Cursor::<A, _, _>::with_cache(t, memory, r, options, cache),
        None => Cursor::<A, _, _>::new(t, memory, r, options),
    };
    let mut c = match c {
        Ok(c) => c,
        Err(stop) => return (vec![], stop),
    };
    let mut frames = vec![];
    loop {
        let at = match c.frame() {
            FrameAt::Unmanaged => FrameAt::Unmanaged,
            FrameAt::NoRecord(&f) => FrameAt::NoRecord(f),
            FrameAt::Record(&f, &r) => FrameAt::Record(f, r),
        };
        frames.push(frame(t, arch, c.registers(), at));
        if let Err(stop) = c.step() {
            return (frames, stop);
        }
    }
}

/// The cursor's walks, without a cache, with caches of 2 and 8 entries
/// (cold, warm), with reads checked and allowed at once, against the
/// reference's.
fn compare<A: walk::Arch>(
    tables: &Tables,
    stack: &Stack,
    arch: Abi,
    regs: Registers,
    options: Options,
    expected: &(Vec<Frame>, Stop),
) {
    let plain = cursor_walk::<A, _>(tables, Checked(stack), arch, regs, options, None);
    assert_eq!(&plain, expected, "cursor (no cache) against the reference");
    for n in [2, 8] {
        for bulk in [false, true] {
            let mut memory: Vec<std::mem::MaybeUninit<Slot<u64, (usize, usize)>>> =
                (0..n).map(|_| std::mem::MaybeUninit::uninit()).collect();
            let mut c = Cache::new(&mut memory).expect("a cache of n");
            for pass in ["cold", "warm"] {
                let got = match bulk {
                    false => cursor_walk::<A, _>(
                        tables,
                        Checked(stack),
                        arch,
                        regs,
                        options,
                        Some(&mut c),
                    ),
                    true => {
                        cursor_walk::<A, _>(tables, Bulk(stack), arch, regs, options, Some(&mut c))
                    }
                };
                assert_eq!(
                    &got, expected,
                    "{pass} cache of {n} (reads at once: {bulk})"
                );
            }
        }
    }
}

fn build(data: &[u8]) -> (Tables, Stack, Abi, Registers, Options) {
    let mut i = Input(data);
    let flags = i.byte();
    let arch = [
        Abi::X86_64,
        Abi::AArch64,
        Abi::PowerPc64V2,
        Abi::PowerPc64V1,
    ][usize::from(flags & 3)];
    // A frame limit, small or not (a walk of many frames is slow here).
    let max_frames = match flags & 8 {
        0 => 256,
        _ => u32::from(i.byte() % 16),
    };
    let options = Options {
        frame_pointer_chain: flags & 4 != 0,
        max_frames,
        ..Options::default()
    };
    let (sp_col, fp_col, ra_col) = columns(arch);
    let saved_choices = {
        let mut c = callee_saved(arch);
        c.extend([ra_col, fp_col, sp_col, 2]);
        c
    };
    let mut code = HashMap::new();
    let functions = 1 + usize::from(i.byte() % 6);
    let tables = Tables(
        (0..functions)
            .map(|f| {
                let start = CODE + f as u64 * FUNCTION_SIZE;
                let records = i.byte() % 4;
                let word = i.byte();
                (0..records)
                    .map(|r| {
                        let pc = start + 0x10 * (u64::from(r) + 1);
                        if word & 4 != 0 {
                            code.insert(pc - 4, CODE_WORDS[usize::from(word & 3)]);
                        }
                        let kind = i.byte();
                        let register = match i.byte() % 4 {
                            0 => sp_col,
                            1 => fp_col,
                            2 => saved_choices[usize::from(kind) % saved_choices.len()],
                            _ => u16::from(kind),
                        };
                        let offset = i32::from(i.byte() as i8) * 8;
                        let state = match kind % 8 {
                            0 => State::NoCfaRule,
                            1 => State::None,
                            _ => State::Cfa(CfaRule { register, offset }),
                        };
                        let n = match i.byte() {
                            255 => 45,
                            b => b % 5,
                        };
                        let saved = (0..n)
                            .map(|_| {
                                let reg =
                                    saved_choices[usize::from(i.byte()) % saved_choices.len()];
                                (reg, i32::from(i.byte() as i8) * 8)
                            })
                            .collect();
                        Record { pc, state, saved }
                    })
                    .collect()
            })
            .collect(),
    );
    let record_pcs: Vec<u64> = tables.0.iter().flatten().map(|r| r.pc).collect();
    let start = i.byte();
    let pc = record_pcs
        .get(usize::from(start) % record_pcs.len().max(1))
        .copied()
        .unwrap_or(CODE + 0x10);
    let mut regs = Registers {
        pc,
        ..Registers::default()
    };
    let sp = STACK + 8 * u64::from(i.byte() % 8);
    let fp = STACK + 8 * u64::from(i.byte() % 32);
    set(arch, &mut regs, sp_col, sp, None);
    set(arch, &mut regs, fp_col, fp, None);
    let value = u64::from(i.u16());
    for (k, reg) in callee_saved(arch).into_iter().enumerate() {
        if value >> k & 1 != 0 {
            set(arch, &mut regs, reg, value + k as u64, None);
        }
    }
    if arch != Abi::X86_64 && value & 0x8000 != 0 {
        set(arch, &mut regs, ra_col, pc, None);
    }
    let mut words = vec![];
    while !i.0.is_empty() && words.len() < 4096 {
        let tag = i.byte();
        let n = u64::from(i.u16());
        words.push(match tag % 4 {
            0 => STACK + 8 * (n % 4096),
            1 => match record_pcs.get(n as usize % record_pcs.len().max(1)) {
                // A record's PC, or the word before it (PowerPC64's TOC
                // restore), or a PC near one.
                Some(&pc) => [pc, pc - 4, pc + 8][(tag as usize >> 2) % 3],
                None => CODE + n % (functions as u64 * FUNCTION_SIZE),
            },
            2 => n,
            _ => 0,
        });
    }
    (tables, Stack { words, code }, arch, regs, options)
}

fuzz_target!(|data: &[u8]| {
    let (tables, stack, arch, regs, options) = build(data);
    let expected = reference_walk(&tables, &stack, arch, regs, options);
    match arch {
        Abi::X86_64 => compare::<walk::X86_64>(&tables, &stack, arch, regs, options, &expected),
        Abi::AArch64 => compare::<walk::AArch64>(&tables, &stack, arch, regs, options, &expected),
        Abi::PowerPc64V2 => {
            compare::<walk::PowerPc64ElfV2>(&tables, &stack, arch, regs, options, &expected)
        }
        Abi::PowerPc64V1 => {
            compare::<walk::PowerPc64ElfV1>(&tables, &stack, arch, regs, options, &expected)
        }
    }
});
