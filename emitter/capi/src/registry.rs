//! The registry of loaded images' `pcmap_stackmaps` sections.
//!
//! Each linked image (the program, every shared object) carries its own
//! `pcmap_stackmaps` section. The pcmap plugin gives every module with stack
//! maps a constructor and destructor, one per image (a COMDAT), that call
//! `__pcmap_stackmaps_add(version, start, stop)` when the image is loaded and
//! `__pcmap_stackmaps_del(…)` before it is unloaded, with the image's hidden
//! `__start_pcmap_stackmaps` / `__stop_pcmap_stackmaps` (docs/runtime.md,
//! "Images"). This library defines those callbacks: they open the section
//! and keep it here, and lookups through the registry search every image.
//!
//! ```text
//! slots:  [ state | pcmap_stackmaps (opened) | code range ] x PCMAP_REGISTRY_CAPACITY
//!           EMPTY -> (writer fills it) -> LIVE -> (writer) DEAD -> grace -> EMPTY
//! readers: phase p = PHASE & 1; READERS[p] += 1; read LIVE slots; READERS[p] -= 1
//! writer:  (one at a time, WRITER lock) unpublish, then PHASE += 1 and wait
//!          for READERS[old] == 0, twice; only then reuse the slot / return
//! ```
//!
//! Readers take no lock and never wait: a lookup is async-signal-safe and
//! may run while another thread loads or unloads an image. Writers (add,
//! remove) are serialized by a spin lock and wait, yielding, until every
//! reader that could have seen the removed image has left (a grace period
//! in the manner of RCU, with two reader counters so that a stream of new
//! readers cannot hold a writer back). Hence a removal returns only when no
//! lookup still reads the image's section, and the dynamic loader may unmap
//! it. A slot's contents are written only while it is EMPTY (no reader
//! looks at it) and read only while LIVE.
//!
//! Fixed capacity, no allocation: the registry lives in the library's
//! zero-initialised data, ready before any constructor runs.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

use pcmap_reader::flat::Pc;

use crate::constants::PCMAP_STACKMAPS_VERSION;
use crate::ffi::{pcmap_find, pcmap_find_at_or_after, pcmap_find_site};
use crate::section::{CSection, OpenedSection, Section};
use crate::status::pcmap_status::{self, *};
use crate::types::{
    pcmap_function, pcmap_record, pcmap_site, pcmap_stackmaps, pcmap_table_header,
    PCMAP_CACHED_TABLES,
};

/// Images the registry holds at once. A registration past it fails
/// (`PCMAP_ERR_REGISTRY_FULL`, counted in `pcmap_registry_summary.rejected`).
pub const PCMAP_REGISTRY_CAPACITY: usize = 128;

const EMPTY: u32 = 0;
const LIVE: u32 = 1;
/// Unpublished, waiting for its grace period.
const DEAD: u32 = 2;

/// One image's section, opened.
struct Slot {
    state: AtomicU32,
    image: UnsafeCell<Image>,
}

#[derive(Clone, Copy)]
struct Image {
    maps: pcmap_stackmaps,
    /// `[low, high)` holds every function of the section: lookups skip
    /// images whose range does not hold the PC.
    low: u64,
    high: u64,
}

const NO_MAPS: pcmap_stackmaps = pcmap_stackmaps {
    data: core::ptr::null(),
    size: 0,
    address: 0,
    num_tables: 0,
    num_functions: 0,
    num_records: 0,
    num_cached_tables: 0,
    tables: [pcmap_table_header {
        offset: 0,
        bounds: [0; crate::constants::PCMAP_TABLE_BOUNDS],
        flags: 0,
        pc_map_shift: 0,
    }; PCMAP_CACHED_TABLES],
};

struct Registry {
    slots: [Slot; PCMAP_REGISTRY_CAPACITY],
    /// Slots `0..used` have ever been LIVE: readers look no further.
    used: AtomicUsize,
    /// Readers inside a read-side section, by the phase they entered in.
    readers: [AtomicUsize; 2],
    phase: AtomicUsize,
    writer: AtomicBool,
    /// Changes once per add or remove.
    generation: AtomicU64,
    /// Registrations through the callbacks that failed, and why (the last).
    rejected: AtomicU64,
    last_rejection: AtomicU32,
}

// SAFETY: a slot's `image` is written only by the writer holding `writer`,
// while the slot is EMPTY and no reader is inside a section that saw it
// LIVE (the grace period); readers read it only after seeing LIVE with
// Acquire ordering, which the writer published with Release.
unsafe impl Sync for Registry {}

#[allow(clippy::declare_interior_mutable_const)]
const SLOT: Slot = Slot {
    state: AtomicU32::new(EMPTY),
    image: UnsafeCell::new(Image {
        maps: NO_MAPS,
        low: 0,
        high: 0,
    }),
};

static REGISTRY: Registry = Registry {
    slots: [SLOT; PCMAP_REGISTRY_CAPACITY],
    used: AtomicUsize::new(0),
    readers: [AtomicUsize::new(0), AtomicUsize::new(0)],
    phase: AtomicUsize::new(0),
    writer: AtomicBool::new(false),
    generation: AtomicU64::new(0),
    rejected: AtomicU64::new(0),
    last_rejection: AtomicU32::new(0),
};

/// The C library's `sched_yield` (not the C API's: cbindgen skips it).
/// cbindgen:ignore
mod sys {
    extern "C" {
        /// POSIX; lets the thread holding the writer lock, or a reader that
        /// was preempted, run while a writer waits.
        pub fn sched_yield() -> core::ffi::c_int;
    }
}

fn pause() {
    // SAFETY: sched_yield(2) has no preconditions.
    unsafe {
        sys::sched_yield();
    }
}

impl Image {
    /// Whether the image's code range holds `pc`'s byte (a return
    /// address's: the one before it, which may end the last function).
    fn holds(&self, pc: Pc) -> bool {
        pc.byte()
            .is_some_and(|b| (self.low..self.high).contains(&b))
    }
}

/// Runs `f` inside a read-side section with the registered images: every
/// image it sees stays registered and mapped (its removal waits) until `f`
/// returns. Lock-free and async-signal-safe; nests (a signal handler may
/// read inside a read).
fn read<R>(f: impl FnOnce(&mut dyn Iterator<Item = &Image>) -> R) -> R {
    let r = &REGISTRY;
    let p = r.phase.load(SeqCst) & 1;
    r.readers[p].fetch_add(1, SeqCst);
    // Leaves the section however `f` returns (it does not unwind: the C
    // library aborts on panic, and lookups never panic).
    struct Leave(usize);
    impl Drop for Leave {
        fn drop(&mut self) {
            REGISTRY.readers[self.0].fetch_sub(1, Release);
        }
    }
    let _leave = Leave(p);
    let used = r.used.load(Acquire).min(PCMAP_REGISTRY_CAPACITY);
    let mut images = r.slots[..used].iter().filter_map(|s| {
        // SeqCst: ordered after the reader count's increment (a writer
        // that saw the count zero has unpublished before this load).
        if s.state.load(SeqCst) != LIVE {
            return None;
        }
        // SAFETY: LIVE, seen inside the read-side section: the slot stays
        // as published until the section ends (see `Registry`).
        Some(unsafe { &*s.image.get() })
    });
    f(&mut images)
}

/// Calls `f` with the opened section of each registered image whose code
/// range holds `pc`, inside one read-side section, until it returns
/// `Some` (the stack walker's lookups: `PCMAP_WALK_REGISTRY`).
pub(crate) fn find_in_images<R>(
    pc: Pc,
    mut f: impl FnMut(&pcmap_stackmaps) -> Option<R>,
) -> Option<R> {
    read(|images| {
        for image in images {
            if image.holds(pc) {
                if let Some(r) = f(&image.maps) {
                    return Some(r);
                }
            }
        }
        None
    })
}

/// Asks `lookup` (a `pcmap_find*` on one image's maps) of each image whose
/// code range holds `pc` until one finds the record; `with` sees the image.
/// (The exported lookups, not `Section::search` inlined once more: the
/// library stays small.)
fn search(
    pc: u64,
    lookup: impl Fn(&pcmap_stackmaps) -> pcmap_status,
    with: impl FnOnce(&Image),
) -> pcmap_status {
    read(|images| {
        for image in images {
            if !image.holds(Pc::ReturnAddress(pc)) {
                continue;
            }
            let status = lookup(&image.maps);
            if status == PCMAP_NOT_FOUND {
                continue;
            }
            if status == PCMAP_OK {
                with(image);
            }
            return status;
        }
        PCMAP_NOT_FOUND
    })
}

/// Holds the writer lock while alive.
struct Writer;

impl Writer {
    fn lock() -> Writer {
        while REGISTRY
            .writer
            .compare_exchange_weak(false, true, Acquire, Relaxed)
            .is_err()
        {
            pause();
        }
        Writer
    }

    /// Waits until every reader that entered before the call has left.
    fn synchronize(&self) {
        let r = &REGISTRY;
        // Two flips: a reader that read the phase before the first flip but
        // counted itself only after the first wait saw it zero is caught by
        // the second (or entered after the unpublish and cannot see it).
        for _ in 0..2 {
            let old = r.phase.fetch_add(1, SeqCst) & 1;
            while r.readers[old].load(SeqCst) != 0 {
                pause();
            }
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        REGISTRY.writer.store(false, Release);
    }
}

/// Opens and registers the section `bytes` (mapped in this process, so its
/// address is its own).
///
/// # Safety
/// `bytes` stays mapped until `remove` of it returns.
pub unsafe fn add(bytes: &[u8]) -> Result<(), pcmap_status> {
    let opened = OpenedSection::open(bytes, bytes.as_ptr() as u64)?;
    let (low, high) = code_range(&opened.section())?;
    let maps = crate::section::to_c(opened);
    let r = &REGISTRY;
    let w = Writer::lock();
    let used = r.used.load(Relaxed);
    for slot in &r.slots[..used] {
        if slot.state.load(Relaxed) == LIVE {
            // SAFETY: the writer lock is held: no one writes the slot.
            let image = unsafe { &*slot.image.get() };
            if image.maps.data == maps.data {
                return Err(PCMAP_ERR_REGISTERED);
            }
        }
    }
    let free = r.slots.iter().position(|s| s.state.load(Relaxed) == EMPTY);
    let Some(i) = free else {
        return Err(PCMAP_ERR_REGISTRY_FULL);
    };
    let slot = &r.slots[i];
    // SAFETY: EMPTY (never LIVE, or past its grace period): no reader reads
    // it, and the writer lock keeps other writers out.
    unsafe { slot.image.get().write(Image { maps, low, high }) };
    if i >= used {
        r.used.store(i + 1, Release);
    }
    slot.state.store(LIVE, SeqCst);
    r.generation.fetch_add(1, SeqCst);
    drop(w);
    Ok(())
}

/// Unregisters the section starting at `data`; returns once no lookup
/// reads it any more. `PCMAP_NOT_FOUND` if it is not registered.
pub fn remove(data: *const u8) -> Result<(), pcmap_status> {
    let r = &REGISTRY;
    let w = Writer::lock();
    let used = r.used.load(Relaxed);
    let found = r.slots[..used].iter().find(|s| {
        // SAFETY: the writer lock is held: no one writes the slot.
        s.state.load(Relaxed) == LIVE && unsafe { (*s.image.get()).maps.data } == data
    });
    let Some(slot) = found else {
        return Err(PCMAP_NOT_FOUND);
    };
    slot.state.store(DEAD, SeqCst);
    r.generation.fetch_add(1, SeqCst);
    w.synchronize();
    slot.state.store(EMPTY, Release);
    drop(w);
    Ok(())
}

/// The range from the lowest function address to the end of the highest
/// function of a section (to its last byte if that function's size is not
/// known: lookups then try the image for every PC above its first
/// function).
fn code_range(s: &Section<'_>) -> Result<(u64, u64), pcmap_status> {
    let (mut low, mut high) = (u64::MAX, 0u64);
    for t in s.c_tables() {
        let (table, t) = t?;
        let n = t.num_frame_records();
        if n == 0 {
            continue;
        }
        let first = pcmap_function::new(table, &t, 0)?;
        let last = pcmap_function::new(table, &t, n - 1)?;
        low = low.min(first.address);
        let end = if last.size == 0 {
            u64::MAX
        } else {
            last.address.saturating_add(u64::from(last.size))
        };
        high = high.max(end);
    }
    Ok((low, high))
}

/// What `pcmap_registry_info` writes: what the registry holds.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_registry_summary {
    /// Images registered now.
    pub images: u32,
    /// Changes at every registration and removal: a runtime caching what
    /// it found through the registry can tell when to drop its cache.
    pub generation: u64,
    /// Registrations through `__pcmap_stackmaps_add` that failed (a
    /// constructor cannot report an error): a corrupt section, a layout
    /// version this library does not read, the registry full.
    pub rejected: u64,
    /// Why the last of them failed (a `pcmap_status`), 0 if none did.
    pub last_rejection: i32,
}

/// Whether a constructor's registration was ever refused
/// (`pcmap_registry_summary::rejected`): a walk through the registry then
/// cannot tell a PC in no registered image from one of the refused image
/// (`PCMAP_ERR_IMAGE_REFUSED`).
pub(crate) fn refused() -> bool {
    REGISTRY.rejected.load(Relaxed) != 0
}

/// The registry's generation (`pcmap_registry_summary::generation`).
pub(crate) fn generation() -> u64 {
    REGISTRY.generation.load(SeqCst)
}

fn info() -> pcmap_registry_summary {
    let r = &REGISTRY;
    let used = r.used.load(Acquire).min(PCMAP_REGISTRY_CAPACITY);
    let images = r.slots[..used]
        .iter()
        .filter(|s| s.state.load(Acquire) == LIVE)
        .count() as u32;
    pcmap_registry_summary {
        images,
        generation: r.generation.load(SeqCst),
        rejected: r.rejected.load(SeqCst),
        last_rejection: r.last_rejection.load(SeqCst) as i32,
    }
}

fn reject(s: pcmap_status) {
    REGISTRY.last_rejection.store(s as i32 as u32, SeqCst);
    REGISTRY.rejected.fetch_add(1, SeqCst);
}

/// The section `[start, stop)` as bytes; `None` for an empty or reversed
/// range (an image linked without a `pcmap_stackmaps` section: its hidden
/// weak markers are both NULL).
///
/// # Safety
/// `start..stop` is readable when not empty.
unsafe fn range<'a>(start: *const u8, stop: *const u8) -> Option<&'a [u8]> {
    if start.is_null() || (stop as usize) <= (start as usize) {
        return None;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    Some(unsafe { core::slice::from_raw_parts(start, stop as usize - start as usize) })
}

// --- The C API ---------------------------------------------------------------

/// The callback the plugin's per-image constructor calls with the image's
/// `__start_pcmap_stackmaps` / `__stop_pcmap_stackmaps` (when the program
/// links this library): opens and registers the section. An empty range
/// (an image without the section) is ignored; a failure is counted in
/// `pcmap_registry_info` (`rejected`, `last_rejection`). Not
/// async-signal-safe (it may wait for a writer).
///
/// # Safety
/// `start..stop` is the image's mapped section, mapped until
/// `__pcmap_stackmaps_del` of it returns.
#[no_mangle]
pub unsafe extern "C" fn __pcmap_stackmaps_add(
    version: u32,
    start: *const core::ffi::c_char,
    stop: *const core::ffi::c_char,
) {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let Some(bytes) = (unsafe { range(start.cast(), stop.cast()) }) else {
        return;
    };
    let r = if version != PCMAP_STACKMAPS_VERSION {
        Err(PCMAP_ERR_VERSION)
    } else {
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { add(bytes) }
    };
    if let Err(e) = r {
        reject(e);
    }
}

/// The callback the plugin's per-image destructor calls before the image
/// is unloaded: unregisters its section, and returns once no lookup reads
/// it. Not async-signal-safe.
///
/// # Safety
/// As `__pcmap_stackmaps_add`.
#[no_mangle]
pub unsafe extern "C" fn __pcmap_stackmaps_del(
    version: u32,
    start: *const core::ffi::c_char,
    stop: *const core::ffi::c_char,
) {
    // Whatever the version: a section `_add` refused is not registered,
    // and `remove` finds nothing.
    let _ = version;
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    if unsafe { range(start.cast(), stop.cast()) }.is_some() {
        let _ = remove(start.cast());
    }
}

/// Registers the `size` bytes at `data`, a `pcmap_stackmaps` section mapped
/// in this process (tables a JIT wrote, or an image's section registered by
/// hand). `PCMAP_ERR_REGISTERED` if it is registered already,
/// `PCMAP_ERR_REGISTRY_FULL` past `PCMAP_REGISTRY_CAPACITY` images, or why
/// `pcmap_open` refused it. Not async-signal-safe.
///
/// # Safety
/// `data` points to `size` readable bytes, mapped until
/// `pcmap_registry_remove(data)` returns.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_add(
    data: *const core::ffi::c_void,
    size: usize,
) -> pcmap_status {
    if data.is_null() || size == 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    crate::status::status(unsafe { add(core::slice::from_raw_parts(data.cast(), size)) })
}

/// Unregisters the section starting at `data`; returns once no lookup
/// reads it (the caller may then unmap it). `PCMAP_NOT_FOUND` if it is not
/// registered. Not async-signal-safe; must not be called from a signal
/// handler that interrupted a registry lookup (it would wait for it).
#[no_mangle]
pub extern "C" fn pcmap_registry_remove(data: *const core::ffi::c_void) -> pcmap_status {
    crate::status::status(remove(data.cast()))
}

/// `pcmap_find` over every registered image: the record at `pc` and its
/// function (`function` may be NULL). Lock-free, async-signal-safe, safe
/// while other threads register and remove images. What it writes refers
/// to the image's section: valid while that image stays loaded (a PC on a
/// thread's stack keeps its image loaded).
///
/// # Safety
/// `record` (and `function` unless NULL) are writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_find(
    pc: u64,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { registry_find(pc, pcmap_find, function, record) }
}

/// `pcmap_find_at_or_after` over every registered image.
///
/// # Safety
/// As `pcmap_registry_find`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_find_at_or_after(
    pc: u64,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { registry_find(pc, pcmap_find_at_or_after, function, record) }
}

/// The type of `pcmap_find` and `pcmap_find_at_or_after`.
type Find = unsafe extern "C" fn(
    *const pcmap_stackmaps,
    u64,
    *mut pcmap_function,
    *mut pcmap_record,
) -> pcmap_status;

/// # Safety
/// As `pcmap_registry_find`.
unsafe fn registry_find(
    pc: u64,
    find: Find,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    if record.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    search(
        pc,
        // SAFETY: the maps are a LIVE image's, opened; `function` and
        // `record` as the caller promised.
        |m| unsafe { find(m, pc, function, record) },
        |_| {},
    )
}

/// `pcmap_find_site` over every registered image; with `maps` not NULL,
/// also copies the image's opened section there, for `pcmap_site_record`,
/// `pcmap_site_function` and every other call taking a `pcmap_stackmaps`.
/// As `pcmap_registry_find` for threads and lifetimes.
///
/// # Safety
/// `site` (and `maps` unless NULL) are writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_find_site(
    pc: u64,
    site: *mut pcmap_site,
    maps: *mut pcmap_stackmaps,
) -> pcmap_status {
    if site.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    search(
        pc,
        // SAFETY: the maps are a LIVE image's, opened; `site` is writable.
        |m| unsafe { pcmap_find_site(m, pc, site) },
        |image| {
            if !maps.is_null() {
                // SAFETY: `maps` is writable; a caller's buffer is not the
                // registry's (memcpy, where a plain write would need memmove).
                unsafe { core::ptr::copy_nonoverlapping(&image.maps, maps, 1) };
            }
        },
    )
}

/// The opened section of the registered image whose functions' address
/// range holds `pc`, copied to `out` (for the calls taking a
/// `pcmap_stackmaps`, valid while the image stays loaded);
/// `PCMAP_NOT_FOUND` if none. As `pcmap_registry_find` for threads.
///
/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_stackmaps(
    pc: u64,
    out: *mut pcmap_stackmaps,
) -> pcmap_status {
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    read(|images| {
        for image in images {
            if image.holds(Pc::ReturnAddress(pc)) {
                // As in `pcmap_registry_find_site`.
                // SAFETY: the caller's pointers, as this function's `# Safety` promises.
                unsafe { core::ptr::copy_nonoverlapping(&image.maps, out, 1) };
                return PCMAP_OK;
            }
        }
        PCMAP_NOT_FOUND
    })
}

/// What the registry holds now (`images`, `generation`) and the
/// registrations it refused. Lock-free.
///
/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_registry_info(out: *mut pcmap_registry_summary) -> pcmap_status {
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { out.write(info()) };
    PCMAP_OK
}
