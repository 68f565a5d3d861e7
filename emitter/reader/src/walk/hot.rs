//! A frame plan in the form a walk's hot loop reads: [`HotPlan`], built
//! from a [`DecodedFrame`] for the common frame shape, and the registers
//! of a run of such frames, [`HotRegisters`].
//!
//! The shape: a CFA that is SP or the frame pointer plus an offset, and
//! roots whose slots are off SP or the frame pointer (an `Indirect`
//! location) or are a register's save slot (a `Register` location); the
//! registers the step needs are callee-saved or SP, and those it finds
//! saved callee-saved. A run then needs only SP's and the frame pointer's
//! values, which it keeps in registers with one mask of what is missing
//! (which then only loses bits). A step logs its plan and its CFA (two
//! stores): where a saved register is is worked out from the log,
//! backwards from the newest frame, only when it is needed (a root in a
//! save slot, a full log, the run's end: [`HotRegisters::finish`]), and
//! the saved values are read at the end, when they are the values the
//! exact step reads (the walk reads the stack, never writes it).
//!
//! ```text
//! HotPlan, one load per item; the first 56 bytes and a cache slot's PC
//! fill one cache line:
//!    0  need        u64   slots that must be known (bits 0-31), and be
//!                         saved (32-63: the roots' save slots)
//!    8  set         u64   slots the step finds saved
//!   16  clear       u64   !(set | set << 32): what the step makes known
//!                         and saved
//!   24  cfa_offset, ra_offset, low, high, fp_offset   i32 each
//!   44  link        u32   the cache's: where the caller's entry is
//!   48  cfa_fp, fp_saved, num_saved, num_roots, one_base   u8
//!   56  roots[8]    [u64; 2]  per location: offset << 32 | word, or the
//!                             offset alone (one_base)
//!  184  saved[12]   u64   CFA offset << 32 | slot
//! ```

use core::mem::MaybeUninit;

use super::{
    caller_masks, plan_step, Arch, DecodedFrame, FastStep, Memory, Registers, RootSlot,
    ADDRESS_WORD, DECODED_ROOTS, DECODED_SAVED, VALUE_WORD, WORDS,
};

/// `HotPlan::need` of a frame without a hot form: every slot below 32
/// known, which a run never has (the caller-saved registers are unknown
/// after a step, and a plan needs only callee-saved registers and SP).
const NO_HOT_FORM: u64 = 0xffff_ffff;

/// Where [`HotPlan::need`] and [`HotRegisters`]' mask keep slots that
/// must be saved (below: known).
const SAVED_SHIFT: u32 = 32;

/// The bits of `Registers::known` and `Registers::saved` of slots below 32:
/// the only ones a run keeps (after a step, no other is known or saved).
const LOW: u64 = (1 << SAVED_SHIFT) - 1;

/// A [`DecodedFrame`] in the form a run of frames reads: every item one
/// word (see the module's layout). A frame of another shape has `need`
/// `NO_HOT_FORM`: [`HotPlan::check`] refuses it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotPlan {
    /// Slots that must be known: the CFA register's, SP's, the roots'
    /// (bits 0-31); slots whose save slot the roots' slots are (32-63).
    pub need: u64,
    /// Slots the step finds saved (known and saved after it).
    pub set: u64,
    /// `!(set | set << 32)`: the step's change to what a run misses.
    pub clear: u64,
    /// CFA = SP, or the frame pointer (`cfa_fp`), + `cfa_offset`.
    pub cfa_offset: i32,
    /// The return address is at CFA + `ra_offset`.
    pub ra_offset: i32,
    /// Every read of the step is an aligned word in `[CFA + low, CFA +
    /// high)`.
    pub low: i32,
    /// See `low`.
    pub high: i32,
    /// The frame pointer's save slot, CFA + `fp_offset` (`fp_saved`).
    pub fp_offset: i32,
    /// Not the plan's: a word for whatever keeps it (the C API's cache:
    /// where the caller's entry is), in the plan's first cache line.
    pub link: u32,
    /// 1: the CFA is the frame pointer's value + `cfa_offset`.
    pub cfa_fp: u8,
    /// 1: the step finds the frame pointer saved (at `fp_offset`).
    pub fp_saved: u8,
    /// Saved registers in `saved`.
    pub num_saved: u8,
    /// Roots in `roots`.
    pub num_roots: u8,
    /// Every root's locations are off one register: 1, SP; 2, the frame
    /// pointer (`roots` holds their offsets alone: a root's slots are the
    /// register + each, two adds at once); 0, not so.
    pub one_base: u8,
    /// The roots' base and derived locations: offset << 32 | the word of
    /// [`Registers::words`] it is added to (SP's value, the frame
    /// pointer's, or a save slot's address); with `one_base`, the offsets
    /// alone.
    pub roots: [[u64; 2]; DECODED_ROOTS],
    /// The saved registers: offset from the CFA << 32 | slot.
    pub saved: [u64; DECODED_SAVED],
}

impl HotPlan {
    /// `d`'s hot form, or one [`HotPlan::check`] refuses if `d` is not of
    /// the shape (module doc) or has no roots with slots.
    pub fn new(d: &DecodedFrame, arch: Arch) -> HotPlan {
        let mut h = HotPlan {
            need: 0,
            set: 0,
            clear: 0,
            cfa_offset: 0,
            ra_offset: 0,
            low: 0,
            high: 0,
            fp_offset: 0,
            link: 0,
            cfa_fp: 0,
            fp_saved: 0,
            num_saved: 0,
            num_roots: 0,
            one_base: 0,
            roots: [[0; 2]; DECODED_ROOTS],
            saved: [0; DECODED_SAVED],
        };
        h.fill(d, arch);
        h
    }

    /// Makes this `d`'s hot form ([`HotPlan::new`]) in place, but for
    /// `link` and the roots and saved registers past `d`'s, which it
    /// leaves as they are (never read): a cache entry's is written where
    /// it lies, with no array zeroed (a call to memset on some targets)
    /// and no constructor unrolled.
    pub fn fill(&mut self, d: &DecodedFrame, arch: Arch) {
        let h = self;
        let (sp, fp) = (arch.sp() as u8, arch.fp() as u8);
        let (sp_word, fp_word) = (VALUE_WORD + sp, VALUE_WORD + fp);
        let n = d.slot_roots as usize;
        let m = d.num_saved as usize;
        (h.need, h.set) = (NO_HOT_FORM, d.saved_mask);
        h.clear = !(d.saved_mask | d.saved_mask << SAVED_SHIFT);
        (h.cfa_offset, h.ra_offset) = (d.cfa_offset, d.ra_offset);
        (h.low, h.high) = (i32::from(d.reads_low) * 8, i32::from(d.reads_high) * 8);
        h.cfa_fp = u8::from(d.cfa_slot == fp && fp != sp);
        (h.num_saved, h.num_roots, h.fp_saved, h.one_base) = (d.num_saved, n as u8, 0, 0);
        let (Some(roots), Some(saved)) = (d.roots.get(..n), d.saved_slot.get(..m)) else {
            return;
        };
        // The mask a run keeps (`HotRegisters`) only loses bits: the step
        // needs callee-saved registers and SP alone, and finds only
        // callee-saved registers saved, which stay so in every caller
        // (all below 32).
        let (kept, kept_saved) = caller_masks(arch, !0, !0, 0);
        let fits = (d.cfa_slot == sp || d.cfa_slot == fp)
            && d.reads_low <= d.reads_high
            && d.has_roots()
            && d.step_need & !kept == 0
            && (d.saved_mask | d.slot_need) & !kept_saved == 0;
        if !fits {
            return;
        }
        // A root's word: SP's or the frame pointer's value, or a save
        // slot's address; no other register's value is kept in a run.
        // `all`: bit 0, every location is off SP; bit 1, off the frame
        // pointer.
        let mut all = 3u8;
        for (r, out) in roots.iter().zip(&mut h.roots) {
            for (l, o) in [&r.base, &r.derived].into_iter().zip(out) {
                if !(l.word == sp_word || l.word == fp_word || l.word >= ADDRESS_WORD) {
                    return;
                }
                all &= u8::from(l.word == sp_word) | u8::from(l.word == fp_word) << 1;
                *o = (l.offset as u32 as u64) << 32 | u64::from(l.word);
            }
        }
        // One register for all: the offsets alone (SP's if both, as
        // with no roots), for the vector add; without one, the general
        // path (the same slots).
        h.one_base = if VECTOR_ADD {
            [0, 1, 2, 1][usize::from(all)]
        } else {
            0
        };
        if h.one_base != 0 {
            for o in h.roots[..n].as_flattened_mut() {
                *o = (*o as i64 >> 32) as u64;
            }
        }
        for ((&s, &offset), out) in saved.iter().zip(&d.saved_offset).zip(&mut h.saved) {
            let s = s & 31;
            *out = (offset as u32 as u64) << 32 | u64::from(s);
            if s == fp {
                // The last save of it: what the exact step reads.
                (h.fp_saved, h.fp_offset) = (1, offset);
            }
        }
        h.need = d.step_need | d.slot_need << SAVED_SHIFT;
    }

    /// Whether this frame steps by its hot form with `regs` (what
    /// [`DecodedFrame::fast_step`] checks, and the roots' save slots
    /// known): the CFA and the return address; `None`: not by this form.
    #[inline(always)]
    pub fn check<M: Memory>(&self, memory: &M, regs: &HotRegisters<'_, '_>) -> Option<HotStep<'_>> {
        let h = self;
        if regs.missing & h.need != 0 {
            return None;
        }
        let roots = h.roots.get(..h.num_roots as usize)?;
        let base = if h.cfa_fp != 0 { regs.fp } else { regs.sp };
        let cfa = base.wrapping_add(h.cfa_offset as i64 as u64);
        let span = (i64::from(h.low), i64::from(h.high));
        let step = plan_step(memory, regs.sp, cfa, span, h.ra_offset)?;
        Some(HotStep { step, roots })
    }

    /// The step [`HotPlan::check`] found possible: the roots' slots with
    /// `regs` written to `out` (what [`DecodedFrame::root_slots`] gives for
    /// each), then `regs` become the caller's, as
    /// [`DecodedFrame::apply_fast_step`] leaves them once
    /// [`HotRegisters::finish`] works out the save slots and reads the
    /// saved values.
    ///
    /// # Safety
    /// `step` is what `check` gave for this plan, `memory` and `regs`,
    /// unchanged since; `out` is writable for `num_roots` slots.
    #[inline(always)]
    pub unsafe fn step<'p, M: Memory>(
        &'p self,
        memory: &M,
        arch: Arch,
        regs: &mut HotRegisters<'_, 'p>,
        step: HotStep<'p>,
        out: *mut RootSlot,
    ) {
        let h = self;
        // The log full, or roots in save slots: where the logged steps
        // found registers saved, worked out now.
        if regs.len >= LOG || h.need >> SAVED_SHIFT != 0 {
            regs.resolve();
        }
        let roots = step.roots;
        if VECTOR_ADD && h.one_base != 0 {
            let base = if h.one_base == 2 { regs.fp } else { regs.sp };
            // SAFETY: the caller's promise.
            unsafe { add_to_each(roots, base, out) };
        } else {
            // SP's and the frame pointer's values, which a run keeps out
            // of the registers' words until a root needs them.
            regs.file.value[arch.sp() as usize] = regs.sp;
            regs.file.value[arch.fp() as usize] = regs.fp;
            let words = regs.file.words();
            // Clamped: no index out of bounds whatever the plan holds.
            let slot = |l: u64| {
                words[(l as u8 as usize).min(WORDS - 1)].wrapping_add((l as i64 >> 32) as u64)
            };
            for (i, &[b, d]) in roots.iter().enumerate() {
                // SAFETY: the caller's promise.
                unsafe {
                    out.add(i).write(RootSlot {
                        base: slot(b),
                        derived: slot(d),
                    })
                };
            }
        }
        let cfa = step.step.cfa;
        if h.fp_saved != 0 {
            // SAFETY: a read of the step: in the span `check` allowed.
            regs.fp =
                unsafe { memory.read_u64_unchecked(cfa.wrapping_add(h.fp_offset as i64 as u64)) };
        }
        // The saved registers' slots: CFA + their offsets, worked out when
        // needed. `len` < LOG (above; masked: no check that cannot fail).
        regs.log.0[regs.len % LOG].write((h, cfa));
        regs.len += 1;
        // `caller_masks`, for a plan's registers (`HotPlan::fill`): the
        // registers found saved become known and saved, no other changes.
        regs.pending |= h.set;
        regs.missing &= h.clear;
        regs.sp = cfa;
    }
}

/// A step [`HotPlan::check`] found possible: the CFA, the return
/// address, and the plan's roots (their count checked).
#[derive(Debug, Clone, Copy)]
pub struct HotStep<'p> {
    step: FastStep,
    roots: &'p [[u64; 2]],
}

impl HotStep<'_> {
    /// How many roots the frame has.
    #[inline(always)]
    pub fn num_roots(&self) -> usize {
        self.roots.len()
    }
    /// The caller's PC (the return address): the registers' PC after
    /// [`HotPlan::step`], which a run keeps, not [`HotRegisters`].
    #[inline(always)]
    pub fn ra(&self) -> u64 {
        self.step.ra
    }
}

/// The frames a run logs before it works out their save slots: a power
/// of two.
const LOG: usize = 32;

/// The registers of a run of frames stepped by their [`HotPlan`]s (of
/// lifetime `'p`): SP, the frame pointer and a mask of what is missing
/// in fields (kept in registers by the compiler), each step's plan and
/// CFA in a log, from which the save slots' addresses are worked out into
/// the walk's [`Registers`] when needed; the values of the registers the
/// run found saved (`dirty`) are read from those slots by
/// [`HotRegisters::finish`].
#[derive(Debug)]
pub struct HotRegisters<'f, 'p> {
    /// The walk's registers, changed in place: the save slots' addresses
    /// as the run works them out; the rest stale until
    /// [`HotRegisters::finish`] (a reference: the fields alone are what
    /// the compiler keeps in registers).
    file: &'f mut Registers,
    /// Slots not known (bits 0-31: the complement of
    /// [`Registers::known`], as the run keeps it, `caller_masks` after a
    /// first step) and not saved (32-63, see [`Registers::saved`]), as
    /// [`HotPlan::need`] names them.
    missing: u64,
    /// SP's value.
    sp: u64,
    /// The frame pointer's value.
    fp: u64,
    /// Slots found saved by the steps whose log is worked out: their
    /// values are at their addresses.
    dirty: u64,
    /// Slots found saved by the steps in `log`.
    pending: u64,
    /// Steps in `log`.
    len: usize,
    /// Steps whose log is worked out.
    done: u32,
    /// Each step's plan and CFA, oldest first: the first `len` written
    /// (a reference: an array the compiler keeps apart from the fields).
    log: &'f mut HotLog<'p>,
}

/// Where a run ([`HotRegisters`]) logs its steps: each frame's plan and
/// CFA, from which the saved registers' slots are worked out.
#[derive(Debug)]
pub struct HotLog<'p>([MaybeUninit<(&'p HotPlan, u64)>; LOG]);

impl Default for HotLog<'_> {
    fn default() -> Self {
        HotLog([const { MaybeUninit::uninit() }; LOG])
    }
}

impl<'f, 'p> HotRegisters<'f, 'p> {
    /// `regs`, for a run that logs its steps in `log`. A plan needs and
    /// sets only registers the masks of a step keep (all below 32), so the
    /// masks start as they are after one.
    #[inline(always)]
    pub fn new(
        arch: Arch,
        regs: &'f mut Registers,
        log: &'f mut HotLog<'p>,
    ) -> HotRegisters<'f, 'p> {
        let (kept, kept_saved) = caller_masks(arch, !0, !0, 0);
        HotRegisters {
            missing: !(regs.known & kept & LOW | (regs.saved & kept_saved) << SAVED_SHIFT),
            sp: regs.value[arch.sp() as usize],
            fp: regs.value[arch.fp() as usize],
            dirty: 0,
            pending: 0,
            len: 0,
            done: 0,
            log,
            file: regs,
        }
    }

    /// Works out the save slots of the registers the logged steps found
    /// saved, and empties the log (`resolve_log`).
    #[inline(always)]
    fn resolve(&mut self) {
        resolve_log(self.file, self.log, self.len, self.pending);
        self.dirty |= self.pending;
        self.pending = 0;
        self.done = self.done.wrapping_add(self.len as u32);
        self.len = 0;
    }

    /// How many steps the run took.
    #[inline(always)]
    pub fn steps(&self) -> u32 {
        self.done.wrapping_add(self.len as u32)
    }

    /// Ends the run after its steps (at least one): the registers as
    /// [`DecodedFrame::apply_fast_step`] leaves them, the save slots
    /// worked out and the saved values read from them.
    ///
    /// # Safety
    /// The slots the run found saved were read by its checks' spans (they
    /// can be read again: the walk never writes the stack).
    #[inline(always)]
    pub unsafe fn finish<M: Memory>(mut self, memory: &M, arch: Arch, pc: u64) {
        self.resolve();
        let r = self.file;
        let mut dirty = self.dirty & LOW;
        while dirty != 0 {
            let s = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            // SAFETY: the caller's promise.
            r.value[s] = unsafe { memory.read_u64_unchecked(r.address[s]) };
        }
        r.value[arch.sp() as usize] = self.sp;
        r.value[arch.fp() as usize] = self.fp;
        let sp = 1 << arch.sp();
        r.known = !self.missing & LOW | sp;
        r.saved = !(self.missing >> SAVED_SHIFT) & LOW & !sp;
        r.pc = pc;
    }
}

/// Works out the save slots of `todo`, the registers the first `len`
/// steps of `log` found saved, into `file`, newest step first (each
/// register's is its newest save).
#[inline(never)]
#[cold]
fn resolve_log(file: &mut Registers, log: &HotLog<'_>, len: usize, mut todo: u64) {
    let log = &log.0[..len.min(LOG)];
    // SAFETY: the first `len` entries are written (`HotPlan::step`), and
    // `MaybeUninit<T>` is laid out as `T`.
    let log = unsafe { &*(log as *const [MaybeUninit<_>] as *const [(&HotPlan, u64)]) };
    for &(h, cfa) in log.iter().rev() {
        let here = h.set & todo;
        if here != 0 {
            // In the plan's order: the last save of a register in it is
            // what the exact step reads.
            for &s in h.saved.get(..h.num_saved as usize).unwrap_or(&[]) {
                let slot = s as usize & 31;
                if here >> slot & 1 != 0 {
                    file.address[slot] = cfa.wrapping_add((s as i64 >> 32) as u64);
                }
            }
            todo &= !here;
            if todo == 0 {
                break;
            }
        }
    }
}

/// Whether the target adds a root's two slots in one vector instruction
/// ([`add_to_each`]): x86-64 (SSE2). Elsewhere no plan has `one_base`.
const VECTOR_ADD: bool = cfg!(target_arch = "x86_64");

/// `out[i]` = each of `pairs[i]` + `x` (wrapping): a root's two slots off
/// one register in one vector add (SSE2; only x86-64 plans have
/// `one_base`).
///
/// # Safety
/// `out` is writable for `pairs.len()` slots.
#[inline(always)]
unsafe fn add_to_each(pairs: &[[u64; 2]], x: u64, out: *mut RootSlot) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{
            _mm_add_epi64, _mm_loadu_si128, _mm_set1_epi64x, _mm_storeu_si128,
        };
        // SAFETY: SSE2 is part of x86-64; unaligned loads and stores of
        // 16 bytes from a pair and into a slot (two u64s each), which the
        // caller made writable.
        unsafe {
            let v = _mm_set1_epi64x(x as i64);
            for (i, p) in pairs.iter().enumerate() {
                let sum = _mm_add_epi64(_mm_loadu_si128(p.as_ptr().cast()), v);
                _mm_storeu_si128(out.add(i).cast(), sum);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // Not reached: no plan has `one_base` here.
    let _ = (pairs, x, out);
}
