//! The C API's stack walker: `pcmap_reader::walk` over an opened section
//! and the running program's own stack.
//!
//! A `pcmap_walk` is a plain struct the caller owns: the frame's registers,
//! what the tables say about its PC (the function and the record, decoded,
//! with the frame state), the stack bounds reads must stay in, and the
//! walk's options. Every call works on it alone: no allocation, no lock, no
//! global state, so a walk may run in a signal handler.

use core::mem::MaybeUninit;
use core::ptr::addr_of_mut;

use pcmap_reader::flat::{self, frame_state_flags, site_head, SiteData};
use pcmap_reader::walk::{
    self, Arch, CfaRule, FrameAt, FrameStates, Memory, Options, Registers, Root, RootLayout, State,
    Stop,
};
use pcmap_reader::{Location, LocationKind};

use crate::constants::{
    PCMAP_WALK_AT_NO_RECORD, PCMAP_WALK_AT_RECORD, PCMAP_WALK_AT_UNMANAGED,
    PCMAP_WALK_FRAME_POINTER_CHAIN, PCMAP_WALK_REGISTRY,
};
use crate::section::{Full, Match, Section};
use crate::status::pcmap_status::{self, *};
use crate::types::{pcmap_function, pcmap_record, pcmap_registers, pcmap_stackmaps, pcmap_value};

/// The architecture this library walks: its own.
pub(crate) const ARCH: Option<Arch> = Arch::HOST;

/// A stack walk in progress (see `pcmap_walk_init`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_walk {
    /// The opened section the walk looks PCs up in (NULL, or ignored,
    /// with `PCMAP_WALK_REGISTRY`: the registered images).
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
    /// `PCMAP_WALK_AT_*`: what the tables say about `regs.pc`.
    pub at: u32,
    /// After `PCMAP_STOP_REGISTER_UNKNOWN`: the DWARF register.
    pub stop_register: u16,
    /// The function containing the PC (unless `PCMAP_WALK_AT_UNMANAGED`).
    pub function: pcmap_function,
    /// The record at the PC, with its frame state (`PCMAP_WALK_AT_RECORD`).
    pub record: pcmap_record,
    /// The Data area of the record's table (for the library).
    pub data: *const u8,
    pub data_size: u32,
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

// `pcmap_registers` is the reader's `Registers`, field for field: the
// walker works on the caller's struct in place.
const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<pcmap_registers>() == size_of::<Registers>());
    assert!(offset_of!(pcmap_registers, pc) == offset_of!(Registers, pc));
    assert!(offset_of!(pcmap_registers, known) == offset_of!(Registers, known));
    assert!(offset_of!(pcmap_registers, saved) == offset_of!(Registers, saved));
    assert!(offset_of!(pcmap_registers, value) == offset_of!(Registers, value));
    assert!(offset_of!(pcmap_registers, address) == offset_of!(Registers, address));
};

/// `r` as the reader's type.
#[inline(always)]
fn registers(r: &pcmap_registers) -> &Registers {
    // SAFETY: both are repr(C) with the same fields, types and offsets
    // (asserted above), so one may be read as the other.
    unsafe { &*(r as *const pcmap_registers).cast::<Registers>() }
}

/// `r` as the reader's type, to change in place.
#[inline(always)]
fn registers_mut(r: &mut pcmap_registers) -> &mut Registers {
    // SAFETY: as `registers`.
    unsafe { &mut *(r as *mut pcmap_registers).cast::<Registers>() }
}

/// Reads of the running program's stack, within the walk's bounds.
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

/// What a step needs of the current frame's record: where its frame
/// state's saved registers are (a few words, not the whole record).
#[derive(Debug, Clone, Copy)]
pub struct WalkRecord {
    data: *const u8,
    data_size: u32,
    saved: u32,
    num_saved: u16,
    shift: u8,
}

/// The saved registers of a [`WalkRecord`]: read from its own Data area,
/// whichever table (or image) it is in.
struct Saved;

impl FrameStates for Saved {
    type Record = WalkRecord;

    #[inline(always)]
    fn saved_registers(
        &self,
        r: &WalkRecord,
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        // SAFETY: `data` and `data_size` are the Data area of a table the
        // walk found the record in, which the caller keeps mapped.
        let bytes = unsafe { core::slice::from_raw_parts(r.data, r.data_size as usize) };
        let data = SiteData::new(bytes, 0);
        for reg in data.saved_registers_at(r.saved, r.num_saved, u32::from(r.shift)) {
            let reg = reg?;
            visit(reg.dwarf_reg, reg.offset);
        }
        Ok(())
    }
}

/// A C API status as a reader error (for a `ConstantIndex` constant the
/// table could not give; the conversion back gives the same status for
/// every status opening a table returns).
fn error(s: pcmap_status) -> pcmap_reader::Error {
    use pcmap_reader::Error;
    match s {
        PCMAP_ERR_TRUNCATED => Error::Truncated { offset: 0 },
        PCMAP_ERR_BAD_MAGIC => Error::BadMagic,
        PCMAP_ERR_VERSION => Error::UnsupportedFlatVersion(0),
        PCMAP_ERR_OUT_OF_RANGE => Error::IndexOutOfRange {
            what: "entry",
            index: 0,
            count: 0,
        },
        PCMAP_ERR_NOT_SORTED => Error::NotSorted {
            function: 0,
            record: 0,
        },
        _ => Error::Inconsistent("table"),
    }
}

/// The frame state of a record.
#[inline(always)]
fn state(r: &pcmap_record) -> State {
    if r.flags & site_head::HAS_FRAME_STATE == 0 {
        State::None
    } else if r.frame_flags & frame_state_flags::CFA_RULE == 0 {
        State::NoCfaRule
    } else {
        State::Cfa(CfaRule {
            register: r.cfa_register,
            offset: r.cfa_offset,
        })
    }
}

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

impl pcmap_walk {
    fn options(&self) -> Options {
        Options {
            frame_pointer_chain: self.flags & PCMAP_WALK_FRAME_POINTER_CHAIN != 0,
            max_frames: u32::MAX,
        }
    }
    fn memory(&self) -> NativeMemory {
        NativeMemory {
            low: self.stack_low,
            high: self.stack_high,
        }
    }
    /// The record's Data area (valid with `PCMAP_WALK_AT_RECORD`).
    #[inline(always)]
    fn data(&self) -> SiteData<'_> {
        // SAFETY: `data` and `data_size` are the Data area of the table the
        // record is in, which the caller keeps mapped.
        let bytes = unsafe { core::slice::from_raw_parts(self.data, self.data_size as usize) };
        SiteData::new(bytes, 0)
    }
    /// What the current frame's step needs of the tables' answer.
    #[inline(always)]
    fn at(&self) -> FrameAt<(), WalkRecord> {
        match self.at {
            PCMAP_WALK_AT_RECORD => {
                let r = &self.record;
                let record = WalkRecord {
                    data: self.data,
                    data_size: self.data_size,
                    saved: r.frame_registers,
                    num_saved: r.num_frame_registers,
                    shift: r.frame_shift,
                };
                FrameAt::Record((), record, state(r))
            }
            PCMAP_WALK_AT_NO_RECORD => FrameAt::NoRecord(()),
            _ => FrameAt::Unmanaged,
        }
    }
}

/// Finds the record at `pc` in `s`, writing the function and the record
/// (Site and frame state decoded) in place into the walk's fields (no copy
/// of the result; `pcmap_find`'s output, compiled once for both), and the
/// Data area of its table.
///
/// # Safety
/// As `look_up_in`.
#[inline(always)]
unsafe fn search_into(s: &Section<'_>, w: *mut pcmap_walk, pc: u64) -> Result<bool, pcmap_status> {
    let out = Full {
        function: addr_of_mut!((*w).function),
        record: addr_of_mut!((*w).record),
    };
    if !s.search(pc, Match::Exact, out)? {
        return Ok(false);
    }
    let (data, size) = s.data_area(&*addr_of_mut!((*w).record))?;
    addr_of_mut!((*w).data).write(data);
    addr_of_mut!((*w).data_size).write(size);
    Ok(true)
}

impl Section<'_> {
    /// The Data area of the table `r` is in: from the header `open` kept,
    /// else parsed.
    #[inline]
    fn data_area(&self, r: &pcmap_record) -> Result<(*const u8, u32), pcmap_status> {
        let offset = (r.table.data as usize).wrapping_sub(self.bytes.as_ptr() as usize);
        let table = self.bytes.get(offset..).ok_or(PCMAP_ERR_CORRUPT)?;
        let data = match self.cached.iter().find(|h| h.offset as usize == offset) {
            Some(h) => SiteData::of_kept(table, h.kept()),
            None => r.table.open()?.data(),
        };
        Ok((data.bytes().as_ptr(), data.bytes().len() as u32))
    }
}

/// What the tables of `s` say about `pc`: a `PCMAP_WALK_AT_*`, having
/// written the function (and the record and Data area) it makes valid
/// into `*w`. On PowerPC64 a record after the TOC restore at `pc` is the
/// frame's (`walk::toc_restore_at`).
///
/// # Safety
/// `w` is valid for writes of its `function`, `record`, `data` and
/// `data_size` (which may be uninitialised).
#[inline(never)]
unsafe fn look_up_in(
    s: &Section<'_>,
    w: *mut pcmap_walk,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<u32, pcmap_status> {
    if search_into(s, w, pc)? {
        return Ok(PCMAP_WALK_AT_RECORD);
    }
    containing(s, w, memory, arch, pc)
}

/// `look_up_in` when no record is at `pc`: the function containing it
/// (searched table by table: a walk asks once, where it ends), or the
/// record after a PowerPC64 TOC restore.
///
/// # Safety
/// As `look_up_in`.
#[inline(never)]
unsafe fn containing(
    s: &Section<'_>,
    w: *mut pcmap_walk,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<u32, pcmap_status> {
    let Some(f) = s.function_containing(pc)? else {
        return Ok(PCMAP_WALK_AT_UNMANAGED);
    };
    if walk::toc_restore_at(memory, arch, pc) && search_into(s, w, pc.wrapping_add(4))? {
        return Ok(PCMAP_WALK_AT_RECORD);
    }
    addr_of_mut!((*w).function).write(f);
    Ok(PCMAP_WALK_AT_NO_RECORD)
}

/// Looks `pc` up, in `maps` or (`PCMAP_WALK_REGISTRY` in `flags`) in the
/// registered images, writing what `look_up_in` does; returns the
/// `PCMAP_WALK_AT_*`. One copy for `pcmap_walk_init` and `pcmap_walk_step`.
///
/// # Safety
/// As `look_up_in`; `maps` is an opened section, or NULL with
/// `PCMAP_WALK_REGISTRY`.
#[inline(never)]
unsafe fn look_up(
    w: *mut pcmap_walk,
    maps: *const pcmap_stackmaps,
    flags: u32,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<u32, pcmap_status> {
    if flags & PCMAP_WALK_REGISTRY == 0 {
        return match maps.as_ref() {
            Some(m) => look_up_in(&Section::opened(m), w, memory, arch, pc),
            None => Err(PCMAP_ERR_ARGUMENT),
        };
    }
    // Each image whose code range holds `pc`, until one has a function
    // there (the walk then refers to that image's section, which stays
    // mapped while a frame of it is on the stack).
    let found = crate::registry::find_in_images(pc, |m| {
        // SAFETY: a LIVE image's opened section; `w` as the caller promised.
        match unsafe { look_up_in(&Section::opened(m), w, memory, arch, pc) } {
            Ok(PCMAP_WALK_AT_UNMANAGED) => None,
            other => Some(other),
        }
    });
    found.unwrap_or(Ok(PCMAP_WALK_AT_UNMANAGED))
}

/// Starts a walk at the frame whose registers are `regs` (from
/// `pcmap_capture_call`: the managed caller at its safepoint), looking its
/// PC up in `maps`, or with `PCMAP_WALK_REGISTRY` in the registered images
/// (`maps` may then be NULL; every frame's PC is looked up in the registry,
/// lock-free). Stack reads stay in `[stack_low, stack_high)` (both 0:
/// unchecked but for alignment). `flags`: `PCMAP_WALK_FRAME_POINTER_CHAIN`,
/// `PCMAP_WALK_REGISTRY`, both or 0.
///
/// # Safety
/// `walk` is writable; `maps` was filled by `pcmap_open` and stays valid
/// while the walk is used (or is NULL with `PCMAP_WALK_REGISTRY`: the
/// images of the frames walked stay loaded); `regs` is readable and not inside `*walk` (start
/// a new walk from a walk's registers through a copy); the stack it
/// describes is mapped (in the bounds, if given) while the walk is used.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_init(
    walk: *mut pcmap_walk,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
) -> pcmap_status {
    let Some(regs) = regs.as_ref() else {
        return PCMAP_ERR_ARGUMENT;
    };
    let registry = flags & PCMAP_WALK_REGISTRY != 0;
    let maps_ok = match maps.as_ref() {
        Some(m) => !m.data.is_null(),
        None => registry,
    };
    if walk.is_null() || !maps_ok || flags & !WALK_FLAGS != 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    let Some(arch) = ARCH else {
        return PCMAP_ERR_ARGUMENT;
    };
    let memory = NativeMemory {
        low: stack_low,
        high: stack_high,
    };
    // Field by field: `function` and `record` are written only where `at`
    // says they are valid (and zeroing the whole struct would make the
    // library need memset).
    let at = match look_up(walk, maps, flags, &memory, arch, regs.pc) {
        Ok(at) => at,
        Err(e) => return e,
    };
    addr_of_mut!((*walk).maps).write(maps);
    // `regs` may not be inside `*walk` (a copy, not a move).
    core::ptr::copy_nonoverlapping(regs, addr_of_mut!((*walk).regs), 1);
    addr_of_mut!((*walk).stack_low).write(stack_low);
    addr_of_mut!((*walk).stack_high).write(stack_high);
    addr_of_mut!((*walk).flags).write(flags);
    addr_of_mut!((*walk).depth).write(0);
    addr_of_mut!((*walk).stop_register).write(0);
    addr_of_mut!((*walk).at).write(at);
    PCMAP_OK
}

/// Flags `pcmap_walk_init` takes.
const WALK_FLAGS: u32 = PCMAP_WALK_FRAME_POINTER_CHAIN | PCMAP_WALK_REGISTRY;

/// Moves the walk to the caller's frame: `PCMAP_OK`; or, leaving it where
/// it is, a `PCMAP_STOP_*` reason (`PCMAP_STOP_UNMANAGED`: the end of the
/// managed stack) or `PCMAP_ERR_BAD_STACK`. A table the lookup of the
/// caller's PC cannot read (corrupt) is an error after the move: the walk
/// is at the caller, `PCMAP_WALK_AT_UNMANAGED`.
///
/// # Safety
/// `walk` was filled by `pcmap_walk_init` and its section (or the images
/// its frames are in) and stack are still mapped.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_step(walk: *mut pcmap_walk) -> pcmap_status {
    let (Some(w), Some(arch)) = (walk.as_mut(), ARCH) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if w.maps.is_null() && w.flags & PCMAP_WALK_REGISTRY == 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    let memory = w.memory();
    let (at, options) = (w.at(), w.options());
    // The caller's registers, in place (unchanged if the step fails).
    let regs = registers_mut(&mut w.regs);
    if let Err(stop) = walk::step_in_place(&Saved, &memory, arch, options, regs, &at) {
        if let Stop::RegisterUnknown(r) = stop {
            w.stop_register = r;
        }
        return stop.into();
    }
    w.depth = w.depth.saturating_add(1);
    let (maps, flags, pc) = (w.maps, w.flags, w.regs.pc);
    match look_up(w, maps, flags, &memory, arch, pc) {
        Ok(at) => {
            w.at = at;
            PCMAP_OK
        }
        Err(e) => {
            // A table the lookup could not read: the walk is at the caller,
            // whose frame nothing is known of.
            w.at = PCMAP_WALK_AT_UNMANAGED;
            e
        }
    }
}

/// The current frame's CFA (its caller's stack pointer at the call), when
/// the frame has a record with a register + offset CFA rule whose register
/// is known; else `PCMAP_NOT_FOUND`.
///
/// # Safety
/// `walk` was filled by `pcmap_walk_init`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cfa(walk: *const pcmap_walk, out: *mut u64) -> pcmap_status {
    let (Some(w), Some(arch)) = (walk.as_ref(), ARCH) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    if w.at != PCMAP_WALK_AT_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let State::Cfa(rule) = state(&w.record) else {
        return PCMAP_NOT_FOUND;
    };
    match registers(&w.regs).get(arch, rule.register) {
        Some(v) => {
            out.write(v.wrapping_add(rule.offset as i64 as u64));
            PCMAP_OK
        }
        None => PCMAP_NOT_FOUND,
    }
}

/// Decodes location `index` of the current frame's record with the frame's
/// registers (any the walk knows: SP, the frame pointer, a callee-saved
/// register holding a root, whose `address` is then the slot it was saved
/// in). Locations are decoded in turn: O(index). `PCMAP_NOT_FOUND` without
/// a record; `PCMAP_ERR_NO_REGISTER` for a register the walk does not know
/// in this frame.
///
/// # Safety
/// `walk` was filled by `pcmap_walk_init`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_decode(
    walk: *const pcmap_walk,
    index: u32,
    out: *mut pcmap_value,
) -> pcmap_status {
    let Some(w) = walk.as_ref() else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    if w.at != PCMAP_WALK_AT_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let rec = &w.record;
    if index >= u32::from(rec.num_locations) {
        return PCMAP_ERR_OUT_OF_RANGE;
    }
    let loc = w
        .data()
        .locations_at(rec.locations, rec.num_locations)
        .nth(index as usize);
    let r = match loc {
        Some(Ok(loc)) => decode_with(rec, &loc, registers(&w.regs)),
        Some(Err(e)) => Err(e.into()),
        None => Err(PCMAP_ERR_OUT_OF_RANGE),
    };
    match r {
        Ok(v) => {
            out.write(v);
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// Decodes location `index` of record `rec` for a frame whose registers are
/// `regs` (a `pcmap_registers` from a capture or a walk).
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
    let r = crate::decode::location(rec, index).and_then(|l| {
        let loc = Location {
            kind: LocationKind::from_u8(l.kind).ok_or(PCMAP_ERR_CORRUPT)?,
            size: l.size,
            dwarf_reg: l.dwarf_reg,
            offset: l.offset,
        };
        decode_with(rec, &loc, registers(regs))
    });
    match r {
        Ok(v) => {
            out.write(v);
            PCMAP_OK
        }
        Err(e) => e,
    }
}

#[inline(always)]
fn decode_with(
    rec: &pcmap_record,
    loc: &Location,
    regs: &Registers,
) -> Result<pcmap_value, pcmap_status> {
    let arch = ARCH.ok_or(PCMAP_ERR_ARGUMENT)?;
    let constant = |i| rec.table.open().map_err(error)?.constant(i);
    match walk::decode(loc, arch, regs, constant) {
        Ok(v) => Ok(v.into()),
        Err(walk::DecodeError::RegisterUnknown(_)) => Err(PCMAP_ERR_NO_REGISTER),
        Err(walk::DecodeError::Table(e)) => Err(e.into()),
    }
}

/// Roots decoded on the stack before any is visited: more are decoded
/// twice (checked, then visited).
const ROOTS_AT_ONCE: usize = 32;

/// Calls `visit(ctx, root)` for every GC root of the current frame's
/// record, decoded with the frame's registers: for a statepoint, each
/// (base, derived) pair after its three constants and its deopt locations;
/// for a stack map or patch point, each location (base == derived). The
/// record's whole layout and every root are decoded before the first call:
/// a record that is not laid out so, or a root in a register the walk does
/// not know, visits nothing. `PCMAP_NOT_FOUND` without a record;
/// `PCMAP_ERR_CORRUPT` for a statepoint whose locations are not laid out so
/// or a record of unknown kind; `PCMAP_ERR_NO_REGISTER`.
///
/// # Safety
/// `walk` was filled by `pcmap_walk_init`; `visit` is callable with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_roots(
    walk: *const pcmap_walk,
    visit: pcmap_root_fn,
    ctx: *mut core::ffi::c_void,
) -> pcmap_status {
    let (Some(w), Some(visit)) = (walk.as_ref(), visit) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if w.at != PCMAP_WALK_AT_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let rec = &w.record;
    let layout = match rec.kind {
        k if k == flat::RecordKind::StatePoint as u8 => RootLayout::Statepoint,
        k if k == flat::RecordKind::StackMap as u8 || k == flat::RecordKind::PatchPoint as u8 => {
            RootLayout::EveryLocation
        }
        _ => return PCMAP_ERR_CORRUPT,
    };
    let data = w.data();
    let regs = registers(&w.regs);
    let constant = |i| rec.table.open().map_err(error)?.constant(i);
    // Decode every root (and check the layout) before visiting any: up to
    // ROOTS_AT_ONCE kept on the stack; past that, counted and checked, then
    // decoded again to visit. One loop for both passes (compiled once),
    // straight over the record's locations.
    let mut buffer = [const { MaybeUninit::<pcmap_root>::uninit() }; ROOTS_AT_ONCE];
    let mut n = 0usize;
    let pass = |visiting: bool, buffer: &mut [MaybeUninit<pcmap_root>], n: &mut usize| {
        walk::try_roots(
            layout,
            data.locations_at(rec.locations, rec.num_locations),
            constant,
            |r: Root| -> Result<(), Status> {
                let base = decode_with(rec, &r.base, regs)?;
                // A statepoint's plain (not derived) pointer lists the same
                // location twice: decoded once.
                let derived = match r.derived == r.base {
                    true => base,
                    false => decode_with(rec, &r.derived, regs)?,
                };
                let root = pcmap_root {
                    base,
                    derived,
                    base_index: r.base_index,
                    derived_index: r.derived_index,
                };
                if visiting {
                    // SAFETY: the caller's callback and context.
                    unsafe { visit(ctx, &root) };
                } else {
                    if let Some(slot) = buffer.get_mut(*n) {
                        slot.write(root);
                    }
                    *n += 1;
                }
                Ok(())
            },
        )
    };
    if let Err(Status(e)) = pass(false, &mut buffer, &mut n) {
        return e;
    }
    if n > ROOTS_AT_ONCE {
        let _ = pass(true, &mut buffer, &mut n);
        return PCMAP_OK;
    }
    for root in &buffer[..n] {
        // SAFETY: the first `n` were written above.
        visit(ctx, root.as_ptr());
    }
    PCMAP_OK
}

/// A status as the error of `walk::try_roots`.
struct Status(pcmap_status);

impl From<pcmap_status> for Status {
    fn from(s: pcmap_status) -> Self {
        Status(s)
    }
}

impl From<walk::RootsError> for Status {
    fn from(e: walk::RootsError) -> Self {
        Status(match e {
            walk::RootsError::NotAStatepoint => PCMAP_ERR_CORRUPT,
            walk::RootsError::Table(e) => e.into(),
        })
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
