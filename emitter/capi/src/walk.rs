//! The C API's stack walker: `pcmap_reader::walk` over an opened section
//! and the running program's own stack.
//!
//! A `pcmap_walk` is a plain struct the caller owns: the frame's registers,
//! what the tables say about its PC (the function and the record, decoded,
//! with the frame state), the stack bounds reads must stay in, and the
//! walk's options. Every call works on it alone: no allocation, no lock, no
//! global state, so a walk may run in a signal handler.

use core::mem::MaybeUninit;
use core::ptr::{addr_of, addr_of_mut};

use pcmap_reader::flat::{frame_state_flags, site_head, Pc, SiteData};
use pcmap_reader::walk::{
    self, Arch, CacheSlot, CfaRule, DecodedFrame, FastStep, FrameAt, FrameStates, HotLog, HotPlan,
    HotRegisters, Memory, Options, Registers, Root, RootLayout, RootSlot, State, Stop, SPAN_REACH,
};
use pcmap_reader::{Location, LocationKind};

use crate::constants::{
    PCMAP_WALK_AT_NO_RECORD, PCMAP_WALK_AT_RECORD, PCMAP_WALK_AT_UNMANAGED,
    PCMAP_WALK_CACHE_ENTRY_SIZE, PCMAP_WALK_FRAME_POINTER_CHAIN, PCMAP_WALK_INTERRUPTED,
    PCMAP_WALK_REGISTRY,
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
    /// The cache of decoded frames (`pcmap_walk_init_cached`), or NULL.
    pub cache: *mut pcmap_walk_cache,
    /// For the library: the cache entry the frame was found in, or NULL,
    /// and the cache's flush count when the walk started.
    pub entry: *const core::ffi::c_void,
    pub cache_epoch: u64,
}

/// A caller-owned cache of decoded frames for `pcmap_walk_init_cached`:
/// entries keyed by return address, each the function and record there
/// and, in fixed form, what a step and `pcmap_walk_roots` need (CFA rule,
/// saved registers, where the return address is, the roots). Filled by
/// walks (a frame not in it is looked up and decoded as without a cache,
/// and kept if it fits); emptied when a walk finds it describes other
/// tables (another section, or the registry at another generation). One
/// cache per thread (or per collector, under its lock): walks sharing one
/// must not run at once.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_walk_cache {
    /// The caller's memory for `capacity` entries (a power of two) of
    /// `PCMAP_WALK_CACHE_ENTRY_SIZE` bytes.
    pub entries: *mut core::ffi::c_void,
    pub capacity: u32,
    /// What the entries describe: the registered images (`registry` 1) at
    /// registry generation `generation`, or the section at `maps_data`
    /// (`maps_size`, `maps_address`); `bound` 0: nothing yet.
    pub bound: u32,
    pub registry: u32,
    pub generation: u64,
    pub maps_data: *const u8,
    pub maps_size: usize,
    pub maps_address: u64,
    /// Flushes so far (a walk started before the last one stops using it).
    pub epoch: u64,
    /// Frames found in the cache (a record, or a PC in no function kept
    /// after its lookup); looked up and kept; looked up and not kept as a
    /// record (no record, or a record that does not fit the fixed form).
    pub hits: u64,
    pub misses: u64,
    pub uncached: u64,
}

/// What a cache entry keeps: the lookup's answer and the record decoded,
/// and a link: the slot (its offset in words from the first,
/// `Entries::link_to`) where the frame that called from this one last
/// was, so that a walk finds the next frame's entry with one compare of
/// that slot's PC, without a probe.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// First, right after the slot's PC: what a run of frames reads
    /// (`slots_run`), and the link (`hot.link`).
    hot: HotPlan,
    frame: DecodedFrame,
    found: Found,
}

/// The fields of `pcmap_walk` a lookup writes, laid out as they are there
/// (asserted below): a hit copies them in one piece.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Found {
    function: pcmap_function,
    record: pcmap_record,
    data: *const u8,
    data_size: u32,
}

const _: () = {
    use core::mem::offset_of;
    let at = offset_of!(pcmap_walk, function);
    assert!(at % 8 == 0);
    assert!(offset_of!(pcmap_walk, record) - at == offset_of!(Found, record));
    assert!(offset_of!(pcmap_walk, data) - at == offset_of!(Found, data));
    assert!(offset_of!(pcmap_walk, data_size) - at == offset_of!(Found, data_size));
    assert!(offset_of!(pcmap_walk, cache) - at >= core::mem::size_of::<Found>());
};

type Slot = CacheSlot<Entry>;

/// `Entry::hot.need` of the mark of a PC in no function
/// (`PCMAP_WALK_AT_UNMANAGED`), in the slot's first cache line, which
/// the probe and a link read: no entry of a frame has it (a plan needs
/// only callee-saved registers and SP, never every slot), and no run's
/// check passes it.
const UNMANAGED: u64 = u64::MAX;

const _: () = assert!(core::mem::size_of::<Slot>() == PCMAP_WALK_CACHE_ENTRY_SIZE);
const _: () = assert!(core::mem::align_of::<Slot>() <= 8);

impl pcmap_walk_cache {
    /// The entries as slots.
    ///
    /// # Safety
    /// The cache was set up by `pcmap_walk_cache_init`, whose memory is
    /// still the caller's and not otherwise borrowed.
    #[inline(always)]
    unsafe fn slots(&mut self) -> &mut [Slot] {
        core::slice::from_raw_parts_mut(self.entries.cast::<Slot>(), self.capacity as usize)
    }
    fn flush(&mut self) {
        // SAFETY: as `slots`.
        walk::cache_flush(unsafe { self.slots() });
        self.bound = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }
}

/// Sets up `cache` over the caller's `memory` (8-byte aligned, `bytes`
/// long): as many entries of `PCMAP_WALK_CACHE_ENTRY_SIZE` bytes as fit,
/// rounded down to a power of two, at most 2^25 (at least 2:
/// `PCMAP_ERR_ARGUMENT` otherwise), all empty. The library never allocates: the memory stays
/// the caller's, in use by the cache until the caller stops using it.
///
/// # Safety
/// `cache` is writable; `memory` is writable for `bytes` bytes and not
/// used otherwise while the cache is.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cache_init(
    cache: *mut pcmap_walk_cache,
    memory: *mut core::ffi::c_void,
    bytes: usize,
) -> pcmap_status {
    let fit = bytes / PCMAP_WALK_CACHE_ENTRY_SIZE;
    if cache.is_null() || memory.is_null() || (memory as usize).trailing_zeros() < 3 || fit < 2 {
        return PCMAP_ERR_ARGUMENT;
    }
    let capacity = 1u32 << (usize::BITS - 1 - fit.leading_zeros()).min(MAX_CAPACITY_BITS);
    cache.write(pcmap_walk_cache {
        entries: memory,
        capacity,
        bound: 0,
        registry: 0,
        generation: 0,
        maps_data: core::ptr::null(),
        maps_size: 0,
        maps_address: 0,
        epoch: 0,
        hits: 0,
        misses: 0,
        uncached: 0,
    });
    let slots = memory.cast::<Slot>();
    for i in 0..capacity as usize {
        // SAFETY: inside the caller's memory (capacity entries fit).
        addr_of_mut!((*slots.add(i)).pc).write(0);
    }
    PCMAP_OK
}

/// Empties `cache` (its counters stay): for a caller that changes a
/// section it walks in place, which the cache cannot see.
///
/// # Safety
/// `cache` was set up by `pcmap_walk_cache_init`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cache_flush(cache: *mut pcmap_walk_cache) -> pcmap_status {
    match cache.as_mut() {
        Some(c) => {
            c.flush();
            PCMAP_OK
        }
        None => PCMAP_ERR_ARGUMENT,
    }
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

/// Reads of the running program's stack, within the walk's bounds: words
/// at or above `low` (at least 1: never address 0) ending at or below
/// `high` (`u64::MAX` without bounds).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NativeMemory {
    low: u64,
    high: u64,
    /// `can_read_near(c)`: `c - near_low <= near_width` (unsigned), that
    /// is `c` in `[low + SPAN_REACH, high - SPAN_REACH]`; for bounds closer
    /// than that, no `c` (`near_low` 1: `c` is 8-aligned).
    near_low: u64,
    near_width: u64,
}

impl NativeMemory {
    /// The walk's bounds `[stack_low, stack_high)`; both 0: none.
    #[inline(always)]
    fn new(stack_low: u64, stack_high: u64) -> NativeMemory {
        let (low, high) = match stack_low != 0 || stack_high != 0 {
            true => (stack_low.max(1), stack_high),
            false => (1, u64::MAX),
        };
        let (near_low, near_width) = match high.checked_sub(low) {
            Some(size) if size >= 2 * SPAN_REACH => (low + SPAN_REACH, size - 2 * SPAN_REACH),
            _ => (1, 0),
        };
        NativeMemory {
            low,
            high,
            near_low,
            near_width,
        }
    }
}

impl Memory for NativeMemory {
    #[inline(always)]
    fn read_u64(&self, address: u64) -> Option<u64> {
        let end = address.checked_add(8)?;
        if address & 7 != 0 || address < self.low || end > self.high {
            return None;
        }
        // SAFETY: an aligned, non-null address inside the bounds the caller
        // gave as readable stack, or, without bounds, one the caller vouches
        // for (docs/runtime.md): the walk reads only slots its CFI rules
        // name, above the captured stack pointer.
        Some(unsafe { (address as usize as *const u64).read_volatile() })
    }
    #[inline(always)]
    fn can_read_near(&self, center: u64) -> bool {
        center.wrapping_sub(self.near_low) <= self.near_width
    }
    #[inline(always)]
    fn can_read(&self, low: u64, high: u64) -> bool {
        low & 7 == 0 && low >= self.low && low <= high && high <= self.high
    }
    #[inline(always)]
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        // SAFETY: the caller's `can_read` span holds `address`: as
        // `read_u64`, whose checks that span passed as a whole.
        (address as usize as *const u64).read_volatile()
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
            interrupted: self.flags & PCMAP_WALK_INTERRUPTED != 0,
        }
    }
    fn memory(&self) -> NativeMemory {
        NativeMemory::new(self.stack_low, self.stack_high)
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
            PCMAP_WALK_AT_RECORD => self.at_record(),
            PCMAP_WALK_AT_NO_RECORD => FrameAt::NoRecord(()),
            _ => FrameAt::Unmanaged,
        }
    }
    /// `at` for a frame with a record (its fields written, whatever `at`
    /// says yet).
    #[inline(always)]
    fn at_record(&self) -> FrameAt<(), WalkRecord> {
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
}

/// Finds the record at `pc` in `s`, writing the function and the record
/// (Site and frame state decoded) in place into the walk's fields (no copy
/// of the result; `pcmap_find`'s output, compiled once for both), and the
/// Data area of its table.
///
/// # Safety
/// As `look_up_in`.
#[inline(always)]
unsafe fn search_into(s: &Section<'_>, w: *mut pcmap_walk, pc: Pc) -> Result<bool, pcmap_status> {
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
    pc: Pc,
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
    pc: Pc,
) -> Result<u32, pcmap_status> {
    let Some(f) = s.function_containing(pc)? else {
        return Ok(PCMAP_WALK_AT_UNMANAGED);
    };
    // The record after the restore: the return address's function's (it
    // may end there).
    let after = Pc::ReturnAddress(pc.address().wrapping_add(4));
    if walk::toc_restore_at(memory, arch, pc.address()) && search_into(s, w, after)? {
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
    pc: Pc,
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
    match found {
        Some(at) => at,
        // In no registered image: unmanaged, unless the registry refused
        // an image's tables, whose code this may be (never a managed frame
        // taken for an unmanaged one in silence).
        None if crate::registry::refused() => Err(PCMAP_ERR_IMAGE_REFUSED),
        None => Ok(PCMAP_WALK_AT_UNMANAGED),
    }
}

/// Binds `c` to the tables a walk with `maps` and `flags` reads, emptying
/// it if it described others.
fn bind(c: &mut pcmap_walk_cache, maps: *const pcmap_stackmaps, flags: u32) {
    let registry = flags & PCMAP_WALK_REGISTRY != 0;
    let (data, size, address, generation) = match registry {
        true => (core::ptr::null(), 0, 0, crate::registry::generation()),
        // SAFETY: `init` checked `maps` (non-NULL without the registry).
        false => unsafe { ((*maps).data, (*maps).size, (*maps).address, 0) },
    };
    let same = c.bound != 0
        && c.registry == registry as u32
        && c.generation == generation
        && c.maps_data == data
        && c.maps_size == size
        && c.maps_address == address;
    if !same {
        c.flush();
        c.bound = 1;
        c.registry = registry as u32;
        c.generation = generation;
        c.maps_data = data;
        c.maps_size = size;
        c.maps_address = address;
    }
}

/// The cache entry of the walk's current frame, if the walk has one that
/// still holds it (not flushed since the walk began, and the PC's).
#[inline(always)]
fn cached(w: &pcmap_walk) -> Option<&Entry> {
    let entry = w.entry.cast::<Slot>();
    // SAFETY: a non-NULL `entry` points into the walk's cache's memory,
    // which the caller keeps while the walk is used; checked to be the
    // frame's (a later insert may have moved another PC's entry there).
    let slot = unsafe { entry.as_ref()? };
    // SAFETY: the walk's cache, set up by the caller, or NULL.
    let cache = unsafe { w.cache.as_ref()? };
    (slot.pc == w.regs.pc && cache.epoch == w.cache_epoch && w.at == PCMAP_WALK_AT_RECORD)
        .then_some(&slot.entry)
}

/// `look_up` of return address `pc` through `cache` (NULL: none), writing
/// `(*w).entry`.
///
/// # Safety
/// As `look_up`; `cache` is NULL or the walk's.
#[inline(always)]
unsafe fn look_up_cached(
    w: *mut pcmap_walk,
    cache: *mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    flags: u32,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<u32, pcmap_status> {
    let entry = addr_of_mut!((*w).entry);
    let Some(c) = cache
        .as_mut()
        .filter(|c| c.epoch == *addr_of_mut!((*w).cache_epoch))
    else {
        entry.write(core::ptr::null());
        return look_up(w, maps, flags, memory, arch, Pc::ReturnAddress(pc));
    };
    if let Some(slot) = walk::cache_find(c.slots(), pc) {
        let e = &slot.entry;
        if e.hot.need == UNMANAGED {
            entry.write(core::ptr::null());
            c.hits = c.hits.wrapping_add(1);
            return Ok(PCMAP_WALK_AT_UNMANAGED);
        }
        // SAFETY: `Found` is laid out as these fields of `pcmap_walk`
        // (asserted above); the cache's memory is the caller's, not inside
        // the walk (one memcpy, no memmove).
        let to = addr_of_mut!((*w).function).cast::<Found>();
        core::ptr::copy_nonoverlapping(&e.found, to, 1);
        entry.write((slot as *const Slot).cast());
        c.hits = c.hits.wrapping_add(1);
        return Ok(PCMAP_WALK_AT_RECORD);
    }
    miss(w, c, maps, flags, memory, arch, pc)
}

/// `look_up_cached` for a PC not in the cache: looked up in the tables,
/// and kept if it fits.
///
/// # Safety
/// As `look_up_cached`.
#[inline(never)]
unsafe fn miss(
    w: *mut pcmap_walk,
    c: &mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    flags: u32,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<u32, pcmap_status> {
    let entry = addr_of_mut!((*w).entry);
    entry.write(core::ptr::null());
    let at = look_up(w, maps, flags, memory, arch, Pc::ReturnAddress(pc))?;
    match at {
        PCMAP_WALK_AT_RECORD => match decoded(&*w, arch) {
            Some(frame) => {
                // SAFETY: as for the copy of a hit, the other way.
                let found = core::ptr::read(addr_of_mut!((*w).function).cast::<Found>());
                entry.write(keep(c.slots(), pc, Some((&frame, &found, arch))));
                c.misses = c.misses.wrapping_add(1);
            }
            None => c.uncached = c.uncached.wrapping_add(1),
        },
        at => {
            if at == PCMAP_WALK_AT_UNMANAGED {
                // Kept too: the walk's last lookup, in no function (the
                // slowest search), is then a probe. Not a frame to step
                // by (`cached` and `collect` never take it as one): only
                // the mark is written.
                keep(c.slots(), pc, None);
            }
            c.uncached = c.uncached.wrapping_add(1);
        }
    }
    Ok(at)
}

/// Puts the entry of a decoded frame and its lookup into the cache (its
/// hot form made in place), or with `None` the mark of a PC in no
/// function (`UNMANAGED`); where it is (NULL: not kept). Out of line, with
/// references: the copies are memcpys (the walk and the cache do not
/// overlap), not memmoves.
#[inline(never)]
fn keep(
    slots: &mut [Slot],
    pc: u64,
    e: Option<(&DecodedFrame, &Found, Arch)>,
) -> *const core::ffi::c_void {
    let Some(slot) = walk::cache_claim(slots, pc) else {
        return core::ptr::null();
    };
    match e {
        Some((frame, found, arch)) => {
            let e = &mut slot.entry;
            // SAFETY: the frame and the lookup are the walk's (on the
            // stack), the entry the cache's: they do not overlap (a
            // memcpy, not a memmove, which the library does not link).
            unsafe {
                core::ptr::copy_nonoverlapping(frame, &mut e.frame, 1);
                core::ptr::copy_nonoverlapping(found, &mut e.found, 1);
            }
            // The target's (a constant: the masks `fill` checks folded).
            e.hot.fill(frame, ARCH.unwrap_or(arch));
        }
        None => {
            slot.entry.hot.need = UNMANAGED;
        }
    }
    (slot as *const Slot).cast()
}

/// The walk's current record (`PCMAP_WALK_AT_RECORD`, just looked up) in
/// fixed form, if it fits: its step, and its roots as `pcmap_walk_roots`
/// lists them.
#[inline(never)]
fn decoded(w: &pcmap_walk, arch: Arch) -> Option<DecodedFrame> {
    let FrameAt::Record((), record, state) = w.at_record() else {
        return None;
    };
    let mut d = DecodedFrame::new(&Saved, &record, arch, state)?;
    let mut roots = [const { MaybeUninit::<Root>::uninit() }; walk::DECODED_ROOTS];
    let mut n = 0usize;
    let listed = each_root(w, &mut |r| match roots.get_mut(n) {
        Some(slot) => {
            slot.write(r);
            n += 1;
            Ok(())
        }
        None => Err(Status(PCMAP_ERR_OUT_OF_RANGE)),
    });
    if listed.is_ok() {
        // SAFETY: the first `n` were written above (`n` never exceeds the
        // array: `get_mut` failed past it); MaybeUninit<T> has T's layout.
        let roots: &[Root] = unsafe { core::slice::from_raw_parts(roots.as_ptr().cast(), n) };
        d.set_roots(arch, roots);
    }
    Some(d)
}

/// The roots of the walk's record (`walk::try_roots` over its locations),
/// each passed to `f`, for the cache (`pcmap_walk_roots` keeps its own
/// copy of the loop, inlined: through this one, a call per root, its
/// walk took twice the time). `PCMAP_ERR_UNKNOWN_KIND` for a record of
/// unknown kind.
#[inline(never)]
fn each_root(w: &pcmap_walk, f: &mut dyn FnMut(Root) -> Result<(), Status>) -> Result<(), Status> {
    let rec = &w.record;
    let layout = RootLayout::of(rec.kind)?;
    let constant = |i| rec.table.open().map_err(error)?.constant(i);
    let locations = w.data().locations_at(rec.locations, rec.num_locations);
    walk::try_roots(layout, locations, constant, f)
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
    init(
        walk,
        maps,
        regs,
        stack_low,
        stack_high,
        flags,
        core::ptr::null_mut(),
    )
}

/// `pcmap_walk_init` with a cache of decoded frames (`pcmap_walk_cache_init`;
/// NULL: none). Each frame's PC is looked up in the cache first: found, the
/// walk copies the function and record kept there and steps and visits
/// roots by the decoded form; not found, it is looked up in the tables as
/// without a cache, and a record that fits is decoded and kept. Every
/// result (`at`, `function`, `record`, `regs`, statuses, roots, decoded
/// locations) is the one the walk without a cache gives. A cache filled
/// from other tables (another `maps`: its data, size or address differ; or
/// the registry at another generation: an image was added or removed) is
/// emptied first. The cache is the walk's until the walk ends: one walk
/// at a time per cache (a second walk on it empties it or changes entries
/// the first refers to; the first then goes on without it, or checks each
/// entry's PC).
///
/// # Safety
/// As `pcmap_walk_init`; `cache` is NULL or was set up by
/// `pcmap_walk_cache_init` and is not used by another thread meanwhile.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_init_cached(
    walk: *mut pcmap_walk,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
    cache: *mut pcmap_walk_cache,
) -> pcmap_status {
    init(walk, maps, regs, stack_low, stack_high, flags, cache)
}

/// `pcmap_walk_init` and `pcmap_walk_init_cached`.
///
/// # Safety
/// As `pcmap_walk_init_cached`.
unsafe fn init(
    walk: *mut pcmap_walk,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
    cache: *mut pcmap_walk_cache,
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
    let memory = NativeMemory::new(stack_low, stack_high);
    if let Some(c) = cache.as_mut() {
        if c.capacity < 2 || c.entries.is_null() {
            return PCMAP_ERR_ARGUMENT;
        }
        bind(c, maps, flags);
    }
    // Field by field: `function` and `record` are written only where `at`
    // says they are valid (and zeroing the whole struct would make the
    // library need memset). Every other field before the lookup, which
    // may read the walk (a record decoded for the cache).
    let pc = regs.pc;
    addr_of_mut!((*walk).maps).write(maps);
    // `regs` may not be inside `*walk` (a copy, not a move).
    core::ptr::copy_nonoverlapping(regs, addr_of_mut!((*walk).regs), 1);
    addr_of_mut!((*walk).stack_low).write(stack_low);
    addr_of_mut!((*walk).stack_high).write(stack_high);
    addr_of_mut!((*walk).flags).write(flags);
    addr_of_mut!((*walk).depth).write(0);
    addr_of_mut!((*walk).stop_register).write(0);
    addr_of_mut!((*walk).at).write(PCMAP_WALK_AT_UNMANAGED);
    addr_of_mut!((*walk).cache).write(cache);
    addr_of_mut!((*walk).cache_epoch).write(cache.as_ref().map_or(0, |c| c.epoch));
    addr_of_mut!((*walk).entry).write(core::ptr::null());
    // An interrupted first frame's PC is not a return address, which is
    // what the cache is keyed by.
    let at = match flags & PCMAP_WALK_INTERRUPTED {
        0 => look_up_cached(walk, cache, maps, flags, &memory, arch, pc),
        _ => look_up(walk, maps, flags, &memory, arch, Pc::Instruction(pc)),
    };
    let at = match at {
        Ok(at) => at,
        Err(e) => return e,
    };
    addr_of_mut!((*walk).at).write(at);
    PCMAP_OK
}

/// `d.apply_fast_step` on the walk's registers: one copy for the cursor's
/// step and `pcmap_walk_collect`'s (out of line: the library's text is
/// budgeted, and a call costs a few instructions of a ~400 a frame).
///
/// # Safety
/// As `DecodedFrame::apply_fast_step`.
#[inline(never)]
unsafe fn apply_plan(
    d: &DecodedFrame,
    memory: &NativeMemory,
    arch: Arch,
    regs: &mut pcmap_registers,
    step: FastStep,
) {
    d.apply_fast_step(memory, arch, registers_mut(regs), step);
}

/// Flags `pcmap_walk_init` takes.
const WALK_FLAGS: u32 =
    PCMAP_WALK_FRAME_POINTER_CHAIN | PCMAP_WALK_REGISTRY | PCMAP_WALK_INTERRUPTED;

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
    // The entry's plan where it applies, else the exact way (a hit copied
    // the function and record into `*w`). The entry is in the cache's
    // memory, not in `*w`.
    let planned = cached(w).map(|e| e as *const Entry).and_then(|e| {
        // SAFETY: `cached` checked it is the frame's entry, in the caller's
        // cache memory, which the step does not write.
        let d = unsafe { &(*e).frame };
        Some((d, d.fast_step(&memory, arch, registers(&w.regs))?))
    });
    let stepped = match planned {
        Some((d, step)) => {
            // SAFETY: `fast_step` of this frame, memory and registers.
            apply_plan(d, &memory, arch, &mut w.regs, step);
            Ok(())
        }
        None => step_uncached(w, &memory, arch),
    };
    if let Err(stop) = stepped {
        if let Stop::RegisterUnknown(r) = stop {
            w.stop_register = r;
        }
        return stop.into();
    }
    w.depth = w.depth.saturating_add(1);
    let (maps, flags, pc, cache) = (w.maps, w.flags, w.regs.pc, w.cache);
    match look_up_cached(w, cache, maps, flags, &memory, arch, pc) {
        Ok(at) => {
            w.at = at;
            PCMAP_OK
        }
        Err(e) => {
            // A table the lookup could not read: the walk is at the caller,
            // whose frame nothing is known of.
            w.at = PCMAP_WALK_AT_UNMANAGED;
            w.entry = core::ptr::null();
            e
        }
    }
}

/// A step by the record's frame state as the table gives it (the
/// caller's registers in place, unchanged if the step fails).
#[inline(never)]
fn step_uncached(w: &mut pcmap_walk, memory: &NativeMemory, arch: Arch) -> Result<(), Stop> {
    let (at, options) = (w.at(), w.options());
    walk::step_in_place(
        &Saved,
        memory,
        arch,
        options,
        registers_mut(&mut w.regs),
        &at,
    )
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
        Some(Ok(loc)) => decode_one(rec, &loc, registers(&w.regs)),
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
        decode_one(rec, &loc, registers(regs))
    });
    match r {
        Ok(v) => {
            out.write(v);
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// `decode_with`, out of line: one copy for `pcmap_walk_decode` and
/// `pcmap_decode_registers` (the roots' decoding keeps its own, inline).
#[inline(never)]
fn decode_one(
    rec: &pcmap_record,
    loc: &Location,
    regs: &Registers,
) -> Result<pcmap_value, pcmap_status> {
    decode_with(rec, loc, regs)
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
/// `PCMAP_ERR_CORRUPT` for a statepoint whose locations are not laid out
/// so; `PCMAP_ERR_UNKNOWN_KIND` for a record of unknown kind (an object
/// finished without the plugin's site descriptions); `PCMAP_ERR_NO_REGISTER`.
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
    if let Some(e) = cached(w).filter(|e| e.frame.has_roots()) {
        let visited = e.frame.roots_known(registers(&w.regs), |base, derived, r| {
            let root = pcmap_root {
                base: base.into(),
                derived: derived.into(),
                base_index: r.base_index,
                derived_index: r.derived_index,
            };
            // SAFETY: the caller's callback and context.
            unsafe { visit(ctx, &root) };
        });
        return match visited {
            Ok(()) => PCMAP_OK,
            Err(walk::DecodeError::RegisterUnknown(_)) => PCMAP_ERR_NO_REGISTER,
            Err(walk::DecodeError::Table(e)) => e.into(),
        };
    }
    roots_uncached(w, visit, ctx)
}

/// A frame `pcmap_walk_collect` visits: its registers and its roots.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_walk_frame {
    /// The frame's registers (`regs->pc` is its PC), valid during the call.
    pub regs: *const pcmap_registers,
    /// `num_roots` roots, as `pcmap_walk_roots` gives them, in its order,
    /// valid during the call.
    pub roots: *const pcmap_root,
    pub num_roots: u32,
    /// Steps from the first frame (the cursor's `depth` there).
    pub depth: u32,
}

/// Called by `pcmap_walk_collect` for each frame with a record (NULL is
/// rejected).
#[allow(non_camel_case_types)]
pub type pcmap_frame_fn =
    Option<unsafe extern "C" fn(ctx: *mut core::ffi::c_void, frame: *const pcmap_walk_frame)>;

/// Walks the whole stack from `regs` in one call: what a cursor from
/// `pcmap_walk_init_cached(.., maps, regs, stack_low, stack_high, flags,
/// cache)` does, calling `pcmap_walk_roots` at every frame with a record
/// and `pcmap_walk_step` until it fails, but with one call of `visit` per
/// such frame with all its roots (a frame with more than 32 roots: several
/// calls, each with the next ones; one with none: one call, no roots).
/// Frames without a record (passed through with
/// `PCMAP_WALK_FRAME_POINTER_CHAIN`) are not visited. A frame found in the
/// cache is stepped and its roots decoded from the cache entry alone (no
/// function or record copied); any other goes the cursor's exact way (and
/// is kept in the cache if it fits). Returns what ended the walk, the
/// status the cursor gives: the failed step's `PCMAP_STOP_*` (the end of
/// the managed stack: `PCMAP_STOP_UNMANAGED`) or error, or the error of a
/// frame's roots (not visited; the walk stops there), or of the start.
/// `cache` may be NULL (every frame the exact way).
///
/// # Safety
/// As `pcmap_walk_init_cached`; `visit` is callable with `ctx`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pcmap_walk_collect(
    cache: *mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
    visit: pcmap_frame_fn,
    ctx: *mut core::ffi::c_void,
) -> pcmap_status {
    let Some(visit) = visit else {
        return PCMAP_ERR_ARGUMENT;
    };
    let start = Start {
        cache,
        maps,
        regs,
        stack_low,
        stack_high,
        flags,
    };
    collect(&start, Sink::Frames(visit, ctx))
}

/// Where a root is, for a moving collector: the address of the slot
/// holding its base pointer and of the slot holding its derived pointer
/// (the same address for a plain root, and for every root of a stack map
/// or patch point). A root in a callee-saved register is the slot that
/// register is saved in (a callee's save slot, or the `pcmap_registers`
/// of the capture, which the trampoline reloads from).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_root_slot {
    pub base: u64,
    pub derived: u64,
}

const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<pcmap_root_slot>() == size_of::<RootSlot>());
    assert!(align_of::<pcmap_root_slot>() == align_of::<RootSlot>());
    assert!(offset_of!(pcmap_root_slot, base) == offset_of!(RootSlot, base));
    assert!(offset_of!(pcmap_root_slot, derived) == offset_of!(RootSlot, derived));
};

/// Called by `pcmap_walk_collect_slots` with a full buffer: its first
/// `count` slots, valid during the call (the buffer is reused after).
#[allow(non_camel_case_types)]
pub type pcmap_slots_fn = Option<
    unsafe extern "C" fn(ctx: *mut core::ffi::c_void, slots: *const pcmap_root_slot, count: u32),
>;

/// The caller's buffer for `pcmap_walk_collect_slots`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_slot_buffer {
    /// Memory for `capacity` slots (at least 32). A run of cached frames
    /// stops 8 slots before the end, where the exact way fills the rest:
    /// a buffer of a few hundred slots keeps nearly every frame on the
    /// fast path.
    pub slots: *mut pcmap_root_slot,
    pub capacity: u32,
    /// Out: slots in `slots` not yet passed to `full`.
    pub count: u32,
    /// Out: frames with a record whose roots were all given (the frame
    /// where a walk stopped with `PCMAP_STOP_NO_SLOT` is not counted).
    pub frames: u32,
    /// Called when slots do not fit in what is left of the buffer (a
    /// cached frame's all together; a frame decoded from the table's one
    /// by one), with the buffer's `count` slots (then reused from its
    /// start); NULL: the walk stops with `PCMAP_ERR_OUT_OF_RANGE` instead
    /// (the slots so far, possibly part of a frame's, in the buffer).
    pub full: pcmap_slots_fn,
    pub ctx: *mut core::ffi::c_void,
}

impl pcmap_slot_buffer {
    /// Room for `n` more slots: the buffer passed to `full` if they do
    /// not fit.
    ///
    /// # Safety
    /// `full` is callable with `ctx`; `slots` holds `count` written slots.
    #[inline(always)]
    unsafe fn room(&mut self, n: usize) -> Result<(), pcmap_status> {
        if self.count as usize + n <= self.capacity as usize {
            return Ok(());
        }
        self.flush()
    }
    #[inline(never)]
    unsafe fn flush(&mut self) -> Result<(), pcmap_status> {
        let full = self.full.ok_or(PCMAP_ERR_OUT_OF_RANGE)?;
        full(self.ctx, self.slots, self.count);
        self.count = 0;
        Ok(())
    }
}

/// Walks the whole stack from `regs` as `pcmap_walk_collect` does (same
/// arguments, cache and steps), but gives, instead of decoded roots, the
/// ADDRESS of every root's slots (`pcmap_root_slot`: base, derived) into
/// the caller's buffer `out`, in `pcmap_walk_collect`'s order, frame after
/// frame; `full` is called when the buffer is full. What a moving
/// collector needs: it reads and rewrites each slot. Every root must have
/// a slot: a frame with a root that has none (a `Direct` location, whose
/// value is a stack address, not a slot; a `Constant`; a register saved
/// nowhere) stops the walk with `PCMAP_STOP_NO_SLOT`, before any of that
/// frame's slots is given (`out->frames` frames were): nothing is guessed;
/// walk that stack with `pcmap_walk_collect` instead. Otherwise returns
/// what `pcmap_walk_collect` returns (`PCMAP_STOP_UNMANAGED` at the end of
/// the managed stack). On return `out->count` slots are in the buffer,
/// not passed to `full`. `PCMAP_ERR_ARGUMENT`: as `pcmap_walk_collect`,
/// or a buffer of fewer than 32 slots.
///
/// # Safety
/// As `pcmap_walk_init_cached`; `out` is writable, its `slots` writable
/// for `capacity` slots, its `full` NULL or callable with its `ctx`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_collect_slots(
    cache: *mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
    out: *mut pcmap_slot_buffer,
) -> pcmap_status {
    let Some(b) = out.as_mut() else {
        return PCMAP_ERR_ARGUMENT;
    };
    if b.slots.is_null() || (b.capacity as usize) < ROOTS_AT_ONCE {
        return PCMAP_ERR_ARGUMENT;
    }
    b.count = 0;
    b.frames = 0;
    let start = Start {
        cache,
        maps,
        regs,
        stack_low,
        stack_high,
        flags,
    };
    collect(&start, Sink::Slots(b))
}

/// The arguments `pcmap_walk_collect` and `pcmap_walk_collect_slots` start
/// a walk with (`init`'s).
struct Start {
    cache: *mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
}

/// What a whole-stack walk gives each frame with a record.
enum Sink<'b> {
    /// `pcmap_walk_collect`: its decoded roots to a callback.
    Frames(
        unsafe extern "C" fn(ctx: *mut core::ffi::c_void, frame: *const pcmap_walk_frame),
        *mut core::ffi::c_void,
    ),
    /// `pcmap_walk_collect_slots`: its roots' slots into a buffer.
    Slots(&'b mut pcmap_slot_buffer),
}

/// `pcmap_walk_collect` and `pcmap_walk_collect_slots`: one loop (one copy
/// of the start, the step, the cache probe and the lookup), the frames
/// given to `sink`. A frame found in the cache is given and stepped from
/// the entry alone where its plan applies (the sink's checks, then
/// `fast_step`'s), its caller probed in the cache; any other frame, or
/// the rest of a cached one whose plan does not apply (its function and
/// record copied from the entry), goes the cursor's exact way, and its
/// caller is looked up and kept if it fits.
///
/// # Safety
/// As `pcmap_walk_collect`; `sink`'s callback and buffer as promised there.
#[inline(never)]
unsafe fn collect(a: &Start, mut sink: Sink<'_>) -> pcmap_status {
    let Some(arch) = ARCH else {
        return PCMAP_ERR_ARGUMENT;
    };
    let mut walk = MaybeUninit::<pcmap_walk>::uninit();
    let s = init(
        walk.as_mut_ptr(),
        a.maps,
        a.regs,
        a.stack_low,
        a.stack_high,
        a.flags,
        a.cache,
    );
    if s != PCMAP_OK {
        return s;
    }
    // SAFETY: `init` wrote every field but `function`, `record`, `data`
    // and `data_size`, which are read only where `at` (or a cache entry
    // copied into them) makes them valid, as in a cursor.
    let w = walk.assume_init_mut();
    let memory = w.memory();
    let mut buffer = [const { MaybeUninit::<pcmap_root>::uninit() }; walk::DECODED_ROOTS];
    // The cache's entries (they stay where they are for the walk: a flush
    // only empties them), and the slot of the frame's entry, found by a
    // link, a probe or a lookup.
    let entries = Entries::of(w);
    let mut hit = entries.and_then(|t| t.current(w));
    loop {
        if let (Some(at), Some(t)) = (hit, entries) {
            let ran = match &mut sink {
                Sink::Frames(visit, ctx) => {
                    frames_run(w, at, &mut buffer, (*visit, *ctx), t, &memory, arch)
                }
                Sink::Slots(b) => slots_run(w, at, b, t, &memory, arch),
            };
            match ran {
                // Stepped from the frame in slot `from` to a PC its link
                // does not lead to: looked up through the cache (kept if
                // it fits), and linked.
                Run::LookUp(from) => {
                    let pc = w.regs.pc;
                    match look_up_next(w, &memory, arch, pc) {
                        Ok(_) => hit = t.current(w),
                        Err(s) => return s,
                    }
                    if let Some(to) = hit {
                        (*from).entry.hot.link = t.link_to(to);
                    }
                    continue;
                }
                // The plan does not apply: the exact way, from the
                // entry's function and record.
                Run::Exact(at) => {
                    // SAFETY: `Found` is laid out as these fields (asserted
                    // above); the entry is in the cache's memory, not in
                    // the walk.
                    let found = addr_of!((*at).entry.found);
                    core::ptr::copy_nonoverlapping(
                        found,
                        addr_of_mut!(w.function).cast::<Found>(),
                        1,
                    );
                }
            }
        }
        if w.at == PCMAP_WALK_AT_RECORD {
            let s = match &mut sink {
                Sink::Frames(visit, ctx) => {
                    let mut frame = pcmap_walk_frame {
                        regs: &w.regs,
                        roots: buffer.as_ptr().cast(),
                        num_roots: 0,
                        depth: w.depth,
                    };
                    collect_uncached(w, &mut frame, *visit, *ctx)
                }
                Sink::Slots(b) => slots_uncached(w, b),
            };
            if s != PCMAP_OK {
                return s;
            }
        }
        if let Err(stop) = step_uncached(w, &memory, arch) {
            return stop.into();
        }
        w.depth = w.depth.saturating_add(1);
        let pc = w.regs.pc;
        match look_up_next(w, &memory, arch, pc) {
            Ok(_) => hit = entries.and_then(|t| t.current(w)),
            Err(s) => return s,
        }
    }
}

/// `collect`'s lookup of the caller's PC `pc` (not found by a link or a
/// probe): through the cache, `at` and `entry` written.
///
/// # Safety
/// As `collect`.
#[inline(always)]
unsafe fn look_up_next(
    w: &mut pcmap_walk,
    memory: &NativeMemory,
    arch: Arch,
    pc: u64,
) -> Result<(), pcmap_status> {
    let (maps, flags, cache) = (w.maps, w.flags, w.cache);
    w.at = look_up_cached(w, cache, maps, flags, memory, arch, pc)?;
    Ok(())
}

/// A walk's cache's entries, for `collect`'s runs of cached frames: where
/// they are. Slots are named by where they are; a link names its slot by
/// its offset in words from the first (`Entries::link_to`): one add, no
/// multiply, on the way from a frame's entry to its caller's, clamped to
/// the last slot (`Entries::linked_slot`): in the cache whatever the
/// entry holds.
#[derive(Clone, Copy)]
struct Entries {
    cache: *mut pcmap_walk_cache,
    base: *mut Slot,
    /// The last slot's offset in words: where a link's read is clamped.
    last: usize,
}

/// A slot's size in words: the unit of a link.
const SLOT_WORDS: usize = core::mem::size_of::<Slot>() / 8;
const _: () = assert!(SLOT_WORDS * 8 == core::mem::size_of::<Slot>());
/// The most entries a cache has: every link (a slot's offset in words)
/// fits in a `u32`.
const MAX_CAPACITY_BITS: u32 = 25;
const _: () = assert!((1usize << MAX_CAPACITY_BITS) * SLOT_WORDS <= 1 << 32);

impl Entries {
    /// The walk's cache's entries, if it has a cache.
    ///
    /// # Safety
    /// `w.cache` is NULL or the walk's cache, set up by
    /// `pcmap_walk_cache_init`.
    unsafe fn of(w: &pcmap_walk) -> Option<Entries> {
        let c = w.cache.as_ref()?;
        Some(Entries {
            cache: w.cache,
            base: c.entries.cast::<Slot>(),
            last: (c.capacity as usize).wrapping_sub(1) * SLOT_WORDS,
        })
    }
    /// The link to `slot`, one of the entries: its offset in words.
    #[inline(always)]
    fn link_to(self, slot: *const Slot) -> u32 {
        ((slot as usize).wrapping_sub(self.base as usize) / 8) as u32
    }
    /// The slot `link` names (`link_to`), clamped to the last: in the
    /// cache whatever the entry holds (a slot's start, for a link the
    /// library made).
    #[inline(always)]
    fn linked_slot(self, link: u32) -> *mut Slot {
        let words = (link as usize).min(self.last);
        self.base.cast::<u64>().wrapping_add(words).cast()
    }
    /// The slot of the walk's current frame's entry (`cached`), if any.
    ///
    /// # Safety
    /// As `of`.
    #[inline(always)]
    unsafe fn current(self, w: &pcmap_walk) -> Option<*mut Slot> {
        let e = cached(w)?;
        let slot = (e as *const Entry).byte_sub(core::mem::offset_of!(Slot, entry));
        Some(slot.cast::<Slot>().cast_mut())
    }
    /// The slot of the entry for `pc`, the PC of the caller of the frame
    /// whose entry is in slot `from`, if `from`'s link leads to it (a
    /// flush empties every slot: a PC is never 0). Otherwise the walk
    /// looks `pc` up through the cache, and `collect` links `from` to
    /// where it found it.
    ///
    /// # Safety
    /// As `of`; `from` is one of the entries (or where a link led).
    #[inline(always)]
    unsafe fn linked(self, from: *const Slot, pc: u64) -> Option<*mut Slot> {
        let to = self.linked_slot((*from).entry.hot.link);
        self.holds(to, pc).then_some(to)
    }
    /// Whether `slot` holds the entry of `pc`, a PC in a function (not the
    /// mark of one in none). A link's target may have been reused since
    /// the link was made, even for the mark of the very PC it looks for.
    ///
    /// # Safety
    /// `slot` is one of the entries.
    #[inline(always)]
    unsafe fn holds(self, slot: *const Slot, pc: u64) -> bool {
        (*slot).pc == pc && (*slot).entry.hot.need != UNMANAGED
    }
}

/// `pcmap_walk_collect` from the frame whose entry is in slot `at` on:
/// each frame's roots given to `visit` and the frame stepped by its
/// entry's plan (`visit_frame`, then `fast_step`'s), the caller's entry
/// found by its link (`Entries::linked`); until a frame whose entry
/// cannot give its roots or step (`Run::Exact`) or a caller its link does
/// not lead to (`Run::LookUp`).
///
/// # Safety
/// As `collect`; `at` is the slot of the walk's frame's entry.
#[inline(always)]
unsafe fn frames_run(
    w: &mut pcmap_walk,
    mut at: *mut Slot,
    buffer: &mut [MaybeUninit<pcmap_root>; walk::DECODED_ROOTS],
    (visit, ctx): (
        unsafe extern "C" fn(ctx: *mut core::ffi::c_void, frame: *const pcmap_walk_frame),
        *mut core::ffi::c_void,
    ),
    t: Entries,
    memory: &NativeMemory,
    arch: Arch,
) -> Run {
    let mut hits = 0u64;
    let end = loop {
        let e = &(*at).entry;
        // The plan's checks (nothing changed yet), then the roots'.
        let Some(step) = e.frame.fast_step(memory, arch, registers(&w.regs)) else {
            break Run::Exact(at);
        };
        if !visit_frame(w, e, buffer, visit, ctx) {
            break Run::Exact(at);
        }
        // SAFETY: `fast_step` of this frame, memory and registers (the
        // callback only read them).
        apply_plan(&e.frame, memory, arch, &mut w.regs, step);
        w.depth = w.depth.saturating_add(1);
        match t.linked(at, w.regs.pc) {
            Some(to) => {
                at = to;
                hits += 1;
            }
            None => break Run::LookUp(at),
        }
    };
    finish_run(w, t, hits, end);
    end
}

/// `pcmap_walk_collect_slots`' `frames_run`, by the entries' hot forms
/// (`HotPlan`): each frame's roots' slots into `b`, with SP, the frame
/// pointer and a mask of what is missing in registers, the saved
/// registers' slots worked out from the run's log when needed and their
/// values read once, at the end (`HotRegisters`). A frame whose hot form
/// does not apply, or met with fewer than `DECODED_ROOTS` slots left in
/// the buffer, takes the exact way (which fills the rest, or calls
/// `full`).
///
/// # Safety
/// As `frames_run`; `b` as `pcmap_walk_collect_slots` promises.
#[inline(never)]
unsafe fn slots_run(
    w: &mut pcmap_walk,
    at: *mut Slot,
    b: &mut pcmap_slot_buffer,
    t: Entries,
    memory: &NativeMemory,
    arch: Arch,
) -> Run {
    let mut log = HotLog::default();
    let mut regs = HotRegisters::new(arch, registers_mut(&mut w.regs), &mut log);
    let slots = b.slots.cast::<RootSlot>();
    let full = slots.wrapping_add(b.capacity as usize);
    // Up to it, any frame's roots fit: a run stops past it, and the
    // exact way fills the rest of the buffer (or calls `full`).
    let roomy = full.wrapping_sub(walk::DECODED_ROOTS);
    let mut out = slots.wrapping_add(b.count as usize);
    let mut slot = at;
    let end = loop {
        let h = &(*slot).entry.hot;
        let Some(step) = h.check(memory, &regs) else {
            break Ok(slot);
        };
        if out > roomy {
            break Ok(slot);
        }
        let n = step.num_roots();
        let pc = step.ra();
        // SAFETY: `check` of this plan, memory and registers; the caller's
        // buffer has room for `n` more (above).
        h.step(memory, arch, &mut regs, step, out);
        out = out.add(n);
        // The link's slot holds `pc`'s entry, or the mark of a PC in no
        // function, which no check passes (below).
        let next = t.linked_slot(h.link);
        if (*next).pc != pc {
            break Err((slot, pc));
        }
        slot = next;
    };
    let steps = regs.steps();
    // The walk's PC: the frame's at `slot`, or its caller's, not linked.
    let (end, pc) = match end {
        // A link to the mark of the very PC it looks for (the slot reused
        // since the link was made): not a link (`Entries::holds`). The
        // look-up finds the mark and links nothing (a PC in no function
        // has no entry), so the slot it names is the mark's.
        Ok(slot) if (*slot).entry.hot.need == UNMANAGED => (Run::LookUp(slot), (*slot).pc),
        Ok(slot) => (Run::Exact(slot), (*slot).pc),
        Err((slot, pc)) => (Run::LookUp(slot), pc),
    };
    // Every step but the last followed a link (the last too, if the run
    // ended at a frame that takes the exact way).
    let hits = u64::from(steps) - u64::from(matches!(end, Run::LookUp(_)));
    // Nothing stepped: the walk's registers as they were.
    if steps != 0 {
        // SAFETY: the run read every saved slot's span (its checks).
        regs.finish(memory, arch, pc);
        w.depth = w.depth.saturating_add(steps);
        b.frames += steps;
    }
    b.count = out.offset_from(slots) as u32;
    finish_run(w, t, hits, end);
    end
}

/// The end of a run: the cache's hits counted; the entry of the frame
/// that takes the exact way the walk's.
#[inline(always)]
unsafe fn finish_run(w: &mut pcmap_walk, t: Entries, hits: u64, end: Run) {
    let c = &mut *t.cache;
    c.hits = c.hits.wrapping_add(hits);
    if let Run::Exact(at) = end {
        w.entry = at.cast_const().cast();
    }
}

/// How a run of cached frames ended (`frames_run`, `slots_run`), by slot
/// (one of the entries, or where a link led: in the cache).
#[derive(Clone, Copy)]
enum Run {
    /// The frame whose entry is there takes the exact way (the walk is at
    /// it, nothing of it given).
    Exact(*mut Slot),
    /// The walk stepped from the frame whose entry is there to a PC its
    /// link does not lead to.
    LookUp(*mut Slot),
}

/// `pcmap_walk_collect` at a frame found in the cache: its roots decoded
/// from the entry `e`, to `visit`. `false`: the entry cannot give them (not
/// kept, or a register they need unknown): nothing visited, the frame
/// goes the exact way.
///
/// # Safety
/// As `collect`.
#[inline(always)]
unsafe fn visit_frame(
    w: &mut pcmap_walk,
    e: &Entry,
    buffer: &mut [MaybeUninit<pcmap_root>; walk::DECODED_ROOTS],
    visit: unsafe extern "C" fn(ctx: *mut core::ffi::c_void, frame: *const pcmap_walk_frame),
    ctx: *mut core::ffi::c_void,
) -> bool {
    if !e.frame.has_roots() {
        return false;
    }
    let mut n = 0usize;
    let decoded = e.frame.roots_known(registers(&w.regs), |base, derived, r| {
        if let Some(slot) = buffer.get_mut(n) {
            slot.write(pcmap_root {
                base: base.into(),
                derived: derived.into(),
                base_index: r.base_index,
                derived_index: r.derived_index,
            });
            n += 1;
        }
    });
    if decoded.is_err() {
        return false;
    }
    let frame = pcmap_walk_frame {
        regs: &w.regs,
        roots: buffer.as_ptr().cast(),
        num_roots: n as u32,
        depth: w.depth,
    };
    visit(ctx, &frame);
    true
}

/// `pcmap_walk_collect_slots` at a frame not in the cache (or whose entry
/// has no roots): its roots as `pcmap_walk_roots` gives them (function and
/// record copied from the entry if the lookup did not write them), every
/// one checked to have its slots before any is given; the frame counted
/// if they all were.
///
/// # Safety
/// As `pcmap_walk_collect_slots`; `w` is at a record.
#[inline(never)]
unsafe fn slots_uncached(w: &mut pcmap_walk, b: &mut pcmap_slot_buffer) -> pcmap_status {
    // `collect_uncached` twice (no second copy of its loop): every root
    // checked, then every one given.
    let mut g = Giving {
        buffer: b,
        status: PCMAP_OK,
    };
    let mut frame = pcmap_walk_frame {
        regs: &w.regs,
        roots: core::ptr::null(),
        num_roots: 0,
        depth: w.depth,
    };
    let ctx = (&mut g as *mut Giving).cast();
    let s = collect_uncached(w, &mut frame, check_slots, ctx);
    if s != PCMAP_OK || g.status != PCMAP_OK {
        return if s != PCMAP_OK { s } else { g.status };
    }
    let s = collect_uncached(w, &mut frame, give_roots, ctx);
    if s != PCMAP_OK {
        return s;
    }
    if g.status == PCMAP_OK {
        g.buffer.frames += 1;
    }
    g.status
}

/// The state of `slots_uncached`'s passes.
struct Giving<'b> {
    buffer: &'b mut pcmap_slot_buffer,
    status: pcmap_status,
}

/// `slots_uncached`'s first pass: `PCMAP_STOP_NO_SLOT` if a root has no
/// slot.
unsafe extern "C" fn check_slots(ctx: *mut core::ffi::c_void, f: *const pcmap_walk_frame) {
    // SAFETY: `slots_uncached`'s state and `collect_uncached`'s frame.
    let (g, f) = (&mut *ctx.cast::<Giving>(), &*f);
    for r in core::slice::from_raw_parts(f.roots, f.num_roots as usize) {
        if !(r.base.has_address & r.derived.has_address) {
            g.status = PCMAP_STOP_NO_SLOT;
        }
    }
}

/// `slots_uncached`'s second pass: the roots' slots into the buffer.
unsafe extern "C" fn give_roots(ctx: *mut core::ffi::c_void, f: *const pcmap_walk_frame) {
    // SAFETY: as `check_slots`.
    let (g, f) = (&mut *ctx.cast::<Giving>(), &*f);
    for r in core::slice::from_raw_parts(f.roots, f.num_roots as usize) {
        if g.status != PCMAP_OK {
            return;
        }
        let b = &mut *g.buffer;
        // SAFETY: the caller's buffer and callback; `room` left a slot.
        match b.room(1) {
            Ok(()) => {
                b.slots.add(b.count as usize).write(pcmap_root_slot {
                    base: r.base.address,
                    derived: r.derived.address,
                });
                b.count += 1;
            }
            Err(e) => g.status = e,
        }
    }
}

/// `pcmap_walk_collect`'s visit of a frame that is not in the cache (or
/// whose entry has no roots): its function and record as the table gives
/// them, copied from the entry if the lookup did not write them.
///
/// # Safety
/// As `pcmap_walk_collect`; `w` is at a record.
#[inline(never)]
unsafe fn collect_uncached(
    w: &mut pcmap_walk,
    frame: &mut pcmap_walk_frame,
    visit: unsafe extern "C" fn(ctx: *mut core::ffi::c_void, frame: *const pcmap_walk_frame),
    ctx: *mut core::ffi::c_void,
) -> pcmap_status {
    if let Some(e) = cached(w).map(|e| &e.found as *const Found) {
        // SAFETY: `Found` is laid out as these fields (asserted above); the
        // entry is in the cache's memory, not in the walk (a memcpy).
        core::ptr::copy_nonoverlapping(e, addr_of_mut!(w.function).cast::<Found>(), 1);
    }
    roots_in_batches(w, &mut |roots| {
        frame.roots = roots.as_ptr();
        frame.num_roots = roots.len() as u32;
        // SAFETY: the caller's callback and context.
        unsafe { visit(ctx, frame) };
    })
}

/// `pcmap_walk_roots` from the record as the table gives it.
///
/// # Safety
/// As `pcmap_walk_roots`.
#[inline(never)]
unsafe fn roots_uncached(
    w: &pcmap_walk,
    visit: unsafe extern "C" fn(ctx: *mut core::ffi::c_void, root: *const pcmap_root),
    ctx: *mut core::ffi::c_void,
) -> pcmap_status {
    roots_in_batches(w, &mut |roots| {
        for root in roots {
            // SAFETY: the caller's callback and context.
            unsafe { visit(ctx, root) };
        }
    })
}

/// The roots of the walk's record as the table gives it, decoded with the
/// frame's registers, to `batch` in record order in slices of at most
/// `ROOTS_AT_ONCE` (one slice, possibly empty, for a record with no more):
/// the whole layout and every root checked before the first slice.
///
/// # Safety
/// As `pcmap_walk_roots`.
#[inline(never)]
unsafe fn roots_in_batches(w: &pcmap_walk, batch: &mut dyn FnMut(&[pcmap_root])) -> pcmap_status {
    let rec = &w.record;
    let layout = match RootLayout::of(rec.kind) {
        Ok(layout) => layout,
        Err(e) => return Status::from(e).0,
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
    let mut pass = |visiting: bool, buffer: &mut [MaybeUninit<pcmap_root>], n: &mut usize| {
        let locations = data.locations_at(rec.locations, rec.num_locations);
        walk::try_roots(
            layout,
            locations,
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
                if visiting && *n == ROOTS_AT_ONCE {
                    batch(filled(buffer, *n));
                    *n = 0;
                }
                if let Some(slot) = buffer.get_mut(*n) {
                    slot.write(root);
                }
                *n += 1;
                Ok(())
            },
        )
    };
    if let Err(Status(e)) = pass(false, &mut buffer, &mut n) {
        return e;
    }
    if n > ROOTS_AT_ONCE {
        n = 0;
        let _ = pass(true, &mut buffer, &mut n);
    }
    batch(filled(&buffer, n));
    PCMAP_OK
}

/// The first `n` roots of `buffer`, written.
#[inline(always)]
fn filled(buffer: &[MaybeUninit<pcmap_root>], n: usize) -> &[pcmap_root] {
    let n = n.min(buffer.len());
    // SAFETY: the callers wrote the first `n` (at most the buffer's
    // length); MaybeUninit<T> has T's layout.
    unsafe { core::slice::from_raw_parts(buffer.as_ptr().cast(), n) }
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
            walk::RootsError::UnknownKind => PCMAP_ERR_UNKNOWN_KIND,
            walk::RootsError::Table(e) => e.into(),
        })
    }
}

impl From<walk::KnownValue> for pcmap_value {
    #[inline(always)]
    fn from(v: walk::KnownValue) -> Self {
        pcmap_value {
            value: v.value,
            address: v.address,
            has_value: v.has_value,
            has_address: v.has_address,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `can_read_near` allows a CFA only where every word within
    /// `SPAN_REACH` of it, both ways, is inside the bounds: exactly.
    #[test]
    fn a_cfa_is_near_only_inside_the_bounds_by_the_reach() {
        let (low, high) = (0x10_0000u64, 0x10_4000u64);
        let m = NativeMemory::new(low, high);
        let near = |c: u64| m.can_read_near(c);
        assert!(near(low + SPAN_REACH));
        assert!(!near(low + SPAN_REACH - 8));
        assert!(near(high - SPAN_REACH));
        assert!(!near(high - SPAN_REACH + 8));
        assert!(near((low + high) / 2));
        assert!(!near(0) && !near(u64::MAX - 7));
        // Each allowed span of reads is one `can_read` allows.
        for c in [low + SPAN_REACH, high - SPAN_REACH] {
            assert!(m.can_read(c - SPAN_REACH, c + SPAN_REACH));
        }
        // Bounds closer than twice the reach: no CFA is near.
        let small = NativeMemory::new(low, low + 2 * SPAN_REACH - 8);
        for c in (low..low + 2 * SPAN_REACH).step_by(8) {
            assert!(!small.can_read_near(c), "{c:#x}");
        }
        assert!(NativeMemory::new(low, low + 2 * SPAN_REACH).can_read_near(low + SPAN_REACH));
        // Without bounds: any aligned CFA but within the reach of 0 and of
        // the top of the address space.
        let none = NativeMemory::new(0, 0);
        assert!(none.can_read_near(SPAN_REACH + 8) && !none.can_read_near(SPAN_REACH));
        let top = u64::MAX - SPAN_REACH + 1;
        assert!(none.can_read_near(top - 8) && !none.can_read_near(top));
    }
}
