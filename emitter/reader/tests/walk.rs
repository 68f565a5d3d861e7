//! The walker on hand-built stacks for each architecture: SP- and
//! FP-based CFA rules, callee-saved registers restored from their slots,
//! where each ABI keeps the return address, every reason a walk stops,
//! the frame pointer chain, decoding with a frame's registers and roots.
//! Every walk runs uncached and through a cache (cold, warm), with reads
//! checked one by one and allowed a span at once, and the collectors
//! (decoded roots, root slots; no cache, cold, warm) run from each of its
//! frames with five sets of roots: each must give what the uncached
//! cursor gives.

use std::collections::HashMap;
use std::mem::MaybeUninit;

use pcmap_reader::flat::{Pc, RecordKind};
use pcmap_reader::walk::{
    self, decode, roots, slots_of, AArch64, Arch, Cache, CacheKey, CfaRule, Cursor, DecodeError,
    End, Frame, FrameAt, Log, Memory, Options, Plan, PowerPc64ElfV1, PowerPc64ElfV2, Registers,
    Root, RootLayout, RootSlot, RootValue, RootsError, Run, Sink, Slot, State, Stop, UnwindTables,
    Walker, X86_64,
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

impl Memory for Stack {
    fn read_u64(&self, address: u64) -> Option<u64> {
        self.0.get(&address).copied()
    }
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        self.1.get(&address).copied()
    }
}

/// The same stack, allowing a span of reads at once where every word of
/// it is on the stack (a plan's unchecked reads); an unchecked read of a
/// word not there panics.
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
        low & 7 == 0 && low <= high && (low..high).step_by(8).all(|a| self.0 .0.contains_key(&a))
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

/// Functions; every record has the same locations (`roots`: none, but for
/// the collectors' runs) of kind `kind`.
#[derive(Default, Clone)]
struct Tables {
    functions: Vec<Function>,
    roots: Vec<Location>,
    kind: u8,
    /// Its cache key's first word.
    key: u64,
}

#[allow(non_snake_case)]
fn Tables(functions: Vec<Function>) -> Tables {
    Tables {
        functions,
        roots: vec![],
        kind: RecordKind::StatePoint as u8,
        key: 1,
    }
}

impl UnwindTables for Tables {
    type Function = u64;
    type Record = (usize, usize);

    /// The function holding the byte at the PC (a return address: the
    /// byte before it), the record at the PC.
    fn frame_at(&self, at: Pc) -> Result<FrameAt<u64, (usize, usize)>, Stop> {
        let (pc, byte) = match at {
            Pc::ReturnAddress(pc) => (pc, pc.wrapping_sub(1)),
            Pc::Instruction(pc) => (pc, pc),
        };
        for (fi, f) in self.functions.iter().enumerate() {
            if f.start <= byte && byte < f.end && pc != 0 {
                for (ri, r) in f.records.iter().enumerate() {
                    if r.0 == pc {
                        return Ok(FrameAt::Record(f.start, (fi, ri)));
                    }
                }
                return Ok(FrameAt::NoRecord(f.start));
            }
        }
        Ok(FrameAt::Unmanaged)
    }
    fn state(&self, &(f, r): &(usize, usize)) -> State {
        self.functions[f].records[r].1
    }
    fn saved_registers(
        &self,
        &(f, r): &(usize, usize),
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        for &(reg, off) in &self.functions[f].records[r].2 {
            visit(reg, off);
        }
        Ok(())
    }
    fn kind(&self, _: &(usize, usize)) -> u8 {
        self.kind
    }
    fn locations<'r>(
        &'r self,
        _: &'r (usize, usize),
    ) -> impl Iterator<Item = pcmap_reader::Result<Location>> + 'r {
        self.roots.iter().copied().map(Ok)
    }
    fn constant(&self, _: &(usize, usize), _: u32) -> pcmap_reader::Result<u64> {
        Err(pcmap_reader::Error::Inconsistent("no constants"))
    }
    fn cache_key(&self) -> CacheKey {
        [self.key, 0, 0, 0]
    }
}

fn cfa(register: u16, offset: i32) -> State {
    State::Cfa(CfaRule { register, offset })
}

fn regs<A: Arch>(pc: u64, set: &[(u16, u64)]) -> Registers {
    let mut r = Registers {
        pc,
        ..Default::default()
    };
    for &(d, v) in set {
        r.set::<A>(d, v, None);
    }
    r
}

type TestSlot = Slot<u64, (usize, usize)>;

/// Memory for a cache of `n` slots.
fn cache_memory(n: usize) -> Vec<MaybeUninit<TestSlot>> {
    (0..n).map(|_| MaybeUninit::uninit()).collect()
}

/// What a frame of a walk was: its registers (all of them: values and
/// save slots, known or not), its CFA, what the tables say of it.
type Seen = (Registers, Option<u64>, FrameAt<u64, (usize, usize)>);

/// Steps until a stop; returns (pc, cfa) of each frame and the stop.
/// The same walk with a cache of compiled frames, cold then warm, with
/// reads checked one by one and allowed at once, must give the same
/// frames, registers and stop; so must the collectors from every frame
/// ([`runs_agree`]).
fn walk<A: Arch>(
    tables: &Tables,
    stack: &Stack,
    r: Registers,
    options: Options,
) -> (Vec<(u64, Option<u64>)>, Stop) {
    let (frames, stop) = full_walk::<A, _>(tables, stack, r, options, None);
    for bulk in [false, true] {
        let mut memory = cache_memory(8);
        let mut cache = Cache::new(&mut memory).unwrap();
        for pass in ["cold", "warm"] {
            let cached = match bulk {
                false => full_walk::<A, _>(tables, stack, r, options, Some(&mut cache)),
                true => full_walk::<A, _>(tables, Bulk(stack), r, options, Some(&mut cache)),
            };
            assert_eq!(
                cached.0, frames,
                "{pass} cached walk (reads at once: {bulk}): frames"
            );
            assert_eq!(
                cached.1, stop,
                "{pass} cached walk (reads at once: {bulk}): stop"
            );
        }
    }
    for roots in root_sets::<A>() {
        let mut t = tables.clone();
        t.roots = roots;
        runs_agree::<A>(&t, stack, options, &frames, stop);
    }
    (frames.iter().map(|f| (f.0.pc, f.1)).collect(), stop)
}

/// Each frame's registers, CFA and what the tables say of it, and the
/// stop; with a cache, through it.
fn full_walk<A: Arch, M: Memory>(
    tables: &Tables,
    stack: M,
    r: Registers,
    options: Options,
    cache: Option<&mut Cache<'_, u64, (usize, usize)>>,
) -> (Vec<Seen>, Stop) {
    let mut c = match cache {
        Some(cache) => Cursor::<A, _, _>::with_cache(tables, stack, r, options, cache),
        None => Cursor::<A, _, _>::new(tables, stack, r, options),
    }
    .unwrap();
    let mut frames = vec![];
    loop {
        frames.push((*c.registers(), c.cfa(), owned(c.frame())));
        if let Err(stop) = c.step() {
            return (frames, stop);
        }
    }
}

fn owned(at: FrameAt<&u64, &(usize, usize)>) -> FrameAt<u64, (usize, usize)> {
    match at {
        FrameAt::Unmanaged => FrameAt::Unmanaged,
        FrameAt::NoRecord(f) => FrameAt::NoRecord(*f),
        FrameAt::Record(f, r) => FrameAt::Record(*f, *r),
    }
}

/// Statepoint locations: the header (no deopt values), then the pairs.
fn statepoint(pairs: &[(Location, Location)]) -> Vec<Location> {
    let mut l = vec![loc(LocationKind::Constant, 0, 0); 3];
    for &(b, d) in pairs {
        l.extend([b, d]);
    }
    l
}

/// The roots the collectors run with: none; two off SP, two off the frame
/// pointer; off SP and the frame pointer, then in a callee-saved register
/// too; and a Direct one (no slot) after one off SP.
fn root_sets<A: Arch>() -> [Vec<Location>; 6] {
    let callee = (0..32).find(|&s| A::CALLEE_SAVED >> s & 1 != 0 && s != A::FP as usize);
    let callee = A::dwarf(callee.unwrap());
    let (sp, fp) = (
        loc(LocationKind::Indirect, A::SP, 8),
        loc(LocationKind::Indirect, A::FP, -16),
    );
    let reg = loc(LocationKind::Register, callee, 0);
    let direct = loc(LocationKind::Direct, A::SP, 16);
    [
        vec![],
        statepoint(&[(sp, sp), (loc(LocationKind::Indirect, A::SP, 24), sp)]),
        statepoint(&[(fp, fp), (loc(LocationKind::Indirect, A::FP, -8), fp)]),
        statepoint(&[(sp, fp), (fp, sp)]),
        statepoint(&[(sp, fp), (reg, reg), (fp, sp)]),
        statepoint(&[(sp, sp), (direct, direct)]),
    ]
}

/// A frame a collector gives: its depth, PC and roots.
type Given = (u32, u64, Vec<RootValue>);

/// What the uncached cursor gives from the frame whose registers are
/// `from`: each frame with a record, its depth, PC and roots (decoded), up
/// to the first frame whose roots cannot be given; how the walk ends, and
/// the registers there.
fn expected<A: Arch>(
    tables: &Tables,
    stack: &Stack,
    options: Options,
    from: Registers,
) -> (Vec<Given>, End, Registers) {
    let mut c = Cursor::<A, _, _>::new(tables, stack, from, options).unwrap();
    let mut out = vec![];
    loop {
        if let FrameAt::Record(..) = c.frame() {
            let mut roots = vec![];
            if let Err(e) = c.roots(|r| roots.push(*r)) {
                return (out, End::Roots(e), *c.registers());
            }
            out.push((c.depth(), c.registers().pc, roots));
        }
        if let Err(s) = c.step() {
            return (out, End::Stop(s), *c.registers());
        }
    }
}

/// A sink that keeps what it is given.
struct Kept {
    frames: Vec<Given>,
    /// Slots (room for 4096: runs of cached frames write them in place).
    slots: Vec<RootSlot>,
    done: u32,
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            frames: vec![],
            slots: Vec::with_capacity(4096),
            done: 0,
        }
    }
}

/// The decoded roots' collector.
struct Decoded<'k>(&'k mut Kept);

impl Sink for Decoded<'_> {
    const ROOTS: bool = true;
    const SLOTS: bool = false;
    fn roots(&mut self, regs: &Registers, depth: u32, roots: &[RootValue]) -> Result<(), End> {
        match self.0.frames.last_mut() {
            // A frame given in several calls.
            Some(f) if f.0 == depth && f.1 == regs.pc => f.2.extend(roots),
            _ => self.0.frames.push((depth, regs.pc, roots.to_vec())),
        }
        Ok(())
    }
    fn frame_done(&mut self) {
        self.0.done += 1;
    }
}

/// The slots' collector.
struct Slots<'k>(&'k mut Kept);

impl Sink for Slots<'_> {
    const ROOTS: bool = true;
    const SLOTS: bool = true;
    fn room(&mut self, n: usize) -> Result<*mut RootSlot, End> {
        let s = &mut self.0.slots;
        if s.len() + n > s.capacity() {
            return Err(End::Full);
        }
        Ok(s.as_mut_ptr().wrapping_add(s.len()))
    }
    fn wrote(&mut self, n: usize) {
        let s = &mut self.0.slots;
        // SAFETY: `room` gave room for `n` past the length, and they were
        // written.
        unsafe { s.set_len(s.len() + n) };
    }
    fn frame_done(&mut self) {
        self.0.done += 1;
    }
    fn run_room(&mut self) -> (*mut RootSlot, *mut RootSlot) {
        let s = &mut self.0.slots;
        let base = s.as_mut_ptr();
        (base.wrapping_add(s.len()), base.wrapping_add(s.capacity()))
    }
    fn run_wrote(&mut self, next: *mut RootSlot, frames: u32) {
        let s = &mut self.0.slots;
        // SAFETY: the run wrote every slot up to `next`, inside the
        // capacity `run_room` gave.
        unsafe { s.set_len(next.offset_from(s.as_ptr()) as usize) };
        self.0.done += frames;
    }
}

/// The collectors (decoded roots, root slots), without a cache, cold and
/// warm, from every frame of the exact walk `frames`: what the uncached
/// cursor gives from there ([`expected`]): the frames and their roots (or
/// slots, up to a frame with a root that has none), how the walk ends, and
/// the registers where it ends (known values, save slots of those saved,
/// the masks, the PC).
fn runs_agree<A: Arch>(tables: &Tables, stack: &Stack, options: Options, frames: &[Seen], _: Stop) {
    let mut memory = cache_memory(8);
    let mut cache = Cache::new(&mut memory).unwrap();
    for (start, frame) in frames.iter().enumerate() {
        let from = frame.0;
        let (want, end, at_end) = expected::<A>(tables, stack, options, from);
        // The slots: each frame's, up to the first with a root without one.
        let (mut want_slots, mut slots_end, mut want_done) = (vec![], end, want.len() as u32);
        for (i, f) in want.iter().enumerate() {
            let mut s = vec![RootSlot::default(); f.2.len()];
            if slots_of(&f.2, &mut s).is_err() {
                (slots_end, want_done) = (End::Roots(RootsError::NoSlot), i as u32);
                break;
            }
            want_slots.extend(s);
        }
        for pass in ["uncached", "cold", "warm"] {
            let what = format!("{} run from frame {start} ({pass})", A::NAME);
            let walker = Walker::<A, _, _>::new(tables, stack, options);
            for slots in [false, true] {
                let mut kept = Kept::default();
                let mut frame = Frame::new(from);
                let c = (pass != "uncached").then_some(&mut cache);
                let mut c = c;
                if pass == "cold" {
                    if let Some(c) = c.as_deref_mut() {
                        c.flush();
                    }
                }
                walker.start(&mut frame, c.as_deref_mut()).unwrap();
                let got = match slots {
                    false => walker.run(&mut frame, c, &mut Decoded(&mut kept), u32::MAX),
                    true => walker.run(&mut frame, c, &mut Slots(&mut kept), u32::MAX),
                };
                if slots {
                    assert_eq!(got, Err(slots_end), "{what}: slots' end");
                    assert_eq!(kept.slots, want_slots, "{what}: slots");
                    assert_eq!(kept.done, want_done, "{what}: frames given");
                } else {
                    assert_eq!(got, Err(end), "{what}: end");
                    assert_eq!(kept.frames, want, "{what}: frames");
                    assert_eq!(kept.done, want.len() as u32, "{what}: frames given");
                }
                if !slots || slots_end == end {
                    same_known(&frame.regs, &at_end, &what);
                }
            }
        }
    }
}

/// `got` and `want` agree on the PC, the masks, every known register's
/// value and every saved one's slot.
fn same_known(got: &Registers, want: &Registers, what: &str) {
    assert_eq!(
        (got.pc, got.known, got.saved),
        (want.pc, want.known, want.saved),
        "{what}"
    );
    for s in 0..got.value.len() {
        if got.known >> s & 1 != 0 {
            assert_eq!(got.value[s], want.value[s], "{what}: slot {s}'s value");
            if got.saved >> s & 1 != 0 {
                assert_eq!(
                    got.address[s], want.address[s],
                    "{what}: slot {s}'s save slot"
                );
            }
        }
    }
}

fn loc(kind: LocationKind, dwarf_reg: u16, offset: i32) -> Location {
    Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    }
}

/// A cache filled from other tables gives their frames, not these, while
/// the tables say they are the same (their cache key): a caller flushes
/// it when it changes tables in place; tables with another key empty it
/// when the walk binds it.
#[test]
fn a_stale_cache_is_not_these_tables() {
    type A = X86_64;
    let tables = |offset, key| {
        let mut t = Tables(vec![
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
        ]);
        t.key = key;
        t
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
    let r = regs::<A>(0x1010, &[(7, 0x7000)]);
    let o = Options::default();
    let (old, new) = (tables(8, 1), tables(16, 1));
    let mut memory = cache_memory(8);
    let mut cache = Cache::new(&mut memory).unwrap();
    full_walk::<A, _>(&old, &s, r, o, Some(&mut cache));
    let fresh = full_walk::<A, _>(&new, &s, r, o, None);
    let stale = full_walk::<A, _>(&new, &s, r, o, Some(&mut cache));
    assert_ne!(stale.0, fresh.0, "the stale entries were used");
    cache.flush();
    assert_eq!(full_walk::<A, _>(&new, &s, r, o, Some(&mut cache)), fresh);
    assert_eq!(full_walk::<A, _>(&new, &s, r, o, Some(&mut cache)), fresh);
    // The old tables under another key: the cache empties itself.
    let other = tables(8, 2);
    let fresh = full_walk::<A, _>(&other, &s, r, o, None);
    assert_eq!(full_walk::<A, _>(&other, &s, r, o, Some(&mut cache)), fresh);
}

/// A record's plan: a frame state that does not fit (no register + offset
/// CFA rule, a CFA register without a slot, more saved registers than a
/// plan holds, the return address column saved twice) has none; roots are
/// decoded by the plan as `try_roots` + `decode` give them, and roots that
/// do not fit (too many, a ConstantIndex, a kind not known) are not kept.
#[test]
fn compiled_plans() {
    type A = X86_64;
    let one = |state, saved: Vec<(u16, i32)>| {
        Tables(vec![Function {
            start: 0x1000,
            end: 0x1100,
            records: vec![(0x1010, state, saved)],
        }])
    };
    let plan = |t: &Tables| Plan::compile::<A, _>(t, &(0, 0));
    assert!(plan(&one(cfa(7, 16), vec![(3, -16)])).is_some());
    assert!(plan(&one(State::NoCfaRule, vec![])).is_none());
    assert!(plan(&one(State::None, vec![])).is_none());
    assert!(plan(&one(cfa(17, 16), vec![])).is_none());
    let many = |n: i32| one(cfa(7, 16), (0..n).map(|i| (3, -8 * i - 16)).collect());
    assert!(plan(&many(walk::PLAN_SAVED as i32)).is_some());
    assert!(plan(&many(walk::PLAN_SAVED as i32 + 1)).is_none());
    let twice = one(cfa(31, 32), vec![(30, -8), (30, -16)]);
    assert!(Plan::compile::<AArch64, _>(&twice, &(0, 0)).is_none());
    // AArch64 without a saved x30: a plan, whose step stops.
    let a64 = one(cfa(31, 16), vec![(29, -16)]);
    let mut s = Stack::default();
    s.put(0x7000, 0x7100);
    let r = regs::<AArch64>(0x1010, &[(31, 0x7000)]);
    assert!(Plan::compile::<AArch64, _>(&a64, &(0, 0)).is_some());
    assert_eq!(
        walk::<AArch64>(&a64, &s, r, Options::default()).1,
        Stop::ReturnAddressNotSaved
    );

    // Roots: a statepoint's pairs after its header, decoded with a frame's
    // registers exactly as `decode` does.
    let mut t = one(cfa(7, 16), vec![]);
    let locs = vec![
        loc(LocationKind::Constant, 0, 0),
        loc(LocationKind::Constant, 0, 0),
        loc(LocationKind::Constant, 0, 1),
        loc(LocationKind::Register, 3, 0),
        loc(LocationKind::Indirect, 7, 8),
        loc(LocationKind::Indirect, 7, 8),
        loc(LocationKind::Register, 3, 0),
        loc(LocationKind::Direct, 6, -16),
    ];
    t.roots = locs.clone();
    let keep = |t: &Tables| {
        let mut p = plan(t).unwrap();
        p.keep_roots::<A, _>(t, &(0, 0));
        p
    };
    let p = keep(&t);
    assert!(p.has_roots());
    assert!(!plan(&t).unwrap().has_roots());
    let mut r = regs::<A>(0x1010, &[(7, 0x7000), (6, 0x7100)]);
    r.set::<A>(3, 0x33, Some(0x7030));
    let constant = |_: u32| Err(pcmap_reader::Error::Inconsistent("no constants"));
    let mut want = vec![];
    roots(
        RootLayout::StatePoint,
        locs.iter().copied().map(Ok),
        constant,
        |root: Root| {
            let value = |l: &Location| decode::<A>(l, &r, constant).unwrap();
            want.push(RootValue {
                base: value(&root.base),
                derived: value(&root.derived),
                base_index: root.base_index,
                derived_index: root.derived_index,
            });
        },
    )
    .unwrap();
    let stack = Stack::default();
    let values = |p: &Plan, r: &Registers| {
        let mut r = *r;
        let mut log = Log::default();
        let mut run = Run::<A, _>::new(&mut r, &stack, &mut log);
        let mut out = [const { MaybeUninit::uninit() }; walk::PLAN_ROOTS];
        run.root_values(p, &mut out).map(|v| v.to_vec())
    };
    assert_eq!(values(&p, &r), Ok(want.clone()));
    assert_eq!(want.len(), 2);
    // The table's way gives the same.
    let mut table = vec![];
    walk::roots_in_batches::<A, _>(&t, &(0, 0), &r, &mut |b| table.extend_from_slice(b)).unwrap();
    assert_eq!(table, want);
    // A root in a register the frame does not know: the first such.
    let mut unknown = r;
    unknown.forget::<A>(3);
    assert_eq!(values(&p, &unknown), Err(RootsError::RegisterUnknown(3)));
    // The roots' slots: an Indirect location's address, a register's save
    // slot; a Direct location (its value is an address, not a slot) or a
    // register saved nowhere has none.
    let slots = |p: &Plan, r: &Registers| {
        let mut r = *r;
        let mut log = Log::default();
        let mut run = Run::<A, _>::new(&mut r, &stack, &mut log);
        let mut out = [RootSlot::default(); walk::PLAN_ROOTS];
        if !run.has_root_slots(p) {
            return None;
        }
        // SAFETY: room for every root a plan keeps.
        let n = unsafe { run.root_slots(p, out.as_mut_ptr()) };
        Some(out[..n].to_vec())
    };
    assert_eq!(slots(&p, &r), None, "a Direct root has no slot");
    let (reg3, sp8) = (locs[3], locs[4]);
    t.roots = statepoint(&[(reg3, sp8), (sp8, reg3)]);
    let p = keep(&t);
    let slot = |base, derived| RootSlot { base, derived };
    assert_eq!(
        slots(&p, &r),
        Some(vec![slot(0x7030, 0x7008), slot(0x7008, 0x7030)])
    );
    let mut value_only = r;
    value_only.set::<A>(3, 0x33, None);
    assert_eq!(slots(&p, &value_only), None, "a register saved nowhere");
    assert_eq!(slots(&p, &unknown), None, "a register not known");
    // Too many roots, a ConstantIndex, an unknown kind: not kept.
    let mut nine = t.clone();
    nine.roots = statepoint(&[(locs[4], locs[4]); 9]);
    assert!(!keep(&nine).has_roots());
    let mut eight = t.clone();
    eight.roots = statepoint(&[(locs[4], locs[4]); 8]);
    assert!(keep(&eight).has_roots());
    let mut index = t.clone();
    index.roots = statepoint(&[(loc(LocationKind::ConstantIndex, 0, 0), locs[4])]);
    assert!(!keep(&index).has_roots());
    let mut unknown_kind = t.clone();
    unknown_kind.kind = RecordKind::Unknown as u8;
    assert!(!keep(&unknown_kind).has_roots());
    let mut w = Vec::new();
    assert_eq!(
        walk::roots_in_batches::<A, _>(&unknown_kind, &(0, 0), &r, &mut |b| w.extend_from_slice(b)),
        Err(RootsError::UnknownKind)
    );
}

/// x86-64: an SP-based frame (CFA = RSP + 24, RBX saved at CFA - 16) called
/// by an RBP-based one (CFA = RBP + 16, RBP at CFA - 16), called by C.
#[test]
fn x86_64_sp_and_fp_frames() {
    type A = X86_64;
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
    let r = regs::<A>(0x1010, &[(7, 0x7000), (6, 0x7100), (3, 0x1), (12, 0xc12)]);
    let mut c = Cursor::<A, _, _>::new(&tables, &s, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x7018));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!(r1.pc, 0x2020);
    assert_eq!(r1.get::<A>(7), Some(0x7018));
    assert_eq!(r1.get::<A>(3), Some(0xbbbb));
    assert_eq!(r1.address::<A>(3), Some(0x7008));
    // Not saved by frame 0: callee-saved, so the same value (no slot).
    assert_eq!(r1.get::<A>(12), Some(0xc12));
    assert_eq!(r1.address::<A>(12), None);
    assert_eq!(r1.get::<A>(6), Some(0x7100));
    assert_eq!(c.cfa(), Some(0x7110));
    c.step().unwrap();
    let r2 = *c.registers();
    assert_eq!(r2.pc, 0x3333);
    assert_eq!(r2.get::<A>(7), Some(0x7110));
    assert_eq!(r2.get::<A>(6), Some(0x7200));
    assert_eq!(r2.address::<A>(6), Some(0x7100));
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
    type A = X86_64;
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
    let r = regs::<A>(0x1010, &[(7, 0x7000), (0, 5)]);
    let (frames, stop) = walk::<A>(&tables, &s, r, Options::default());
    assert_eq!(frames.len(), 2);
    assert_eq!(stop, Stop::RegisterUnknown(0));
}

/// AArch64: x29/x30 saved as a frame record, x19 saved, FP-based CFA; a
/// frame that does not save x30 stops (no guess from the LR register).
#[test]
fn aarch64_frames() {
    type A = AArch64;
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
    let r = regs::<A>(0x1010, &[(31, 0x8000), (29, 0x8010), (19, 7), (30, 0x1010)]);
    let mut c = Cursor::<A, _, _>::new(&tables, &s, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x8030));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!((r1.pc, r1.sp::<A>()), (0x2020, Some(0x8030)));
    assert_eq!(r1.get::<A>(19), Some(0x1919));
    assert_eq!(r1.get::<A>(29), Some(0x9000));
    assert_eq!(r1.get::<A>(30), None);
    assert_eq!(c.step(), Err(Stop::ReturnAddressNotSaved));
}

/// AArch64 frame records at 8 mod 16 (x29 stored below an odd number of
/// other callee-saved registers), which a walker must not reject: by the
/// CFA rule (x29-based) and by the frame pointer chain through an
/// unmanaged frame whose record is also at 8 mod 16.
#[test]
fn aarch64_frame_records_at_8_mod_16() {
    type A = AArch64;
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
    let r = regs::<A>(0x1010, &[(31, 0x8000), (29, 0x8018), (19, 7), (30, 0x1010)]);
    let mut c = Cursor::<A, _, _>::new(&tables, &s, r, Options::default()).unwrap();
    assert_eq!(c.cfa(), Some(0x8030));
    c.step().unwrap();
    let r1 = *c.registers();
    assert_eq!((r1.pc, r1.sp::<A>()), (0x2020, Some(0x8030)));
    assert_eq!(r1.get::<A>(19), Some(0x1919));
    assert_eq!(r1.address::<A>(19), Some(0x8008));
    assert_eq!(r1.get::<A>(29), Some(0x8048));
    assert_eq!(c.step(), Err(Stop::Unmanaged));
    let chain = Options {
        frame_pointer_chain: true,
        ..Options::default()
    };
    let mut c = Cursor::<A, _, _>::new(&tables, &s, r, chain).unwrap();
    c.step().unwrap();
    c.step().unwrap();
    let r2 = *c.registers();
    assert_eq!(r2.pc, 0x3030);
    assert_eq!(r2.get::<A>(29), Some(0x8070));
    assert_eq!(r2.address::<A>(29), Some(0x8048));
}

/// PowerPC64: the LR save doubleword at CFA + 16 when the frame state does
/// not list LR (65), the saved LR slot when it does; r31-based CFA.
#[test]
fn powerpc64_return_address() {
    type A = PowerPc64ElfV2;
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
    let r = regs::<A>(0x1010, &[(1, 0x8000), (31, 1)]);
    let (frames, stop) = walk::<A>(&tables, &s, r, Options::default());
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
    type A = X86_64;
    let f = |records| Function {
        start: 0x1000,
        end: 0x1100,
        records,
    };
    let mut s = Stack::default();
    s.put(0x7000, 0);
    let r = regs::<A>(0x1010, &[(7, 0x7000), (6, 0x7100)]);
    let stop = |t: &Tables, s: &Stack, o| walk::<A>(t, s, r, o).1;
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
    let (frames, stop) = walk::<A>(&t, &loop_stack, r, limited);
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
    {
        type A = X86_64;
        let tables = Tables(vec![Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(7, 8), vec![])],
        }]);
        let mut s = Stack::default();
        s.put(0x7100, 0); // caller's RBP: the end of the chain
        s.put(0x7108, 0x2020);
        s.put(0x7110, 0x5555); // frame 1's return address (CFA 0x7118 - 8)
        let r = regs::<A>(0x9999, &[(7, 0x7000), (6, 0x7100), (3, 3)]);
        assert_eq!(
            walk::<A>(&tables, &s, r, Options::default()).1,
            Stop::Unmanaged
        );
        let (frames, stop) = walk::<A>(&tables, &s, r, chain);
        assert_eq!(
            frames,
            vec![(0x9999, None), (0x2020, Some(0x7118)), (0x5555, None)]
        );
        // Frame 2 is unmanaged and its RBP (from frame 0's chain) is 0.
        assert_eq!(stop, Stop::EndOfStack);
        let mut c = Cursor::<A, _, _>::new(&tables, &s, r, chain).unwrap();
        c.step().unwrap();
        // RBX: the unmanaged frame may have saved it anywhere.
        assert_eq!(c.registers().get::<A>(3), None);
        assert_eq!(c.registers().address::<A>(6), Some(0x7100));
    }

    // AArch64: the caller's SP is not known after a chain step, so an
    // SP-based managed caller stops; an FP-based one is walked.
    {
        type A = AArch64;
        let mut s = Stack::default();
        s.put(0x8100, 0x8200);
        s.put(0x8108, 0x2020);
        s.put(0x8208, 0x6666);
        s.put(0x8200, 0);
        let r = regs::<A>(0x9999, &[(31, 0x8000), (29, 0x8100)]);
        let sp_based = Tables(vec![Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(31, 16), vec![])],
        }]);
        assert_eq!(
            walk::<A>(&sp_based, &s, r, chain).1,
            Stop::RegisterUnknown(31)
        );
        let fp_based = Tables(vec![Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(29, 16), vec![(29, -16), (30, -8)])],
        }]);
        let (frames, stop) = walk::<A>(&fp_based, &s, r, chain);
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
        let r = regs::<A>(0x9999, &[(31, 0x8000), (29, 0x8300)]);
        let (frames, stop) = walk::<A>(&Tables(vec![]), &s, r, chain);
        assert_eq!(frames, vec![(0x9999, None), (0x9990, None), (0x9980, None)]);
        assert_eq!(stop, Stop::BadStack);
    }

    // PowerPC64: the back chain gives the caller's SP exactly.
    {
        type A = PowerPc64ElfV2;
        let mut s = Stack::default();
        s.put(0x8000, 0x8100); // back chain
        s.put(0x8110, 0x2020); // LR save word of the caller's frame
        s.put(0x8140, 0x7777); // frame 1's LR save word (CFA 0x8130 + 16)
        let r = regs::<A>(0x9999, &[(1, 0x8000)]);
        let tables = Tables(vec![Function {
            start: 0x2000,
            end: 0x2100,
            records: vec![(0x2020, cfa(1, 0x30), vec![])],
        }]);
        let (frames, stop) = walk::<A>(&tables, &s, r, chain);
        assert_eq!(
            frames,
            vec![(0x9999, None), (0x2020, Some(0x8130)), (0x7777, None)]
        );
        // Frame 2's back chain word was never written.
        assert_eq!(stop, Stop::BadStack);
    }
}

#[test]
fn decoding_with_a_frames_registers() {
    type A = AArch64;
    let mut r = regs::<A>(0x1010, &[(31, 0x8000), (29, 0x8040)]);
    r.set::<A>(19, 0xabc, Some(0x8ff8));
    let k = |_| Ok(77);
    use LocationKind::*;
    let d = |l: Location| decode::<A>(&l, &r, k).map(|v| (v.value(), v.address()));
    assert_eq!(d(loc(Register, 19, 0)), Ok((Some(0xabc), Some(0x8ff8))));
    assert_eq!(d(loc(Indirect, 29, -8)), Ok((None, Some(0x8038))));
    assert_eq!(d(loc(Direct, 31, 16)), Ok((Some(0x8010), None)));
    assert_eq!(d(loc(Constant, 0, -1)).unwrap().0, Some(u64::MAX));
    assert_eq!(d(loc(ConstantIndex, 0, 0)).unwrap().0, Some(77));
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
    let got = collect(RootLayout::StatePoint, &l).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].base_index, got[0].derived_index), (4, 5));
    assert_eq!(got[0].derived, loc(Indirect, 7, 16));
    assert_eq!(got[1].base, loc(Register, 3, 0));
    // A deopt count past the end, an odd number of pointers, a header
    // that is not constants: errors.
    let mut bad = header(9);
    bad.push(loc(Indirect, 7, 8));
    assert_eq!(
        collect(RootLayout::StatePoint, &bad),
        Err(RootsError::NotAStatePoint)
    );
    let mut odd = header(0);
    odd.push(loc(Indirect, 7, 8));
    assert_eq!(
        collect(RootLayout::StatePoint, &odd),
        Err(RootsError::NotAStatePoint)
    );
    assert_eq!(
        collect(RootLayout::StatePoint, &[loc(Register, 3, 0)]),
        Err(RootsError::NotAStatePoint)
    );
    // The deopt count as a large constant.
    let mut big = vec![
        loc(Constant, 0, 0),
        loc(Constant, 0, 0),
        loc(ConstantIndex, 0, 0),
    ];
    big.push(loc(Constant, 0, 5));
    big.extend([loc(Indirect, 7, 8), loc(Indirect, 7, 8)]);
    assert_eq!(collect(RootLayout::StatePoint, &big).unwrap().len(), 1);
    // Plain stack maps: every location.
    let got = collect(RootLayout::EveryLocation, &l[3..]).unwrap();
    assert_eq!(got.len(), 5);
    assert_eq!(got[4].base, got[4].derived);
}

/// PowerPC64: a record right after the TOC restore at the return address
/// (`nop`, ELFv2 `ld r2, 24(r1)`, ELFv1 `ld r2, 40(r1)`: each ABI's own)
/// is the frame's; after any other instruction (the other ABI's restore
/// too), or further on, it is not; other architectures never look past the
/// return address.
#[test]
fn powerpc64_record_after_the_toc_restore() {
    let tables = Tables(vec![Function {
        start: 0x1000,
        end: 0x1100,
        records: vec![(0x1014, cfa(1, 32), vec![])],
    }]);
    fn at<A: Arch>(tables: &Tables, pc: u64, insn: Option<u32>) -> FrameAt<u64, (usize, usize)> {
        let mut s = Stack::default();
        if let Some(i) = insn {
            s.1.insert(pc, i);
        }
        walk::lookup::<A, _, _>(tables, &s, Pc::ReturnAddress(pc)).unwrap()
    }
    let record = FrameAt::Record(0x1000, (0, 0));
    for insn in [0x6000_0000, 0xe841_0018] {
        assert_eq!(at::<PowerPc64ElfV2>(&tables, 0x1010, Some(insn)), record);
    }
    for insn in [0x6000_0000, 0xe841_0028] {
        assert_eq!(at::<PowerPc64ElfV1>(&tables, 0x1010, Some(insn)), record);
    }
    let none = FrameAt::NoRecord(0x1000);
    assert_eq!(
        at::<PowerPc64ElfV2>(&tables, 0x1010, Some(0xe841_0028)),
        none
    );
    assert_eq!(
        at::<PowerPc64ElfV1>(&tables, 0x1010, Some(0xe841_0018)),
        none
    );
    // mr r30, r3: a move of the call's result. Not a TOC restore.
    assert_eq!(
        at::<PowerPc64ElfV2>(&tables, 0x1010, Some(0x7c7e_1b78)),
        none
    );
    // Code that cannot be read, a record 8 bytes on, another architecture.
    assert_eq!(at::<PowerPc64ElfV2>(&tables, 0x1010, None), none);
    assert_eq!(
        at::<PowerPc64ElfV2>(&tables, 0x100c, Some(0x6000_0000)),
        none
    );
    assert_eq!(at::<X86_64>(&tables, 0x1010, Some(0x6000_0000)), none);
}

/// A damaged table may list a register twice: every route takes the last
/// save, for the return address as for the registers (the first route to
/// take the first one was found by the `walk_arch` fuzz target).
#[test]
fn a_register_saved_twice_takes_the_last_save() {
    type A = AArch64;
    let tables = Tables(vec![Function {
        start: 0x2000,
        end: 0x2100,
        records: vec![(0x2020, cfa(31, 32), vec![(30, -8), (30, -16)])],
    }]);
    let mut s = Stack::default();
    s.put(0x7018, 0x5555);
    s.put(0x7010, 0x6666);
    let r = regs::<A>(0x2020, &[(31, 0x7000)]);
    let (frames, stop) = walk::<A>(&tables, &s, r, Options::default());
    assert_eq!(frames, vec![(0x2020, Some(0x7020)), (0x6666, None)]);
    assert_eq!(stop, Stop::Unmanaged);
}

/// A frame whose whole span of reads the memory allows at once: the
/// cached walk steps it by the plan (`Run::check_fast`, `Run::apply`: the
/// saved registers' values and slots, SP, PC), which must give the exact
/// step's registers (`walk` compares every frame's).
#[test]
fn a_plan_restores_saved_registers() {
    type A = X86_64;
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
        let r = regs::<A>(0x3030, &[(7, 0x6fe8)]);
        let (frames, stop) = walk::<A>(&t, &s, r, Options::default());
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
    type A = X86_64;
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
    let r = regs::<A>(
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
    let (frames, stop) = walk::<A>(&tables, &s, r, Options::default());
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
    fn check<A: Arch>() {
        // f at 0x1000 ends with a call at 0x1010 (the next function, g,
        // starts there with a record at its first byte); h at 0x2000 ends
        // with a call at 0x2020 and no function follows; k at 0x3000 is
        // the bottom managed frame.
        let (sp, ra) = (A::SP, A::RA);
        let toc = !A::TOC_RESTORES.is_empty();
        // On PowerPC64 the call's record is after the TOC restore at its
        // return address, at the function's end.
        let (f_ra, h_ra) = if toc {
            (0x100c, 0x201c)
        } else {
            (0x1010, 0x2020)
        };
        let state = |offset| cfa(sp, offset);
        // The return address: x86-64's at CFA - 8, PowerPC64's at CFA + 16
        // when not saved; AArch64's x30 saved at the offset given.
        let saves = |offset: i32| match A::RA_FROM_CFA {
            None => vec![(ra, offset)],
            Some(_) => vec![],
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
            s.1.insert(f_ra, A::TOC_RESTORES[0]);
            s.1.insert(h_ra, A::TOC_RESTORES[1]);
        }
        // Frame 0 at f (CFA 0x7010), frame 1 at h (CFA 0x7030), frame 2 at
        // k (CFA 0x7040), then an unmanaged return address.
        let ra_at = |cfa: u64, saved: u64| match A::RA_FROM_CFA {
            Some(o) => cfa.wrapping_add(o as i64 as u64),
            None => cfa - saved,
        };
        let (cfa0, cfa1, cfa2) = (0x7010u64, 0x7030u64, 0x7040u64);
        s.put(ra_at(cfa0, 8), h_ra);
        s.put(ra_at(cfa1, 16), 0x3030);
        s.put(ra_at(cfa2, 8), 0x9000);
        let r = regs::<A>(f_ra, &[(sp, 0x7000)]);
        let (frames, stop) = walk::<A>(&tables, &s, r, Options::default());
        assert_eq!(
            frames,
            vec![
                (f_ra, Some(cfa0)),
                (h_ra, Some(cfa1)),
                (0x3030, Some(cfa2)),
                (0x9000, None)
            ],
            "{}",
            A::NAME
        );
        assert_eq!(stop, Stop::Unmanaged, "{}", A::NAME);
        // The same PC as an interrupted instruction's (f's end, g's first
        // byte) is g's, whose record is there.
        let g = Options {
            interrupted: true,
            ..Options::default()
        };
        let c = Cursor::<A, _, _>::new(&tables, &s, regs::<A>(0x1010, &[(sp, 0x7000)]), g).unwrap();
        assert_eq!(c.frame(), FrameAt::Record(&0x1010, &(1, 0)), "{}", A::NAME);
        assert_eq!(c.cfa(), Some(0x7020));
    }
    check::<X86_64>();
    check::<AArch64>();
    check::<PowerPc64ElfV2>();
    check::<PowerPc64ElfV1>();
}
