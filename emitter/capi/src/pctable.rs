//! PC tables (`docs/pctables.md`) from C: the `sanmd_covered*` and
//! `sanmd_atomics*` sections a SanitizerBinaryMetadata runtime receives in
//! its `__sanitizer_metadata_{covered,atomics}_add(version, start, stop)`
//! callbacks, decoded by `pcmap_reader::pctable` (the only decoder).
//!
//! Entries have no header and, in the compact encoding (version 2), variable
//! length (ULEB128 fields): entry `i` can only be found by decoding entries
//! `0 .. i`. So opening checks only what is known without decoding (the
//! version, the PC width, a whole number of fixed-size entries); iteration
//! and `pcmap_pctable_find` decode as they go, checking every byte; and
//! `pcmap_pctable_index` decodes once into a caller-owned array sorted by
//! PC for O(log n) lookups (`pcmap_pctable_index_find`).
//!
//! Tables are read in the byte order of the process (a runtime reads its
//! own program's tables).

use core::ffi::c_void;

use pcmap_reader::pctable::{self, PcTable};
use pcmap_reader::sanmd::{
    Sanmd, SanmdSection, VERSION_COMPACT, VERSION_NATIVE, VERSION_PTR_SIZE_REL,
};
use pcmap_reader::RunTimeEndian;

use crate::status::pcmap_status::{self, *};

/// `pcmap_pctable.kind` of a `sanmd_covered*` table (one entry per function:
/// start PC, code size, feature mask).
pub const PCMAP_PCTABLE_COVERED: u32 = 0;
/// `pcmap_pctable.kind` of a `sanmd_atomics*` table (one entry per atomic
/// instruction: its PC).
pub const PCMAP_PCTABLE_ATOMICS: u32 = 1;

/// `pc_width` argument of `pcmap_pctable_open`: take the PC width from the
/// version (`| PCMAP_PCTABLE_VERSION_PTR_SIZE` → 8 bytes), else from the
/// target this library was compiled for (8 on PowerPC64, where LLVM 16 and
/// 19 pass version 2 with 8-byte PCs; 4 elsewhere).
pub const PCMAP_PCTABLE_PC_WIDTH_DEFAULT: u8 = 0;

/// PC width LLVM uses without a `Code Model` module flag on this target.
const DEFAULT_PC_WIDTH: u8 = pctable::pc_width(None, cfg!(target_arch = "powerpc64"));

/// The process's byte order.
const NATIVE: RunTimeEndian = if cfg!(target_endian = "big") {
    RunTimeEndian::Big
} else {
    RunTimeEndian::Little
};

/// An opened PC table. Filled by `pcmap_pctable_open`; the bytes must stay
/// mapped while it is used.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_pctable {
    /// First byte of the table (the callback's `start`).
    pub data: *const u8,
    /// Size in bytes (`stop - start`).
    pub size: usize,
    /// Address of `data` in the program the table describes: entries' PCs
    /// are relative to it.
    pub address: u64,
    /// The version as passed to the callback.
    pub version: u32,
    /// `PCMAP_PCTABLE_COVERED` or `PCMAP_PCTABLE_ATOMICS`.
    pub kind: u32,
    /// Bytes of each entry's PC field: 4 or 8.
    pub pc_width: u8,
}

/// One decoded entry.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pcmap_pctable_entry {
    /// Absolute PC: the function's first instruction (covered) or the atomic
    /// instruction (atomics).
    pub pc: u64,
    /// Covered: the function's code size in bytes. Atomics: 0.
    pub size: u64,
    /// Covered: the feature mask (`PCMAP_FEATURE_*`). Atomics: 0.
    pub features: u64,
    /// Covered entries with `has_stack_args`: bytes of stack arguments.
    pub stack_args: u64,
    /// Offset of the entry in its table.
    pub offset: u64,
    pub has_stack_args: bool,
}

impl pcmap_pctable {
    fn table(&self) -> Result<PcTable<'_, RunTimeEndian>, pcmap_status> {
        let kind = match self.kind {
            PCMAP_PCTABLE_COVERED => Sanmd::Covered,
            PCMAP_PCTABLE_ATOMICS => Sanmd::Atomics,
            _ => return Err(PCMAP_ERR_ARGUMENT),
        };
        if !matches!(
            self.version & !VERSION_PTR_SIZE_REL,
            VERSION_NATIVE | VERSION_COMPACT
        ) {
            return Err(PCMAP_ERR_VERSION);
        }
        let section = SanmdSection {
            kind,
            version: self.version,
            raw: false,
        };
        let layout = section.layout(self.pc_width).map_err(from)?;
        if self.data.is_null() {
            return Err(PCMAP_ERR_ARGUMENT);
        }
        // SAFETY: `pcmap_pctable_open`'s caller promised `size` readable
        // bytes at `data` for as long as the table is used.
        let bytes = unsafe { core::slice::from_raw_parts(self.data, self.size) };
        PcTable::new(bytes, NATIVE, layout).map_err(from)
    }
}

fn from(e: pctable::Error) -> pcmap_status {
    match e {
        pctable::Error::Truncated { .. } | pctable::Error::NotMultiple { .. } => {
            PCMAP_ERR_TRUNCATED
        }
        pctable::Error::BadPcWidth(_) => PCMAP_ERR_ARGUMENT,
        _ => PCMAP_ERR_CORRUPT,
    }
}

fn entry(e: &pctable::Entry, address: u64) -> pcmap_pctable_entry {
    pcmap_pctable_entry {
        pc: e.pc(address),
        size: e.size.unwrap_or(0),
        features: e.constants().first().copied().unwrap_or(0),
        stack_args: e.stack_args.unwrap_or(0),
        offset: e.offset as u64,
        has_stack_args: e.stack_args.is_some(),
    }
}

/// Whether `e` is the entry for `pc`: a covered entry's function contains
/// it, an atomics entry is at it. A return address may equal a function's
/// end only for stack maps, not here: the range is half-open.
fn matches(e: &pcmap_pctable_entry, pc: u64) -> bool {
    if e.size == 0 {
        e.pc == pc
    } else {
        pc.wrapping_sub(e.pc) < e.size
    }
}

/// Opens the PC table of `size` bytes at `data`, whose first byte has address
/// `address` in the program it describes (`(uint64_t)(uintptr_t)data` for
/// the running program). `kind`: `PCMAP_PCTABLE_COVERED` or
/// `PCMAP_PCTABLE_ATOMICS`; `version`: as the callback received it (1:
/// LLVM 16's native tables; 2: compact, LLVM 19 and `pcmap emit`; either
/// may carry `PCMAP_PCTABLE_VERSION_PTR_SIZE`). `pc_width`: 4, 8, or
/// `PCMAP_PCTABLE_PC_WIDTH_DEFAULT` (see there). Constant time: entries are
/// checked as they are decoded.
///
/// # Safety
/// `data` points to `size` readable bytes, mapped while `out` is used; `out`
/// is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_open(
    out: *mut pcmap_pctable,
    kind: u32,
    version: u32,
    data: *const c_void,
    size: usize,
    address: u64,
    pc_width: u8,
) -> pcmap_status {
    if out.is_null() || data.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    let pc_width = match pc_width {
        PCMAP_PCTABLE_PC_WIDTH_DEFAULT if version & VERSION_PTR_SIZE_REL != 0 => 8,
        PCMAP_PCTABLE_PC_WIDTH_DEFAULT => DEFAULT_PC_WIDTH,
        w => w,
    };
    let t = pcmap_pctable {
        data: data.cast(),
        size,
        address,
        version,
        kind,
        pc_width,
    };
    match t.table() {
        Ok(_) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe { out.write(t) };
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// `pcmap_pctable_open` for what a callback receives: the table between
/// `start` and `stop`, mapped in this process, with the target's default PC
/// width unless the version says pointer-sized.
///
/// # Safety
/// `start..stop` is readable and stays mapped while `out` is used; `out` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_open_linked(
    out: *mut pcmap_pctable,
    kind: u32,
    version: u32,
    start: *const c_void,
    stop: *const c_void,
) -> pcmap_status {
    if start.is_null() || (stop as usize) < (start as usize) {
        return PCMAP_ERR_ARGUMENT;
    }
    let size = stop as usize - start as usize;
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe {
        pcmap_pctable_open(
            out,
            kind,
            version,
            start,
            size,
            start as u64,
            PCMAP_PCTABLE_PC_WIDTH_DEFAULT,
        )
    }
}

/// Decodes the entry at `*cursor` (start with 0) and advances `*cursor` past
/// it. Returns `PCMAP_NOT_FOUND` at the end of the table, an error (and
/// leaves `*cursor`) on a corrupt entry. A loop:
/// `for (uint64_t c = 0; pcmap_pctable_next(&t, &c, &e) == PCMAP_OK;) …`
///
/// # Safety
/// `t` was filled by `pcmap_pctable_open`; `cursor` and `out` are writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_next(
    t: *const pcmap_pctable,
    cursor: *mut u64,
    out: *mut pcmap_pctable_entry,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(t), false, false) = (unsafe { t.as_ref() }, cursor.is_null(), out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    let r = (|| {
        let table = t.table()?;
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        let Ok(at) = usize::try_from(unsafe { *cursor }) else {
            return Err(PCMAP_ERR_OUT_OF_RANGE);
        };
        if at >= t.size {
            return Ok(None);
        }
        let e = table.entry_at(at).map_err(from)?;
        Ok(Some((entry(&e, t.address), (at + e.len) as u64)))
    })();
    match r {
        Ok(Some((e, next))) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe {
                out.write(e);
                cursor.write(next);
            }
            PCMAP_OK
        }
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}

/// Counts the entries (decoding each: linear time).
///
/// # Safety
/// `t` was filled by `pcmap_pctable_open`; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_count(
    t: *const pcmap_pctable,
    count: *mut usize,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(t), false) = (unsafe { t.as_ref() }, count.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    let r = (|| {
        let mut n = 0usize;
        for e in t.table()?.entries() {
            e.map_err(from)?;
            n += 1;
        }
        Ok(n)
    })();
    match r {
        Ok(n) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe { count.write(n) };
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// Finds the entry for `pc` by decoding the table from its start: covered,
/// the function whose `[pc, pc + size)` contains `pc` (the first one, should
/// ranges overlap); atomics, the entry at exactly `pc`. Linear in the number
/// of entries (a few ns each): fine at registration or for a report; for a
/// per-access check build an index once with `pcmap_pctable_index`.
/// Returns `PCMAP_NOT_FOUND` if no entry matches.
///
/// # Safety
/// `t` was filled by `pcmap_pctable_open`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_find(
    t: *const pcmap_pctable,
    pc: u64,
    out: *mut pcmap_pctable_entry,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(t), false) = (unsafe { t.as_ref() }, out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    let r = (|| {
        for e in t.table()?.entries() {
            let e = entry(&e.map_err(from)?, t.address);
            if matches(&e, pc) {
                return Ok(Some(e));
            }
        }
        Ok(None)
    })();
    match r {
        Ok(Some(e)) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe { out.write(e) };
            PCMAP_OK
        }
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}

/// Decodes every entry into `entries[0 .. *count)`, sorted by PC, for
/// `pcmap_pctable_index_find`. `capacity` is the length of `entries`; get
/// the count needed with `pcmap_pctable_count`. Returns
/// `PCMAP_ERR_OUT_OF_RANGE` if `capacity` is too small (nothing is
/// sorted then). Linear time to decode, O(n log n) to sort (LLVM writes a
/// module's entries in function order, which is address order within a
/// section; a linked program's or `-ffunction-sections` tables need not
/// be). No memory besides `entries`.
///
/// # Safety
/// `t` was filled by `pcmap_pctable_open`; `entries` has `capacity` writable
/// elements (or is NULL with `capacity` 0); `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_index(
    t: *const pcmap_pctable,
    entries: *mut pcmap_pctable_entry,
    capacity: usize,
    count: *mut usize,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(t), false) = (unsafe { t.as_ref() }, count.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if entries.is_null() && capacity != 0 {
        return PCMAP_ERR_ARGUMENT;
    }
    let out = if capacity == 0 {
        &mut [][..]
    } else {
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { core::slice::from_raw_parts_mut(entries, capacity) }
    };
    let r = (|| {
        let mut n = 0;
        for e in t.table()?.entries() {
            let e = entry(&e.map_err(from)?, t.address);
            *out.get_mut(n).ok_or(PCMAP_ERR_OUT_OF_RANGE)? = e;
            n += 1;
        }
        out[..n].sort_unstable_by_key(|e| e.pc);
        Ok(n)
    })();
    match r {
        Ok(n) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe { count.write(n) };
            PCMAP_OK
        }
        Err(e) => e,
    }
}

/// Finds the entry for `pc` (as `pcmap_pctable_find`) in an index built by
/// `pcmap_pctable_index` (or any array sorted by `pc`), by binary search:
/// O(log count), no decoding. Returns `PCMAP_NOT_FOUND` if none matches,
/// `PCMAP_ERR_NOT_SORTED` if the entries next to the one found are out of
/// order (the search does not scan the array: other unsorted entries give
/// unspecified, memory-safe results). With overlapping function ranges
/// (not produced by a compiler) it returns the last one starting at or
/// below `pc`, `pcmap_pctable_find` the first one in table order.
///
/// # Safety
/// `entries` has `count` readable elements (or is NULL with `count` 0);
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_pctable_index_find(
    entries: *const pcmap_pctable_entry,
    count: usize,
    pc: u64,
    out: *mut pcmap_pctable_entry,
) -> pcmap_status {
    if out.is_null() || (entries.is_null() && count != 0) {
        return PCMAP_ERR_ARGUMENT;
    }
    let index = if count == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { core::slice::from_raw_parts(entries, count) }
    };
    match index_find(index, pc) {
        Ok(Some(e)) => {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            unsafe { out.write(e) };
            PCMAP_OK
        }
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}

/// The last entry starting at or below `pc`, if it matches `pc`. Its
/// neighbours are checked for order (a cheap check: an unsorted array gives
/// unspecified results, never an out-of-bounds read).
pub fn index_find(
    index: &[pcmap_pctable_entry],
    pc: u64,
) -> Result<Option<pcmap_pctable_entry>, pcmap_status> {
    let n = index.partition_point(|e| e.pc <= pc);
    let Some(e) = n.checked_sub(1).and_then(|i| index.get(i)) else {
        return Ok(None);
    };
    let before = n.checked_sub(2).and_then(|i| index.get(i));
    if index.get(n).is_some_and(|next| next.pc < e.pc) || before.is_some_and(|b| b.pc > e.pc) {
        return Err(PCMAP_ERR_NOT_SORTED);
    }
    Ok(matches(e, pc).then_some(*e))
}
