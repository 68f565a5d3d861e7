//! The C API's stack walk: `pcmap_reader::walk`, the one walker, over an
//! opened section (or the registry) and the running program's own stack.
//!
//! Everything here is C glue: the `repr(C)` forms of the walker's types
//! (`pcmap_walk` begins with the walker's `Frame`, `pcmap_walk_cache` is its
//! `Cache`, `pcmap_root` its `RootValue`), the tables the walker reads
//! (`CTables`: a `pcmap_stackmaps` or the registry, as the reader's
//! `UnwindTables`), the sinks of the two collectors (a C callback, a
//! caller's slot buffer), argument checks and statuses. A walk is plain
//! data the caller owns: no allocation, no lock, no global state, so it
//! may run in a signal handler.

use core::ffi::c_void;

use pcmap_reader::flat::{frame_state_flags, site_head, Pc, SiteData};
use pcmap_reader::walk::{
    self, Cache, CacheKey, CfaRule, End, Frame, FrameAt, Host, NativeMemory, Options, Registers,
    RootSlot, RootValue, RootsError, Sink, State, Stop, UnwindTables, Walker,
};
use pcmap_reader::{Location, LocationKind};

use crate::constants::{
    PCMAP_WALK_CACHE_ENTRY_SIZE, PCMAP_WALK_FRAME_POINTER_CHAIN, PCMAP_WALK_INTERRUPTED,
    PCMAP_WALK_REGISTRY,
};
use crate::section::{opened, CSection, Full, Match, Section};
use crate::status::pcmap_status::{self, *};
use crate::types::{pcmap_function, pcmap_record, pcmap_registers, pcmap_stackmaps, pcmap_value};

/// A stack walk in progress (see `pcmap_walk_init`). Its first fields are
/// the walker's `Frame`, field for field (asserted below).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_walk {
    /// The current frame's registers (`regs.pc` is its PC).
    pub regs: pcmap_registers,
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
    /// For the library: the Data area of the record's table.
    pub data: *const u8,
    pub data_size: u32,
    /// For the library: the cache slot the frame was found in, and the
    /// cache's flush count when the walk started.
    pub entry: *const c_void,
    pub cache_epoch: u64,
    /// The opened section the walk looks PCs up in (NULL, or ignored,
    /// with `PCMAP_WALK_REGISTRY`: the registered images).
    pub maps: *const pcmap_stackmaps,
    /// Stack reads are allowed in `[stack_low, stack_high)`; both 0: any
    /// 8-aligned address (the caller vouches that the stack is mapped).
    pub stack_low: u64,
    pub stack_high: u64,
    /// `PCMAP_WALK_*` flags.
    pub flags: u32,
    /// The cache of compiled frames (`pcmap_walk_init_cached`), or NULL.
    pub cache: *mut pcmap_walk_cache,
}

/// A record as a walk keeps it: the record, and its table's Data area
/// (where its frame state's saved registers and its locations are).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CRecord {
    record: pcmap_record,
    data: *const u8,
    data_size: u32,
}

/// The walker's frame over the C API's tables.
type CFrame = Frame<pcmap_function, CRecord>;
/// The walker's cache over them.
type CCache = Cache<'static, pcmap_function, CRecord>;

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(offset_of!(pcmap_walk, regs) == offset_of!(CFrame, regs));
    assert!(offset_of!(pcmap_walk, depth) == offset_of!(CFrame, depth));
    assert!(offset_of!(pcmap_walk, at) == offset_of!(CFrame, at));
    assert!(offset_of!(pcmap_walk, stop_register) == offset_of!(CFrame, stop_register));
    assert!(offset_of!(pcmap_walk, function) == offset_of!(CFrame, function));
    assert!(offset_of!(pcmap_walk, record) == offset_of!(CFrame, record));
    assert!(
        offset_of!(pcmap_walk, data) - offset_of!(pcmap_walk, record) == offset_of!(CRecord, data)
    );
    assert!(
        offset_of!(pcmap_walk, data_size) - offset_of!(pcmap_walk, record)
            == offset_of!(CRecord, data_size)
    );
    assert!(offset_of!(pcmap_walk, entry) + 8 == offset_of!(pcmap_walk, cache_epoch));
    assert!(offset_of!(pcmap_walk, cache_epoch) + 8 == size_of::<CFrame>());
    assert!(offset_of!(pcmap_walk, maps) == size_of::<CFrame>());
};

/// A caller-owned cache of compiled frames for `pcmap_walk_init_cached` and
/// the collectors: entries keyed by return address, each the plan of the
/// record there (its step and roots in fixed form) and the function and
/// record. Filled by walks (a frame not in it is looked up as without a
/// cache, and kept if its plan fits); emptied when a walk finds it
/// describes other tables (another section, or the registry at another
/// generation). One cache per thread (or per collector, under its lock):
/// walks sharing one must not run at once. The walker's `Cache`, field for
/// field.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_walk_cache {
    /// The caller's memory for `capacity` entries (a power of two) of
    /// `PCMAP_WALK_CACHE_ENTRY_SIZE` bytes.
    pub entries: *mut c_void,
    pub capacity: u32,
    /// What the entries describe (`bound` 0: nothing yet): the section's
    /// data, size and address, or the registry's generation.
    pub bound: u32,
    pub key: [u64; 4],
    /// Flushes so far (a walk started before the last one stops using it).
    pub epoch: u64,
    /// Frames found in the cache (a record, or a PC in no function kept
    /// after its lookup); looked up and kept; looked up and not kept as a
    /// record (no record, or a record whose plan does not fit).
    pub hits: u64,
    pub misses: u64,
    pub uncached: u64,
}

const _: () = {
    use core::mem::{align_of, size_of};
    assert!(size_of::<pcmap_walk_cache>() == size_of::<CCache>());
    assert!(align_of::<pcmap_walk_cache>() == align_of::<CCache>());
    assert!(size_of::<walk::Slot<pcmap_function, CRecord>>() == PCMAP_WALK_CACHE_ENTRY_SIZE);
    // The counters, which C reads by name.
    assert!(core::mem::offset_of!(pcmap_walk_cache, hits) == core::mem::offset_of!(CCache, hits));
    assert!(
        core::mem::offset_of!(pcmap_walk_cache, misses) == core::mem::offset_of!(CCache, misses)
    );
    assert!(
        core::mem::offset_of!(pcmap_walk_cache, uncached)
            == core::mem::offset_of!(CCache, uncached)
    );
};

/// A GC root of a frame: where the derived pointer and its base are (the
/// same location for a plain root), decoded with the frame's registers.
/// The walker's `RootValue`.
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

/// Where a root is, for a moving collector: the address of the slot
/// holding its base pointer and of the slot holding its derived pointer
/// (the same address for a plain root, and for every root of a stack map
/// or patch point). A root in a callee-saved register is the slot that
/// register is saved in (a callee's save slot, or the `pcmap_registers`
/// of the capture, which the trampoline reloads from). The walker's
/// `RootSlot`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_root_slot {
    pub base: u64,
    pub derived: u64,
}

// The C structs are the walker's, field for field: the walker works on the
// caller's structs in place.
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<pcmap_registers>() == size_of::<Registers>());
    assert!(offset_of!(pcmap_registers, pc) == offset_of!(Registers, pc));
    assert!(offset_of!(pcmap_registers, known) == offset_of!(Registers, known));
    assert!(offset_of!(pcmap_registers, saved) == offset_of!(Registers, saved));
    assert!(offset_of!(pcmap_registers, value) == offset_of!(Registers, value));
    assert!(offset_of!(pcmap_registers, address) == offset_of!(Registers, address));
    assert!(size_of::<pcmap_value>() == size_of::<walk::Value>());
    assert!(offset_of!(pcmap_value, value) == offset_of!(walk::Value, value));
    assert!(offset_of!(pcmap_value, address) == offset_of!(walk::Value, address));
    assert!(offset_of!(pcmap_value, has_value) == offset_of!(walk::Value, has_value));
    assert!(offset_of!(pcmap_value, has_address) == offset_of!(walk::Value, has_address));
    assert!(size_of::<pcmap_root>() == size_of::<RootValue>());
    assert!(offset_of!(pcmap_root, derived) == offset_of!(RootValue, derived));
    assert!(offset_of!(pcmap_root, base_index) == offset_of!(RootValue, base_index));
    assert!(offset_of!(pcmap_root, derived_index) == offset_of!(RootValue, derived_index));
    assert!(size_of::<pcmap_root_slot>() == size_of::<RootSlot>());
    assert!(align_of::<pcmap_root_slot>() == align_of::<RootSlot>());
    assert!(offset_of!(pcmap_root_slot, derived) == offset_of!(RootSlot, derived));
};

/// `r` as the walker's type.
#[inline(always)]
fn registers(r: &pcmap_registers) -> &Registers {
    // SAFETY: both are repr(C) with the same fields, types and offsets
    // (asserted above), so one may be read as the other.
    unsafe { &*(r as *const pcmap_registers).cast::<Registers>() }
}

/// The walker's frame at the start of `w`.
#[inline(always)]
fn frame(w: &mut pcmap_walk) -> &mut CFrame {
    // SAFETY: `pcmap_walk` begins with the fields of `Frame<pcmap_function,
    // CRecord>`, same types and offsets (asserted above); the frame's
    // private fields are `entry` and `cache_epoch`, which only the walker
    // writes.
    unsafe { &mut *(w as *mut pcmap_walk).cast::<CFrame>() }
}

/// The walker's frame at the start of `w`, to read.
#[inline(always)]
fn frame_ref(w: &pcmap_walk) -> &CFrame {
    // SAFETY: as `frame`.
    unsafe { &*(w as *const pcmap_walk).cast::<CFrame>() }
}

/// `c` as the walker's cache.
///
/// # Safety
/// `c` was set up by `pcmap_walk_cache_init`, whose memory is still the
/// caller's and not used otherwise while the walk is.
#[inline(always)]
unsafe fn cache<'a>(c: *mut pcmap_walk_cache) -> Option<&'a mut CCache> {
    // SAFETY: the same fields, types and offsets (asserted above); the
    // caller's promise for the memory it names.
    unsafe { c.cast::<CCache>().as_mut() }
}

/// The tables a C walk reads: one opened section, or every registered
/// image. A Rust runtime that links this crate walks the registry with the
/// reader's walker over [`CTables::registry`] (its own sections need only
/// the reader: `walk::SectionTables`).
#[derive(Clone, Copy)]
pub struct CTables {
    maps: *const pcmap_stackmaps,
    registry: bool,
}

impl CTables {
    /// Every image registered (`pcmap_registry_*`, the constructors'
    /// callbacks), as `PCMAP_WALK_REGISTRY` walks them: a PC's image is
    /// the first whose code range holds it and has a function there; a PC
    /// in no image is unmanaged, or `Stop::ImageRefused` once the registry
    /// refused an image's tables.
    pub fn registry() -> Self {
        CTables {
            maps: core::ptr::null(),
            registry: true,
        }
    }

    /// The section `maps` opened.
    ///
    /// # Safety
    /// `maps` was filled by `pcmap_open` and stays so, its section mapped,
    /// while the tables are used.
    pub unsafe fn section(maps: &pcmap_stackmaps) -> Self {
        CTables {
            maps,
            registry: false,
        }
    }
}

impl CRecord {
    /// The record, as `pcmap_find` gives it.
    pub fn record(&self) -> &pcmap_record {
        &self.record
    }
}

/// A C API status as a reader error (for a table the lookup could not
/// read; the conversion back gives the same status for every status a
/// lookup returns).
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

/// What the tables of `s` say about `pc`: the record (its Site and frame
/// state decoded, with its table's Data area), else the function holding
/// it, else nothing.
fn look_up_in(s: &Section<'_>, pc: Pc) -> Result<FrameAt<pcmap_function, CRecord>, pcmap_status> {
    let mut function = core::mem::MaybeUninit::<pcmap_function>::uninit();
    let mut record = core::mem::MaybeUninit::<pcmap_record>::uninit();
    let out = Full {
        function: function.as_mut_ptr(),
        record: record.as_mut_ptr(),
    };
    if s.search(pc, Match::Exact, out)?.is_some() {
        // SAFETY: `search` wrote both when it found the record.
        let (function, record) = unsafe { (function.assume_init(), record.assume_init()) };
        let (data, data_size) = data_area(s, &record)?;
        return Ok(FrameAt::Record(
            function,
            CRecord {
                record,
                data,
                data_size,
            },
        ));
    }
    Ok(match s.function_of(pc)? {
        Some(f) => FrameAt::NoRecord(f),
        None => FrameAt::Unmanaged,
    })
}

impl CRecord {
    /// The record's Data area.
    #[inline(always)]
    fn data(&self) -> SiteData<'_> {
        // SAFETY: `data` and `data_size` are the Data area of the table the
        // record is in, which the caller keeps mapped.
        let bytes = unsafe { core::slice::from_raw_parts(self.data, self.data_size as usize) };
        SiteData::new(bytes, 0)
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

impl UnwindTables for CTables {
    type Function = pcmap_function;
    type Record = CRecord;

    fn frame_at(&self, pc: Pc) -> Result<FrameAt<pcmap_function, CRecord>, Stop> {
        if !self.registry {
            // SAFETY: checked non-NULL and opened by `start`'s caller
            // (`pcmap_walk_init`'s contract).
            let s = unsafe { opened(&*self.maps) }.section();
            return look_up_in(&s, pc).map_err(|e| Stop::Table(error(e)));
        }
        // Each image whose code range holds `pc`, until one has a function
        // there (the walk then refers to that image's section, which stays
        // mapped while a frame of it is on the stack).
        let found = crate::registry::find_in_images(pc, |m| {
            // SAFETY: a LIVE image's opened section.
            match look_up_in(&unsafe { opened(m) }.section(), pc) {
                Ok(FrameAt::Unmanaged) => None,
                other => Some(other),
            }
        });
        match found {
            Some(at) => at.map_err(|e| Stop::Table(error(e))),
            // In no registered image: unmanaged, unless the registry
            // refused an image's tables, whose code this may be (never a
            // managed frame taken for an unmanaged one in silence).
            None if crate::registry::refused() => Err(Stop::ImageRefused),
            None => Ok(FrameAt::Unmanaged),
        }
    }

    #[inline(always)]
    fn state(&self, r: &CRecord) -> State {
        state(&r.record)
    }

    #[inline(always)]
    fn saved_registers(
        &self,
        r: &CRecord,
        mut visit: impl FnMut(u16, i32),
    ) -> pcmap_reader::Result<()> {
        let rec = &r.record;
        let data = r.data();
        for reg in data.saved_registers_at(
            rec.frame_registers,
            rec.num_frame_registers,
            rec.frame_shift.into(),
        ) {
            let reg = reg?;
            visit(reg.dwarf_reg, reg.offset);
        }
        Ok(())
    }

    #[inline(always)]
    fn kind(&self, r: &CRecord) -> u8 {
        r.record.kind
    }

    fn locations<'r>(
        &'r self,
        r: &'r CRecord,
    ) -> impl Iterator<Item = pcmap_reader::Result<Location>> + 'r {
        r.data()
            .locations_at(r.record.locations, r.record.num_locations)
    }

    fn constant(&self, r: &CRecord, index: u32) -> pcmap_reader::Result<u64> {
        r.record.table.open().map_err(error)?.constant(index)
    }

    fn cache_key(&self) -> CacheKey {
        if self.registry {
            return [u64::MAX, 0, 0, crate::registry::generation()];
        }
        // SAFETY: as in `frame_at`.
        let m = unsafe { &*self.maps };
        [m.data as u64, m.size as u64, m.address, 0]
    }
}

/// The Data area of the table of `s` that `r` is in.
#[inline]
fn data_area(s: &Section<'_>, r: &pcmap_record) -> Result<(*const u8, u32), pcmap_status> {
    let offset = (r.table.data as usize).wrapping_sub(s.bytes.as_ptr() as usize);
    let data = s.data_at(offset)?;
    Ok((data.bytes().as_ptr(), data.bytes().len() as u32))
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
            Stop::ImageRefused => PCMAP_ERR_IMAGE_REFUSED,
            Stop::Table(e) => e.into(),
        }
    }
}

impl From<RootsError> for pcmap_status {
    fn from(e: RootsError) -> Self {
        match e {
            RootsError::NotAStatePoint => PCMAP_ERR_CORRUPT,
            RootsError::UnknownKind => PCMAP_ERR_UNKNOWN_KIND,
            RootsError::RegisterUnknown(_) => PCMAP_ERR_NO_REGISTER,
            RootsError::NoSlot => PCMAP_STOP_NO_SLOT,
            RootsError::Table(e) => e.into(),
        }
    }
}

impl From<End> for pcmap_status {
    fn from(e: End) -> Self {
        match e {
            End::Stop(s) => s.into(),
            End::Roots(e) => e.into(),
            End::Full => PCMAP_ERR_OUT_OF_RANGE,
        }
    }
}

/// Flags `pcmap_walk_init` takes.
const WALK_FLAGS: u32 =
    PCMAP_WALK_FRAME_POINTER_CHAIN | PCMAP_WALK_REGISTRY | PCMAP_WALK_INTERRUPTED;

/// What a walk with `maps`, `flags` and the bounds reads: its tables,
/// the stack, its options.
#[inline(always)]
fn parts(
    maps: *const pcmap_stackmaps,
    flags: u32,
    stack_low: u64,
    stack_high: u64,
) -> (CTables, NativeMemory, Options) {
    let tables = CTables {
        maps,
        registry: flags & PCMAP_WALK_REGISTRY != 0,
    };
    let options = Options {
        frame_pointer_chain: flags & PCMAP_WALK_FRAME_POINTER_CHAIN != 0,
        max_frames: u32::MAX,
        interrupted: flags & PCMAP_WALK_INTERRUPTED != 0,
    };
    // SAFETY: the bounds `pcmap_walk_init`'s caller gave as the mapped
    // stack (both 0: it vouches for every word the walk's rules name), and
    // the code of every frame's PC is mapped.
    let memory = unsafe { NativeMemory::new(stack_low, stack_high) };
    (tables, memory, options)
}

/// The walker of `w`: `walk!(w, |walker| ...)`.
macro_rules! with_walker {
    ($w:expr, |$walker:ident| $body:expr) => {{
        let (tables, memory, options) = parts($w.maps, $w.flags, $w.stack_low, $w.stack_high);
        let $walker = Walker::<Host, _, _>::new(&tables, memory, options);
        $body
    }};
}

/// Sets up `cache` over the caller's `memory` (8-byte aligned, `bytes`
/// long): as many entries of `PCMAP_WALK_CACHE_ENTRY_SIZE` bytes as fit,
/// rounded down to a power of two, at most 2^25 (at least 2:
/// `PCMAP_ERR_ARGUMENT` otherwise), all empty. The library never
/// allocates: the memory stays the caller's, in use by the cache until the
/// caller stops using it.
///
/// # Safety
/// `cache` is writable; `memory` is writable for `bytes` bytes and not
/// used otherwise while the cache is.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cache_init(
    cache: *mut pcmap_walk_cache,
    memory: *mut c_void,
    bytes: usize,
) -> pcmap_status {
    if cache.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's promise for `memory`.
    match unsafe { CCache::in_memory(memory.cast(), bytes) } {
        Some(c) => {
            // SAFETY: `cache` is writable and laid out as the walker's
            // cache (asserted above).
            unsafe { cache.cast::<CCache>().write(c) };
            PCMAP_OK
        }
        None => PCMAP_ERR_ARGUMENT,
    }
}

/// Empties `cache` (its counters stay): for a caller that changes a
/// section it walks in place, which the cache cannot see.
///
/// # Safety
/// `cache` was set up by `pcmap_walk_cache_init`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cache_flush(cache: *mut pcmap_walk_cache) -> pcmap_status {
    // SAFETY: the caller's promise.
    match unsafe { self::cache(cache) } {
        Some(c) => {
            c.flush();
            PCMAP_OK
        }
        None => PCMAP_ERR_ARGUMENT,
    }
}

/// Called by `pcmap_walk_roots` for each root (NULL is rejected).
#[allow(non_camel_case_types)]
pub type pcmap_root_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, root: *const pcmap_root)>;

/// Starts a walk at the frame whose registers are `regs` (from
/// `pcmap_capture_call`: the managed caller at its safepoint, whose PC is a
/// return address), looking its PC up in `maps`, or with
/// `PCMAP_WALK_REGISTRY` in the registered images (`maps` may then be NULL;
/// every frame's PC is looked up in the registry, lock-free). Stack reads
/// stay in `[stack_low, stack_high)` (both 0: unchecked but for
/// alignment). `flags`: `PCMAP_WALK_FRAME_POINTER_CHAIN`,
/// `PCMAP_WALK_REGISTRY`, `PCMAP_WALK_INTERRUPTED` (the first PC is an
/// interrupted instruction's, not a return address), any of them or 0.
///
/// # Safety
/// `walk` is writable; `maps` was filled by `pcmap_open` and stays valid
/// while the walk is used (or is NULL with `PCMAP_WALK_REGISTRY`: the
/// images of the frames walked stay loaded); `regs` is readable and not
/// inside `*walk` (start a new walk from a walk's registers through a
/// copy); the stack it describes is mapped (in the bounds, if given) while
/// the walk is used.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_init(
    walk: *mut pcmap_walk,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
) -> pcmap_status {
    // SAFETY: the caller's promises, passed on.
    unsafe {
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
}

/// `pcmap_walk_init` with a cache of compiled frames
/// (`pcmap_walk_cache_init`; NULL: none). Each frame's PC is looked up in
/// the cache first: found, the walk copies the function and record kept
/// there and steps and gives roots by the kept plan; not found, it is
/// looked up in the tables as without a cache, and a record whose plan fits
/// is compiled and kept. Every result (`at`, `function`, `record`, `regs`,
/// statuses, roots, decoded locations) is the one the walk without a cache
/// gives. A cache filled from other tables (another `maps`: its data, size
/// or address differ; or the registry at another generation: an image was
/// added or removed) is emptied first. The cache is the walk's until the
/// walk ends: one walk at a time per cache (a second walk on it empties it
/// or changes entries the first refers to; the first then goes on without
/// it, or checks each entry's PC).
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
    // SAFETY: the caller's promises, passed on.
    unsafe { init(walk, maps, regs, stack_low, stack_high, flags, cache) }
}

/// Whether a walk with `maps` and `flags` (and `cache`) may start.
///
/// # Safety
/// `maps` and `cache` are NULL or as `pcmap_walk_init_cached` promises.
unsafe fn arguments_ok(
    maps: *const pcmap_stackmaps,
    flags: u32,
    cache: *mut pcmap_walk_cache,
) -> bool {
    // SAFETY: the caller's promises.
    let maps_ok = match unsafe { maps.as_ref() } {
        Some(m) => !m.data.is_null(),
        None => flags & PCMAP_WALK_REGISTRY != 0,
    };
    // SAFETY: as above.
    let cache_ok = match unsafe { cache.as_ref() } {
        Some(c) => c.capacity >= 2 && !c.entries.is_null(),
        None => true,
    };
    maps_ok && cache_ok && flags & !WALK_FLAGS == 0
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
    // SAFETY: the caller's promises.
    let (Some(w), Some(regs)) = (unsafe { walk.as_mut() }, unsafe { regs.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    // SAFETY: as above.
    if !unsafe { arguments_ok(maps, flags, cache) } {
        return PCMAP_ERR_ARGUMENT;
    }
    w.maps = maps;
    w.stack_low = stack_low;
    w.stack_high = stack_high;
    w.flags = flags;
    w.cache = cache;
    // SAFETY: `regs` is not inside `*w` (the caller's promise): a copy,
    // not a move.
    unsafe { core::ptr::copy_nonoverlapping(regs, &mut w.regs, 1) };
    with_walker!(w, |walker| {
        // SAFETY: `cache` as the caller promised.
        let c = unsafe { self::cache(w.cache) };
        match walker.start(frame(w), c) {
            Ok(()) => PCMAP_OK,
            Err(e) => e.into(),
        }
    })
}

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
    // SAFETY: the caller's promise.
    let Some(w) = (unsafe { walk.as_mut() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if w.maps.is_null() && w.flags & PCMAP_WALK_REGISTRY == 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    with_walker!(w, |walker| {
        // SAFETY: the walk's cache, as `pcmap_walk_init_cached` promised.
        let c = unsafe { cache(w.cache) };
        match walker.step(frame(w), c) {
            Ok(()) => PCMAP_OK,
            Err(e) => e.into(),
        }
    })
}

/// The current frame's CFA (its caller's stack pointer at the call), when
/// the frame has a record with a register + offset CFA rule whose register
/// is known; else `PCMAP_NOT_FOUND`.
///
/// # Safety
/// `walk` was filled by `pcmap_walk_init`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_walk_cfa(walk: *const pcmap_walk, out: *mut u64) -> pcmap_status {
    // SAFETY: the caller's promise.
    let Some(w) = (unsafe { walk.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    let cfa = with_walker!(w, |walker| walker.cfa(frame_ref(w)));
    match cfa {
        Some(v) => {
            // SAFETY: checked non-NULL; the caller's promise.
            unsafe { out.write(v) };
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
    // SAFETY: the caller's promise.
    let Some(w) = (unsafe { walk.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    if w.at != walk::AT_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let rec = CRecord {
        record: w.record,
        data: w.data,
        data_size: w.data_size,
    };
    if index >= u32::from(rec.record.num_locations) {
        return PCMAP_ERR_OUT_OF_RANGE;
    }
    let loc = rec
        .data()
        .locations_at(rec.record.locations, rec.record.num_locations)
        .nth(index as usize);
    let r = match loc {
        Some(Ok(loc)) => decode_one(&rec.record, &loc, registers(&w.regs)),
        Some(Err(e)) => Err(e.into()),
        None => Err(PCMAP_ERR_OUT_OF_RANGE),
    };
    put(out, r)
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
    // SAFETY: the caller's promises.
    let (Some(rec), Some(regs)) = (unsafe { rec.as_ref() }, unsafe { regs.as_ref() }) else {
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
    put(out, r)
}

/// Writes a decoded value, or returns the error.
fn put(out: *mut pcmap_value, r: Result<pcmap_value, pcmap_status>) -> pcmap_status {
    match r {
        Ok(v) => {
            // SAFETY: checked non-NULL by the callers; their caller's
            // promise.
            unsafe { out.write(v) };
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// `walk::decode` of `loc` of `rec` with `regs`, out of line: one copy for
/// `pcmap_walk_decode` and `pcmap_decode_registers`.
#[inline(never)]
fn decode_one(
    rec: &pcmap_record,
    loc: &Location,
    regs: &Registers,
) -> Result<pcmap_value, pcmap_status> {
    let constant = |i| rec.table.open().map_err(error)?.constant(i);
    match walk::decode::<Host>(loc, regs, constant) {
        Ok(v) => Ok(value(v)),
        Err(walk::DecodeError::RegisterUnknown(_)) => Err(PCMAP_ERR_NO_REGISTER),
        Err(walk::DecodeError::Table(e)) => Err(e.into()),
    }
}

/// The walker's value as the C struct.
#[inline(always)]
fn value(v: walk::Value) -> pcmap_value {
    pcmap_value {
        value: v.value,
        address: v.address,
        has_value: v.has_value,
        has_address: v.has_address,
    }
}

/// `roots` as the C structs they are laid out as.
#[inline(always)]
fn c_roots(roots: &[RootValue]) -> &[pcmap_root] {
    // SAFETY: `pcmap_root` is `RootValue` field for field (asserted above).
    unsafe { core::slice::from_raw_parts(roots.as_ptr().cast(), roots.len()) }
}

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
    ctx: *mut c_void,
) -> pcmap_status {
    // SAFETY: the caller's promise.
    let (Some(w), Some(visit)) = (unsafe { walk.as_ref() }, visit) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if w.at != walk::AT_RECORD {
        return PCMAP_NOT_FOUND;
    }
    let given = with_walker!(w, |walker| {
        // SAFETY: the walk's cache, as `pcmap_walk_init_cached` promised.
        let c = unsafe { cache(w.cache) };
        walker.roots(frame_ref(w), c.as_deref(), &mut |batch| {
            for root in c_roots(batch) {
                // SAFETY: the caller's callback and context.
                unsafe { visit(ctx, root) };
            }
        })
    });
    match given {
        Ok(()) => PCMAP_OK,
        Err(e) => e.into(),
    }
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
    Option<unsafe extern "C" fn(ctx: *mut c_void, frame: *const pcmap_walk_frame)>;

/// `pcmap_walk_collect`'s sink: each frame's roots to the caller's
/// callback.
struct Frames {
    visit: unsafe extern "C" fn(ctx: *mut c_void, frame: *const pcmap_walk_frame),
    ctx: *mut c_void,
}

impl Sink for Frames {
    const ROOTS: bool = true;
    const SLOTS: bool = false;

    #[inline]
    fn roots(&mut self, regs: &Registers, depth: u32, roots: &[RootValue]) -> Result<(), End> {
        let frame = pcmap_walk_frame {
            regs: (regs as *const Registers).cast(),
            roots: c_roots(roots).as_ptr(),
            num_roots: roots.len() as u32,
            depth,
        };
        // SAFETY: the caller's callback and context
        // (`pcmap_walk_collect`'s contract).
        unsafe { (self.visit)(self.ctx, &frame) };
        Ok(())
    }
}

/// Walks the whole stack from `regs` in one call: what a cursor from
/// `pcmap_walk_init_cached(.., maps, regs, stack_low, stack_high, flags,
/// cache)` does, calling `pcmap_walk_roots` at every frame with a record
/// and `pcmap_walk_step` until it fails, but with one call of `visit` per
/// such frame with all its roots (a frame with more than 32 roots: several
/// calls, each with the next ones; one with none: one call, no roots).
/// Frames without a record (passed through with
/// `PCMAP_WALK_FRAME_POINTER_CHAIN`) are not visited. A frame found in the
/// cache is stepped and its roots decoded by its kept plan; any other is
/// compiled on the spot (and kept in the cache if it fits). Returns what
/// ended the walk, the status the cursor gives: the failed step's
/// `PCMAP_STOP_*` (the end of the managed stack: `PCMAP_STOP_UNMANAGED`) or
/// error, or the error of a frame's roots (not visited; the walk stops
/// there), or of the start. `cache` may be NULL.
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
    ctx: *mut c_void,
) -> pcmap_status {
    let Some(visit) = visit else {
        return PCMAP_ERR_ARGUMENT;
    };
    let mut sink = Frames { visit, ctx };
    // SAFETY: the caller's promises, passed on.
    unsafe { collect(cache, maps, regs, stack_low, stack_high, flags, &mut sink) }
}

/// Called by `pcmap_walk_collect_slots` with a full buffer: its first
/// `count` slots, valid during the call (the buffer is reused after).
#[allow(non_camel_case_types)]
pub type pcmap_slots_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, slots: *const pcmap_root_slot, count: u32)>;

/// The caller's buffer for `pcmap_walk_collect_slots`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_slot_buffer {
    /// Memory for `capacity` slots (at least 32).
    pub slots: *mut pcmap_root_slot,
    pub capacity: u32,
    /// Out: slots in `slots` not yet passed to `full`.
    pub count: u32,
    /// Out: frames with a record whose roots were all given (the frame
    /// where a walk stopped with `PCMAP_STOP_NO_SLOT` is not counted).
    pub frames: u32,
    /// Called when slots do not fit in what is left of the buffer (a frame
    /// whose plan keeps its roots: all of them together; any other frame's
    /// one by one), with the buffer's `count` slots (then reused from its
    /// start); NULL: the walk stops with `PCMAP_ERR_OUT_OF_RANGE` instead
    /// (the slots so far, possibly part of a frame's, in the buffer).
    pub full: pcmap_slots_fn,
    pub ctx: *mut c_void,
}

impl Sink for pcmap_slot_buffer {
    const ROOTS: bool = true;
    const SLOTS: bool = true;

    #[inline(always)]
    fn room(&mut self, n: usize) -> Result<*mut RootSlot, End> {
        if self.count as usize + n > self.capacity as usize {
            self.flush()?;
        }
        Ok(self
            .slots
            .cast::<RootSlot>()
            .wrapping_add(self.count as usize))
    }
    #[inline(always)]
    fn wrote(&mut self, n: usize) {
        self.count += n as u32;
    }
    #[inline(always)]
    fn frame_done(&mut self) {
        self.frames += 1;
    }
    #[inline(always)]
    fn run_room(&mut self) -> (*mut RootSlot, *mut RootSlot) {
        let slots = self.slots.cast::<RootSlot>();
        let at = |n: u32| slots.wrapping_add(n as usize);
        (at(self.count), at(self.capacity))
    }
    #[inline(always)]
    fn run_wrote(&mut self, next: *mut RootSlot, frames: u32) {
        let written =
            (next as usize).wrapping_sub(self.slots as usize) / core::mem::size_of::<RootSlot>();
        self.count = written as u32;
        self.frames += frames;
    }
}

impl pcmap_slot_buffer {
    /// The buffer's slots to `full`, which it is then reused after.
    #[inline(never)]
    fn flush(&mut self) -> Result<(), End> {
        let full = self.full.ok_or(End::Full)?;
        // SAFETY: the caller's callback and context, with the buffer's
        // `count` written slots (`pcmap_walk_collect_slots`' contract).
        unsafe { full(self.ctx, self.slots, self.count) };
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
    // SAFETY: the caller's promise.
    let Some(b) = (unsafe { out.as_mut() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if b.slots.is_null() || (b.capacity as usize) < walk::ROOTS_AT_ONCE {
        return PCMAP_ERR_ARGUMENT;
    }
    b.count = 0;
    b.frames = 0;
    // SAFETY: the caller's promises, passed on.
    unsafe { collect(cache, maps, regs, stack_low, stack_high, flags, b) }
}

/// `pcmap_walk_collect` and `pcmap_walk_collect_slots`: a walk started as
/// `pcmap_walk_init_cached` does, run over the whole stack into `sink`.
///
/// # Safety
/// As `pcmap_walk_init_cached`; `sink`'s callback and buffer as promised
/// to the caller.
#[inline(never)]
unsafe fn collect<S: Sink>(
    cache: *mut pcmap_walk_cache,
    maps: *const pcmap_stackmaps,
    regs: *const pcmap_registers,
    stack_low: u64,
    stack_high: u64,
    flags: u32,
    sink: &mut S,
) -> pcmap_status {
    // SAFETY: the caller's promises.
    let Some(regs) = (unsafe { regs.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    // SAFETY: as above.
    if !unsafe { arguments_ok(maps, flags, cache) } {
        return PCMAP_ERR_ARGUMENT;
    }
    let (tables, memory, options) = parts(maps, flags, stack_low, stack_high);
    let walker = Walker::<Host, _, _>::new(&tables, memory, options);
    let mut frame = CFrame::new(*registers(regs));
    // SAFETY: as `pcmap_walk_init_cached` promised.
    let mut c = unsafe { self::cache(cache) };
    if let Err(e) = walker.start(&mut frame, c.as_deref_mut()) {
        return e.into();
    }
    match walker.run(&mut frame, c, sink, u32::MAX) {
        // Not reached: a run of every step ends with a stop.
        Ok(()) => PCMAP_ERR_BAD_STACK,
        Err(e) => e.into(),
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
