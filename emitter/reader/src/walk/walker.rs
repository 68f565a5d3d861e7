//! The walk itself: a [`Frame`] (the cursor's state: the C API's
//! `pcmap_walk` is this, field for field) moved up the stack by one run
//! loop ([`Walker::run`]) that gives each frame's roots to a [`Sink`]
//! (decoded roots, root slots, or nothing for a cursor's step), steps it by
//! its plan (or the slow way), and finds its caller: by the link of the
//! frame's cache slot, a probe of the cache, or a lookup in the tables
//! whose record is then compiled and kept.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::arch::Arch;
use super::cache::{Cache, Slot};
use super::memory::Memory;
use super::options::Options;
use super::plan::{slow_step, Log, Plan, Run, PLAN_ROOTS};
use super::registers::Registers;
use super::roots::{roots_in_batches, RootSlot, RootValue, RootsError};
use super::stop::Stop;
use super::tables::{lookup_in, FrameAt, State, UnwindTables};
use crate::flat::Pc;

/// [`Frame::at`]: the PC is in no function of the tables.
pub const AT_UNMANAGED: u32 = 0;
/// [`Frame::at`]: in [`Frame::function`], with no record at the PC.
pub const AT_NO_RECORD: u32 = 1;
/// [`Frame::at`]: in [`Frame::function`], at [`Frame::record`].
pub const AT_RECORD: u32 = 2;

/// A walk's current frame: its registers, what the tables say about its
/// PC, how deep it is. repr(C): the C API's `pcmap_walk` starts with it.
#[repr(C)]
pub struct Frame<F, R> {
    /// The frame's registers (`regs.pc` its PC).
    pub regs: Registers,
    /// Steps from the first frame.
    pub depth: u32,
    /// `AT_*`: what the tables say about the PC.
    pub at: u32,
    /// After [`Stop::RegisterUnknown`]: the DWARF register.
    pub stop_register: u16,
    /// The function containing the PC (valid unless `AT_UNMANAGED`).
    pub function: MaybeUninit<F>,
    /// The record at the PC (valid with `AT_RECORD`).
    pub record: MaybeUninit<R>,
    /// The cache slot the frame was found in, if any (checked before use:
    /// it may hold another PC's entry since).
    slot: *const Slot<F, R>,
    /// The cache's epoch when the walk began.
    epoch: u64,
}

impl<F: Copy, R: Copy> Frame<F, R> {
    /// A frame whose registers are `regs` (from a capture: the managed
    /// caller at its safepoint), to start a walk at ([`Walker::start`]).
    pub fn new(regs: Registers) -> Self {
        Frame {
            regs,
            depth: 0,
            at: AT_UNMANAGED,
            stop_register: 0,
            function: MaybeUninit::uninit(),
            record: MaybeUninit::uninit(),
            slot: core::ptr::null(),
            epoch: 0,
        }
    }

    /// What the tables say about the frame's PC.
    pub fn at(&self) -> FrameAt<&F, &R> {
        // SAFETY: `at` says which of `function` and `record` the walk
        // wrote (the walker's invariant; a C caller may only read them).
        unsafe {
            match self.at {
                AT_RECORD => FrameAt::Record(
                    self.function.assume_init_ref(),
                    self.record.assume_init_ref(),
                ),
                AT_NO_RECORD => FrameAt::NoRecord(self.function.assume_init_ref()),
                _ => FrameAt::Unmanaged,
            }
        }
    }

    /// The frame's record, if it is at one.
    #[inline(always)]
    fn current_record(&self) -> Option<&R> {
        // SAFETY: written when `at` is `AT_RECORD` (or `current_slot`'s).
        (self.at == AT_RECORD).then(|| unsafe { self.record.assume_init_ref() })
    }
}

/// Why a walk over the whole stack ([`Walker::run`]) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A frame could not be unwound: [`Stop::Unmanaged`] at the end of
    /// the managed stack, any other stop or error.
    Stop(Stop),
    /// A frame's roots could not be given (the walk stopped there).
    Roots(RootsError),
    /// The sink took no more roots (a slot buffer with nowhere to go).
    Full,
}

impl From<Stop> for End {
    fn from(s: Stop) -> Self {
        End::Stop(s)
    }
}

impl From<RootsError> for End {
    fn from(e: RootsError) -> Self {
        End::Roots(e)
    }
}

impl core::fmt::Display for End {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            End::Stop(s) => write!(f, "{s}"),
            End::Roots(e) => write!(f, "{e}"),
            End::Full => f.write_str("the roots do not fit in the sink"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for End {}

/// What a run gives of each frame with a record: decoded roots, root
/// slots, or nothing (a cursor's step).
pub trait Sink {
    /// Whether the sink takes roots at all.
    const ROOTS: bool;
    /// Whether it takes them as slots ([`Sink::room`]), not decoded
    /// ([`Sink::roots`]).
    const SLOTS: bool;
    /// The frame's roots, decoded with its registers `regs`, in record
    /// order: all of them, or (more than
    /// [`ROOTS_AT_ONCE`](super::ROOTS_AT_ONCE)) in several
    /// calls; one call with none for a frame without roots.
    fn roots(&mut self, regs: &Registers, depth: u32, roots: &[RootValue]) -> Result<(), End> {
        let _ = (regs, depth, roots);
        Ok(())
    }
    /// Room for `n` more slots: where to write them ([`Sink::wrote`] then
    /// counts them). A frame whose plan keeps its roots asks for all of
    /// them at once; any other, one at a time.
    fn room(&mut self, n: usize) -> Result<*mut RootSlot, End> {
        let _ = n;
        Err(End::Full)
    }
    /// `n` slots were written where [`Sink::room`] said.
    fn wrote(&mut self, n: usize) {
        let _ = n;
    }
    /// Where a run of cached frames may write slots without asking
    /// [`Sink::room`]: the next slot and the end of the room (null and
    /// null: nowhere, and frames go the general way). A run stops where a
    /// frame's slots do not fit.
    fn run_room(&mut self) -> (*mut RootSlot, *mut RootSlot) {
        (core::ptr::null_mut(), core::ptr::null_mut())
    }
    /// A run of cached frames wrote slots up to `next` (from
    /// [`Sink::run_room`]'s), the roots of `frames` frames.
    fn run_wrote(&mut self, next: *mut RootSlot, frames: u32) {
        let _ = (next, frames);
    }
    /// Every root of a frame was given.
    fn frame_done(&mut self) {}
}

/// The sink of a step that gives nothing.
pub struct Steps;

impl Sink for Steps {
    const ROOTS: bool = false;
    const SLOTS: bool = false;
}

/// A walk's context: the tables, the memory, the options, and the
/// architecture (`A`, at compile time). Cheap to make: the C API makes one
/// per call.
pub struct Walker<'t, A, T, M> {
    tables: &'t T,
    memory: M,
    options: Options,
    _arch: PhantomData<A>,
}

/// A cache for walks over tables `T`.
pub type CacheOf<'m, T> = Cache<'m, <T as UnwindTables>::Function, <T as UnwindTables>::Record>;
/// A frame of a walk over tables `T`.
pub type FrameOf<T> = Frame<<T as UnwindTables>::Function, <T as UnwindTables>::Record>;
/// A cache slot of tables `T`.
type SlotOf<T> = Slot<<T as UnwindTables>::Function, <T as UnwindTables>::Record>;
/// Where a lookup found a frame of tables `T` in a cache, if it did.
type Found<T> =
    Result<Option<*mut Slot<<T as UnwindTables>::Function, <T as UnwindTables>::Record>>, Stop>;

impl<'t, A: Arch, T: UnwindTables, M: Memory> Walker<'t, A, T, M> {
    /// A walk of `memory` with `tables`.
    pub fn new(tables: &'t T, memory: M, options: Options) -> Self {
        Walker {
            tables,
            memory,
            options,
            _arch: PhantomData,
        }
    }

    /// The tables.
    pub fn tables(&self) -> &'t T {
        self.tables
    }

    /// The memory.
    pub fn memory(&self) -> &M {
        &self.memory
    }

    /// Starts `frame` at the frame its registers describe, its PC looked
    /// up in the tables (through `cache`, bound to these tables first,
    /// unless the frame was interrupted: [`Options::interrupted`]).
    pub fn start(
        &self,
        frame: &mut FrameOf<T>,
        mut cache: Option<&mut CacheOf<'_, T>>,
    ) -> Result<(), Stop> {
        let pc = frame.regs.pc;
        frame.depth = 0;
        frame.stop_register = 0;
        frame.at = AT_UNMANAGED;
        frame.slot = core::ptr::null();
        frame.epoch = 0;
        if let Some(c) = cache.as_deref_mut() {
            c.bind(self.tables.cache_key());
            frame.epoch = c.epoch();
        }
        let mut parts = FrameParts {
            at: &mut frame.at,
            function: &mut frame.function,
            record: &mut frame.record,
        };
        if self.options.interrupted {
            // Not a return address, which is what the cache is keyed by.
            parts.look_up::<A, T, M>(self.tables, &self.memory, Pc::Instruction(pc))?;
            return Ok(());
        }
        let cache = cache.filter(|c| c.epoch() == frame.epoch);
        let slot = self.look_up(&mut parts, cache, pc)?;
        frame.slot = slot.map_or(core::ptr::null(), |s| s.cast_const());
        materialize(frame, slot);
        Ok(())
    }

    /// The cache slot of `frame`'s current frame, if it still holds it.
    #[inline(always)]
    fn current_slot(
        &self,
        frame: &FrameOf<T>,
        cache: Option<&CacheOf<'_, T>>,
    ) -> Option<*mut Slot<T::Function, T::Record>> {
        cache.filter(|c| c.epoch() == frame.epoch)?;
        let s = frame.slot.cast_mut();
        if s.is_null() || frame.at != AT_RECORD {
            return None;
        }
        // SAFETY: a non-null `slot` is one of the cache's (the walk found
        // the frame there; the cache's memory is the caller's for the
        // walk); checked to be the frame's (a later insert may have moved
        // another PC's entry there).
        let ok = unsafe { (*s).pc == frame.regs.pc && !(*s).plan.is_mark() };
        ok.then_some(s)
    }

    /// Looks `pc`, a return address, up through `cache` (a probe, else the
    /// tables, and a record that fits is compiled and kept; a PC in no
    /// function is kept as a mark), writing what the tables say into `f`
    /// (its function and record unless found in the cache: see
    /// [`materialize`]) and counting; the slot holding the frame.
    fn look_up(
        &self,
        f: &mut FrameParts<'_, T::Function, T::Record>,
        cache: Option<&mut CacheOf<'_, T>>,
        pc: u64,
    ) -> Found<T> {
        let Some(c) = cache else {
            f.look_up::<A, T, M>(self.tables, &self.memory, Pc::ReturnAddress(pc))?;
            return Ok(None);
        };
        if let Some(s) = c.find(pc) {
            c.hits = c.hits.wrapping_add(1);
            // SAFETY: one of the cache's slots.
            if unsafe { (*s).plan.is_mark() } {
                *f.at = AT_UNMANAGED;
                return Ok(None);
            }
            *f.at = AT_RECORD;
            return Ok(Some(s));
        }
        self.miss(f, c, pc)
    }

    /// `look_up` of a PC not in the cache.
    #[inline(never)]
    fn miss(
        &self,
        f: &mut FrameParts<'_, T::Function, T::Record>,
        c: &mut CacheOf<'_, T>,
        pc: u64,
    ) -> Found<T> {
        let at = f.look_up::<A, T, M>(self.tables, &self.memory, Pc::ReturnAddress(pc))?;
        match at {
            FrameAt::Record((), ()) => {
                // SAFETY: the lookup wrote both with `Record`.
                let (function, record) =
                    unsafe { (f.function.assume_init(), f.record.assume_init()) };
                let mut plan = MaybeUninit::uninit();
                let kept =
                    Plan::compile_in::<A, T>(self.tables, &record, &mut plan).and_then(|p| {
                        p.keep_roots::<A, T>(self.tables, &record);
                        c.keep(pc, p, function, record)
                    });
                match kept {
                    Some(_) => c.misses = c.misses.wrapping_add(1),
                    None => c.uncached = c.uncached.wrapping_add(1),
                }
                Ok(kept)
            }
            FrameAt::Unmanaged => {
                // Kept too: the walk's last lookup, in no function (the
                // slowest search), is then a probe.
                c.keep_mark(pc);
                c.uncached = c.uncached.wrapping_add(1);
                Ok(None)
            }
            FrameAt::NoRecord(_) => {
                c.uncached = c.uncached.wrapping_add(1);
                Ok(None)
            }
        }
    }

    /// Moves `frame` to its caller: `Ok`; or, leaving it where it is, why
    /// it cannot ([`Stop::Unmanaged`]: the end of the managed stack). A
    /// table the lookup of the caller's PC cannot read is an error after
    /// the move: the frame is then the caller's, `AT_UNMANAGED`.
    pub fn step(
        &self,
        frame: &mut FrameOf<T>,
        cache: Option<&mut CacheOf<'_, T>>,
    ) -> Result<(), Stop> {
        match self.run(frame, cache, &mut Steps, 1) {
            Ok(()) => Ok(()),
            Err(End::Stop(s)) => Err(s),
            // A step gives no roots.
            Err(_) => Err(Stop::BadStack),
        }
    }

    /// The current frame's CFA, when it has a record with a register +
    /// offset CFA rule whose register is known.
    pub fn cfa(&self, frame: &FrameOf<T>) -> Option<u64> {
        let record = frame.current_record()?;
        let State::Cfa(rule) = self.tables.state(record) else {
            return None;
        };
        let base = frame.regs.get::<A>(rule.register)?;
        Some(base.wrapping_add(rule.offset as i64 as u64))
    }

    /// The current frame's roots, decoded with its registers, to `batch`
    /// in record order (all of them, or more than
    /// [`ROOTS_AT_ONCE`](super::ROOTS_AT_ONCE) in
    /// several slices; one empty slice for a record without roots), every
    /// one decoded before the first is given: from its cache slot's plan,
    /// else from the table. [`RootsError::RegisterUnknown`]: a root's
    /// register the frame does not know (the first, in record order).
    /// `Ok` with nothing given for a frame without a record.
    pub fn roots(
        &self,
        frame: &FrameOf<T>,
        cache: Option<&CacheOf<'_, T>>,
        batch: &mut dyn FnMut(&[RootValue]),
    ) -> Result<(), RootsError> {
        let Some(record) = frame.current_record() else {
            return Ok(());
        };
        if let Some(s) = self.current_slot(frame, cache) {
            // SAFETY: the frame's slot, in the caller's cache memory.
            let plan = unsafe { &(*s).plan };
            if plan.has_roots() {
                let mut out = [const { MaybeUninit::uninit() }; PLAN_ROOTS];
                batch(plan.root_values::<A>(&frame.regs, &mut out)?);
                return Ok(());
            }
        }
        roots_in_batches::<A, T>(self.tables, record, &frame.regs, batch)
    }

    /// Walks from `frame` (started) up to `steps` steps (`u32::MAX`: the
    /// whole stack), giving each frame with a record to `sink` before
    /// stepping it. `Ok` after `steps` steps, the frame at the last one's
    /// caller; `Err` where the walk ended: a step that failed (the frame is
    /// the one it could not unwind), a frame whose roots could not be
    /// given (the frame is that one), the sink's refusal.
    pub fn run<S: Sink>(
        &self,
        frame: &mut FrameOf<T>,
        cache: Option<&mut CacheOf<'_, T>>,
        sink: &mut S,
        steps: u32,
    ) -> Result<(), End> {
        let mut cache = cache.filter(|c| c.epoch() == frame.epoch);
        let mut slot = self.current_slot(frame, cache.as_deref());
        let Frame {
            regs,
            depth,
            at,
            stop_register,
            function,
            record,
            ..
        } = frame;
        let mut log = Log::default();
        let mut run = Run::<A, M>::new(regs, &self.memory, &mut log);
        let parts = FrameState {
            depth,
            at,
            stop_register,
            function,
            record,
        };
        let ended = self.run_from(&mut run, parts, &mut cache, &mut slot, sink, steps);
        // Wherever the walk ended, its registers are the frame's.
        run.sync();
        materialize(frame, slot);
        frame.slot = slot.map_or(core::ptr::null(), |s| s.cast_const());
        ended
    }

    /// `run`'s loop, with `slot` the current frame's cache slot (`None`:
    /// the frame's function and record are `frame`'s). Each frame is either
    /// one of a run of cached frames (its plan's checks pass, and its
    /// sink takes its roots by the plan: it steps, and its caller's slot is
    /// found by its link; counters and depth kept in registers until the
    /// run ends), or goes the general way: its roots by the plan or the
    /// table, its step by the plan or the slow way (with the exact
    /// reason when it cannot step), its caller by a link, a probe or a
    /// lookup.
    #[inline(always)]
    fn run_from<S: Sink>(
        &self,
        run: &mut Run<'_, A, M>,
        frame: FrameState<'_, T::Function, T::Record>,
        cache: &mut Option<&mut CacheOf<'_, T>>,
        slot: &mut Option<*mut Slot<T::Function, T::Record>>,
        sink: &mut S,
        steps: u32,
    ) -> Result<(), End> {
        let tables = self.tables;
        let FrameState {
            depth,
            at,
            stop_register,
            function,
            record,
        } = frame;
        let mut taken = 0u32;
        loop {
            if taken >= steps {
                return Ok(());
            }
            // A run of cached frames, from this one: `from`, the slot of the
            // last frame it stepped if its caller is not linked.
            let mut from = None;
            if let (Some(s), Some(c)) = (*slot, cache.as_deref_mut()) {
                let budget = (steps - taken).min(self.options.max_frames.saturating_sub(*depth));
                let (ran, end) = cached_run::<A, T, M, S>(run, c, s, sink, *depth, budget)?;
                *depth += ran;
                taken += ran;
                match end {
                    // Stepped from `s` to a caller not linked.
                    RunEnd::LookUp(s) => from = Some(s),
                    // At `s`, which goes the general way.
                    RunEnd::At(s) => *slot = Some(s),
                }
                if from.is_none() && taken >= steps {
                    continue;
                }
            }
            if from.is_none() {
                // The general way. The frame's record: its slot's, or what
                // the lookup wrote.
                let here: Option<&T::Record> = match (*at == AT_RECORD, *slot) {
                    // SAFETY: a slot of the cache that holds the frame
                    // (found by a link, a probe or a keep); its record was
                    // written.
                    (true, Some(s)) => Some(unsafe { (*s).record.assume_init_ref() }),
                    // SAFETY: written by the lookup with `AT_RECORD`.
                    (true, None) => Some(unsafe { record.assume_init_ref() }),
                    _ => None,
                };
                // Its plan: the slot's, or compiled now.
                let mut compiled = MaybeUninit::<Plan>::uninit();
                let plan: Option<&Plan> = match (*slot, here) {
                    // SAFETY: as above.
                    (Some(s), _) => Some(unsafe { &(*s).plan }),
                    (None, Some(r)) => {
                        Plan::compile_in::<A, T>(tables, r, &mut compiled).map(|p| {
                            if S::ROOTS {
                                p.keep_roots::<A, T>(tables, r);
                            }
                            &*p
                        })
                    }
                    (None, None) => None,
                };
                if let (true, Some(r)) = (S::ROOTS, here) {
                    give_roots::<A, T, M, S>(tables, run, plan, r, *depth, sink)?;
                }
                if *depth >= self.options.max_frames {
                    return Err(Stop::BadStack.into());
                }
                let stepped = match plan {
                    Some(p) => match run.check(p) {
                        Ok(c) => {
                            // SAFETY: a slot's plan stays where it is until
                            // the log is worked out (before any slot is
                            // claimed: below); a plan compiled here is
                            // worked out now.
                            unsafe { run.apply(p, c) };
                            if slot.is_none() {
                                run.resolve();
                            }
                            Ok(())
                        }
                        Err(e) => Err(e),
                    },
                    None => {
                        let file = run.file();
                        let s = self.step_without_plan(file, *at, here);
                        run.reload();
                        s
                    }
                };
                if let Err(e) = stepped {
                    if let Stop::RegisterUnknown(r) = e {
                        *stop_register = r;
                    }
                    return Err(e.into());
                }
                *depth = depth.saturating_add(1);
                taken += 1;
                from = slot.take();
            } else {
                *slot = None;
            }
            // The caller: by the link of this frame's slot, else a probe
            // or a lookup (the log worked out first: a claim moves slots).
            let pc = run.pc();
            let linked = match (cache.as_deref(), from) {
                // SAFETY: `from` is one of the cache's slots.
                (Some(c), Some(f)) => unsafe { c.linked(f, pc) },
                _ => None,
            };
            match (linked, cache.as_deref_mut()) {
                (Some(to), Some(c)) => {
                    c.hits = c.hits.wrapping_add(1);
                    *at = AT_RECORD;
                    *slot = Some(to);
                }
                (_, c) => {
                    run.resolve();
                    let mut f = FrameParts {
                        at: &mut *at,
                        function: &mut *function,
                        record: &mut *record,
                    };
                    let found = match self.look_up(&mut f, c, pc) {
                        Ok(found) => found,
                        Err(e) => {
                            // The walk is at the caller, of which nothing
                            // is known.
                            *at = AT_UNMANAGED;
                            return Err(e.into());
                        }
                    };
                    if let (Some(c), Some(f), Some(to)) = (cache.as_deref(), from, found) {
                        // SAFETY: `f` is one of the cache's slots (or where
                        // a claim moved another entry: a link is checked
                        // before use).
                        unsafe { (*f).plan.link = c.link_to(to) };
                    }
                    *slot = found;
                }
            }
        }
    }

    /// The step of a frame without a plan, on its synced registers `regs`:
    /// the slow way for a record whose plan does not fit; for a frame
    /// without a table entry, the frame pointer chain if the options allow
    /// it (not for a CFA expression), else the stop that says why.
    #[inline(never)]
    fn step_without_plan(
        &self,
        regs: &mut Registers,
        at: u32,
        record: Option<&T::Record>,
    ) -> Result<(), Stop> {
        let state = record.map(|r| self.tables.state(r));
        if let (Some(r), Some(State::Cfa(_))) = (record, state) {
            return slow_step::<A, T, M>(self.tables, &self.memory, regs, r);
        }
        let stop = match (at, state) {
            (AT_NO_RECORD, _) => Stop::NoRecord,
            (AT_RECORD, Some(State::None)) => Stop::NoFrameState,
            (AT_RECORD, _) => Stop::NoCfaRule,
            _ => Stop::Unmanaged,
        };
        // An expression is not replaced by a guess either.
        if !self.options.frame_pointer_chain || stop == Stop::NoCfaRule {
            return Err(stop);
        }
        let next = A::chain_step(regs, &self.memory)?;
        if next.pc == 0 {
            return Err(Stop::EndOfStack);
        }
        *regs = next;
        Ok(())
    }
}

/// The parts of a [`Frame`] a run changes, beside its registers.
struct FrameState<'a, F, R> {
    depth: &'a mut u32,
    at: &'a mut u32,
    stop_register: &'a mut u16,
    function: &'a mut MaybeUninit<F>,
    record: &'a mut MaybeUninit<R>,
}

/// The parts of a [`Frame`] a lookup writes.
struct FrameParts<'a, F, R> {
    at: &'a mut u32,
    function: &'a mut MaybeUninit<F>,
    record: &'a mut MaybeUninit<R>,
}

impl<F: Copy, R: Copy> FrameParts<'_, F, R> {
    /// Looks `pc` up in `tables` ([`lookup_in`]), writing what they say
    /// into the frame in place.
    #[inline(always)]
    fn look_up<A: Arch, T: UnwindTables<Function = F, Record = R>, M: Memory>(
        &mut self,
        tables: &T,
        memory: &M,
        pc: Pc,
    ) -> Result<FrameAt<(), ()>, Stop> {
        let at = lookup_in::<A, T, M>(tables, memory, pc, self.function, self.record)?;
        *self.at = match at {
            FrameAt::Unmanaged => AT_UNMANAGED,
            FrameAt::NoRecord(()) => AT_NO_RECORD,
            FrameAt::Record((), ()) => AT_RECORD,
        };
        Ok(at)
    }
}

/// Copies the function and record of the frame's slot into `frame` (a
/// frame found in the cache has them there): a cursor's caller reads them.
#[inline]
fn materialize<F: Copy, R: Copy>(frame: &mut Frame<F, R>, slot: Option<*mut Slot<F, R>>) {
    if let (Some(s), AT_RECORD) = (slot, frame.at) {
        // One copy of both, with the padding between them: both structs
        // are repr(C) with `function` then `record`, so the record is as
        // far from the function in each (asserted). (Copied one by one, a
        // record of the C API's, ~110 bytes, was compiled at opt-level s
        // to `rep movsq`, which made a cached cursor's step half as slow
        // again.)
        let (from, to) = (
            core::mem::offset_of!(Slot<F, R>, function),
            core::mem::offset_of!(Frame<F, R>, function),
        );
        let gap = core::mem::offset_of!(Frame<F, R>, record) - to;
        const {
            assert!(
                core::mem::offset_of!(Slot<F, R>, record)
                    - core::mem::offset_of!(Slot<F, R>, function)
                    == core::mem::offset_of!(Frame<F, R>, record)
                        - core::mem::offset_of!(Frame<F, R>, function)
            )
        };
        // SAFETY: the slot holds the frame's entry (found by a link, a
        // probe or a keep, nothing claimed since), its function and record
        // written; it is in the cache's memory, not in the frame (copies,
        // not moves: the C library links no memmove). The span copied is
        // the function, the padding after it and the record in each
        // struct (same offsets: asserted above).
        unsafe {
            core::ptr::copy_nonoverlapping(
                s.cast::<u8>().add(from),
                (frame as *mut Frame<F, R>).cast::<u8>().add(to),
                gap + core::mem::size_of::<R>(),
            );
        }
    }
}

/// How a run of cached frames ([`cached_run`]) ended.
enum RunEnd<S> {
    /// At the frame in this slot, whose plan's checks or sink do not let
    /// it step in the run (or the run's budget is spent): it goes the
    /// general way.
    At(S),
    /// Stepped from the frame in this slot to a caller its link does not
    /// lead to.
    LookUp(S),
}

/// A run of cached frames from the one in slot `s`, at most `budget`
/// steps: each frame whose plan's checks pass ([`Run::check_fast`]) and
/// whose sink takes its roots by the plan gives them and steps, and its
/// caller is the slot its link leads to. How many steps it took, and where
/// it ended. The plans stay in their slots for the run: nothing is claimed
/// in it. Its counts stay in machine registers until it ends; a slot sink's
/// room is asked once ([`Sink::run_room`]).
#[inline(always)]
fn cached_run<A: Arch, T: UnwindTables, M: Memory, S: Sink>(
    run: &mut Run<'_, A, M>,
    cache: &mut CacheOf<'_, T>,
    mut s: *mut Slot<T::Function, T::Record>,
    sink: &mut S,
    depth: u32,
    budget: u32,
) -> Result<(u32, RunEnd<*mut SlotOf<T>>), End> {
    let links = cache.links();
    let (mut out, room_end) = match S::SLOTS {
        true => sink.run_room(),
        false => (core::ptr::null_mut(), core::ptr::null_mut()),
    };
    let mut ran = 0u32;
    let end = loop {
        if ran >= budget {
            break Ok(RunEnd::At(s));
        }
        // SAFETY: a slot of the cache holding the frame's entry.
        let p = unsafe { &(*s).plan };
        // The plan's checks first (nothing changes if they fail), then the
        // sink's: the frame then goes the general way, whole.
        let Some(c) = run.check_fast(p) else {
            break Ok(RunEnd::At(s));
        };
        if S::SLOTS {
            let n = p.num_roots();
            if !run.has_root_slots(p) || out.wrapping_add(n) > room_end {
                break Ok(RunEnd::At(s));
            }
            // SAFETY: room for `n` (above), in the sink's buffer.
            out = unsafe { out.add(run.root_slots(p, out)) };
        } else if S::ROOTS {
            match give_by_plan::<A, M, S>(run, p, depth + ran, sink) {
                Ok(true) => {}
                Ok(false) => break Ok(RunEnd::At(s)),
                Err(e) => break Err(e),
            }
        }
        // SAFETY: `check_fast` of this plan and registers; the plan stays
        // in its slot until the log is worked out (nothing is claimed
        // before).
        unsafe { run.apply(p, c) };
        ran += 1;
        // SAFETY: `s` is one of the cache's slots.
        match unsafe { links.linked(s, run.pc()) } {
            Some(to) => s = to,
            None => break Ok(RunEnd::LookUp(s)),
        }
    };
    if S::SLOTS {
        // Every frame stepped gave its slots.
        let given = ran;
        sink.run_wrote(out, given);
    }
    // Every step but one ending unlinked followed a link.
    let linked = ran - u32::from(matches!(end, Ok(RunEnd::LookUp(_))));
    cache.hits = cache.hits.wrapping_add(u64::from(linked));
    end.map(|end| (ran, end))
}

/// Gives the roots of a frame by its plan `plan`, if the plan keeps them
/// and (slots) every one has a slot by it and its registers are known and
/// saved: `Ok(false)`, nothing given, otherwise.
#[inline(always)]
fn give_by_plan<A: Arch, M: Memory, S: Sink>(
    run: &mut Run<'_, A, M>,
    plan: &Plan,
    depth: u32,
    sink: &mut S,
) -> Result<bool, End> {
    if S::SLOTS {
        if !run.has_root_slots(plan) {
            return Ok(false);
        }
        let n = plan.num_roots();
        let out = sink.room(n)?;
        // SAFETY: `room` gave room for `n`, the plan's roots.
        let n = unsafe { run.root_slots(plan, out) };
        sink.wrote(n);
        sink.frame_done();
        return Ok(true);
    }
    if !plan.has_roots() || !run.knows_roots(plan) {
        return Ok(false);
    }
    let mut out = [const { MaybeUninit::uninit() }; PLAN_ROOTS];
    let roots = run.root_values(plan, &mut out)?;
    // The registers, synced by `root_values`.
    sink.roots(run.sync(), depth, roots)?;
    sink.frame_done();
    Ok(true)
}

/// Gives the roots of the frame at `record` (whose plan is `plan`, if it
/// has one) to `sink`: by the plan where it keeps them (slots: where every
/// root has a slot by it and its registers are known and saved), else
/// from the table, every root decoded (and, for slots, checked to have
/// one) before the first is given.
#[inline(always)]
fn give_roots<A: Arch, T: UnwindTables, M: Memory, S: Sink>(
    tables: &T,
    run: &mut Run<'_, A, M>,
    plan: Option<&Plan>,
    record: &T::Record,
    depth: u32,
    sink: &mut S,
) -> Result<(), End> {
    if let Some(p) = plan {
        if give_by_plan::<A, M, S>(run, p, depth, sink)? {
            return Ok(());
        }
        // Kept roots whose registers are not known: the first, in record
        // order, as the table would say.
        if !S::SLOTS && p.has_roots() {
            let mut out = [const { MaybeUninit::uninit() }; PLAN_ROOTS];
            run.root_values(p, &mut out)?;
        }
    }
    if S::SLOTS {
        return slots_from_table::<A, T, S>(tables, run.sync(), record, sink);
    }
    let regs = *run.sync();
    let mut given = Ok(());
    roots_in_batches::<A, T>(tables, record, &regs, &mut |b| {
        if given.is_ok() {
            given = sink.roots(&regs, depth, b);
        }
    })?;
    given?;
    sink.frame_done();
    Ok(())
}

/// [`give_roots`]' slots from the table, with the frame's registers
/// `regs`: every root decoded and checked to have a slot, then given one at
/// a time.
#[inline(never)]
fn slots_from_table<A: Arch, T: UnwindTables, S: Sink>(
    tables: &T,
    regs: &Registers,
    record: &T::Record,
    sink: &mut S,
) -> Result<(), End> {
    let regs = *regs;
    let mut no_slot = false;
    roots_in_batches::<A, T>(tables, record, &regs, &mut |b| {
        no_slot |= b
            .iter()
            .any(|r| !(r.base.has_address & r.derived.has_address));
    })?;
    if no_slot {
        return Err(RootsError::NoSlot.into());
    }
    let mut given = Ok(());
    roots_in_batches::<A, T>(tables, record, &regs, &mut |b| {
        for r in b {
            if given.is_err() {
                return;
            }
            given = sink.room(1).map(|out| {
                // SAFETY: `room` gave room for one.
                unsafe {
                    out.write(RootSlot {
                        base: r.base.address,
                        derived: r.derived.address,
                    })
                };
                sink.wrote(1);
            });
        }
    })?;
    given?;
    sink.frame_done();
    Ok(())
}
