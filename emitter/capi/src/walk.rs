//! The C API's stack walker: `pcmap_reader::walk` over an opened section
//! and the running program's own stack.
//!
//! A `pcmap_cursor` is a plain struct the caller owns: the frame's
//! registers, what the tables say about its PC (the function and record,
//! decoded), the stack bounds reads must stay in, and the walk's options.
//! Every call works on it alone: no allocation, no lock, no global state,
//! so a walk may run in a signal handler.

use pcmap_reader::walk::{
    self, Arch, CfaRule, FrameAt, Memory, Options, Registers, Root, RootLayout, State, Stop,
    UnwindTables,
};
use pcmap_reader::Location;

use crate::constants::{
    PCMAP_FRAME_NO_RECORD, PCMAP_FRAME_RECORD, PCMAP_FRAME_UNMANAGED,
    PCMAP_WALK_FRAME_POINTER_CHAIN,
};
use crate::section::Section;
use crate::status::pcmap_status::{self, *};
use crate::types::{pcmap_function, pcmap_record, pcmap_registers, pcmap_stackmaps, pcmap_value};

/// The architecture this library walks: its own.
pub(crate) const ARCH: Option<Arch> = Arch::HOST;

/// A stack walk in progress (see `pcmap_walk_init`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_cursor {
    /// The opened section the walk looks PCs up in.
    pub maps: *const pcmap_stackmaps,
    /// The current frame's registers (`regs.pc` is its PC).
    pub regs: pcmap_registers,
    /// Stack reads are allowed in `[stack_low, stack_high)`; both 0: any
    /// 8-aligned address (the caller vouches that the stack is mapped).
    pub stack_low: u64,
    pub stack_high: u64,
    /// `PCMAP_WALK_*` flags.
    pub flags: u32,
    /// Frames stepped so far.
    pub depth: u32,
    /// `PCMAP_FRAME_*`: what the tables say about `regs.pc`.
    pub frame: u32,
    /// After `PCMAP_STOP_REGISTER_UNKNOWN`: the DWARF register.
    pub stop_register: u16,
    /// The function containing the PC (unless `PCMAP_FRAME_UNMANAGED`).
    pub function: pcmap_function,
    /// The record at the PC (with `PCMAP_FRAME_RECORD`).
    pub record: pcmap_record,
}

/// A GC root of a frame: where the derived pointer and its base are (the
/// same location for a plain root), decoded with the frame's registers.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_root {
    pub base: pcmap_value,
    pub derived: pcmap_value,
    /// Their indices among the record's locations.
    pub base_index: u16,
    pub derived_index: u16,
}

/// Called by `pcmap_walk_roots` for each root (NULL is rejected).
#[allow(non_camel_case_types)]
pub type pcmap_root_fn =
    Option<unsafe extern "C" fn(ctx: *mut core::ffi::c_void, root: *const pcmap_root)>;

/// Reads of the running program's stack, within the cursor's bounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NativeMemory {
    low: u64,
    high: u64,
}

impl Memory for NativeMemory {
    #[inline(always)]
    fn read_u64(&self, address: u64) -> Option<u64> {
        let bounded = self.low != 0 || self.high != 0;
        let end = address.checked_add(8)?;
        if address & 7 != 0 || address == 0 || (bounded && (address < self.low || end > self.high))
        {
            return None;
        }
        // SAFETY: an aligned, non-null address inside the bounds the caller
        // gave as readable stack, or, without bounds, one the caller vouches
        // for (docs/runtime.md): the walk reads only slots its CFI rules
        // name, above the captured stack pointer.
        Some(unsafe { (address as usize as *const u64).read_volatile() })
    }
    #[inline(always)]
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        if address & 3 != 0 || address == 0 {
            return None;
        }
        // SAFETY: `address` is the return address of a frame being walked
        // (its PC): the instruction there is mapped code of the program.
        Some(unsafe { (address as usize as *const u32).read_volatile() })
    }
}

impl UnwindTables for Section<'_> {
    type Function = pcmap_function;
    type Record = (pcmap_function, pcmap_record);

    fn frame_at(&self, pc: u64) -> pcmap_reader::Result<FrameAt<Self::Function, Self::Record>> {
        for t in self.tables() {
            let (r, t) = t?;
            let Some((index, address)) = t.function_containing(pc, r.address)? else {
                continue;
            };
            let f = pcmap_function::new(r, &t, index).map_err(|_| CORRUPT)?;
            let fr = t.frame_record(index)?;
            let Ok(offset) = u32::try_from(pc - address) else {
                return Ok(FrameAt::NoRecord(f));
            };
            return Ok(match t.find_record(&fr, offset)? {
                None => FrameAt::NoRecord(f),
                Some((i, rec)) => {
                    let state = if fr.flags & pcmap_reader::flat::HAS_FRAME_INFO == 0 {
                        State::None
                    } else {
                        State::Cfa(CfaRule {
                            register: fr.frame_base_register,
                            offset: fr.cfa_offset,
                        })
                    };
                    FrameAt::Record(f, (f, pcmap_record::new(&f, i, &rec)), state)
                }
            });
        }
        Ok(FrameAt::Unmanaged)
    }

    fn saved_registers(
        &self,
        (f, _): &Self::Record,
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        let t = f.table.open().map_err(|_| CORRUPT)?;
        for r in t.frame_registers_of(&t.frame_record(f.index)?)? {
            let r = r?;
            visit(r.dwarf_reg, r.offset);
        }
        Ok(())
    }
}

const CORRUPT: pcmap_reader::Error =
    pcmap_reader::Error::Inconsistent("table changed under a walk");

impl From<Stop> for pcmap_status {
    fn from(s: Stop) -> Self {
        match s {
            Stop::Unmanaged => PCMAP_STOP_UNMANAGED,
            Stop::NoRecord => PCMAP_STOP_NO_RECORD,
            Stop::NoFrameState => PCMAP_STOP_NO_FRAME_STATE,
            Stop::NoCfaRule => PCMAP_STOP_NO_CFA_RULE,
            Stop::RegisterUnknown(_) => PCMAP_STOP_REGISTER_UNKNOWN,
            Stop::ReturnAddressNotSaved => PCMAP_STOP_RETURN_ADDRESS_NOT_SAVED,
            Stop::EndOfStack => PCMAP_STOP_END_OF_STACK,
            Stop::BadStack => PCMAP_ERR_BAD_STACK,
            Stop::Table(e) => e.into(),
        }
    }
}

impl pcmap_cursor {
    fn options(&self) -> Options {
        Options {
            frame_pointer_chain: self.flags & PCMAP_WALK_FRAME_POINTER_CHAIN != 0,
            ..Options::default()
        }
    }
    fn memory(&self) -> NativeMemory {
        NativeMemory {
            low: self.stack_low,
            high: self.stack_high,
        }
    }
    fn at(&self) -> FrameAt<pcmap_function, (pcmap_function, pcmap_record)> {
        match self.frame {
            PCMAP_FRAME_RECORD => {
                FrameAt::Record(self.function, (self.function, self.record), self.state())
            }
            PCMAP_FRAME_NO_RECORD => FrameAt::NoRecord(self.function),
            _ => FrameAt::Unmanaged,
        }
    }
    /// The frame state of the current record (version 1: its function's).
    fn state(&self) -> State {
        if self.function.flags & pcmap_reader::flat::HAS_FRAME_INFO == 0 {
            State::None
        } else {
            State::Cfa(CfaRule {
                register: self.function.frame_base_register,
                offset: self.function.cfa_offset,
            })
        }
    }
    fn set_at(&mut self, at: FrameAt<pcmap_function, (pcmap_function, pcmap_record)>) {
        match at {
            FrameAt::Unmanaged => self.frame = PCMAP_FRAME_UNMANAGED,
            FrameAt::NoRecord(f) => {
                self.frame = PCMAP_FRAME_NO_RECORD;
                self.function = f;
            }
            FrameAt::Record(f, (_, r), _) => {
                self.frame = PCMAP_FRAME_RECORD;
                self.function = f;
                self.record = r;
            }
        }
    }
}

/// Starts a walk at the frame whose registers are `regs` (from
/// `pcmap_capture_call`: the managed caller at its safepoint), looking its
/// PC up in `maps`. Stack reads stay in `[stack_low, stack_high)` (both 0:
/// unchecked but for alignment). `flags`: `PCMAP_WALK_FRAME_POINTER_CHAIN`
/// or 0.
///
/// # Safety
/// `cursor` is writable; `maps` was filled by `pcmap_open` and stays valid
/// while the cursor is used; `regs` is readable and not inside `*cursor`
/// (start a new walk from a cursor's registers through a copy); the stack it describes is
/// mapped (in the bounds, if given) while the cursor is used.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_init(
    cursor: *mut pcmap_cursor,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
) -> pcmap_status {
    let (Some(m), Some(regs)) = (maps.as_ref(), regs.as_ref()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if cursor.is_null() || m.data.is_null() || flags & !PCMAP_WALK_FRAME_POINTER_CHAIN != 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    let Some(arch) = ARCH else {
        return PCMAP_ERR_ARGUMENT;
    };
    let s = Section::opened(m);
    let memory = NativeMemory {
        low: stack_low,
        high: stack_high,
    };
    let at = match walk::lookup(&s, &memory, arch, regs.pc) {
        Ok(at) => at,
        Err(e) => return e.into(),
    };
    // Field by field: `function` and `record` are written only where
    // `frame` says they are valid (and zeroing the whole struct would make
    // the library need memset).
    use core::ptr::addr_of_mut;
    addr_of_mut!((*cursor).maps).write(maps);
    // `regs` may not be inside `*cursor` (a copy, not a move).
    core::ptr::copy_nonoverlapping(regs, addr_of_mut!((*cursor).regs), 1);
    addr_of_mut!((*cursor).stack_low).write(stack_low);
    addr_of_mut!((*cursor).stack_high).write(stack_high);
    addr_of_mut!((*cursor).flags).write(flags);
    addr_of_mut!((*cursor).depth).write(0);
    addr_of_mut!((*cursor).stop_register).write(0);
    let (frame, function, record) = match at {
        FrameAt::Unmanaged => (PCMAP_FRAME_UNMANAGED, None, None),
        FrameAt::NoRecord(f) => (PCMAP_FRAME_NO_RECORD, Some(f), None),
        FrameAt::Record(f, (_, r), _) => (PCMAP_FRAME_RECORD, Some(f), Some(r)),
    };
    addr_of_mut!((*cursor).frame).write(frame);
    if let Some(f) = function {
        addr_of_mut!((*cursor).function).write(f);
    }
    if let Some(r) = record {
        addr_of_mut!((*cursor).record).write(r);
    }
    PCMAP_OK
}

/// Moves the cursor to the caller's frame: `PCMAP_OK`; or, leaving it
/// where it is, a `PCMAP_STOP_*` reason (`PCMAP_STOP_UNMANAGED`: the end
/// of the managed stack) or an error (`PCMAP_ERR_BAD_STACK`, a corrupt
/// table).
///
/// # Safety
/// `cursor` was filled by `pcmap_walk_init` and its section and stack are
/// still mapped.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_step(cursor: *mut pcmap_cursor) -> pcmap_status {
    let Some(c) = cursor.as_mut() else {
        return PCMAP_ERR_ARGUMENT;
    };
    let (Some(m), Some(arch)) = (c.maps.as_ref(), ARCH) else {
        return PCMAP_ERR_ARGUMENT;
    };
    let s = Section::opened(m);
    let regs = Registers::from(c.regs);
    let mut options = c.options();
    options.max_frames = u32::MAX;
    let next = walk::step_from(&s, &c.memory(), arch, options, &regs, &c.at());
    let next = match next {
        Ok(next) => next,
        Err(stop) => {
            if let Stop::RegisterUnknown(r) = stop {
                c.stop_register = r;
            }
            return stop.into();
        }
    };
    match walk::lookup(&s, &c.memory(), arch, next.pc) {
        Ok(at) => {
            c.set_at(at);
            c.regs = next.into();
            c.depth = c.depth.saturating_add(1);
            PCMAP_OK
        }
        Err(e) => e.into(),
    }
}

/// The current frame's CFA (its caller's stack pointer at the call), when
/// the frame has a record with a register + offset CFA rule whose register
/// is known.
///
/// # Safety
/// `cursor` was filled by `pcmap_walk_init`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cfa(
    cursor: *const pcmap_cursor,
    out: *mut u64,
) -> pcmap_status {
    let (Some(c), Some(arch)) = (cursor.as_ref(), ARCH) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    let FrameAt::Record(_, _, state) = c.at() else {
        return PCMAP_NOT_FOUND;
    };
    let State::Cfa(rule) = state else {
        return PCMAP_NOT_FOUND;
    };
    match Registers::from(c.regs).get(arch, rule.register) {
        Some(v) => {
            out.write(v.wrapping_add(rule.offset as i64 as u64));
            PCMAP_OK
        }
        None => PCMAP_NOT_FOUND,
    }
}

/// Decodes location `index` of the current frame's record with the
/// frame's registers (any the cursor knows: SP, the frame pointer, a
/// callee-saved register holding a root, whose `address` is then the slot
/// it was saved in). `PCMAP_NOT_FOUND` without a record;
/// `PCMAP_ERR_NO_REGISTER` for a register the walk does not know here.
///
/// # Safety
/// `cursor` was filled by `pcmap_walk_init`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_decode(
    cursor: *const pcmap_cursor,
    index: u32,
    out: *mut pcmap_value,
) -> pcmap_status {
    let Some(c) = cursor.as_ref() else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    if c.frame != PCMAP_FRAME_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let r = location(&c.record, index).and_then(|loc| decode_with(&c.record, &loc, &c.regs));
    match r {
        Ok(v) => {
            out.write(v);
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// Decodes location `index` of record `rec` for a frame whose registers are
/// `regs` (a `pcmap_registers` from a capture or a cursor).
///
/// # Safety
/// `rec` was filled by this library; `regs` is readable; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_decode_registers(
    rec: *const pcmap_record,
    index: u32,
    regs: *const pcmap_registers,
    out: *mut pcmap_value,
) -> pcmap_status {
    let (Some(rec), Some(regs)) = (rec.as_ref(), regs.as_ref()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    match location(rec, index).and_then(|l| decode_with(rec, &l, regs)) {
        Ok(v) => {
            out.write(v);
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// Location `index` of `rec`, as the reader decodes it.
fn location(rec: &pcmap_record, index: u32) -> Result<Location, pcmap_status> {
    if index >= u32::from(rec.num_locations) {
        return Err(PCMAP_ERR_OUT_OF_RANGE);
    }
    let i = rec
        .location_index
        .checked_add(index)
        .ok_or(PCMAP_ERR_OUT_OF_RANGE)?;
    Ok(rec.table.open()?.location(i)?)
}

fn decode_with(
    rec: &pcmap_record,
    loc: &Location,
    regs: &pcmap_registers,
) -> Result<pcmap_value, pcmap_status> {
    let arch = ARCH.ok_or(PCMAP_ERR_ARGUMENT)?;
    let regs = Registers::from(*regs);
    let constant = |i| rec.table.open().map_err(|_| CORRUPT)?.constant(i);
    match walk::decode(loc, arch, &regs, constant) {
        Ok(v) => Ok(v.into()),
        Err(walk::DecodeError::RegisterUnknown(_)) => Err(PCMAP_ERR_NO_REGISTER),
        Err(walk::DecodeError::Table(e)) => Err(e.into()),
    }
}

/// Calls `visit(ctx, root)` for every GC root of the current frame's
/// record, decoded with the frame's registers: for a statepoint, each
/// (base, derived) pair after its three constants and its deopt
/// locations; for a stack map or patch point, each location (base ==
/// derived). The record's whole layout and every location are checked
/// before the first call. `PCMAP_NOT_FOUND` without a record;
/// `PCMAP_ERR_CORRUPT` for a statepoint whose locations are not laid out
/// so, or a record of unknown kind.
///
/// # Safety
/// `cursor` was filled by `pcmap_walk_init`; `visit` is callable with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_roots(
    cursor: *const pcmap_cursor,
    visit: pcmap_root_fn,
    ctx: *mut core::ffi::c_void,
) -> pcmap_status {
    let (Some(c), Some(visit)) = (cursor.as_ref(), visit) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if c.frame != PCMAP_FRAME_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let rec = &c.record;
    let layout = match rec.kind {
        k if k == pcmap_reader::flat::RecordKind::StatePoint as u8 => RootLayout::Statepoint,
        k if k == pcmap_reader::flat::RecordKind::StackMap as u8
            || k == pcmap_reader::flat::RecordKind::PatchPoint as u8 =>
        {
            RootLayout::EveryLocation
        }
        _ => return PCMAP_ERR_CORRUPT,
    };
    let t = match rec.table.open() {
        Ok(t) => t,
        Err(e) => return e,
    };
    let t = &t;
    let first = rec.location_index;
    let locations = (first..first.saturating_add(rec.num_locations.into())).map(|i| t.location(i));
    // Decode every root before visiting any: a record whose location
    // names an unknown register visits nothing.
    let check = walk::roots(layout, locations.clone(), |i| t.constant(i), |_| {});
    if let Err(e) = check {
        return roots_status(e);
    }
    let mut status = PCMAP_OK;
    let decoded = |r: &Root| -> Result<pcmap_root, pcmap_status> {
        Ok(pcmap_root {
            base: decode_with(rec, &r.base, &c.regs)?,
            derived: decode_with(rec, &r.derived, &c.regs)?,
            base_index: r.base_index,
            derived_index: r.derived_index,
        })
    };
    let _ = walk::roots(
        layout,
        locations.clone(),
        |i| t.constant(i),
        |r| {
            if status == PCMAP_OK {
                if let Err(e) = decoded(&r) {
                    status = e;
                }
            }
        },
    );
    if status != PCMAP_OK {
        return status;
    }
    let _ = walk::roots(
        layout,
        locations,
        |i| t.constant(i),
        |r| {
            if let Ok(root) = decoded(&r) {
                // SAFETY: the caller's callback and context.
                unsafe { visit(ctx, &root) };
            }
        },
    );
    PCMAP_OK
}

fn roots_status(e: walk::RootsError) -> pcmap_status {
    match e {
        walk::RootsError::NotAStatepoint => PCMAP_ERR_CORRUPT,
        walk::RootsError::Table(e) => e.into(),
    }
}

impl From<walk::Value> for pcmap_value {
    fn from(v: walk::Value) -> Self {
        pcmap_value {
            value: v.value.unwrap_or(0),
            address: v.address.unwrap_or(0),
            has_value: v.value.is_some(),
            has_address: v.address.is_some(),
        }
    }
}

impl From<pcmap_registers> for Registers {
    #[inline(always)]
    fn from(r: pcmap_registers) -> Self {
        Registers {
            pc: r.pc,
            known: r.known,
            saved: r.saved,
            value: r.value,
            address: r.address,
        }
    }
}

impl From<Registers> for pcmap_registers {
    #[inline(always)]
    fn from(r: Registers) -> Self {
        pcmap_registers {
            pc: r.pc,
            known: r.known,
            saved: r.saved,
            value: r.value,
            address: r.address,
        }
    }
}
