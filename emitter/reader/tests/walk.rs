//! The unwind cursor on hand-built stacks for each architecture: SP- and
//! FP-based CFA rules, callee-saved registers restored from their slots,
//! where each ABI keeps the return address, every reason a walk stops,
//! the frame pointer chain, decoding with a frame's registers and roots.

use std::collections::HashMap;

use pcmap_reader::flat::Pc;
use pcmap_reader::walk::{
    self, decode, roots, Arch, CacheSlot, CachedFrame, CfaRule, Cursor, DecodeError, DecodedFrame,
    FrameAt, FrameStates, HotLog, HotPlan, HotRegisters, Memory, Options, Registers, Root,
    RootLayout, RootSlot, RootSlotError, RootsError, State, Stop, UnwindTables, Value,
};
use pcmap_reader::{Location, LocationKind};

/// A stack: 8-byte words by address; and code: 4-byte instructions.
#[derive(Default, Clone)]
struct Stack(HashMap<u64, u64>, HashMap<u64, u32>);

impl Stack {
    fn put(&mut self, address: u64, value: u64) {
        self.0.insert(address, value);
    }
}

impl Memory for &Stack {
    fn read_u64(&self, address: u64) -> Option<u64> {
        self.0.get(&address).copied()
    }
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        self.1.get(&address).copied()
    }
}

/// The same stack, allowing a span of reads at once where every word of
/// it is on the stack (the plan's unchecked reads); an unchecked read
/// of a word not there panics.
#[derive(Clone, Copy)]
struct Bulk<'s>(&'s Stack);

impl Memory for Bulk<'_> {
    fn read_u64(&self, address: u64) -> Option<u64> {
        self.0 .0.get(&address).copied()
    }
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        self.0 .1.get(&address).copied()
    }
    fn can_read(&self, low: u64, high: u64) -> bool {
        low.is_multiple_of(8)
            && low <= high
            && (low..high).step_by(8).all(|a| self.0 .0.contains_key(&a))
    }
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        self.0 .0[&address]
    }
}

/// A record: its PC, frame state and saved registers (DWARF, CFA offset).
type TestRecord = (u64, State, Vec<(u16, i32)>);

/// One function: [start, end), records by PC with their frame states.
#[derive(Clone)]
struct Function {
    start: u64,
    end: u64,
    records: Vec<TestRecord>,
}

#[derive(Default)]
struct Tables(Vec<Function>);

impl UnwindTables for Tables {
    type Function = u64;
    /// The function holding the byte at the PC (a return address: the
    /// byte before it), the record at the PC.
    fn frame_at(&self, at: Pc) -> pcmap_reader::Result<FrameAt<u64, (usize, usize)>> {
        let (pc, byte) = match at {
            Pc::ReturnAddress(pc) => (pc, pc.wrapping_sub(1)),
            Pc::Instruction(pc) => (pc, pc),
        };
        for (fi, f) in self.0.iter().enumerate() {
            if f.start <= byte && byte < f.end && pc != 0 {
                for (ri, r) in f.records.iter().enumerate() {
                    if r.0 == pc {
                        return Ok(FrameAt::Record(f.start, (fi, ri), r.1));
                    }
                }
                return Ok(FrameAt::NoRecord(f.start));
            }
        }
        Ok(FrameAt::Unmanaged)
    }
}

impl FrameStates for Tables {
    type Record = (usize, usize);
    fn saved_registers(
        &self,
        &(f, r): &(usize, usize),
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        for &(reg, off) in &self.0[f].records[r].2 {
            visit(reg, off);
        }
        Ok(())
    }
}

fn cfa(register: u16, offset: i32) -> State {
    State::Cfa(CfaRule { register, offset })
}

fn regs(arch: Arch, pc: u64, set: &[(u16, u64)]) -> Registers {
    let mut r = Registers {
        pc,
        ..Default::default()
    };
    for &(d, v) in set {
        r.set(arch, d, v, None);
    }
    r
}

/// Steps until a stop; returns (pc, cfa) of each frame and the stop.
/// The same walk with a cache of decoded frames, cold then warm, must give
/// the same frames, registers and stop ([`cached_walk`]).
fn walk(
    tables: &Tables,
    stack: &Stack,
    arch: Arch,
    r: Registers,
    options: Options,
) -> (Vec<(u64, Option<u64>)>, Stop) {
    let (frames, stop) = full_walk(tables, stack, arch, r, options, None);
    let mut cache = vec![empty_slot(); 8];
    for pass in ["cold", "warm"] {
        let cached = full_walk(tables, stack, arch, r, options, Some(&mut cache));
        assert_eq!(cached.0, frames, "{pass} cached walk: frames");
        assert_eq!(cached.1, stop, "{pass} cached walk: stop");
    }
    // Again with the steps' reads allowed at once (unchecked).
    let mut cache = vec![empty_slot(); 8];
    for pass in ["cold", "warm"] {
        let cached = full_walk(tables, Bulk(stack), arch, r, options, Some(&mut cache));
        assert_eq!(
            cached.0, frames,
            "{pass} cached walk, reads at once: frames"
        );
        assert_eq!(cached.1, stop, "{pass} cached walk, reads at once: stop");
    }
    hot_runs_agree(tables, stack, arch, options, &frames);
    (frames.iter().map(|f| (f.0.pc, f.1)).collect(), stop)
}

/// Roots a hot run is tried with: none; two off SP, two off the frame
/// pointer (its vector path); off SP and the frame pointer, then in a
/// callee-saved register too (its general path).
fn hot_roots(arch: Arch) -> [Vec<Root>; 5] {
    let at = |kind, dwarf_reg, offset| Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    };
    let root = |base: Location, derived: Location, i: u16| Root {
        base,
        derived,
        base_index: i,
        derived_index: i + 1,
    };
    let callee = match arch {
        Arch::X86_64 => 3,
        Arch::AArch64 => 19,
        Arch::PowerPc64 => 14,
    };
    let (sp, fp) = (
        at(LocationKind::Indirect, arch.sp(), 8),
        at(LocationKind::Indirect, arch.fp(), -16),
    );
    let reg = at(LocationKind::Register, callee, 0);
    [
        vec![],
        vec![
            root(sp, sp, 0),
            root(at(LocationKind::Indirect, arch.sp(), 24), sp, 2),
        ],
        vec![
            root(fp, fp, 0),
            root(at(LocationKind::Indirect, arch.fp(), -8), fp, 2),
        ],
        vec![root(sp, fp, 0), root(fp, sp, 2)],
        vec![root(sp, fp, 0), root(reg, reg, 2), root(fp, sp, 4)],
    ]
}

/// Runs of the hot form (`HotPlan`: the C API's slots collector) from
/// every frame of the exact walk `frames` on, as far as its checks pass,
/// with each set of `hot_roots`: every frame it steps the exact walk
/// steps too, each frame's root slots are what its decoded frame gives
/// with the exact walk's registers, and where the run ends its registers
/// are the exact walk's there (known registers' values, the save slots
/// of those saved, the masks, SP, PC). Registers not known may differ:
/// a run does not write them.
#[allow(clippy::type_complexity)]
fn hot_runs_agree(
    tables: &Tables,
    stack: &Stack,
    arch: Arch,
    options: Options,
    frames: &[(Registers, Option<u64>, FrameAt<u64, (usize, usize)>)],
) {
    let memory = Bulk(stack);
    for roots in hot_roots(arch) {
        // Each frame's decoded frame and hot form, which a run's log
        // refers to until it ends.
        let plans: Vec<_> = frames
            .iter()
            .map(|f| {
                let FrameAt::Record(_, record, state) = f.2 else {
                    return None;
                };
                let mut d = DecodedFrame::new(tables, &record, arch, state)?;
                d.set_roots(arch, &roots)
                    .then(|| (HotPlan::new(&d, arch), d))
            })
            .collect();
        for start in 0..frames.len() {
            let mut regs = frames[start].0;
            let mut log = HotLog::default();
            let mut hot = HotRegisters::new(arch, &mut regs, &mut log);
            let (mut i, mut pc) = (start, frames[start].0.pc);
            while let Some((h, d)) = &plans[i] {
                // The cursor's frame limit: a policy of the cursor's (the
                // C API has none), not of the plan's.
                if i >= options.max_frames as usize {
                    break;
                }
                let Some(step) = h.check(&memory, &hot) else {
                    break;
                };
                assert!(
                    i + 1 < frames.len(),
                    "hot run from {start}: a step the exact walk does not take at {i}"
                );
                let mut got = [RootSlot::default(); 8];
                let mut want = [RootSlot::default(); 8];
                pc = step.ra();
                let n = step.num_roots();
                // SAFETY: `check` of this plan, memory and registers; room
                // for every root a plan holds.
                unsafe { h.step(&memory, arch, &mut hot, step, got.as_mut_ptr()) };
                let want_n = d
                    .root_slots(&frames[i].0, &mut want)
                    .expect("the decoded frame gives the slots the hot form does");
                assert_eq!(want_n, n);
                assert_eq!(
                    got[..n],
                    want[..n],
                    "hot run from {start}: frame {i}'s root slots"
                );
                i += 1;
                assert_eq!(pc, frames[i].0.pc, "hot run from {start}: frame {i}'s PC");
            }
            if i == start {
                continue;
            }
            // SAFETY: the run's reads were all in its checked spans.
            unsafe { hot.finish(&memory, arch, pc) };
            let want = &frames[i].0;
            let what = format!("hot run from {start} to {i}");
            assert_eq!(
                (regs.pc, regs.known, regs.saved),
                (want.pc, want.known, want.saved),
                "{what}"
            );
            for s in 0..regs.value.len() {
                if regs.known >> s & 1 != 0 {
                    assert_eq!(regs.value[s], want.value[s], "{what}: slot {s}'s value");
                    if regs.saved >> s & 1 != 0 {
                        assert_eq!(
                            regs.address[s], want.address[s],
                            "{what}: slot {s}'s save slot"
                        );
                    }
                }
            }
        }
    }
}

type Cached = CacheSlot<CachedFrame<u64, (usize, usize)>>;

fn empty_slot() -> Cached {
    let r = Tables(vec![Function {
        start: 1,
        end: 2,
        records: vec![(1, cfa(7, 8), vec![])],
    }]);
    let frame = DecodedFrame::new(&r, &(0, 0), Arch::X86_64, cfa(7, 8)).unwrap();
    CacheSlot {
        pc: 0,
        entry: CachedFrame {
            function: 0,
            record: (0, 0),
            frame,
        },
    }
}

/// Each frame's registers (all of them: values and save slots, known or
/// not), what the tables say of it and its CFA, and the stop; with a
/// cache, `step_cached`.
#[allow(clippy::type_complexity)]
fn full_walk<M: Memory>(
    tables: &Tables,
    stack: M,
    arch: Arch,
    r: Registers,
    options: Options,
    mut cache: Option<&mut Vec<Cached>>,
) -> (
    Vec<(Registers, Option<u64>, FrameAt<u64, (usize, usize)>)>,
    Stop,
) {
    let mut c = Cursor::new(tables, stack, arch, r, options).unwrap();
    let mut frames = vec![];
    loop {
        frames.push((*c.registers(), c.cfa(), *c.frame()));
        let step = match cache.as_mut() {
            Some(cache) => c.step_cached(cache),
            None => c.step(),
        };
        if let Err(stop) = step {
            return (frames, stop);
        }
    }
}

/// A cache filled from other tables gives their frames, not these: a
/// caller flushes it when the tables change (the C API does so itself).
#[test]
fn a_stale_cache_is_not_these_tables() {
    let arch = Arch::X86_64;
    let tables = |offset| {
        Tables(vec![
            Function {
                start: 0x1000,
                end: 0x1100,
                records: vec![(0x1010, cfa(7, 24), vec![(3, -16)])],
            },
            Function {
                start: 0x2000,
                end: 0x2100,
                records: vec![(0x2020, cfa(7, offset), vec![])],
            },
        ])
    };
    let mut s = Stack::default();
    for (a, v) in [
        (0x7008, 0xb1),
        (0x7010, 0x2020),
        (0x7018, 0x3000),
        (0x7020, 0x3008),
    ] {
        s.put(a, v);
    }
    let r = regs(arch, 0x1010, &[(7, 0x7000)]);
    let o = Options::default();
    let (old, new) = (tables(8), tables(16));
    let mut cache = vec![empty_slot(); 8];
    full_walk(&old, &s, arch, r, o, Some(&mut cache));
    let fresh = full_walk(&new, &s, arch, r, o, None);
    let stale = full_walk(&new, &s, arch, r, o, Some(&mut cache));
    assert_ne!(stale.0, fresh.0, "the stale entries were used");
    walk::cache_flush(&mut cache);
    assert_eq!(full_walk(&new, &s, arch, r, o, Some(&mut cache)), fresh);
    assert_eq!(full_walk(&new, &s, arch, r, o, Some(&mut cache)), fresh);
}

/// The decoded form of a record: a frame whose frame state does not fit
/// (too many saved registers, a CFA expression, AArch64 without a saved
/// x30, a register without a slot) is not kept; roots are decoded as
/// `try_roots` + `decode` give them, and roots that do not fit are not
/// kept.
#[test]
fn decoded_frames() {
    let one = |state, saved: Vec<(u16, i32)>| {
        Tables(vec![Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, state, saved)],
        }])
    };
    let new = |t: &Tables, arch, state| DecodedFrame::new(t, &(0, 0), arch, state);
    let x86 = Arch::X86_64;
    let t = one(cfa(7, 16), vec![(3, -16)]);
    assert!(new(&t, x86, cfa(7, 16)).is_some());
    assert!(new(&t, x86, State::NoCfaRule).is_none());
    assert!(new(&t, x86, State::None).is_none());
    assert!(new(&t, x86, cfa(17, 16)).is_none());
    let many = one(cfa(7, 16), (0..13).map(|i| (3, -8 * i - 16)).collect());
    assert!(new(&many, x86, cfa(7, 16)).is_none());
    let a64 = one(cfa(31, 16), vec![(29, -16)]);
    assert!(new(&a64, Arch::AArch64, cfa(31, 16)).is_none());
    // Roots: a statepoint's pairs after its header, decoded with a frame's
    // registers exactly as `decode` does.
    let t = one(cfa(7, 16), vec![]);
    let locs = [
        loc(LocationKind::Constant, 0, 0),
        loc(LocationKind::Constant, 0, 0),
        loc(LocationKind::Constant, 0, 1),
        loc(LocationKind::Register, 3, 0),
        loc(LocationKind::Indirect, 7, 8),
        loc(LocationKind::Indirect, 7, 8),
        loc(LocationKind::Register, 3, 0),
        loc(LocationKind::Direct, 6, -16),
    ];
    let constant = |_: u32| Err(pcmap_reader::Error::Inconsistent("no constants"));
    let mut d = DecodedFrame::new(&t, &(0, 0), x86, cfa(7, 16)).unwrap();
    assert!(!d.has_roots());
    let mut listed = vec![];
    roots(
        RootLayout::Statepoint,
        locs.iter().copied().map(Ok),
        constant,
        |root: Root| listed.push(root),
    )
    .unwrap();
    assert!(d.set_roots(x86, &listed));
    assert!(d.has_roots());
    let mut r = regs(x86, 0x1010, &[(7, 0x7000), (6, 0x7100)]);
    r.set(x86, 3, 0x33, Some(0x7030));
    let mut want = vec![];
    roots(
        RootLayout::Statepoint,
        locs.iter().copied().map(Ok),
        constant,
        |root: Root| {
            let value = |l: &Location| decode(l, x86, &r, constant).unwrap();
            want.push((value(&root.base), value(&root.derived)));
        },
    )
    .unwrap();
    let mut got = vec![];
    d.roots(&r, |b, d, _| got.push((b, d))).unwrap();
    assert_eq!(got, want);
    assert_eq!(got.len(), 2);
    // A root in a register the frame does not know: nothing is visited.
    r.forget(x86, 3);
    let mut visited = 0;
    let e = d.roots(&r, |_, _, _| visited += 1);
    assert_eq!((e, visited), (Err(DecodeError::RegisterUnknown(3)), 0));
    // The roots' slots: an Indirect location's address, a register's save
    // slot; a Direct location (its value is an address, not a slot) or a
    // register saved nowhere has none, and a register not known stops
    // first, as for `roots`.
    let mut out = [RootSlot::default(); 8];
    let mut r = regs(x86, 0x1010, &[(7, 0x7000), (6, 0x7100)]);
    r.set(x86, 3, 0x33, Some(0x7030));
    assert_eq!(d.root_slots(&r, &mut out), Err(RootSlotError::NoSlot));
    let reg3 = loc(LocationKind::Register, 3, 0);
    let in_register = Root {
        base: reg3,
        derived: reg3,
        base_index: 9,
        derived_index: 9,
    };
    assert!(d.set_roots(x86, &[listed[0], in_register]));
    assert_eq!(d.root_slots(&r, &mut out), Ok(2));
    let slot = |base, derived| RootSlot { base, derived };
    assert_eq!(out[..2], [slot(0x7008, 0x7008), slot(0x7030, 0x7030)]);
    assert_eq!(d.root_slots(&r, &mut out[..1]), Err(RootSlotError::Full));
    r.set(x86, 3, 0x33, None);
    assert_eq!(d.root_slots(&r, &mut out), Err(RootSlotError::NoSlot));
    r.forget(x86, 3);
    assert_eq!(
        d.root_slots(&r, &mut out),
        Err(RootSlotError::RegisterUnknown(3))
    );
    // Too many roots, or one the fixed form cannot hold.
    let nine = vec![listed[0]; 9];
    assert!(!d.set_roots(x86, &nine) && !d.has_roots());
    let mut big = listed[0];
    big.base = loc(LocationKind::ConstantIndex, 0, 0);
    assert!(!d.set_roots(x86, &[big]) && !d.has_roots());
}

/// x86-64: an SP-based frame (CFA = RSP + 24, RBX saved at CFA - 16) called
/// by an RBP-based one (CFA = RBP + 16, RBP at CFA - 16), called by C.
#[test]
fn x86_64_sp_and_fp_frames() {
    let arch = Arch::X86_64;
    let tables = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, cfa(7, 24), vec![(3, -16), (16, -8)])],
        },
        Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(6, 16), vec![(6, -16), (16, -8)])],
        },
    ]);
    let mut s = Stack::default();
    // Frame 0 at RSP 0x7000: CFA 0x7018; RBX saved at 0x7008, RA at 0x7010.
    s.put(0x7008, 0xbbbb);
    s.put(0x7010, 0x2020);
    // Frame 1: RBP = 0x7100 (its CFA 0x7110): RBP saved at 0x7100, RA at 0x7108.
    s.put(0x7100, 0x7200);
    s.put(0x7108, 0x3333);
    let r = regs(
        arch,
        0x1010,
        &[(7, 0x7000), (6, 0x7100), (3, 0x1), (12, 0xc12)],
    );
    let mut c = Cursor::new(&tables, &s, arch, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x7018));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!(r1.pc, 0x2020);
    assert_eq!(r1.get(arch, 7), Some(0x7018));
    assert_eq!(r1.get(arch, 3), Some(0xbbbb));
    assert_eq!(r1.address(arch, 3), Some(0x7008));
    // Not saved by frame 0: callee-saved, so the same value (no slot).
    assert_eq!(r1.get(arch, 12), Some(0xc12));
    assert_eq!(r1.address(arch, 12), None);
    assert_eq!(r1.get(arch, 6), Some(0x7100));
    assert_eq!(c.cfa(), Some(0x7110));
    c.step().unwrap();
    let r2 = *c.registers();
    assert_eq!(r2.pc, 0x3333);
    assert_eq!(r2.get(arch, 7), Some(0x7110));
    assert_eq!(r2.get(arch, 6), Some(0x7200));
    assert_eq!(r2.address(arch, 6), Some(0x7100));
    assert!(matches!(c.frame(), FrameAt::Unmanaged));
    assert_eq!(c.step(), Err(Stop::Unmanaged));
    assert_eq!(c.depth(), 2);
    // The cursor stays where it stopped.
    assert_eq!(c.registers().pc, 0x3333);
}

/// A caller-saved register is unknown in the caller; an SP-based rule
/// after a frame-pointer step on AArch64 cannot be applied.
#[test]
fn caller_saved_registers_become_unknown() {
    let arch = Arch::X86_64;
    let tables = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, cfa(7, 8), vec![])],
        },
        Function {
            start: 0x2000,
            end: 0x2100,
            // CFA from RAX: never known in a caller.
            records: vec![(0x2020, cfa(0, 8), vec![])],
        },
    ]);
    let mut s = Stack::default();
    s.put(0x7000, 0x2020);
    let r = regs(arch, 0x1010, &[(7, 0x7000), (0, 5)]);
    let (frames, stop) = walk(&tables, &s, arch, r, Options::default());
    assert_eq!(frames.len(), 2);
    assert_eq!(stop, Stop::RegisterUnknown(0));
}

/// AArch64: x29/x30 saved as a frame record, x19 saved, FP-based CFA; a
/// frame that does not save x30 stops (no guess from the LR register).
#[test]
fn aarch64_frames() {
    let arch = Arch::AArch64;
    let tables = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            // sub sp, #48; stp x29, x30, [sp, #16]; str x19, [sp, #32]; add x29, sp, #16
            records: vec![(0x1010, cfa(29, 32), vec![(19, -16), (29, -32), (30, -24)])],
        },
        Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(31, 16), vec![])],
        },
    ]);
    let mut s = Stack::default();
    // Frame 0: SP 0x8000, x29 0x8010, CFA 0x8030.
    s.put(0x8020, 0x1919);
    s.put(0x8010, 0x9000);
    s.put(0x8018, 0x2020);
    let r = regs(
        arch,
        0x1010,
        &[(31, 0x8000), (29, 0x8010), (19, 7), (30, 0x1010)],
    );
    let mut c = Cursor::new(&tables, &s, arch, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x8030));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!((r1.pc, r1.sp(arch)), (0x2020, Some(0x8030)));
    assert_eq!(r1.get(arch, 19), Some(0x1919));
    assert_eq!(r1.get(arch, 29), Some(0x9000));
    assert_eq!(r1.get(arch, 30), None);
    assert_eq!(c.step(), Err(Stop::ReturnAddressNotSaved));
}

/// AArch64 frame records at 8 mod 16 (x29 stored below an odd number of
/// other callee-saved registers), which a walker must not reject: by the
/// CFA rule (x29-based) and by the frame pointer chain through an
/// unmanaged frame whose record is also at 8 mod 16.
#[test]
fn aarch64_frame_records_at_8_mod_16() {
    let arch = Arch::AArch64;
    let tables = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            // sub sp, #48; str x19, [sp, #8]; stp x29, x30, [sp, #24];
            // add x29, sp, #24: x29 = SP + 24, CFA = x29 + 24.
            records: vec![(0x1010, cfa(29, 24), vec![(19, -40), (29, -24), (30, -16)])],
        },
        Function {
            start: 0x3000,
            end: 0x3100,
            records: vec![(0x3030, cfa(31, 16), vec![(29, -16), (30, -8)])],
        },
    ]);
    let mut s = Stack::default();
    // Frame 0: SP 0x8000, x29 0x8018 (8 mod 16), CFA 0x8030.
    s.put(0x8008, 0x1919);
    s.put(0x8018, 0x8048); // caller's x29, 8 mod 16 too
    s.put(0x8020, 0x2020); // return address into unmanaged code
                           // Frame 1 (unmanaged, no table entry): its record {x29, x30} at 0x8048.
    s.put(0x8048, 0x8070);
    s.put(0x8050, 0x3030);
    // Frame 2 (managed, SP-based): x29 and x30 saved below its CFA.
    let r = regs(
        arch,
        0x1010,
        &[(31, 0x8000), (29, 0x8018), (19, 7), (30, 0x1010)],
    );
    let mut c = Cursor::new(&tables, &s, arch, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x8030));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!((r1.pc, r1.sp(arch)), (0x2020, Some(0x8030)));
    assert_eq!(r1.get(arch, 19), Some(0x1919));
    assert_eq!(r1.address(arch, 19), Some(0x8008));
    assert_eq!(r1.get(arch, 29), Some(0x8048));
    assert_eq!(c.step(), Err(Stop::Unmanaged));
    let chain = Options {
        frame_pointer_chain: true,
        ..Options::default()
    };
    let mut c = Cursor::new(&tables, &s, arch, r, chain).unwrap();
    c.step().unwrap();
    c.step().unwrap();
    let r2 = *c.registers();
    assert_eq!(r2.pc, 0x3030);
    assert_eq!(r2.get(arch, 29), Some(0x8070));
    assert_eq!(r2.address(arch, 29), Some(0x8048));
}

/// PowerPC64: the LR save doubleword at CFA + 16 when the frame state does
/// not list LR (65), the saved LR slot when it does; r31-based CFA.
#[test]
fn powerpc64_return_address() {
    let arch = Arch::PowerPc64;
    let tables = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, cfa(1, 64), vec![(31, -8)])],
        },
        Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(31, 96), vec![(65, 16), (30, -16)])],
        },
    ]);
    let mut s = Stack::default();
    s.put(0x8038, 0x8100); // r31 saved at CFA - 8
    s.put(0x8050, 0x2020); // LR save word at CFA + 16
                           // Frame 1: r31 = 0x8100 - 96 + ... CFA = r31 + 96 = 0x8160.
    s.put(0x8150, 0x3030);
    s.put(0x8170, 0x4444);
    let r = regs(arch, 0x1010, &[(1, 0x8000), (31, 1)]);
    let (frames, stop) = walk(&tables, &s, arch, r, Options::default());
    // Frame 1's r31 is 0x8100: its CFA is 0x8160.
    assert_eq!(
        frames,
        vec![
            (0x1010, Some(0x8040)),
            (0x2020, Some(0x8160)),
            (0x4444, None)
        ]
    );
    assert_eq!(stop, Stop::Unmanaged);
}

/// Each reason a walk stops, and that the cursor never steps by a guess.
#[test]
fn stops() {
    let arch = Arch::X86_64;
    let f = |records| Function {
        start: 0x1000,
        end: 0x1100,
        records,
    };
    let mut s = Stack::default();
    s.put(0x7000, 0);
    let r = regs(arch, 0x1010, &[(7, 0x7000), (6, 0x7100)]);
    let stop = |t: &Tables, s: &Stack, o| walk(t, s, arch, r, o).1;
    let o = Options::default();
    assert_eq!(stop(&Tables(vec![]), &s, o), Stop::Unmanaged);
    assert_eq!(stop(&Tables(vec![f(vec![])]), &s, o), Stop::NoRecord);
    let t = Tables(vec![f(vec![(0x1010, State::None, vec![])])]);
    assert_eq!(stop(&t, &s, o), Stop::NoFrameState);
    let t = Tables(vec![f(vec![(0x1010, State::NoCfaRule, vec![])])]);
    assert_eq!(stop(&t, &s, o), Stop::NoCfaRule);
    // Even with the frame pointer chain asked for: an expression is not
    // replaced by the chain.
    let chain = Options {
        frame_pointer_chain: true,
        ..o
    };
    assert_eq!(stop(&t, &s, chain), Stop::NoCfaRule);
    // CFA not above SP.
    let t = Tables(vec![f(vec![(0x1010, cfa(7, 0), vec![])])]);
    assert_eq!(stop(&t, &s, o), Stop::BadStack);
    // A read the memory refuses.
    let t = Tables(vec![f(vec![(0x1010, cfa(7, 64), vec![])])]);
    assert_eq!(stop(&t, &s, o), Stop::BadStack);
    // Return address 0.
    let t = Tables(vec![f(vec![(0x1010, cfa(7, 8), vec![])])]);
    assert_eq!(stop(&t, &s, o), Stop::EndOfStack);
    // The frame limit: a frame that returns into itself.
    let mut loop_stack = Stack::default();
    for i in 0..10u64 {
        loop_stack.put(0x7000 + 8 * i, 0x1010);
    }
    let limited = Options { max_frames: 5, ..o };
    let (frames, stop) = walk(&t, &loop_stack, arch, r, limited);
    assert_eq!((frames.len(), stop), (6, Stop::BadStack));
}

/// The frame pointer chain through unmanaged frames, per architecture.
#[test]
fn frame_pointer_chain() {
    let chain = Options {
        frame_pointer_chain: true,
        ..Options::default()
    };
    // x86-64: an unmanaged frame (RBP 0x7100), then a managed SP-based one.
    let arch = Arch::X86_64;
    let tables = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(7, 8), vec![])],
    }]);
    let mut s = Stack::default();
    s.put(0x7100, 0); // caller's RBP: the end of the chain
    s.put(0x7108, 0x2020);
    s.put(0x7110, 0x5555); // frame 1's return address (CFA 0x7118 - 8)
    let r = regs(arch, 0x9999, &[(7, 0x7000), (6, 0x7100), (3, 3)]);
    assert_eq!(
        walk(&tables, &s, arch, r, Options::default()).1,
        Stop::Unmanaged
    );
    let (frames, stop) = walk(&tables, &s, arch, r, chain);
    assert_eq!(
        frames,
        vec![(0x9999, None), (0x2020, Some(0x7118)), (0x5555, None)]
    );
    // Frame 2 is unmanaged and its RBP (from frame 0's chain) is 0.
    assert_eq!(stop, Stop::EndOfStack);
    let mut c = Cursor::new(&tables, &s, arch, r, chain).unwrap();
    c.step().unwrap();
    // RBX: the unmanaged frame may have saved it anywhere.
    assert_eq!(c.registers().get(arch, 3), None);
    assert_eq!(c.registers().address(arch, 6), Some(0x7100));

    // AArch64: the caller's SP is not known after a chain step, so an
    // SP-based managed caller stops; an FP-based one is walked.
    let arch = Arch::AArch64;
    let mut s = Stack::default();
    s.put(0x8100, 0x8200);
    s.put(0x8108, 0x2020);
    s.put(0x8208, 0x6666);
    s.put(0x8200, 0);
    let r = regs(arch, 0x9999, &[(31, 0x8000), (29, 0x8100)]);
    let sp_based = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(31, 16), vec![])],
    }]);
    assert_eq!(
        walk(&sp_based, &s, arch, r, chain).1,
        Stop::RegisterUnknown(31)
    );
    let fp_based = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(29, 16), vec![(29, -16), (30, -8)])],
    }]);
    let (frames, stop) = walk(&fp_based, &s, arch, r, chain);
    assert_eq!(
        frames,
        vec![(0x9999, None), (0x2020, Some(0x8210)), (0x6666, None)]
    );
    assert_eq!(stop, Stop::EndOfStack);

    // AArch64, unmanaged frames whose records loop (0x8300 -> 0x8400 ->
    // 0x8300): SP is unknown after the first step, but each record must
    // lie above the slot its address was read from, so the walk stops at
    // the third frame, not at the frame limit.
    let mut s = Stack::default();
    s.put(0x8300, 0x8400);
    s.put(0x8308, 0x9990);
    s.put(0x8400, 0x8300);
    s.put(0x8408, 0x9980);
    let r = regs(arch, 0x9999, &[(31, 0x8000), (29, 0x8300)]);
    let (frames, stop) = walk(&Tables::default(), &s, arch, r, chain);
    assert_eq!(frames, vec![(0x9999, None), (0x9990, None), (0x9980, None)]);
    assert_eq!(stop, Stop::BadStack);

    // PowerPC64: the back chain gives the caller's SP exactly.
    let arch = Arch::PowerPc64;
    let mut s = Stack::default();
    s.put(0x8000, 0x8100); // back chain
    s.put(0x8110, 0x2020); // LR save word of the caller's frame
    s.put(0x8140, 0x7777); // frame 1's LR save word (CFA 0x8130 + 16)
    let r = regs(arch, 0x9999, &[(1, 0x8000)]);
    let tables = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(1, 0x30), vec![])],
    }]);
    let (frames, stop) = walk(&tables, &s, arch, r, chain);
    assert_eq!(
        frames,
        vec![(0x9999, None), (0x2020, Some(0x8130)), (0x7777, None)]
    );
    // Frame 2's back chain word was never written.
    assert_eq!(stop, Stop::BadStack);
}

fn loc(kind: LocationKind, dwarf_reg: u16, offset: i32) -> Location {
    Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    }
}

#[test]
fn decoding_with_a_frames_registers() {
    let arch = Arch::AArch64;
    let mut r = regs(arch, 0x1010, &[(31, 0x8000), (29, 0x8040)]);
    r.set(arch, 19, 0xabc, Some(0x8ff8));
    let k = |_| Ok(77);
    use LocationKind::*;
    let d = |l: Location| decode(&l, arch, &r, k);
    assert_eq!(
        d(loc(Register, 19, 0)),
        Ok(Value {
            value: Some(0xabc),
            address: Some(0x8ff8)
        })
    );
    assert_eq!(
        d(loc(Indirect, 29, -8)),
        Ok(Value {
            value: None,
            address: Some(0x8038)
        })
    );
    assert_eq!(
        d(loc(Direct, 31, 16)),
        Ok(Value {
            value: Some(0x8010),
            address: None
        })
    );
    assert_eq!(d(loc(Constant, 0, -1)).unwrap().value, Some(u64::MAX));
    assert_eq!(d(loc(ConstantIndex, 0, 0)).unwrap().value, Some(77));
    assert_eq!(
        d(loc(Register, 20, 0)),
        Err(DecodeError::RegisterUnknown(20))
    );
}

#[test]
fn statepoint_and_stack_map_roots() {
    use LocationKind::*;
    let header = |deopt| {
        vec![
            loc(Constant, 0, 0),
            loc(Constant, 0, 0),
            loc(Constant, 0, deopt),
        ]
    };
    let mut l = header(1);
    l.push(loc(Constant, 0, 42)); // a deopt value
    l.push(loc(Indirect, 7, 8)); // base
    l.push(loc(Indirect, 7, 16)); // derived
    l.push(loc(Register, 3, 0)); // base == derived
    l.push(loc(Register, 3, 0));
    let collect = |layout, l: &[Location]| {
        let mut out: Vec<Root> = vec![];
        let it = l.iter().map(|&x| Ok(x));
        roots(layout, it, |_| Ok(1), |r| out.push(r)).map(|()| out)
    };
    let got = collect(RootLayout::Statepoint, &l).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].base_index, got[0].derived_index), (4, 5));
    assert_eq!(got[0].derived, loc(Indirect, 7, 16));
    assert_eq!(got[1].base, loc(Register, 3, 0));
    // A deopt count past the end, an odd number of pointers, a header
    // that is not constants: errors.
    let mut bad = header(9);
    bad.push(loc(Indirect, 7, 8));
    assert_eq!(
        collect(RootLayout::Statepoint, &bad),
        Err(RootsError::NotAStatepoint)
    );
    let mut odd = header(0);
    odd.push(loc(Indirect, 7, 8));
    assert_eq!(
        collect(RootLayout::Statepoint, &odd),
        Err(RootsError::NotAStatepoint)
    );
    assert_eq!(
        collect(RootLayout::Statepoint, &[loc(Register, 3, 0)]),
        Err(RootsError::NotAStatepoint)
    );
    // The deopt count as a large constant.
    let mut big = vec![
        loc(Constant, 0, 0),
        loc(Constant, 0, 0),
        loc(ConstantIndex, 0, 0),
    ];
    big.push(loc(Constant, 0, 5));
    big.extend([loc(Indirect, 7, 8), loc(Indirect, 7, 8)]);
    assert_eq!(collect(RootLayout::Statepoint, &big).unwrap().len(), 1);
    // Plain stack maps: every location.
    let got = collect(RootLayout::EveryLocation, &l[3..]).unwrap();
    assert_eq!(got.len(), 5);
    assert_eq!(got[4].base, got[4].derived);
}

/// PowerPC64: a record right after the TOC restore at the return address
/// (`nop`, ELFv2 `ld r2, 24(r1)`, ELFv1 `ld r2, 40(r1)`) is the frame's;
/// after any other instruction, or further on, it is not; other
/// architectures never look past the return address.
#[test]
fn powerpc64_record_after_the_toc_restore() {
    let tables = Tables(vec![Function {
        start: 0x1000,
        end: 0x1100,
        records: vec![(0x1014, cfa(1, 32), vec![])],
    }]);
    let at = |arch, pc, insn: Option<u32>| {
        let mut s = Stack::default();
        if let Some(i) = insn {
            s.1.insert(pc, i);
        }
        walk::lookup(&tables, &&s, arch, Pc::ReturnAddress(pc)).unwrap()
    };
    for insn in [0x6000_0000, 0xe841_0018, 0xe841_0028] {
        assert!(matches!(
            at(Arch::PowerPc64, 0x1010, Some(insn)),
            FrameAt::Record(0x1000, (0, 0), _)
        ));
    }
    // mr r30, r3: a move of the call's result. Not a TOC restore.
    assert!(matches!(
        at(Arch::PowerPc64, 0x1010, Some(0x7c7e_1b78)),
        FrameAt::NoRecord(0x1000)
    ));
    // Code that cannot be read, a record 8 bytes on, another architecture.
    assert!(matches!(
        at(Arch::PowerPc64, 0x1010, None),
        FrameAt::NoRecord(_)
    ));
    assert!(matches!(
        at(Arch::PowerPc64, 0x100c, Some(0x6000_0000)),
        FrameAt::NoRecord(_)
    ));
    assert!(matches!(
        at(Arch::X86_64, 0x1010, Some(0x6000_0000)),
        FrameAt::NoRecord(_)
    ));
}

/// A damaged table may list a register twice: every route takes the last
/// save, for the return address as for the registers (the first route to
/// take the first one was found by the `walk_arch` fuzz target).
#[test]
fn a_register_saved_twice_takes_the_last_save() {
    let arch = Arch::AArch64;
    let tables = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(31, 32), vec![(30, -8), (30, -16)])],
    }]);
    let mut s = Stack::default();
    s.put(0x7018, 0x5555);
    s.put(0x7010, 0x6666);
    let r = regs(arch, 0x2020, &[(31, 0x7000)]);
    let (frames, stop) = walk(&tables, &s, arch, r, Options::default());
    assert_eq!(frames, vec![(0x2020, Some(0x7020)), (0x6666, None)]);
    assert_eq!(stop, Stop::Unmanaged);
}

/// A frame whose whole span of reads the memory allows at once: the
/// cached walk steps it by the plan (`fast_step`, `apply_fast_step`: the
/// saved registers' values and slots, SP, PC), which must give the exact
/// step's registers (`walk` compares every frame's).
#[test]
fn a_plan_restores_saved_registers() {
    let arch = Arch::X86_64;
    let t = Tables(vec![
        Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, cfa(7, 32), vec![(3, -24), (6, -16)])],
        },
        Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(6, 16), vec![])],
        },
        Function {
            start: 0x3000,
            end: 0x3100,
            records: vec![(0x3030, cfa(7, 16), vec![])],
        },
    ]);
    // 0x3030 returns to 0x1010 (a walk's first frame is not cached: its
    // caller is); rbx, rbp saved by 0x1010, its return address; 0x2020's
    // frame (CFA = the restored RBP + 16) returns to 0 — or, the second
    // time, to 0x3030 again, whose frame returns to 0: rbx is then known
    // with its save slot in 0x2020's frame, which steps (the hot runs'
    // roots in a saved register, `walk`).
    for then in [None, Some(0x3030)] {
        let mut s = Stack::default();
        for (a, v) in [
            (0x6ff0, 0x1010),
            (0x7000, 0xb1),
            (0x7008, 0x7100),
            (0x7010, 0x2020),
            (0x7108, then.unwrap_or(0)),
            (0x7118, 0),
        ] {
            s.put(a, v);
        }
        let r = regs(arch, 0x3030, &[(7, 0x6fe8)]);
        let (frames, stop) = walk(&t, &s, arch, r, Options::default());
        let mut cfas = vec![
            (0x3030, Some(0x6ff8)),
            (0x1010, Some(0x7018)),
            (0x2020, Some(0x7110)),
        ];
        cfas.extend(then.map(|pc| (pc, Some(0x7120))));
        assert_eq!(frames, cfas);
        assert_eq!(stop, Stop::EndOfStack);
    }
}

/// A walk of `n` frames of functions that save the callee-saved registers
/// `saves[k]` (x86-64; function `k` SP-based if `k` is even, on the frame
/// pointer if odd), each saving RBP; frame `i` runs function `i * 2 % K` (K
/// odd: each in turn).
fn deep_walk(saves: &[&[u16]], n: usize) {
    let arch = Arch::X86_64;
    let pc = |k: usize| 0x1000 * (k as u64 + 1) + 0x10;
    let size = |k: usize| 16 + 8 * saves[k].len() as i32 + 8 * (k as i32 % 2);
    let tables = Tables(
        (0..saves.len())
            .map(|k| {
                let mut saved = vec![(16, -8), (6, -16)];
                saved.extend(
                    saves[k]
                        .iter()
                        .enumerate()
                        .map(|(j, &r)| (r, -24 - 8 * j as i32)),
                );
                let rule = if k % 2 == 1 {
                    cfa(6, 16)
                } else {
                    cfa(7, size(k))
                };
                Function {
                    start: pc(k) - 0x10,
                    end: pc(k) + 0x100,
                    records: vec![(pc(k), rule, saved)],
                }
            })
            .collect(),
    );
    let kind = |i: usize| i * 2 % saves.len();
    let mut s = Stack::default();
    let mut cfas = vec![0x10000 + size(kind(0)) as u64];
    for i in 1..n {
        cfas.push(cfas[i - 1] + size(kind(i)) as u64);
    }
    for i in 0..n {
        let (c, k) = (cfas[i], kind(i));
        let caller = (i + 1 < n).then(|| (pc(kind(i + 1)), cfas[i + 1] - 16));
        s.put(c - 8, caller.map_or(0, |c| c.0));
        s.put(c - 16, caller.map_or(0x7fff, |c| c.1));
        for (j, &r) in saves[k].iter().enumerate() {
            s.put(c - 24 - 8 * j as u64, 0x100 * i as u64 + u64::from(r));
        }
    }
    let r = regs(
        arch,
        pc(kind(0)),
        &[
            (7, 0x10000),
            (6, cfas[0] - 16),
            (0, 0xa),
            (3, 0xb),
            (12, 0xc),
            (13, 0xd),
            (14, 0xe),
            (15, 0xf),
        ],
    );
    let (frames, stop) = walk(&tables, &s, arch, r, Options::default());
    let want: Vec<_> = (0..n).map(|i| (pc(kind(i)), Some(cfas[i]))).collect();
    assert_eq!(frames, want);
    assert_eq!(stop, Stop::EndOfStack);
}

/// A walk of 100 frames: a hot run from the first frame logs more steps
/// than its log holds, works out each register's save slot from its
/// newest save (RBX, R12, R13 saved again and again), and does so before
/// a root in RBX's save slot (`walk`'s hot runs).
#[test]
fn a_deep_run_works_out_the_newest_save_slots() {
    deep_walk(&[&[3, 12], &[], &[13, 14, 15], &[3], &[12, 13, 3]], 100);
}

/// A frame that saves a caller-saved register (RAX): known in its caller,
/// unknown again in the caller's caller; such a frame has no hot form (a
/// run's masks only lose bits), and a run around it agrees with the exact
/// walk.
#[test]
fn a_frame_saving_a_caller_saved_register() {
    deep_walk(&[&[0, 3], &[12], &[13]], 9);
}

/// A function ending with a call returns to its end, the next function's
/// first byte (no padding between them): the walk takes that frame as the
/// call's, with the record at the end, and goes on below it, whether the
/// next function has records or is unmanaged; cached and uncached, on
/// every architecture. On PowerPC64 the record may follow the TOC restore
/// at the return address, and then it is the one at the function's end.
/// An interrupted first frame at a function's first byte is that
/// function's.
#[test]
fn a_return_address_at_the_next_functions_start() {
    for arch in [Arch::X86_64, Arch::AArch64, Arch::PowerPc64] {
        // f at 0x1000 ends with a call at 0x1010 (the next function, g,
        // starts there with a record at its first byte); h at 0x2000 ends
        // with a call at 0x2020 and no function follows; k at 0x3000 is
        // the bottom managed frame.
        let (sp, ra) = (arch.sp(), arch.return_address());
        let toc = arch == Arch::PowerPc64;
        // On PowerPC64 the call's record is after the TOC restore at its
        // return address, at the function's end.
        let (f_ra, h_ra) = if toc {
            (0x100c, 0x201c)
        } else {
            (0x1010, 0x2020)
        };
        let state = |offset| cfa(sp, offset);
        let saves = |offset: i32| match arch {
            Arch::AArch64 => vec![(ra, offset)],
            _ => vec![],
        };
        let tables = Tables(vec![
            Function {
                start: 0x1000,
                end: 0x1010,
                records: vec![(0x1010, state(16), saves(-8))],
            },
            Function {
                start: 0x1010,
                end: 0x1040,
                records: vec![(0x1010, state(32), saves(-8))],
            },
            Function {
                start: 0x2000,
                end: 0x2020,
                records: vec![(0x2020, state(32), saves(-16))],
            },
            Function {
                start: 0x3000,
                end: 0x3100,
                records: vec![(0x3030, state(16), saves(-8))],
            },
        ]);
        let mut s = Stack::default();
        if toc {
            s.1.insert(f_ra, 0x6000_0000);
            s.1.insert(h_ra, 0xe841_0018);
        }
        // Frame 0 at f (CFA 0x7010), frame 1 at h (CFA 0x7030), frame 2 at
        // k (CFA 0x7040), then an unmanaged return address.
        let ra_at = |cfa: u64| match arch {
            Arch::X86_64 => cfa - 8,
            Arch::AArch64 => cfa - 8,
            Arch::PowerPc64 => cfa + 16,
        };
        let (cfa0, cfa1, cfa2) = (0x7010u64, 0x7030u64, 0x7040u64);
        let (ra0, ra1) = (ra_at(cfa0), ra_at(cfa1));
        let ra1 = if arch == Arch::AArch64 {
            cfa1 - 16
        } else {
            ra1
        };
        s.put(ra0, h_ra);
        s.put(ra1, 0x3030);
        s.put(ra_at(cfa2), 0x9000);
        let r = regs(arch, f_ra, &[(sp, 0x7000)]);
        let (frames, stop) = walk(&tables, &s, arch, r, Options::default());
        assert_eq!(
            frames,
            vec![
                (f_ra, Some(cfa0)),
                (h_ra, Some(cfa1)),
                (0x3030, Some(cfa2)),
                (0x9000, None)
            ],
            "{arch:?}"
        );
        assert_eq!(stop, Stop::Unmanaged, "{arch:?}");
        // The same PC as an interrupted instruction's (on PowerPC64 and
        // elsewhere: f's end, g's first byte) is g's, whose record is there.
        let g = Options {
            interrupted: true,
            ..Options::default()
        };
        let c = Cursor::new(&tables, &s, arch, regs(arch, 0x1010, &[(sp, 0x7000)]), g).unwrap();
        assert!(
            matches!(c.frame(), FrameAt::Record(0x1010, (1, 0), _)),
            "{arch:?}"
        );
        assert_eq!(c.cfa(), Some(0x7020));
    }
}
