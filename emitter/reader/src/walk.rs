//! Walking a stack with the flat tables alone: an unwind cursor over
//! managed frames, decoding locations with each frame's registers, and
//! the GC roots of a frame.
//!
//! ```text
//!  frame 0  (pc = safepoint's return address, registers captured at the call)
//!    | lookup(pc): function containing pc, record at pc, its frame state
//!    | CFA = value(CFA register) + CFA offset
//!    | callee-saved registers: value = [CFA + slot offset], address = the slot
//!    | return address: x86-64 [CFA - 8]; AArch64 the saved x30;
//!    |                 PowerPC64 the saved LR (65), else the LR save
//!    |                 doubleword at [CFA + 16]
//!    v SP = CFA, pc = return address, caller-saved registers unknown
//!  frame 1  ...
//! ```
//!
//! Nothing here allocates, locks or keeps global state: a walk is plain
//! arithmetic over the caller's [`Registers`], reads of the table and reads
//! of the stack through the caller's [`Memory`]. It is async-signal-safe
//! when `Memory` is (the C API's is: plain loads, checked against bounds).
//!
//! The cursor never guesses. A frame it cannot unwind exactly stops the
//! walk with a [`Stop`] naming why: a PC outside every function of the
//! tables (the end of the managed stack), a PC with no record (no frame
//! state is known there), a record without a frame state or whose CFA is
//! not register + offset, or a register the rule needs that is not known.
//! On request ([`Options::frame_pointer_chain`]) it continues through a
//! frame without a table entry by the frame pointer chain, which the caller
//! asserts such frames keep; registers that chain cannot restore become
//! unknown, and a later frame that needs them stops.

mod hot;
pub use hot::{HotLog, HotPlan, HotRegisters, HotStep};

use crate::flat::Pc;
use crate::{Location, LocationKind};

/// Register slots of a [`Registers`]: DWARF registers 0..=31 (x86-64 uses
/// 0..=15), and PowerPC64's link register (DWARF 65) in slot 32.
pub const REGISTER_SLOTS: usize = 33;

/// An architecture's unwinding conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// x86-64 (System V).
    X86_64,
    /// AArch64 (AAPCS64).
    AArch64,
    /// Both ELF ABIs (v1 big-endian, v2 little-endian): the conventions the
    /// walker uses are the same.
    PowerPc64,
}

impl Arch {
    /// The architecture this code is compiled for, if the walker supports it.
    pub const HOST: Option<Arch> = if cfg!(target_arch = "x86_64") {
        Some(Arch::X86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(Arch::AArch64)
    } else if cfg!(target_arch = "powerpc64") {
        Some(Arch::PowerPc64)
    } else {
        None
    };

    /// DWARF number of the stack pointer (RSP 7, SP 31, r1 1).
    pub const fn sp(self) -> u16 {
        match self {
            Arch::X86_64 => 7,
            Arch::AArch64 => 31,
            Arch::PowerPc64 => 1,
        }
    }
    /// DWARF number of the frame pointer (RBP 6, x29, r31).
    pub const fn fp(self) -> u16 {
        match self {
            Arch::X86_64 => 6,
            Arch::AArch64 => 29,
            Arch::PowerPc64 => 31,
        }
    }
    /// DWARF number of the return address column (RIP 16, x30, LR 65).
    pub const fn return_address(self) -> u16 {
        match self {
            Arch::X86_64 => 16,
            Arch::AArch64 => 30,
            Arch::PowerPc64 => 65,
        }
    }
    /// The slot of DWARF register `dwarf` in [`Registers`], if tracked.
    #[inline(always)]
    pub const fn slot(self, dwarf: u16) -> Option<usize> {
        match (self, dwarf) {
            (Arch::X86_64, 0..=15) | (Arch::AArch64, 0..=31) | (Arch::PowerPc64, 0..=31) => {
                Some(dwarf as usize)
            }
            (Arch::PowerPc64, 65) => Some(32),
            _ => None,
        }
    }
    /// Slots of the general registers a callee preserves, by the ABI (the
    /// stack pointer apart): x86-64 RBX, RBP, R12-R15; AArch64 x19-x29;
    /// PowerPC64 r14-r31. Their values in a caller equal the callee's
    /// unless the callee's frame state says it saved them.
    pub const fn callee_saved(self) -> u64 {
        match self {
            Arch::X86_64 => 1 << 3 | 1 << 6 | 0xf << 12,
            Arch::AArch64 => 0x7ff << 19,
            Arch::PowerPc64 => 0x3ffff << 14,
        }
    }
}

/// One frame's general registers: which are known, their values, and
/// where each was saved (so that a collector can update a root held in a
/// register of a caller: the slot its callee restores it from).
///
/// The layout is the C API's `pcmap_registers`, which the capture
/// trampolines fill in.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registers {
    /// The frame's PC: for every frame a walk reaches, a return address.
    pub pc: u64,
    /// Bit `i`: `value[i]` is known.
    pub known: u64,
    /// Bit `i`: `address[i]` is where `value[i]` is stored in memory.
    pub saved: u64,
    /// Register values by slot ([`Arch::slot`]).
    pub value: [u64; REGISTER_SLOTS],
    /// Save slot addresses by slot, where `saved` says so.
    pub address: [u64; REGISTER_SLOTS],
}

impl Default for Registers {
    fn default() -> Self {
        Registers {
            pc: 0,
            known: 0,
            saved: 0,
            value: [0; REGISTER_SLOTS],
            address: [0; REGISTER_SLOTS],
        }
    }
}

/// Words of a [`Registers`] ([`Registers::words`]): pc, known, saved,
/// the values, the save slot addresses.
pub const WORDS: usize = 3 + 2 * REGISTER_SLOTS;
/// The word of `value[0]` in [`Registers::words`].
const VALUE_WORD: u8 = 3;
/// The word of `address[0]`.
const ADDRESS_WORD: u8 = 3 + REGISTER_SLOTS as u8;

const _: () = assert!(core::mem::size_of::<Registers>() == WORDS * 8);

impl Registers {
    /// The registers as words, in field order (pc, known, saved, `value`,
    /// `address`): one indexed load for any of them.
    #[inline(always)]
    pub fn words(&self) -> &[u64; WORDS] {
        // SAFETY: repr(C), every field a u64 or an array of them: no
        // padding (size asserted above), alignment that of u64.
        unsafe { &*(self as *const Registers).cast::<[u64; WORDS]>() }
    }
    /// The value of DWARF register `dwarf`, if known.
    #[inline(always)]
    pub fn get(&self, arch: Arch, dwarf: u16) -> Option<u64> {
        let s = arch.slot(dwarf)?;
        (self.known >> s & 1 != 0).then(|| self.value[s])
    }
    /// Where the value of DWARF register `dwarf` is stored, if it is.
    #[inline(always)]
    pub fn address(&self, arch: Arch, dwarf: u16) -> Option<u64> {
        let s = arch.slot(dwarf)?;
        (self.known >> s & self.saved >> s & 1 != 0).then(|| self.address[s])
    }
    /// Sets DWARF register `dwarf` (ignored if not tracked).
    #[inline(always)]
    pub fn set(&mut self, arch: Arch, dwarf: u16, value: u64, address: Option<u64>) {
        if let Some(s) = arch.slot(dwarf) {
            self.value[s] = value;
            self.known |= 1 << s;
            match address {
                Some(a) => {
                    self.address[s] = a;
                    self.saved |= 1 << s;
                }
                None => self.saved &= !(1 << s),
            }
        }
    }
    /// Forgets DWARF register `dwarf`.
    #[inline(always)]
    pub fn forget(&mut self, arch: Arch, dwarf: u16) {
        if let Some(s) = arch.slot(dwarf) {
            self.known &= !(1 << s);
            self.saved &= !(1 << s);
        }
    }
    /// The stack pointer, if known.
    pub fn sp(&self, arch: Arch) -> Option<u64> {
        self.get(arch, arch.sp())
    }
}

/// How far from a frame's CFA a plan's reads are at most
/// ([`DecodedFrame::reads_low`], [`DecodedFrame::reads_high`]: `i8` words).
pub const SPAN_REACH: u64 = 128 * 8;

/// Reads of the stack being walked.
pub trait Memory {
    /// The 8-byte word at `address` in the walked program's byte order, or
    /// `None` if it may not be read (outside the stack, misaligned).
    fn read_u64(&self, address: u64) -> Option<u64>;
    /// The instruction word at `address` (a return address), or `None` if
    /// code may not be read. Used on PowerPC64 only (see [`lookup`]).
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        let _ = address;
        None
    }
    /// Whether [`read_u64`](Self::read_u64) would give a value for every
    /// 8-aligned address in `[low, high)` (`low` itself 8-aligned): one
    /// check for all of a frame's reads, which then go through
    /// [`read_u64_unchecked`](Self::read_u64_unchecked). `false` (the
    /// default) is always correct: the reads are then checked one by one.
    fn can_read(&self, low: u64, high: u64) -> bool {
        let _ = (low, high);
        false
    }
    /// Whether [`can_read`](Self::can_read) allows every span of
    /// 8-aligned words within [`SPAN_REACH`] bytes of `center` (an
    /// 8-aligned address): a plan's step asks this first, one compare for
    /// a frame whose CFA is not near the stack's ends. `false` (the
    /// default) is always correct.
    fn can_read_near(&self, center: u64) -> bool {
        let _ = center;
        false
    }
    /// The word at `address`, 8-aligned, in a span
    /// [`can_read`](Self::can_read) (or
    /// [`can_read_near`](Self::can_read_near)) allowed: what `read_u64`
    /// gives there, without its checks.
    ///
    /// # Safety
    /// `can_read` returned true for a span holding `address`, which is
    /// 8-aligned.
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        self.read_u64(address).unwrap_or(0)
    }
}

/// PowerPC64 instructions that may follow a call to another function's
/// global entry: `nop` (the linker found no TOC change) and the TOC
/// pointer reload, ELFv2 `ld r2, 24(r1)` and ELFv1 `ld r2, 40(r1)`.
const POWERPC64_TOC_RESTORES: [u32; 3] = [0x6000_0000, 0xe841_0018, 0xe841_0028];

/// What the tables say about `pc` ([`Pc`]: a walk's frames have return
/// addresses, but for a first frame that was interrupted).
///
/// On PowerPC64 a call to a function outside the caller's module (or
/// through a pointer) is followed by the TOC restore slot, and a stack map
/// after the call is recorded after that instruction: when no record is at
/// `pc`, the instruction at `pc` is one of the TOC restores (read from the
/// code) and a record is at `pc + 4`, that record is the frame's. The
/// restore writes only r2, so the frame state and the values the record
/// describes are those at `pc`. The record after the restore is looked up
/// as the return address `pc + 4` (it may be the function's end).
#[inline]
pub fn lookup<T: UnwindTables, M: Memory>(
    tables: &T,
    memory: &M,
    arch: Arch,
    pc: Pc,
) -> crate::Result<FrameAt<T::Function, T::Record>> {
    let at = tables.frame_at(pc)?;
    let address = pc.address();
    if matches!(at, FrameAt::NoRecord(_)) && toc_restore_at(memory, arch, address) {
        let after = Pc::ReturnAddress(address.wrapping_add(4));
        if let next @ FrameAt::Record(..) = tables.frame_at(after)? {
            return Ok(next);
        }
    }
    Ok(at)
}

/// Whether the instruction at return address `pc` is a PowerPC64 TOC
/// restore (always false on other architectures): then a record at
/// `pc + 4` is the frame's (see [`lookup`]).
#[inline]
pub fn toc_restore_at<M: Memory>(memory: &M, arch: Arch, pc: u64) -> bool {
    arch == Arch::PowerPc64
        && memory
            .read_code_u32(pc)
            .is_some_and(|insn| POWERPC64_TOC_RESTORES.contains(&insn))
}

/// A register + offset CFA rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfaRule {
    /// DWARF number of the register the CFA is computed from.
    pub register: u16,
    /// Added to that register's value.
    pub offset: i32,
}

/// What the tables say about one PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameAt<F, R> {
    /// No function of the tables contains it.
    Unmanaged,
    /// Function `F` contains it, but no record is at it.
    NoRecord(F),
    /// Record `R` of function `F` is at it, with its frame state.
    Record(F, R, State),
}

/// A record's frame state, as far as a walk needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// No CFI described the code at the record.
    None,
    /// The CFA is a DWARF expression (or otherwise not register + offset).
    NoCfaRule,
    /// CFA = register + offset.
    Cfa(CfaRule),
}

/// What a step needs of the tables: the registers a record's frame state
/// says are saved.
pub trait FrameStates {
    /// A record, with what [`saved_registers`](Self::saved_registers)
    /// needs of it.
    type Record: Copy;
    /// Calls `visit(DWARF register, slot offset from the CFA)` for each
    /// register the record's frame state says is saved.
    fn saved_registers(
        &self,
        record: &Self::Record,
        visit: impl FnMut(u16, i32),
    ) -> crate::Result<()>;
}

/// The tables a walk looks PCs up in.
pub trait UnwindTables: FrameStates {
    /// A function, as the caller wants it named.
    type Function: Copy;
    /// The function containing `pc` and the record exactly at it (by the
    /// rule of [`Pc`]: a return address is in the function holding the
    /// byte before it).
    fn frame_at(&self, pc: Pc) -> crate::Result<FrameAt<Self::Function, Self::Record>>;
}

/// Why a walk stopped at a frame: the frame is the cursor's current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The PC is in no function of the tables: the end of the managed
    /// stack (the runtime's own C frames, `main`).
    Unmanaged,
    /// The PC is in a managed function, but no record is at it, so no
    /// frame state is known there.
    NoRecord,
    /// The record has no frame state (no CFI covered it).
    NoFrameState,
    /// The record's CFA is not register + offset.
    NoCfaRule,
    /// The rule needs this DWARF register, whose value is not known (a
    /// caller-saved register, or one a frame pointer step could not
    /// restore).
    RegisterUnknown(u16),
    /// AArch64: the frame state does not say where x30 was saved.
    ReturnAddressNotSaved,
    /// The return address is 0, or the frame pointer chain ended (0).
    EndOfStack,
    /// The CFA is not above the stack pointer, a read `Memory` refused, or
    /// the frame limit was reached: the stack or the table is not what the
    /// walk expects.
    BadStack,
    /// The table could not be read.
    Table(crate::Error),
}

impl From<crate::Error> for Stop {
    fn from(e: crate::Error) -> Self {
        Stop::Table(e)
    }
}

/// How a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Continue through a frame without a table entry (unmanaged, or no
    /// record at its PC) by the frame pointer chain: x86-64 RBP (caller's
    /// RBP at `[RBP]`, return address at `[RBP + 8]`, CFA = RBP + 16);
    /// AArch64 x29 (frame record {x29, x30} at `[x29]`; the caller's SP is
    /// not known); PowerPC64 the back chain (caller's r1 at `[r1]`, return
    /// address at `[caller's r1 + 16]`). The caller asserts that every such
    /// frame keeps it: the walker cannot check. It does check that the
    /// chain goes up the stack (x86-64 and AArch64: a frame record lies
    /// above SP, when known, and above the slot its address was saved in;
    /// PowerPC64: the back chain rises), so that a chain that loops stops
    /// with [`Stop::BadStack`].
    pub frame_pointer_chain: bool,
    /// Steps after which a walk stops with [`Stop::BadStack`].
    pub max_frames: u32,
    /// The first frame's PC is the address of an instruction not yet run
    /// (an interrupted context: a signal handler's, a profiler's sample),
    /// not a return address ([`Pc`]). A frame captured by a call (the C
    /// API's `pcmap_capture_call`) has a return address, as every frame a
    /// walk steps to does.
    pub interrupted: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frame_pointer_chain: false,
            max_frames: 1 << 20,
            interrupted: false,
        }
    }
}

/// An unwind cursor: the current frame's registers and what the tables
/// say about its PC.
#[derive(Debug, Clone)]
pub struct Cursor<'t, T: UnwindTables, M> {
    tables: &'t T,
    memory: M,
    arch: Arch,
    options: Options,
    regs: Registers,
    at: FrameAt<T::Function, T::Record>,
    depth: u32,
}

impl<'t, T: UnwindTables, M: Memory> Cursor<'t, T, M> {
    /// A cursor at the frame whose registers are `regs` (from a capture
    /// trampoline: the managed caller at its safepoint).
    pub fn new(
        tables: &'t T,
        memory: M,
        arch: Arch,
        regs: Registers,
        options: Options,
    ) -> Result<Self, Stop> {
        let pc = match options.interrupted {
            true => Pc::Instruction(regs.pc),
            false => Pc::ReturnAddress(regs.pc),
        };
        let at = lookup(tables, &memory, arch, pc)?;
        Ok(Cursor {
            tables,
            memory,
            arch,
            options,
            regs,
            at,
            depth: 0,
        })
    }

    /// The architecture walked.
    pub fn arch(&self) -> Arch {
        self.arch
    }
    /// The current frame's registers.
    pub fn registers(&self) -> &Registers {
        &self.regs
    }
    /// What the tables say about the current frame's PC.
    pub fn frame(&self) -> &FrameAt<T::Function, T::Record> {
        &self.at
    }
    /// Steps taken so far (the current frame's depth).
    pub fn depth(&self) -> u32 {
        self.depth
    }
    /// The current frame's CFA, if its frame state gives it.
    pub fn cfa(&self) -> Option<u64> {
        match self.at {
            FrameAt::Record(_, _, State::Cfa(rule)) => self
                .regs
                .get(self.arch, rule.register)
                .map(|v| v.wrapping_add(rule.offset as i64 as u64)),
            _ => None,
        }
    }

    /// Moves to the caller's frame; on `Err` the cursor stays at the frame
    /// it could not unwind.
    pub fn step(&mut self) -> Result<(), Stop> {
        if self.depth >= self.options.max_frames {
            return Err(Stop::BadStack);
        }
        let mut next = self.regs;
        self.step_exact(&mut next)?;
        self.at = lookup(
            self.tables,
            &self.memory,
            self.arch,
            Pc::ReturnAddress(next.pc),
        )?;
        self.regs = next;
        self.depth += 1;
        Ok(())
    }

    /// The caller's registers into `next` (the frame's own on entry) by
    /// the tables, as [`step_in_place`] with this cursor's frame: the step
    /// of [`step`](Self::step), and of [`step_cached`](Self::step_cached)
    /// on a miss.
    fn step_exact(&self, next: &mut Registers) -> Result<(), Stop> {
        step_in_place(
            self.tables,
            &self.memory,
            self.arch,
            self.options,
            next,
            &self.at,
        )
    }
}

/// The caller's registers of the frame whose registers are `regs` and
/// whose PC the tables describe as `at` (what [`Cursor::step`] does before
/// looking the caller's PC up): by the frame's CFI row, or by the frame
/// pointer chain if `options` allows and the frame has no table entry.
/// Ignores `options.max_frames`.
#[inline]
pub fn step_from<F, T: FrameStates, M: Memory>(
    tables: &T,
    memory: &M,
    arch: Arch,
    options: Options,
    regs: &Registers,
    at: &FrameAt<F, T::Record>,
) -> Result<Registers, Stop> {
    let u = Unwinder {
        tables,
        memory,
        arch,
        regs,
    };
    let next = match at {
        FrameAt::Record(_, record, State::Cfa(rule)) => u.unwind(record, *rule)?,
        other => {
            if !options.frame_pointer_chain {
                return Err(match other {
                    FrameAt::Unmanaged => Stop::Unmanaged,
                    FrameAt::NoRecord(_) => Stop::NoRecord,
                    FrameAt::Record(_, _, State::None) => Stop::NoFrameState,
                    FrameAt::Record(_, _, _) => Stop::NoCfaRule,
                });
            }
            match other {
                // An expression is not replaced by a guess either.
                FrameAt::Record(_, _, State::NoCfaRule) => return Err(Stop::NoCfaRule),
                _ => u.frame_pointer_step()?,
            }
        }
    };
    if next.pc == 0 {
        return Err(Stop::EndOfStack);
    }
    Ok(next)
}

/// Saved registers [`step_in_place`] reads before it changes anything;
/// a frame state with more tracked ones goes through [`step_from`].
const SAVED_AT_ONCE: usize = 40;

/// [`step_from`], changing `regs` into the caller's registers in place
/// (no copy of the register set); on `Err` `regs` is unchanged.
#[inline]
pub fn step_in_place<F, T: FrameStates, M: Memory>(
    tables: &T,
    memory: &M,
    arch: Arch,
    options: Options,
    regs: &mut Registers,
    at: &FrameAt<F, T::Record>,
) -> Result<(), Stop> {
    let FrameAt::Record(_, record, State::Cfa(rule)) = at else {
        *regs = step_from(tables, memory, arch, options, regs, at)?;
        return Ok(());
    };
    let base = regs
        .get(arch, rule.register)
        .ok_or(Stop::RegisterUnknown(rule.register))?;
    let cfa = base.wrapping_add(rule.offset as i64 as u64);
    if regs.sp(arch).is_some_and(|sp| cfa <= sp) {
        return Err(Stop::BadStack);
    }
    // Every read first, into `read`: nothing changes if one fails. Left
    // uninitialised (zeroing its 960 bytes cost more than the rest of a
    // step); only the first `n` are written and read.
    let mut read = [const { core::mem::MaybeUninit::<(u8, u64, u64)>::uninit() }; SAVED_AT_ONCE];
    let (mut n, mut failed, mut overflow) = (0, false, false);
    tables.saved_registers(record, |dwarf, offset| {
        let Some(s) = arch.slot(dwarf) else { return };
        let slot = cfa.wrapping_add(offset as i64 as u64);
        match (memory.read_u64(slot), read.get_mut(n)) {
            (Some(v), Some(r)) => {
                r.write((s as u8, v, slot));
                n += 1;
            }
            (None, _) => failed = true,
            (_, None) => overflow = true,
        }
    })?;
    if failed {
        return Err(Stop::BadStack);
    }
    if overflow {
        *regs = step_from(tables, memory, arch, options, regs, at)?;
        return Ok(());
    }
    // SAFETY: the first `n` entries were written above (`n` never exceeds
    // SAVED_AT_ONCE: `get_mut` failed past it); MaybeUninit<T> has T's layout.
    let read: &[(u8, u64, u64)] = unsafe { core::slice::from_raw_parts(read.as_ptr().cast(), n) };
    let ra_slot = arch.slot(arch.return_address());
    // The last save of the column, as the registers take it (a frame
    // state lists a register once; a damaged table may not).
    let saved_ra = read
        .iter()
        .rfind(|r| Some(r.0 as usize) == ra_slot)
        .map(|r| r.1);
    let ra = match arch {
        Arch::X86_64 => memory.read_u64(cfa.wrapping_sub(8)).ok_or(Stop::BadStack)?,
        Arch::AArch64 => saved_ra.ok_or(Stop::ReturnAddressNotSaved)?,
        Arch::PowerPc64 => match saved_ra {
            Some(ra) => ra,
            None => memory
                .read_u64(cfa.wrapping_add(16))
                .ok_or(Stop::BadStack)?,
        },
    };
    if ra == 0 {
        return Err(Stop::EndOfStack);
    }
    let keep = arch.callee_saved();
    regs.known &= keep;
    regs.saved &= keep;
    for &(s, v, a) in read {
        let s = s as usize;
        regs.value[s] = v;
        regs.address[s] = a;
        regs.known |= 1 << s;
        regs.saved |= 1 << s;
    }
    regs.forget(arch, arch.return_address());
    regs.set(arch, arch.sp(), cfa, None);
    regs.pc = ra;
    Ok(())
}

/// One step's inputs.
struct Unwinder<'a, T, M> {
    tables: &'a T,
    memory: &'a M,
    arch: Arch,
    regs: &'a Registers,
}

impl<T: FrameStates, M: Memory> Unwinder<'_, T, M> {
    fn read(&self, address: u64) -> Result<u64, Stop> {
        self.memory.read_u64(address).ok_or(Stop::BadStack)
    }

    /// The caller's registers by the current frame's CFI row.
    #[inline]
    fn unwind(&self, record: &T::Record, rule: CfaRule) -> Result<Registers, Stop> {
        let arch = self.arch;
        let base = self
            .regs
            .get(arch, rule.register)
            .ok_or(Stop::RegisterUnknown(rule.register))?;
        let cfa = base.wrapping_add(rule.offset as i64 as u64);
        if let Some(sp) = self.regs.sp(arch) {
            if cfa <= sp {
                return Err(Stop::BadStack);
            }
        }
        let mut next = *self.regs;
        let keep = arch.callee_saved();
        next.known &= keep;
        next.saved &= keep;
        let mut failed = false;
        self.tables.saved_registers(record, |dwarf, offset| {
            if let Some(s) = arch.slot(dwarf) {
                let slot = cfa.wrapping_add(offset as i64 as u64);
                match self.memory.read_u64(slot) {
                    Some(v) => {
                        next.value[s] = v;
                        next.address[s] = slot;
                        next.known |= 1 << s;
                        next.saved |= 1 << s;
                    }
                    None => failed = true,
                }
            }
        })?;
        if failed {
            return Err(Stop::BadStack);
        }
        let ra_column = arch.return_address();
        next.pc = match arch {
            Arch::X86_64 => self.read(cfa.wrapping_sub(8))?,
            Arch::AArch64 => next
                .get(arch, ra_column)
                .ok_or(Stop::ReturnAddressNotSaved)?,
            Arch::PowerPc64 => match next.get(arch, ra_column) {
                Some(ra) => ra,
                None => self.read(cfa.wrapping_add(16))?,
            },
        };
        // The return address register's value in the caller is not its
        // value at the caller's call site.
        next.forget(arch, ra_column);
        next.set(arch, arch.sp(), cfa, None);
        Ok(next)
    }

    /// The caller's registers by the frame pointer chain.
    fn frame_pointer_step(&self) -> Result<Registers, Stop> {
        let arch = self.arch;
        // Nothing of this frame's registers is known in the caller but what
        // the chain gives (a copy with the masks cleared: no memset).
        let mut next = *self.regs;
        next.known = 0;
        next.saved = 0;
        match arch {
            Arch::X86_64 | Arch::AArch64 => {
                let fp = self
                    .regs
                    .get(arch, arch.fp())
                    .ok_or(Stop::RegisterUnknown(arch.fp()))?;
                if fp == 0 {
                    return Err(Stop::EndOfStack);
                }
                if self.regs.sp(arch).is_some_and(|sp| fp < sp) {
                    return Err(Stop::BadStack);
                }
                // A frame record lies above the slot its FP was saved in
                // (a callee's frame): on AArch64, where a chain step
                // leaves SP unknown, this is what ends a chain that loops.
                if self
                    .regs
                    .address(arch, arch.fp())
                    .is_some_and(|slot| fp <= slot)
                {
                    return Err(Stop::BadStack);
                }
                next.pc = self.read(fp.wrapping_add(8))?;
                next.set(arch, arch.fp(), self.read(fp)?, Some(fp));
                if arch == Arch::X86_64 {
                    // push rbp; mov rbp, rsp: the frame's CFA is RBP + 16.
                    next.set(arch, arch.sp(), fp.wrapping_add(16), None);
                }
            }
            Arch::PowerPc64 => {
                let sp = self.regs.sp(arch).ok_or(Stop::RegisterUnknown(arch.sp()))?;
                let caller_sp = self.read(sp)?;
                if caller_sp == 0 {
                    return Err(Stop::EndOfStack);
                }
                if caller_sp <= sp {
                    return Err(Stop::BadStack);
                }
                next.pc = self.read(caller_sp.wrapping_add(16))?;
                next.set(arch, arch.sp(), caller_sp, None);
            }
        }
        Ok(next)
    }
}

/// A location decoded for a frame: its value, where it is stored, or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Value {
    /// The value: a register's contents, a `Direct` address, a constant.
    pub value: Option<u64>,
    /// Where the value is stored: an `Indirect` slot, or a register's save
    /// slot (a collector updates a root there).
    pub address: Option<u64>,
}

/// Why a location could not be decoded for a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The location names this DWARF register, whose value in the frame is
    /// not known.
    RegisterUnknown(u16),
    /// A `ConstantIndex` the table does not have.
    Table(crate::Error),
}

impl From<crate::Error> for DecodeError {
    fn from(e: crate::Error) -> Self {
        DecodeError::Table(e)
    }
}

/// Decodes `loc` in the frame whose registers are `regs`; `constant`
/// gives a `ConstantIndex`'s large constant. Reads no memory.
#[inline(always)]
pub fn decode(
    loc: &Location,
    arch: Arch,
    regs: &Registers,
    constant: impl FnOnce(u32) -> crate::Result<u64>,
) -> Result<Value, DecodeError> {
    let reg = || {
        regs.get(arch, loc.dwarf_reg)
            .ok_or(DecodeError::RegisterUnknown(loc.dwarf_reg))
    };
    let at = |base: u64| base.wrapping_add(loc.offset as i64 as u64);
    Ok(match loc.kind {
        LocationKind::Register => Value {
            value: Some(reg()?),
            address: regs.address(arch, loc.dwarf_reg),
        },
        LocationKind::Direct => Value {
            value: Some(at(reg()?)),
            address: None,
        },
        LocationKind::Indirect => Value {
            value: None,
            address: Some(at(reg()?)),
        },
        LocationKind::Constant => Value {
            value: Some(loc.offset as i64 as u64),
            address: None,
        },
        LocationKind::ConstantIndex => Value {
            value: Some(constant(loc.offset as u32)?),
            address: None,
        },
    })
}

/// Locations of a statepoint record before its relocated pointers:
/// calling convention, flags, number of deopt locations (then that many
/// deopt locations).
pub const STATEPOINT_HEADER: usize = 3;

/// Which locations of a record are GC roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootLayout {
    /// A statepoint: after its constant header and deopt locations,
    /// (base, derived) pairs.
    Statepoint,
    /// A stack map or patch point: every location is a root by itself.
    EveryLocation,
}

impl RootLayout {
    /// The layout of a record of `kind` (its stored byte); a kind not
    /// known ([`RecordKind::Unknown`](crate::flat::RecordKind::Unknown):
    /// an object compiled without the plugin's site descriptions, or a
    /// byte that is no kind) has none: which locations are roots is not
    /// known ([`RootsError::UnknownKind`]).
    pub fn of(kind: u8) -> Result<RootLayout, RootsError> {
        use crate::flat::RecordKind;
        match RecordKind::from_u8(kind) {
            Some(RecordKind::StatePoint) => Ok(RootLayout::Statepoint),
            Some(RecordKind::StackMap | RecordKind::PatchPoint) => Ok(RootLayout::EveryLocation),
            _ => Err(RootsError::UnknownKind),
        }
    }
}

/// A root: the location of a derived pointer and of its base (the same
/// location for a plain root), with their indices among the record's
/// locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Root {
    /// The base pointer's location.
    pub base: Location,
    /// The derived pointer's location (the base's for a plain root).
    pub derived: Location,
    /// Index of `base` among the record's locations.
    pub base_index: u16,
    /// Index of `derived` among the record's locations.
    pub derived_index: u16,
}

/// Why a record's roots could not be listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsError {
    /// A statepoint's header is not three constants, its deopt count runs
    /// past its locations, or its pointers are not in pairs.
    NotAStatepoint,
    /// The record's kind is not known ([`RootLayout::of`]): the object was
    /// finished without the plugin's site descriptions (or `pcmap emit
    /// --ir`).
    UnknownKind,
    /// A location the table could not give.
    Table(crate::Error),
}

impl From<crate::Error> for RootsError {
    fn from(e: crate::Error) -> Self {
        RootsError::Table(e)
    }
}

/// Calls `f` with every root among `locations` (a record's, in order;
/// `constant` resolves a `ConstantIndex` deopt count), decoding each
/// location once, until `f` fails. A statepoint's header and deopt
/// locations are checked before the first root; a malformed record is an
/// error, which may come after some roots were passed to `f` (an odd
/// number of pointers is found at the end). One plain loop, no iterator
/// state: the stack walker's roots are this loop inlined.
#[inline(always)]
pub fn try_roots<I, E>(
    layout: RootLayout,
    mut locations: I,
    constant: impl Fn(u32) -> crate::Result<u64>,
    mut f: impl FnMut(Root) -> Result<(), E>,
) -> Result<(), E>
where
    I: Iterator<Item = crate::Result<Location>>,
    E: From<RootsError>,
{
    // The next location and its index; `None` after the last. A macro,
    // not a closure: the loop stays one function at every optimisation
    // level (a closure returning nested enums was not inlined at -Os).
    let mut index = 0u16;
    macro_rules! next {
        () => {
            match locations.next() {
                None => None,
                Some(Ok(l)) => {
                    index = index.wrapping_add(1);
                    Some((index.wrapping_sub(1), l))
                }
                Some(Err(e)) => return Err(RootsError::Table(e).into()),
            }
        };
    }
    if layout == RootLayout::Statepoint {
        let mut deopt = 0u64;
        for _ in 0..STATEPOINT_HEADER {
            let Some((_, l)) = next!() else {
                return Err(RootsError::NotAStatepoint.into());
            };
            deopt = match l.kind {
                LocationKind::Constant => l.offset as i64 as u64,
                LocationKind::ConstantIndex => match constant(l.offset as u32) {
                    Ok(v) => v,
                    Err(e) => return Err(RootsError::Table(e).into()),
                },
                _ => return Err(RootsError::NotAStatepoint.into()),
            };
        }
        // The deopt locations: decoded (so a corrupt one is an error),
        // not roots.
        for _ in 0..deopt {
            if next!().is_none() {
                return Err(RootsError::NotAStatepoint.into());
            }
        }
    }
    while let Some((base_index, base)) = next!() {
        let (derived_index, derived) = match layout {
            RootLayout::EveryLocation => (base_index, base),
            RootLayout::Statepoint => match next!() {
                Some(d) => d,
                None => return Err(RootsError::NotAStatepoint.into()),
            },
        };
        f(Root {
            base,
            derived,
            base_index,
            derived_index,
        })?;
    }
    Ok(())
}

/// Calls `visit` with every root among `locations` ([`try_roots`]). A
/// malformed record is an error, which may come after some roots were
/// visited: a caller that must not act on part of a record collects the
/// roots first (the C API's `pcmap_walk_roots` does).
pub fn roots<I>(
    layout: RootLayout,
    locations: I,
    constant: impl Fn(u32) -> crate::Result<u64>,
    mut visit: impl FnMut(Root),
) -> Result<(), RootsError>
where
    I: Iterator<Item = crate::Result<Location>>,
{
    try_roots(layout, locations, constant, |r| {
        visit(r);
        Ok(())
    })
}

/// Saved registers a [`DecodedFrame`] holds; a frame state with more is
/// not cached.
pub const DECODED_SAVED: usize = 12;
/// Roots a [`DecodedFrame`] holds; a record with more is not cached.
pub const DECODED_ROOTS: usize = 8;

/// [`DecodedFrame::return_address`]: read at CFA + `ra_offset`, not one of
/// the saved registers.
const RA_FROM_CFA: u8 = u8::MAX;

/// A location a [`DecodedFrame`] keeps: a root's, in a register slot.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodedLocation {
    /// [`LocationKind`] as its byte: Register, Direct, Indirect or
    /// Constant (a ConstantIndex is not kept).
    pub kind: u8,
    /// The register's slot ([`Arch::slot`]; 0 for a constant).
    pub slot: u8,
    /// Where the location's slot is ([`DecodedFrame::root_slots`]): the
    /// word of [`Registers::words`] that `offset` is added to (an Indirect
    /// location's register value, a Register location's save slot
    /// address; 0 for the others).
    pub word: u8,
    /// The offset (0 for a Register location, which has none), or the
    /// constant.
    pub offset: i32,
}

/// A root a [`DecodedFrame`] keeps ([`Root`] in fixed form).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodedRoot {
    /// The base pointer's location.
    pub base: DecodedLocation,
    /// The derived pointer's location (the base's for a plain root).
    pub derived: DecodedLocation,
    /// Their indices among the record's locations.
    pub base_index: u16,
    /// See `base_index`.
    pub derived_index: u16,
    /// 1: `derived` is `base`'s location (a plain pointer): decoded once.
    pub same: u8,
}

/// What a step and the roots need of one record, decoded once into fixed
/// form (no LEB128, no table): the CFA rule, where the saved registers and
/// the return address are, and the roots. A record that does not fit
/// (more than [`DECODED_SAVED`] tracked saved registers or
/// [`DECODED_ROOTS`] roots, a CFA that is not register + offset, a
/// register without a slot, a ConstantIndex root, AArch64 without a saved
/// x30, a malformed statepoint) has none: [`DecodedFrame::new`] gives
/// `None` and the walk takes the decoding path. Applied by
/// [`DecodedFrame::fast_step`] + [`DecodedFrame::apply_fast_step`] and
/// [`DecodedFrame::roots`], it gives exactly what [`step_in_place`] and
/// [`try_roots`] + [`decode`] give.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodedFrame {
    /// Slots whose values the roots need (checked once per frame).
    pub roots_need: u64,
    /// The slots of the saved registers (`saved_slot`) as a mask: a step
    /// makes them known and saved in one go.
    pub saved_mask: u64,
    /// Slots the plan needs known: the CFA register's, SP's and the kept
    /// roots' registers (one test for the frame; any unknown: the exact
    /// way, whose step and roots give what they give then).
    pub step_need: u64,
    /// CFA = value of slot `cfa_slot` + `cfa_offset`.
    pub cfa_offset: i32,
    /// Where the return address is read, from the CFA: the save slot of
    /// the return address column (`ra_index`), else the ABI's place.
    pub ra_offset: i32,
    /// The CFA register's DWARF number (for `Stop::RegisterUnknown`).
    pub cfa_register: u16,
    /// The CFA register's slot.
    pub cfa_slot: u8,
    /// 0: the return address column is saved (at `ra_offset`; not among
    /// the kept saved registers); `RA_FROM_CFA`: it is not.
    pub ra_index: u8,
    /// Saved registers kept.
    pub num_saved: u8,
    /// Roots, or `u8::MAX`: the roots are not decoded (only a step is).
    pub num_roots: u8,
    /// `num_roots` when every root has a slot by the plan (an Indirect
    /// location, or a Register location whose save slot `slot_need`
    /// checks); else `u8::MAX` (a Direct or Constant root, or roots not
    /// kept): [`DecodedFrame::root_slots`] gives none.
    pub slot_roots: u8,
    /// Saved registers in the frame state's order: slot, CFA offset.
    pub saved_slot: [u8; DECODED_SAVED],
    /// Every read of a step is an 8-aligned word at CFA + o, with
    /// `8 * reads_low <= o` and `o + 8 <= 8 * reads_high`, o a multiple of
    /// 8: one [`Memory::can_read`] for the frame. `reads_low >
    /// reads_high`: not so (reads checked one by one).
    pub reads_low: i8,
    /// See `reads_low`.
    pub reads_high: i8,
    /// See `saved_slot`.
    pub saved_offset: [i32; DECODED_SAVED],
    /// The first `num_roots` roots.
    pub roots: [DecodedRoot; DECODED_ROOTS],
    /// What the roots' slots need ([`DecodedFrame::root_slots`]): bit `s`,
    /// a Register root in slot `s`, whose save slot must be known.
    pub slot_need: u64,
}

impl DecodedFrame {
    /// The fixed form of a record whose frame state is `state` and whose
    /// saved registers `tables` lists; `None` if it does not fit. Its roots
    /// are not decoded: [`DecodedFrame::set_roots`] adds them.
    pub fn new<T: FrameStates>(
        tables: &T,
        record: &T::Record,
        arch: Arch,
        state: State,
    ) -> Option<DecodedFrame> {
        let State::Cfa(rule) = state else {
            return None;
        };
        let mut d = DecodedFrame {
            roots_need: 0,
            saved_mask: 0,
            step_need: 0,
            cfa_offset: rule.offset,
            ra_offset: 0,
            cfa_register: rule.register,
            cfa_slot: u8::try_from(arch.slot(rule.register)?).ok()?,
            ra_index: RA_FROM_CFA,
            num_saved: 0,
            num_roots: u8::MAX,
            slot_roots: u8::MAX,
            saved_slot: [0; DECODED_SAVED],
            reads_low: 1,
            reads_high: 0,
            saved_offset: [0; DECODED_SAVED],
            roots: [DecodedRoot::default(); DECODED_ROOTS],
            slot_need: 0,
        };
        d.step_need = 1 << d.cfa_slot | 1 << arch.sp();
        let ra_slot = arch.slot(arch.return_address());
        let mut fits = true;
        // The span of the saved registers' slots (`reads_low`).
        let (mut low, mut high, mut aligned) = (i32::MAX, i32::MIN, true);
        tables
            .saved_registers(record, |dwarf, offset| {
                // Untracked registers are not read by a step either.
                let Some(s) = arch.slot(dwarf) else { return };
                low = low.min(offset);
                high = high.max(offset);
                aligned &= offset % 8 == 0;
                // The return address column: read at `ra_offset` (its
                // save slot), not kept with the others (the step forgets
                // its register): every kept slot is below 32. Saved
                // twice (a damaged table): not kept; the exact step
                // takes the last save.
                if Some(s) == ra_slot {
                    fits &= d.ra_index == RA_FROM_CFA;
                    d.ra_index = 0;
                    d.ra_offset = offset;
                    return;
                }
                let n = d.num_saved as usize;
                if n == DECODED_SAVED {
                    fits = false;
                    return;
                }
                d.saved_slot[n] = s as u8;
                d.saved_offset[n] = offset;
                d.saved_mask |= 1 << s;
                d.num_saved += 1;
            })
            .ok()?;
        if !fits {
            return None;
        }
        d.ra_offset = match arch {
            _ if d.ra_index != RA_FROM_CFA => d.ra_offset,
            Arch::X86_64 => -8,
            Arch::AArch64 => return None,
            Arch::PowerPc64 => 16,
        };
        // The span of the step's reads, in words, if every one is an
        // aligned word whose offset fits.
        let o = d.ra_offset;
        let (low, high, aligned) = (low.min(o), high.max(o), aligned & (o % 8 == 0));
        let (low, high) = (low / 8, high / 8 + 1);
        if let (true, Ok(l), Ok(h)) = (aligned, i8::try_from(low), i8::try_from(high)) {
            d.reads_low = l;
            d.reads_high = h;
        }
        Some(d)
    }

    /// Keeps `roots` (a record's, as [`try_roots`] lists them) as the
    /// frame's roots; false, and the roots stay undecoded, if they do not
    /// fit (more than [`DECODED_ROOTS`], a ConstantIndex, a register
    /// without a slot).
    pub fn set_roots(&mut self, arch: Arch, roots: &[Root]) -> bool {
        let (mut slot_need, mut slots) = (0u64, true);
        let mut location = |l: &Location, need: &mut u64| -> Option<DecodedLocation> {
            let slot = match l.kind {
                LocationKind::Constant => 0,
                LocationKind::ConstantIndex => return None,
                _ => {
                    let s = arch.slot(l.dwarf_reg)?;
                    *need |= 1 << s;
                    s as u8
                }
            };
            // Where its slot is (`root_slots`): a register's value plus
            // the offset, or a register's save slot (offset 0: a Register
            // location has none; `decode_known` ignores it).
            let (word, offset) = match l.kind {
                LocationKind::Indirect => (VALUE_WORD + slot, l.offset),
                LocationKind::Register => {
                    slot_need |= 1 << slot;
                    (ADDRESS_WORD + slot, 0)
                }
                _ => {
                    slots = false;
                    (0, l.offset)
                }
            };
            Some(DecodedLocation {
                kind: l.kind as u8,
                slot,
                word,
                offset,
            })
        };
        self.num_roots = u8::MAX;
        self.slot_roots = u8::MAX;
        self.slot_need = 0;
        if roots.len() > DECODED_ROOTS {
            return false;
        }
        let mut need = 0u64;
        for (r, kept) in roots.iter().zip(&mut self.roots) {
            let (Some(base), Some(derived)) = (
                location(&r.base, &mut need),
                location(&r.derived, &mut need),
            ) else {
                return false;
            };
            *kept = DecodedRoot {
                base,
                derived,
                base_index: r.base_index,
                derived_index: r.derived_index,
                same: u8::from(r.derived == r.base),
            };
        }
        self.num_roots = roots.len() as u8;
        self.step_need |= need;
        self.slot_roots = if slots { self.num_roots } else { u8::MAX };
        self.roots_need = need;
        self.slot_need = slot_need;
        true
    }

    /// Whether the roots were decoded ([`DecodedFrame::set_roots`]).
    pub fn has_roots(&self) -> bool {
        self.num_roots != u8::MAX
    }

    /// The frame's roots, decoded with its registers `regs`, to `f` in
    /// record order: what [`try_roots`] with [`decode`] gives. A register a
    /// root needs that `regs` does not know: `Err(RegisterUnknown)` before
    /// any root is passed (with the first such register of the record).
    #[inline(always)]
    pub fn roots(
        &self,
        regs: &Registers,
        mut f: impl FnMut(Value, Value, &DecodedRoot),
    ) -> Result<(), DecodeError> {
        self.roots_known(regs, |b, d, r| f(b.into(), d.into(), r))
    }

    /// [`DecodedFrame::roots`] with each location as a [`KnownValue`].
    #[inline(always)]
    pub fn roots_known(
        &self,
        regs: &Registers,
        mut f: impl FnMut(KnownValue, KnownValue, &DecodedRoot),
    ) -> Result<(), DecodeError> {
        if regs.known & self.roots_need != self.roots_need {
            return Err(self.first_unknown(regs));
        }
        let n = if self.has_roots() {
            self.num_roots as usize
        } else {
            0
        };
        for r in &self.roots[..n.min(DECODED_ROOTS)] {
            let base = decode_known(&r.base, regs);
            let derived = if r.same != 0 {
                base
            } else {
                decode_known(&r.derived, regs)
            };
            f(base, derived, r);
        }
        Ok(())
    }

    /// Where the frame's roots are, with its registers `regs`: for each
    /// root in record order, the address of its base's slot and of its
    /// derived pointer's (the same for a plain root), written to the
    /// front of `out`; how many. The slot of an `Indirect` location is its
    /// address; of a `Register` location, the slot the register is saved
    /// in (a callee's save slot, or the capture's). Errors, before any
    /// root counts (`out` may have been written): a register a root needs
    /// that `regs` does not know ([`RootSlotError::RegisterUnknown`], the
    /// first such, as [`DecodedFrame::roots`] gives it); a root with no
    /// slot ([`RootSlotError::NoSlot`]: a `Direct` or `Constant`
    /// location, a register saved nowhere); roots not kept, or a root in a
    /// register this form does not check (slot 30 and above:
    /// [`RootSlotError::NotKept`]; the record's roots decoded as
    /// [`try_roots`] and [`decode`] give them say); more roots than `out`
    /// holds ([`RootSlotError::Full`]). Every root's two slots come from
    /// the entry's words and offsets, with one check for the frame.
    #[inline(always)]
    pub fn root_slots(
        &self,
        regs: &Registers,
        out: &mut [RootSlot],
    ) -> Result<usize, RootSlotError> {
        // The error, in its order, out of line.
        let ready = regs.known & self.roots_need == self.roots_need;
        let (Some(n), Some(out)) = (
            self.slots_ready(regs).filter(|_| ready),
            out.get_mut(..self.slot_roots as usize),
        ) else {
            return Err(self.root_slots_error(regs, out.len()));
        };
        for (r, o) in self.roots[..n].iter().zip(out) {
            *o = self.root_slot(regs, r);
        }
        Ok(n)
    }

    /// How many roots [`DecodedFrame::root_slots`] gives with `regs`,
    /// whose registers the roots need are known (`roots_need`, in
    /// `step_need`: [`DecodedFrame::fast_step`] checks them), when it gives
    /// them: one test for the frame (`slot_roots` is `u8::MAX` where a
    /// root has no slot by the plan, or the roots were not kept).
    #[inline(always)]
    pub fn slots_ready(&self, regs: &Registers) -> Option<usize> {
        let n = self.slot_roots as usize;
        let need = self.slot_need;
        (regs.saved & need == need && n <= DECODED_ROOTS).then_some(n)
    }

    /// Root `r`'s slots with `regs`, once [`DecodedFrame::slots_ready`]
    /// said the frame's roots have them: each location's word of the
    /// registers plus its offset (a plain root's derived location is its
    /// base's: one slot).
    #[inline(always)]
    pub fn root_slot(&self, regs: &Registers, r: &DecodedRoot) -> RootSlot {
        let words = regs.words();
        let slot = |l: &DecodedLocation| {
            // Checked: no index out of bounds whatever the entry holds.
            let w = words.get(l.word as usize).copied().unwrap_or(0);
            w.wrapping_add(l.offset as i64 as u64)
        };
        let base = slot(&r.base);
        let derived = if r.same != 0 { base } else { slot(&r.derived) };
        RootSlot { base, derived }
    }

    /// Why [`DecodedFrame::root_slots`] gives no slots with `regs` and
    /// `room` slots of output, the first error in this order: a register
    /// unknown, roots not kept, no room, a root with no slot, a register
    /// root not checked here, a register's save slot unknown.
    #[cold]
    #[inline(never)]
    fn root_slots_error(&self, regs: &Registers, room: usize) -> RootSlotError {
        if regs.known & self.roots_need != self.roots_need {
            return match self.first_unknown(regs) {
                DecodeError::RegisterUnknown(r) => RootSlotError::RegisterUnknown(r),
                DecodeError::Table(_) => RootSlotError::NotKept,
            };
        }
        if !self.has_roots() || self.num_roots as usize > DECODED_ROOTS {
            return RootSlotError::NotKept;
        }
        if self.num_roots as usize > room {
            return RootSlotError::Full;
        }
        if self.slot_roots != self.num_roots {
            return RootSlotError::NoSlot;
        }
        let need = self.slot_need;
        if regs.saved & need != need {
            return RootSlotError::NoSlot;
        }
        // Not reached (`root_slots` found one of the above): the exact way.
        RootSlotError::NotKept
    }

    #[cold]
    fn first_unknown(&self, regs: &Registers) -> DecodeError {
        for r in &self.roots[..(self.num_roots as usize).min(DECODED_ROOTS)] {
            for l in [&r.base, &r.derived] {
                if l.kind != LocationKind::Constant as u8 && regs.known >> l.slot & 1 == 0 {
                    // The slot's DWARF number: slots are DWARF numbers but
                    // PowerPC64's LR (32 -> 65).
                    let dwarf = if l.slot == 32 { 65 } else { l.slot as u16 };
                    return DecodeError::RegisterUnknown(dwarf);
                }
            }
        }
        DecodeError::RegisterUnknown(0)
    }
}

/// Where a root is: the address of its base's slot and of its derived
/// pointer's ([`DecodedFrame::root_slots`]); the C API's
/// `pcmap_root_slot`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RootSlot {
    /// The base pointer's slot.
    pub base: u64,
    /// The derived pointer's slot (the base's for a plain root).
    pub derived: u64,
}

/// Why [`DecodedFrame::root_slots`] gave no slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootSlotError {
    /// A root names this DWARF register, not known in the frame.
    RegisterUnknown(u16),
    /// A root is not in memory: a `Direct` location (its value is an
    /// address, not a slot holding the pointer), a `Constant`, or a
    /// register whose save slot is not known.
    NoSlot,
    /// The frame's roots are not kept in the entry, or not in a form
    /// this checks: take them from the record.
    NotKept,
    /// More roots than the output holds.
    Full,
}

/// A kept location decoded ([`DecodedFrame::roots_known`]): a [`Value`]
/// as plain fields, 0 where absent (the C API's `pcmap_value`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KnownValue {
    /// The value (0 without one).
    pub value: u64,
    /// Where it is stored (0 without one).
    pub address: u64,
    /// Whether `value` is one.
    pub has_value: bool,
    /// Whether `address` is one.
    pub has_address: bool,
}

impl From<KnownValue> for Value {
    #[inline(always)]
    fn from(v: KnownValue) -> Value {
        Value {
            value: v.has_value.then_some(v.value),
            address: v.has_address.then_some(v.address),
        }
    }
}

/// [`decode`] of a kept location whose register is known, as plain
/// fields (no `Option` to unpack: a few moves per location).
#[inline(always)]
fn decode_known(l: &DecodedLocation, regs: &Registers) -> KnownValue {
    let s = slot_index(l.slot);
    let r = regs.value[s];
    let offset = l.offset as i64 as u64;
    let at = r.wrapping_add(offset);
    let (value, address, has_value, has_address) = match l.kind {
        k if k == LocationKind::Indirect as u8 => (0, at, false, true),
        k if k == LocationKind::Direct as u8 => (at, 0, true, false),
        k if k == LocationKind::Register as u8 => {
            let saved = regs.saved >> s & 1 != 0;
            (r, if saved { regs.address[s] } else { 0 }, true, saved)
        }
        _ => (offset, 0, true, false),
    };
    KnownValue {
        value,
        address,
        has_value,
        has_address,
    }
}

/// A step [`DecodedFrame::fast_step`] found possible: the CFA and the
/// return address.
#[derive(Debug, Clone, Copy)]
pub struct FastStep {
    cfa: u64,
    ra: u64,
}

impl DecodedFrame {
    /// Whether the step of this frame with registers `regs` succeeds with
    /// its reads unchecked: the CFA register and SP known, the CFA above
    /// SP, every read inside one span `memory` allows, the return address
    /// not 0. Changes nothing; `None`: the exact way ([`step_in_place`])
    /// gives the step, or its error.
    #[inline(always)]
    pub fn fast_step<M: Memory>(
        &self,
        memory: &M,
        arch: Arch,
        regs: &Registers,
    ) -> Option<FastStep> {
        let d = self;
        if regs.known & d.step_need != d.step_need {
            return None;
        }
        if d.reads_low > d.reads_high {
            return None;
        }
        let cfa = regs.value[slot_index(d.cfa_slot)].wrapping_add(d.cfa_offset as i64 as u64);
        let span = (i64::from(d.reads_low) * 8, i64::from(d.reads_high) * 8);
        plan_step(
            memory,
            regs.value[arch.sp() as usize],
            cfa,
            span,
            d.ra_offset,
        )
    }

    /// The step [`fast_step`](Self::fast_step) found possible: `regs`
    /// become the caller's, as [`step_in_place`] gives them.
    ///
    /// # Safety
    /// `step` is what `fast_step` gave for this frame, `memory` and `regs`,
    /// unchanged since.
    #[inline(always)]
    pub unsafe fn apply_fast_step<M: Memory>(
        &self,
        memory: &M,
        arch: Arch,
        regs: &mut Registers,
        step: FastStep,
    ) {
        let d = self;
        let cfa = step.cfa;
        let n = (d.num_saved as usize).min(DECODED_SAVED);
        for (&s, &offset) in d.saved_slot[..n].iter().zip(&d.saved_offset) {
            let s = saved_index(s);
            let at = cfa.wrapping_add(offset as i64 as u64);
            // SAFETY: in the span `fast_step` checked (the caller's promise).
            regs.value[s] = unsafe { memory.read_u64_unchecked(at) };
            regs.address[s] = at;
        }
        finish_step(arch, regs, d, cfa, step.ra);
    }
}

/// The checks a plan's step makes once its CFA is known, and its return
/// address: the CFA above SP (`sp`), every read of the step (in `[CFA +
/// span.0, CFA + span.1)`, where the plan put them: `span.0 <= span.1`,
/// both within [`SPAN_REACH`]) inside one span `memory` allows (all near
/// the CFA, or this span), the return address (at CFA + `ra_offset`) not
/// 0. [`DecodedFrame::fast_step`]'s and [`HotPlan::check`]'s.
#[inline(always)]
fn plan_step<M: Memory>(
    memory: &M,
    sp: u64,
    cfa: u64,
    span: (i64, i64),
    ra_offset: i32,
) -> Option<FastStep> {
    if cfa <= sp {
        return None;
    }
    if !(cfa & 7 == 0 && memory.can_read_near(cfa)) {
        let (low, high) = (
            cfa.wrapping_add(span.0 as u64),
            cfa.wrapping_add(span.1 as u64),
        );
        if !(low <= high && memory.can_read(low, high)) {
            return None;
        }
    }
    // SAFETY: an aligned word in [low, high) (every read of the step is,
    // by the plan), which `can_read` allowed.
    let ra = unsafe { memory.read_u64_unchecked(cfa.wrapping_add(ra_offset as i64 as u64)) };
    (ra != 0).then_some(FastStep { cfa, ra })
}

/// The masks of the caller's registers after a step whose frame saved
/// the slots `set`, from the callee's `known` and `saved`: the
/// callee-saved registers stay known (and saved), those of `set` become
/// so, SP is known (not saved), and the return address register is
/// unknown (its value in the caller is not the one at the caller's call
/// site). [`finish_step`]'s and [`HotPlan::apply`]'s.
#[inline(always)]
fn caller_masks(arch: Arch, known: u64, saved: u64, set: u64) -> (u64, u64) {
    let ra_bit = arch.slot(arch.return_address()).map_or(0, |s| 1 << s);
    let sp = 1 << arch.sp();
    let keep = arch.callee_saved() & !ra_bit;
    (known & keep | set | sp, (saved & keep | set) & !sp)
}

/// The end of [`DecodedFrame::apply_fast_step`], once the saved registers' values and
/// addresses are written: the callee-saved registers stay known (and
/// saved) and those of `saved_mask` become so; the return address
/// register's value in the caller is not its value at the caller's call
/// site; the caller's SP is the CFA.
#[inline(always)]
fn finish_step(arch: Arch, regs: &mut Registers, d: &DecodedFrame, cfa: u64, ra: u64) {
    // A saved return address column (not among the kept registers): its
    // value and slot written as the exact step writes them, the register
    // unknown all the same (`caller_masks`).
    if let (Some(s), true) = (arch.slot(arch.return_address()), d.ra_index != RA_FROM_CFA) {
        regs.value[s] = ra;
        regs.address[s] = cfa.wrapping_add(d.ra_offset as i64 as u64);
    }
    // No return address column among the saved (`DecodedFrame::new`).
    (regs.known, regs.saved) = caller_masks(arch, regs.known, regs.saved, d.saved_mask);
    regs.value[arch.sp() as usize] = cfa;
    regs.pc = ra;
}

/// A kept slot number as an index of [`Registers`] (kept slots are valid;
/// clamped so that no index is out of bounds whatever the entry holds).
#[inline(always)]
fn slot_index(s: u8) -> usize {
    (s as usize).min(REGISTER_SLOTS - 1)
}

/// A kept saved register's slot as an index of [`Registers`]: below 32
/// (the return address column, PowerPC64's slot 32, is not kept), masked
/// so that no index is out of bounds whatever the entry holds.
#[inline(always)]
fn saved_index(s: u8) -> usize {
    (s & 31) as usize
}

/// One entry of a decoded-frame cache: a return address (0: empty) and
/// what was decoded there. A cache is a caller-owned slice of these whose
/// length is a power of two; two-way set associative by the PC's hash.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CacheSlot<E> {
    /// The frame's PC; 0 for an empty slot (no frame has PC 0).
    pub pc: u64,
    /// What was decoded at `pc`.
    pub entry: E,
}

/// The first of the two slots `pc` may be in (the other is `^ 1`).
#[inline(always)]
fn cache_set(len: usize, pc: u64) -> usize {
    ((pc.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize) & len.wrapping_sub(1)
}

/// The slot holding `pc` in `slots` (length a power of two), if any.
#[inline(always)]
pub fn cache_find<E>(slots: &[CacheSlot<E>], pc: u64) -> Option<&CacheSlot<E>> {
    // No power-of-two check (`cache_insert` keeps nothing otherwise, and
    // every index is checked): one less per probe.
    if pc == 0 {
        return None;
    }
    // The two slots in turn, without an array of their indices (which
    // the compiler kept on the stack: ~10 instructions a probe).
    let i = cache_set(slots.len(), pc);
    match slots.get(i) {
        Some(s) if s.pc == pc => Some(s),
        _ => slots.get(i ^ 1).filter(|s| s.pc == pc),
    }
}

/// Puts `entry` for `pc` into `slots` (length a power of two; nothing is
/// kept otherwise): in the slot [`cache_claim`] gives.
#[inline]
pub fn cache_insert<'s, E: Copy>(
    slots: &'s mut [CacheSlot<E>],
    pc: u64,
    entry: &E,
) -> Option<&'s CacheSlot<E>> {
    let slot = cache_claim(slots, pc)?;
    slot.entry = *entry;
    Some(slot)
}

/// The slot of `slots` (length a power of two; `None` otherwise) that
/// `pc` is to be kept in, its PC set, its entry left to the caller to
/// write (it holds whatever it held): an empty slot of its two, else the
/// first, whose entry moves to the second (the one used least recently
/// is dropped).
#[inline]
pub fn cache_claim<E>(slots: &mut [CacheSlot<E>], pc: u64) -> Option<&mut CacheSlot<E>> {
    if pc == 0 || !slots.len().is_power_of_two() {
        return None;
    }
    let i = cache_set(slots.len(), pc);
    let j = i ^ 1;
    let at = if slots[i].pc == 0 || slots.len() == 1 {
        i
    } else if slots[j].pc == 0 {
        j
    } else {
        // The first's entry to the second, and the second's (dropped) to
        // the first, overwritten by the caller.
        slots.swap(i, j);
        i
    };
    slots[at].pc = pc;
    Some(&mut slots[at])
}

/// Empties every slot.
pub fn cache_flush<E>(slots: &mut [CacheSlot<E>]) {
    for s in slots {
        s.pc = 0;
    }
}

/// What a cached step keeps per PC: the tables' function and record there
/// and the record decoded for a step.
#[derive(Debug, Clone, Copy)]
pub struct CachedFrame<F, R> {
    /// The function containing the PC.
    pub function: F,
    /// The record at the PC.
    pub record: R,
    /// The record decoded for a step.
    pub frame: DecodedFrame,
}

impl<T: UnwindTables, M: Memory> Cursor<'_, T, M> {
    /// [`Cursor::step`] with a caller-owned cache of decoded frames
    /// ([`cache_find`]): a frame whose PC is in `cache` steps by its
    /// [`DecodedFrame`]; the caller's PC is looked up in the cache first,
    /// else in the tables, and a record that fits is kept. The same result
    /// as `step`. The cache describes these tables only: flush it
    /// ([`cache_flush`]) before walking other tables, or when the tables
    /// change.
    pub fn step_cached(
        &mut self,
        cache: &mut [CacheSlot<CachedFrame<T::Function, T::Record>>],
    ) -> Result<(), Stop> {
        if self.depth >= self.options.max_frames {
            return Err(Stop::BadStack);
        }
        let mut next = self.regs;
        // A cached frame by its plan where its checks pass, else the exact
        // way (which gives every error), as the C API steps it.
        // The cache is keyed by return address: an interrupted first
        // frame's PC is not one.
        let by_return_address = self.depth > 0 || !self.options.interrupted;
        let planned = match (&self.at, cache_find(cache, self.regs.pc)) {
            (FrameAt::Record(..), Some(s)) if by_return_address => {
                let d = s.entry.frame;
                d.fast_step(&self.memory, self.arch, &next).map(|f| (d, f))
            }
            _ => None,
        };
        match planned {
            // SAFETY: `fast_step` of this frame, memory and registers.
            Some((d, f)) => unsafe { d.apply_fast_step(&self.memory, self.arch, &mut next, f) },
            None => self.step_exact(&mut next)?,
        }
        self.at = match cache_find(cache, next.pc) {
            Some(s) => {
                let d = &s.entry.frame;
                let rule = CfaRule {
                    register: d.cfa_register,
                    offset: d.cfa_offset,
                };
                FrameAt::Record(s.entry.function, s.entry.record, State::Cfa(rule))
            }
            None => {
                let at = lookup(
                    self.tables,
                    &self.memory,
                    self.arch,
                    Pc::ReturnAddress(next.pc),
                )?;
                if let FrameAt::Record(function, record, state) = at {
                    if let Some(frame) = DecodedFrame::new(self.tables, &record, self.arch, state) {
                        let entry = CachedFrame {
                            function,
                            record,
                            frame,
                        };
                        cache_insert(cache, next.pc, &entry);
                    }
                }
                at
            }
        };
        self.regs = next;
        self.depth += 1;
        Ok(())
    }
}
