//! One compiled plan per record, and the registers of a walk in progress
//! that plans are executed on.
//!
//! A [`Plan`] is what a step and the roots need of one record, decoded
//! once into fixed form (no LEB128, no table): the CFA rule, the saved
//! registers, where the return address is, the span of the step's reads,
//! and the roots' locations. The walk is "compile, then execute": a frame
//! steps by its plan (from the cache, or compiled on the spot); only a
//! record whose plan does not fit (more than [`PLAN_SAVED`] tracked saved
//! registers, the return address column saved twice, a CFA register the
//! walker does not track) steps the slow way, from the table
//! ([`slow_step`]). Roots that do not fit ([`PLAN_ROOTS`], a
//! `ConstantIndex`, a malformed statepoint, an unknown kind) are given
//! from the table ([`roots_in_batches`](super::roots_in_batches)).
//!
//! ```text
//! Plan, one load per item; with a cache slot's PC before it, its header
//! fills one 64-byte line, its roots the next:
//!    0  link        u32   the cache's: where the caller's slot is
//!    4  flags, cfa_slot, num_saved, num_roots   u8 each
//!    8  low, high   i16   the span of the step's reads, from the CFA
//!   12  fp_offset   i32   where the frame pointer is saved, from the CFA
//!   16  set         u64   slots the step finds saved
//!   24  roots_need  u64   slots the roots need known
//!   32  slots_need  u64   slots whose save slots the roots' slots are
//!   40  fast_need   u64   slots the common step needs known
//!   48  cfa_offset, ra_offset   i32
//!   56  roots[8]    [u64; 2]  base, derived: offset << 32 | kind << 16
//!                             | slot << 8 | word of Registers::words
//!  184  indices[8]  [u16; 2]  base, derived among the record's locations
//!  216  saved[18]   u64   CFA offset << 32 | slot (read when the log is
//!                         worked out)
//! ```
//!
//! [`Run`] holds a walk's registers while plans step them: the stack
//! pointer, the frame pointer and the masks of what is known and saved in
//! fields (kept in machine registers), each step's plan and CFA in a log
//! (two stores), from which the saved registers' slots and values are
//! worked out, newest save first, only when something needs them (a root
//! in a save slot, a CFA on another register, a full log, the end of the
//! run: [`Run::sync`]). The walk never writes the stack, so a value read
//! late is the value the step would have read.

use core::mem::MaybeUninit;

use super::arch::{ra_bit, Arch};
use super::memory::Memory;
use super::registers::{Registers, ADDRESS_WORD, REGISTER_SLOTS, VALUE_WORD, WORDS};
use super::roots::{try_roots, Root, RootLayout, RootSlot, RootValue, RootsError, Value};
use super::stop::Stop;
use super::tables::{State, UnwindTables};
use crate::LocationKind;

/// Saved registers a [`Plan`] holds: every callee-saved general register
/// of the four architectures (PowerPC64's r14-r31).
pub const PLAN_SAVED: usize = 18;
/// Roots a [`Plan`] holds; a record with more gives its roots from the
/// table.
pub const PLAN_ROOTS: usize = 8;

/// [`Plan::flags`].
mod flags {
    /// The frame state does not say where the return address is: the step
    /// stops ([`Stop::ReturnAddressNotSaved`](super::Stop)).
    pub const NO_RA: u8 = 1;
    /// The step reads the caller's frame pointer at CFA + `fp_offset`.
    pub const FP_SAVED: u8 = 1 << 1;
    /// The roots are kept: `roots[..num_roots]`.
    pub const ROOTS: u8 = 1 << 2;
    /// Kept roots each have a slot by the plan (an `Indirect` location, or
    /// a `Register` one whose save slot `slots_need` checks).
    pub const SLOTS: u8 = 1 << 3;
    /// Every read of the step is an aligned word in `[CFA + low, CFA +
    /// high)` (`low`, `high` each an `i16`).
    pub const SPAN: u8 = 1 << 4;
    /// The step is the common one `check_fast` takes: a CFA off the stack
    /// pointer or the frame pointer (whose values a run keeps at hand),
    /// every read in `SPAN`, the return address known where.
    pub const FAST: u8 = 1 << 5;
    /// Every kept root's locations are `Indirect` off one register, the
    /// stack pointer or the frame pointer (`roots_need` says which): their
    /// slots are that register's value plus each offset.
    pub const ONE_BASE: u8 = 1 << 6;
    /// Not a plan: a cache's mark of a PC in no function. No check passes
    /// it.
    pub const MARK: u8 = 1 << 7;
}

/// A record compiled for a walk: see the module's layout. Its arrays are
/// written as far as their counts say (compiling zeroes nothing).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Plan {
    /// Not the plan's: a word for the cache that keeps it (where the
    /// caller's slot is), in the plan's first line.
    pub(crate) link: u32,
    flags: u8,
    cfa_slot: u8,
    num_saved: u8,
    num_roots: u8,
    /// See `flags::SPAN`: bytes from the CFA.
    low: i16,
    /// See `flags::SPAN`.
    high: i16,
    /// The frame pointer's save slot: CFA + `fp_offset` (`FP_SAVED`).
    fp_offset: i32,
    /// Slots the step finds saved: known and saved in the caller.
    set: u64,
    /// Slots whose values the kept roots need.
    roots_need: u64,
    /// Slots whose save slots the kept roots' slots are (`Register` roots).
    slots_need: u64,
    /// Slots `check_fast` needs known: the CFA register's and SP's.
    fast_need: u64,
    /// CFA = the value of slot `cfa_slot` + `cfa_offset`.
    cfa_offset: i32,
    /// The return address is at CFA + `ra_offset` (unless `NO_RA`).
    ra_offset: i32,
    /// Each kept root's base and derived location (the first `num_roots`
    /// written).
    roots: [MaybeUninit<[u64; 2]>; PLAN_ROOTS],
    /// Their indices among the record's locations.
    indices: [MaybeUninit<[u16; 2]>; PLAN_ROOTS],
    /// The saved registers, in the frame state's order: offset << 32 |
    /// slot (the first `num_saved` written).
    saved: [MaybeUninit<u64>; PLAN_SAVED],
}

impl core::fmt::Debug for Plan {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Plan")
            .field("cfa_slot", &self.cfa_slot)
            .field("cfa_offset", &self.cfa_offset)
            .field("ra_offset", &self.ra_offset)
            .field("flags", &self.flags)
            .field("saved", &self.saves())
            .field("roots", &self.kept_roots())
            .finish()
    }
}

/// A kept location: offset << 32 | kind << 16 | slot << 8 | word.
#[inline(always)]
fn location(offset: i32, kind: LocationKind, slot: u8, word: u8) -> u64 {
    (offset as u32 as u64) << 32 | (kind as u64) << 16 | u64::from(slot) << 8 | u64::from(word)
}

impl Plan {
    /// The plan of `record`'s step (its roots not kept: [`Plan::keep_roots`]),
    /// or `None` if it does not fit: a frame state without a register +
    /// offset CFA rule or whose CFA register the walker does not track,
    /// more than [`PLAN_SAVED`] tracked saved registers, the return
    /// address column saved twice, a table it cannot read (the slow way
    /// then gives the frame's step, or its error).
    pub fn compile<A: Arch, T: UnwindTables>(tables: &T, record: &T::Record) -> Option<Plan> {
        let mut p = MaybeUninit::uninit();
        Plan::compile_in::<A, T>(tables, record, &mut p)?;
        // SAFETY: `compile_in` wrote every field but the arrays, which are
        // `MaybeUninit` (written as far as their counts say).
        Some(unsafe { p.assume_init() })
    }

    /// [`Plan::compile`] into `out`, in place: the plan a walk compiles
    /// for one step is written where it is used, not built and moved (a
    /// plan is ~370 bytes; a move of it cost as much as the step).
    pub fn compile_in<'p, A: Arch, T: UnwindTables>(
        tables: &T,
        record: &T::Record,
        out: &'p mut MaybeUninit<Plan>,
    ) -> Option<&'p mut Plan> {
        let State::Cfa(rule) = tables.state(record) else {
            return None;
        };
        let cfa_slot = u8::try_from(A::slot(rule.register)?).ok()?;
        let o = out.as_mut_ptr();
        // SAFETY: `o` is `out`, writable and aligned; every field but the
        // arrays is written before the reference is made, and the arrays
        // are `MaybeUninit` (compiling zeroes nothing).
        let p = unsafe {
            use core::ptr::addr_of_mut;
            addr_of_mut!((*o).link).write(0);
            addr_of_mut!((*o).flags).write(0);
            addr_of_mut!((*o).cfa_slot).write(cfa_slot);
            addr_of_mut!((*o).num_saved).write(0);
            addr_of_mut!((*o).num_roots).write(0);
            addr_of_mut!((*o).low).write(0);
            addr_of_mut!((*o).high).write(0);
            addr_of_mut!((*o).fp_offset).write(0);
            addr_of_mut!((*o).set).write(0);
            addr_of_mut!((*o).roots_need).write(0);
            addr_of_mut!((*o).slots_need).write(0);
            addr_of_mut!((*o).fast_need).write(0);
            addr_of_mut!((*o).cfa_offset).write(rule.offset);
            addr_of_mut!((*o).ra_offset).write(0);
            &mut *o
        };
        let ra_slot = A::slot(A::RA);
        let (mut fits, mut ra_saved) = (true, false);
        // The span of the step's reads, in bytes from the CFA.
        let (mut low, mut high, mut aligned) = (i64::MAX, i64::MIN, true);
        let mut span = |offset: i32| {
            low = low.min(i64::from(offset));
            high = high.max(i64::from(offset) + 8);
            aligned &= offset % 8 == 0;
        };
        tables
            .saved_registers(record, |dwarf, offset| {
                // Untracked registers are not read by a step either.
                let Some(s) = A::slot(dwarf) else { return };
                span(offset);
                // The return address column: read at `ra_offset`, not kept
                // with the others (the step forgets its register). Saved
                // twice (a damaged table): the slow way, which takes the
                // last save.
                if Some(s) == ra_slot {
                    fits &= !ra_saved;
                    ra_saved = true;
                    p.ra_offset = offset;
                    return;
                }
                let n = p.num_saved as usize;
                let Some(out) = p.saved.get_mut(n) else {
                    fits = false;
                    return;
                };
                out.write((offset as u32 as u64) << 32 | s as u64);
                p.set |= 1 << s;
                p.num_saved += 1;
                if s == A::FP as usize {
                    // The last save of it: what the step takes.
                    p.flags |= flags::FP_SAVED;
                    p.fp_offset = offset;
                }
            })
            .ok()?;
        if !fits {
            return None;
        }
        match (ra_saved, A::RA_FROM_CFA) {
            (true, _) => span(p.ra_offset),
            (false, Some(o)) => {
                p.ra_offset = o;
                span(o);
            }
            (false, None) => p.flags |= flags::NO_RA,
        }
        if low > high {
            // No read at all.
            p.flags |= flags::SPAN;
        } else if aligned && low >= i16::MIN.into() && high <= i16::MAX.into() {
            // The plan keeps the span's ends as i16.
            (p.low, p.high) = (low as i16, high as i16);
            p.flags |= flags::SPAN;
        }
        let at_hand = rule.register == A::SP || rule.register == A::FP;
        if at_hand && p.flags & (flags::SPAN | flags::NO_RA) == flags::SPAN {
            p.flags |= flags::FAST;
        }
        p.fast_need = 1 << p.cfa_slot | 1 << A::SP;
        Some(p)
    }

    /// Keeps `record`'s roots (as [`try_roots`](super::try_roots) lists
    /// them) in the plan, if they fit: at most [`PLAN_ROOTS`], each
    /// location a register the walker tracks or a constant, not a
    /// `ConstantIndex`, the record of a known kind and well formed.
    /// Otherwise its roots are given from the table.
    pub fn keep_roots<A: Arch, T: UnwindTables>(&mut self, tables: &T, record: &T::Record) {
        let Ok(layout) = RootLayout::of(tables.kind(record)) else {
            return;
        };
        let (mut n, mut need, mut slots_need, mut slots) = (0usize, 0u64, 0u64, true);
        // Written in place: `num_roots` and `ROOTS` only once all are.
        let (kept, indices) = (&mut self.roots, &mut self.indices);
        let mut keep = |l: &crate::Location| -> Option<u64> {
            let (slot, word) = match l.kind {
                LocationKind::Constant => (0, 0),
                LocationKind::ConstantIndex => return None,
                kind => {
                    let s = u8::try_from(A::slot(l.dwarf_reg)?).ok()?;
                    need |= 1 << s;
                    match kind {
                        // Its slot: the register's value plus the offset.
                        LocationKind::Indirect => (s, VALUE_WORD + s),
                        // Its slot: the register's save slot (no offset).
                        LocationKind::Register => {
                            slots_need |= 1 << s;
                            (s, ADDRESS_WORD + s)
                        }
                        // A value, not a slot.
                        _ => {
                            slots = false;
                            (s, 0)
                        }
                    }
                }
            };
            if l.kind == LocationKind::Constant {
                slots = false;
            }
            let offset = if l.kind == LocationKind::Register {
                0
            } else {
                l.offset
            };
            Some(location(offset, l.kind, slot, word))
        };
        let listed = try_roots(
            layout,
            tables.locations(record),
            |i| tables.constant(record, i),
            |r: Root| -> Result<(), RootsError> {
                let (Some(out), Some(index)) = (kept.get_mut(n), indices.get_mut(n)) else {
                    return Err(RootsError::NoSlot);
                };
                let (Some(base), Some(derived)) = (keep(&r.base), keep(&r.derived)) else {
                    return Err(RootsError::NoSlot);
                };
                out.write([base, derived]);
                index.write([r.base_index, r.derived_index]);
                n += 1;
                Ok(())
            },
        );
        if listed.is_err() {
            return;
        }
        self.num_roots = n as u8;
        self.roots_need = need;
        self.slots_need = slots_need;
        self.flags |= flags::ROOTS;
        if slots {
            self.flags |= flags::SLOTS;
        }
        // One base register for all: SP's or the frame pointer's slots
        // (none: SP's).
        let off = |base: u16| {
            self.kept_roots().as_flattened().iter().all(|&l| {
                (l >> 16) as u8 == LocationKind::Indirect as u8 && (l >> 8) as u8 as u16 == base
            })
        };
        if off(A::SP) || off(A::FP) {
            self.flags |= flags::ONE_BASE;
        }
    }

    /// Whether this is a cache's mark of a PC in no function, not a plan.
    #[inline(always)]
    pub(crate) fn is_mark(&self) -> bool {
        self.flags & flags::MARK != 0
    }

    /// Makes this a cache's mark of a PC in no function (or not).
    #[inline(always)]
    pub(crate) fn set_mark(&mut self, mark: bool) {
        self.flags = if mark {
            flags::MARK
        } else {
            self.flags & !flags::MARK
        };
    }

    /// How many roots are kept.
    #[inline(always)]
    pub fn num_roots(&self) -> usize {
        self.kept_roots().len()
    }

    /// Whether the roots are kept ([`Plan::keep_roots`]).
    #[inline(always)]
    pub fn has_roots(&self) -> bool {
        self.flags & flags::ROOTS != 0
    }

    /// The kept roots.
    #[inline(always)]
    fn kept_roots(&self) -> &[[u64; 2]] {
        let roots = &self.roots[..(self.num_roots as usize).min(PLAN_ROOTS)];
        // SAFETY: the first `num_roots` are written (`keep_roots`), and
        // `MaybeUninit<T>` is laid out as `T`.
        unsafe { &*(roots as *const [MaybeUninit<[u64; 2]>] as *const [[u64; 2]]) }
    }

    /// The kept roots' indices.
    #[inline(always)]
    fn root_indices(&self) -> &[[u16; 2]] {
        let indices = &self.indices[..(self.num_roots as usize).min(PLAN_ROOTS)];
        // SAFETY: as `kept_roots`.
        unsafe { &*(indices as *const [MaybeUninit<[u16; 2]>] as *const [[u16; 2]]) }
    }

    /// The saved registers.
    #[inline(always)]
    fn saves(&self) -> &[u64] {
        let saved = &self.saved[..(self.num_saved as usize).min(PLAN_SAVED)];
        // SAFETY: the first `num_saved` are written (`compile`), and
        // `MaybeUninit<T>` is laid out as `T`.
        unsafe { &*(saved as *const [MaybeUninit<u64>] as *const [u64]) }
    }

    /// The first register the kept roots need that `known` does not hold,
    /// in the record's order (as the table's roots give it).
    #[cold]
    fn first_unknown<A: Arch>(&self, known: u64) -> RootsError {
        for l in self.kept_roots().as_flattened() {
            let (kind, slot) = ((l >> 16) as u8, (l >> 8) as u8 as usize);
            if kind != LocationKind::Constant as u8 && known >> slot & 1 == 0 {
                return RootsError::RegisterUnknown(A::dwarf(slot));
            }
        }
        RootsError::RegisterUnknown(0)
    }
}

/// The steps a run logs before it works out their saved registers: a
/// power of two.
const LOG: usize = 32;

/// Where a [`Run`] logs its steps: each frame's plan (where it stays until
/// the log is worked out: [`Run::apply`]'s contract) and CFA, from which
/// the saved registers' slots and values are worked out. Apart from the
/// run's fields, so that those stay in machine registers.
pub struct Log([MaybeUninit<(*const Plan, u64)>; LOG]);

impl Default for Log {
    fn default() -> Self {
        Log([const { MaybeUninit::uninit() }; LOG])
    }
}

/// What a step's checks found: the CFA and the return address.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    cfa: u64,
    ra: u64,
}

/// The registers of a walk in progress, stepped by plans (see the module
/// documentation): `file` is the walk's [`Registers`], up to date after
/// [`Run::sync`]. Every method is inlined and its cold parts take their
/// inputs as arguments: the fields are the compiler's to keep in machine
/// registers.
pub struct Run<'f, A, M> {
    file: &'f mut Registers,
    memory: &'f M,
    log: &'f mut Log,
    known: u64,
    saved: u64,
    sp: u64,
    fp: u64,
    /// The PC (`file.pc` is written by `sync`).
    pc: u64,
    /// Slots the logged steps found saved: their values and save slots are
    /// not in `file` yet.
    pending: u64,
    len: usize,
    _arch: core::marker::PhantomData<A>,
}

impl<'f, A: Arch, M: Memory> Run<'f, A, M> {
    /// A run from the registers `file`, logging its steps in `log`.
    #[inline(always)]
    pub fn new(file: &'f mut Registers, memory: &'f M, log: &'f mut Log) -> Self {
        Run {
            known: file.known,
            saved: file.saved,
            sp: file.value[A::SP as usize],
            fp: file.value[A::FP as usize],
            pc: file.pc,
            file,
            memory,
            log,
            pending: 0,
            len: 0,
            _arch: core::marker::PhantomData,
        }
    }

    /// The PC of the frame the run is at.
    #[inline(always)]
    pub fn pc(&self) -> u64 {
        self.pc
    }

    /// Slots known.
    #[inline(always)]
    pub fn known(&self) -> u64 {
        self.known
    }

    /// Works out the save slots and values of the registers the logged
    /// steps found saved, into `file` (newest save first: each register's
    /// is its newest; within a step, its last), and empties the log.
    #[inline(always)]
    pub fn resolve(&mut self) {
        match self.len {
            0 => return,
            // One step (a run that syncs every frame): its saves, in line.
            1 => {
                // SAFETY: the first entry is written (`apply`).
                let (plan, cfa) = unsafe { self.log.0[0].assume_init() };
                // SAFETY: the logged plan is where it was (`apply`'s
                // contract).
                write_saves(self.file, self.memory, unsafe { &*plan }, cfa, self.pending);
            }
            n => resolve_log(
                self.file,
                self.memory,
                &self.log.0[..n.min(LOG)],
                self.pending,
            ),
        }
        self.pending = 0;
        self.len = 0;
    }

    /// Brings `file` up to date: the logged saves worked out, SP, the
    /// frame pointer and the masks written. The run goes on after it.
    #[inline(always)]
    pub fn sync(&mut self) -> &Registers {
        self.resolve();
        self.file.value[A::SP as usize] = self.sp;
        self.file.value[A::FP as usize] = self.fp;
        self.file.known = self.known;
        self.file.saved = self.saved;
        self.file.pc = self.pc;
        self.file
    }

    /// `file`, synced, to change outside the run (a slow step, a frame
    /// pointer step); [`Run::reload`] takes it back.
    #[inline(always)]
    pub fn file(&mut self) -> &mut Registers {
        self.sync();
        self.file
    }

    /// Takes `file` back after [`Run::file`]'s caller changed it.
    #[inline(always)]
    pub fn reload(&mut self) {
        self.known = self.file.known;
        self.saved = self.file.saved;
        self.sp = self.file.value[A::SP as usize];
        self.fp = self.file.value[A::FP as usize];
        self.pc = self.file.pc;
    }

    /// The value of slot `s`, known.
    #[inline(always)]
    fn value(&mut self, s: usize) -> u64 {
        if s == A::SP as usize {
            return self.sp;
        }
        if s == A::FP as usize {
            return self.fp;
        }
        if self.pending >> (s & 63) & 1 != 0 {
            self.resolve();
        }
        self.file.value[s.min(REGISTER_SLOTS - 1)]
    }

    /// The step of `plan`'s frame, changing nothing: its CFA and return
    /// address, or why the frame cannot be unwound, in the order of the
    /// rules: the CFA register unknown, the CFA not above SP, a read
    /// refused, the return address not saved, a return address of 0.
    #[inline(always)]
    pub fn check(&mut self, plan: &Plan) -> Result<Checked, Stop> {
        if let Some(c) = self.check_fast(plan) {
            return Ok(c);
        }
        let s = plan.cfa_slot as usize;
        let base = (self.known >> (s & 63) & 1 != 0).then(|| self.value(s));
        let sp = (self.known >> A::SP & 1 != 0).then_some(self.sp);
        check_exact::<A, M>(plan, base, sp, self.memory)
    }

    /// [`check`](Self::check) for the common frame, `None` for any other:
    /// a CFA off the stack pointer or the frame pointer, both known, the
    /// CFA above SP, every read in one span the memory allows at once, the
    /// return address saved and not 0.
    #[inline(always)]
    pub fn check_fast(&self, plan: &Plan) -> Option<Checked> {
        if plan.flags & flags::FAST == 0 || self.known & plan.fast_need != plan.fast_need {
            return None;
        }
        let base = if plan.cfa_slot as u16 == A::SP {
            self.sp
        } else {
            self.fp
        };
        let cfa = base.wrapping_add(plan.cfa_offset as i64 as u64);
        if cfa <= self.sp {
            return None;
        }
        let memory = self.memory;
        if !memory.can_read(
            cfa.wrapping_add(plan.low as i64 as u64),
            cfa.wrapping_add(plan.high as i64 as u64),
        ) {
            return None;
        }
        // SAFETY: a read of the step, in the span allowed above.
        let ra =
            unsafe { memory.read_u64_unchecked(cfa.wrapping_add(plan.ra_offset as i64 as u64)) };
        (ra != 0).then_some(Checked { cfa, ra })
    }

    /// The step [`check`](Self::check) found possible: the registers
    /// become the caller's. The callee-saved registers stay known (and
    /// saved), those the frame saved become so (their slots and values
    /// logged), the return address register becomes unknown (its value
    /// in the caller is not its value at the caller's call site), the
    /// others too; the caller's SP is the CFA, its PC the return address.
    ///
    /// # Safety
    /// `c` is what `check` gave for `plan` and these registers; `plan`
    /// stays where it is, unchanged, until the log is worked out
    /// ([`Run::resolve`], [`Run::sync`]): a plan that is not in a cache is
    /// worked out at once.
    #[inline(always)]
    pub unsafe fn apply(&mut self, plan: &Plan, c: Checked) {
        if plan.flags & flags::FP_SAVED != 0 {
            // SAFETY: a read of the step, checked by `check`.
            self.fp = unsafe {
                self.memory
                    .read_u64_unchecked(c.cfa.wrapping_add(plan.fp_offset as i64 as u64))
            };
        }
        if self.len >= LOG {
            self.resolve();
        }
        self.log.0[self.len % LOG].write((plan as *const Plan, c.cfa));
        self.len += 1;
        self.pending |= plan.set;
        let sp = 1u64 << A::SP;
        let keep = A::CALLEE_SAVED & !ra_bit::<A>();
        self.known = self.known & keep | plan.set | sp;
        self.saved = (self.saved & keep | plan.set) & !sp;
        self.sp = c.cfa;
        self.pc = c.ra;
    }

    /// Whether the registers `plan`'s kept roots need are known.
    #[inline(always)]
    pub fn knows_roots(&self, plan: &Plan) -> bool {
        self.known & plan.roots_need == plan.roots_need
    }

    /// Whether [`Run::root_slots`] gives `plan`'s roots' slots: the roots
    /// kept, each with a slot by the plan, the registers they need known
    /// and those whose save slots they are saved.
    #[inline(always)]
    pub fn has_root_slots(&self, plan: &Plan) -> bool {
        plan.flags & (flags::ROOTS | flags::SLOTS) == flags::ROOTS | flags::SLOTS
            && self.known & plan.roots_need == plan.roots_need
            && self.saved & plan.slots_need == plan.slots_need
    }

    /// The slots of `plan`'s roots, when [`Run::has_root_slots`] says the
    /// plan gives them: each location's word of the registers plus its
    /// offset, into `out`; how many.
    ///
    /// # Safety
    /// `out` is writable for `plan`'s roots (at most [`PLAN_ROOTS`]).
    #[inline(always)]
    pub unsafe fn root_slots(&mut self, plan: &Plan, out: *mut RootSlot) -> usize {
        let roots = plan.kept_roots();
        if plan.flags & flags::ONE_BASE != 0 {
            // Off SP or the frame pointer, both at hand: the register plus
            // each offset.
            let base = match plan.roots_need >> A::FP & 1 {
                0 => self.sp,
                _ => self.fp,
            };
            let at = |l: u64| base.wrapping_add((l as i64 >> 32) as u64);
            for (i, &[b, d]) in roots.iter().enumerate() {
                // SAFETY: the caller's promise.
                unsafe {
                    out.add(i).write(RootSlot {
                        base: at(b),
                        derived: at(d),
                    })
                };
            }
            return roots.len();
        }
        // Registers other than SP and the frame pointer, and every save
        // slot, are in `file` once the log is worked out.
        let in_registers = 1u64 << A::SP | 1u64 << A::FP;
        if (plan.roots_need & !in_registers | plan.slots_need) & self.pending != 0 {
            self.resolve();
        }
        self.file.value[A::SP as usize] = self.sp;
        self.file.value[A::FP as usize] = self.fp;
        let words = self.file.words();
        // Clamped: no index out of bounds whatever the plan holds.
        let slot =
            |l: u64| words[(l as u8 as usize).min(WORDS - 1)].wrapping_add((l as i64 >> 32) as u64);
        for (i, &[b, d]) in roots.iter().enumerate() {
            // SAFETY: the caller's promise.
            unsafe {
                out.add(i).write(RootSlot {
                    base: slot(b),
                    derived: slot(d),
                })
            };
        }
        roots.len()
    }

    /// `plan`'s kept roots decoded with the frame's registers, into `out`
    /// in record order (as [`decode`](super::decode) gives them). A
    /// register a root needs not known: the first such, in record order,
    /// before any is written.
    #[inline(always)]
    pub fn root_values<'o>(
        &mut self,
        plan: &Plan,
        out: &'o mut [MaybeUninit<RootValue>; PLAN_ROOTS],
    ) -> Result<&'o [RootValue], RootsError> {
        if self.known & plan.roots_need != plan.roots_need {
            return Err(plan.first_unknown::<A>(self.known));
        }
        decode_kept(plan, self.sync(), out)
    }
}

impl Plan {
    /// The kept roots decoded with the frame's registers `regs` (synced),
    /// into `out`, as [`Run::root_values`] gives them.
    #[inline]
    pub fn root_values<'o, A: Arch>(
        &self,
        regs: &Registers,
        out: &'o mut [MaybeUninit<RootValue>; PLAN_ROOTS],
    ) -> Result<&'o [RootValue], RootsError> {
        if regs.known & self.roots_need != self.roots_need {
            return Err(self.first_unknown::<A>(regs.known));
        }
        decode_kept(self, regs, out)
    }
}

/// Works out the save slots and values of `pending`, the registers the
/// logged steps `log` found saved, into `file`, newest step first.
#[inline(never)]
#[cold]
fn resolve_log<M: Memory>(
    file: &mut Registers,
    memory: &M,
    log: &[MaybeUninit<(*const Plan, u64)>],
    mut todo: u64,
) {
    // SAFETY: the run's first `len` entries are written (`apply`), and
    // `MaybeUninit<T>` is laid out as `T`.
    let log = unsafe { &*(log as *const [MaybeUninit<_>] as *const [(*const Plan, u64)]) };
    for &(plan, cfa) in log.iter().rev() {
        // SAFETY: each logged plan is where it was (`apply`'s contract).
        let plan = unsafe { &*plan };
        let here = plan.set & todo;
        if here == 0 {
            continue;
        }
        write_saves(file, memory, plan, cfa, here);
        todo &= !here;
        if todo == 0 {
            break;
        }
    }
}

/// The save slots and values of the registers `here` that the step of
/// `plan` at `cfa` found saved, into `file` (in the plan's order: a
/// register's last save is the one it keeps).
#[inline(always)]
fn write_saves<M: Memory>(file: &mut Registers, memory: &M, plan: &Plan, cfa: u64, here: u64) {
    for &s in plan.saves() {
        let slot = s as usize & 31;
        if here >> slot & 1 != 0 {
            let at = cfa.wrapping_add((s as i64 >> 32) as u64);
            file.address[slot] = at;
            // SAFETY: read by the step's checks (its span, or one by one);
            // the walk never writes the stack.
            file.value[slot] = unsafe { memory.read_u64_unchecked(at) };
        }
    }
}

/// [`Run::check`] of a frame `check_fast` did not pass: every rule, in
/// order, with the CFA register's value (`None`: not known) and SP's.
#[inline(never)]
#[cold]
fn check_exact<A: Arch, M: Memory>(
    plan: &Plan,
    base: Option<u64>,
    sp: Option<u64>,
    memory: &M,
) -> Result<Checked, Stop> {
    let base = base.ok_or(Stop::RegisterUnknown(A::dwarf(plan.cfa_slot as usize)))?;
    let cfa = base.wrapping_add(plan.cfa_offset as i64 as u64);
    if sp.is_some_and(|sp| cfa <= sp) {
        return Err(Stop::BadStack);
    }
    let at_once = plan.flags & flags::SPAN != 0
        && memory.can_read(
            cfa.wrapping_add(plan.low as i64 as u64),
            cfa.wrapping_add(plan.high as i64 as u64),
        );
    if !at_once {
        // Every read of the step, checked one by one.
        let read = |offset: i64| {
            memory
                .read_u64(cfa.wrapping_add(offset as u64))
                .map(|_| ())
                .ok_or(Stop::BadStack)
        };
        for &s in plan.saves() {
            read(s as i64 >> 32)?;
        }
        if plan.flags & flags::NO_RA == 0 {
            read(plan.ra_offset.into())?;
        }
    }
    if plan.flags & flags::NO_RA != 0 {
        return Err(Stop::ReturnAddressNotSaved);
    }
    // SAFETY: a read of the step, checked above.
    let ra = unsafe { memory.read_u64_unchecked(cfa.wrapping_add(plan.ra_offset as i64 as u64)) };
    if ra == 0 {
        return Err(Stop::EndOfStack);
    }
    Ok(Checked { cfa, ra })
}

/// `plan`'s kept roots decoded with the known registers `regs`, into
/// `out`.
#[inline(always)]
fn decode_kept<'o>(
    plan: &Plan,
    regs: &Registers,
    out: &'o mut [MaybeUninit<RootValue>; PLAN_ROOTS],
) -> Result<&'o [RootValue], RootsError> {
    let roots = plan.kept_roots();
    let indices = plan.root_indices();
    if plan.flags & flags::ONE_BASE != 0 && !roots.is_empty() {
        // Every location `Indirect` off one register: its value plus each
        // offset, the rest of each value constant.
        let s = ((roots[0][0] >> 8) as u8 as usize).min(REGISTER_SLOTS - 1);
        let base = regs.value[s];
        let slot = |l: u64| Value {
            address: base.wrapping_add((l as i64 >> 32) as u64),
            has_address: true,
            ..Value::default()
        };
        for ((&[b, d], &[bi, di]), o) in roots.iter().zip(indices).zip(out.iter_mut()) {
            o.write(RootValue {
                base: slot(b),
                derived: slot(d),
                base_index: bi,
                derived_index: di,
            });
        }
    } else {
        for ((&[b, d], &[bi, di]), o) in roots.iter().zip(indices).zip(out.iter_mut()) {
            o.write(RootValue {
                base: value_of(b, regs),
                derived: value_of(d, regs),
                base_index: bi,
                derived_index: di,
            });
        }
    }
    let given = &out[..roots.len()];
    // SAFETY: the first `roots.len()` were written above (at most
    // PLAN_ROOTS), and `MaybeUninit<T>` is laid out as `T`.
    Ok(unsafe { &*(given as *const [MaybeUninit<RootValue>] as *const [RootValue]) })
}

/// A kept location decoded with known registers `regs`.
#[inline(always)]
fn value_of(l: u64, regs: &Registers) -> Value {
    let s = ((l >> 8) as u8 as usize).min(REGISTER_SLOTS - 1);
    let offset = (l as i64 >> 32) as u64;
    let r = regs.value[s];
    let at = r.wrapping_add(offset);
    match (l >> 16) as u8 {
        k if k == LocationKind::Indirect as u8 => Value {
            address: at,
            has_address: true,
            ..Value::default()
        },
        k if k == LocationKind::Direct as u8 => Value {
            value: at,
            has_value: true,
            ..Value::default()
        },
        k if k == LocationKind::Register as u8 => {
            let saved = regs.saved >> s & 1 != 0;
            Value {
                value: r,
                address: if saved { regs.address[s] } else { 0 },
                has_value: true,
                has_address: saved,
            }
        }
        _ => Value {
            value: offset,
            has_value: true,
            ..Value::default()
        },
    }
}

/// The step of a frame at `record` whose plan does not fit
/// ([`Plan::compile`]): the same rules as a plan's, from the table, on
/// `regs` (changed into the caller's; unchanged on an error).
pub fn slow_step<A: Arch, T: UnwindTables, M: Memory>(
    tables: &T,
    memory: &M,
    regs: &mut Registers,
    record: &T::Record,
) -> Result<(), Stop> {
    let rule = match tables.state(record) {
        State::Cfa(rule) => rule,
        State::None => return Err(Stop::NoFrameState),
        State::NoCfaRule => return Err(Stop::NoCfaRule),
    };
    let base = regs
        .get::<A>(rule.register)
        .ok_or(Stop::RegisterUnknown(rule.register))?;
    let cfa = base.wrapping_add(rule.offset as i64 as u64);
    if regs.sp::<A>().is_some_and(|sp| cfa <= sp) {
        return Err(Stop::BadStack);
    }
    let mut next = *regs;
    let keep = A::CALLEE_SAVED & !ra_bit::<A>();
    next.known &= keep;
    next.saved &= keep;
    let (mut failed, mut ra) = (false, None);
    let ra_slot = A::slot(A::RA);
    tables.saved_registers(record, |dwarf, offset| {
        let Some(s) = A::slot(dwarf) else { return };
        let slot = cfa.wrapping_add(offset as i64 as u64);
        match memory.read_u64(slot) {
            // The last save of the return address column.
            Some(v) if Some(s) == ra_slot => ra = Some(v),
            Some(v) => {
                next.value[s] = v;
                next.address[s] = slot;
                next.known |= 1 << s;
                next.saved |= 1 << s;
            }
            None => failed = true,
        }
    })?;
    if failed {
        return Err(Stop::BadStack);
    }
    let ra = match (ra, A::RA_FROM_CFA) {
        (Some(ra), _) => ra,
        (None, Some(o)) => memory
            .read_u64(cfa.wrapping_add(o as i64 as u64))
            .ok_or(Stop::BadStack)?,
        (None, None) => return Err(Stop::ReturnAddressNotSaved),
    };
    if ra == 0 {
        return Err(Stop::EndOfStack);
    }
    next.known |= 1 << A::SP;
    next.saved &= !(1 << A::SP);
    next.value[A::SP as usize] = cfa;
    next.pc = ra;
    *regs = next;
    Ok(())
}
