//! The exported `extern "C"` functions: argument checks and conversions
//! around `section` and `decode`, which do the work in safe Rust.
//!
//! Every function returns a `pcmap_status` and writes its result through an
//! out pointer only on `PCMAP_OK`. None of them panics (every table access is
//! bounds-checked and returns an error); a panic would abort, not unwind into C.

use core::ffi::c_void;

use pcmap_reader::flat::Pc;

use crate::constants::{PCMAP_PC_INSTRUCTION, PCMAP_PC_RETURN_ADDRESS};
use crate::decode::{self, List};
use crate::section::{
    self, opened, CIds, CSection, Full, IdEntry, Match, OpenedSection, Output, Section, SiteOut,
};
use crate::status::pcmap_status::{self, *};
use crate::status::status;
use crate::types::*;

/// Writes `r`'s value through `out` (already checked non-NULL).
fn put<T>(out: *mut T, r: Result<T, pcmap_status>) -> pcmap_status {
    status(r.map(|v| {
        // SAFETY: the caller passed a valid, writable `out`.
        unsafe { out.write(v) }
    }))
}

/// Like `put`, for lookups that may find nothing.
fn put_found<T>(out: *mut T, r: Result<Option<T>, pcmap_status>) -> pcmap_status {
    match r {
        Ok(Some(v)) => put(out, Ok(v)),
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}

/// The section a `pcmap_stackmaps` refers to.
///
/// # Safety
/// `m` was filled by `pcmap_open` and its section is still mapped.
unsafe fn section<'a>(m: *const pcmap_stackmaps) -> Result<Section<'a>, pcmap_status> {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let m = unsafe { m.as_ref() }.ok_or(PCMAP_ERR_ARGUMENT)?;
    if m.data.is_null() {
        return Err(PCMAP_ERR_ARGUMENT);
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    Ok(unsafe { opened(m) }.section())
}

/// A lookup writing its results straight into the caller's structs.
///
/// One copy for both entry points (see `find_site`).
///
/// # Safety
/// As `pcmap_find`.
#[inline(never)]
unsafe fn find(
    m: *const pcmap_stackmaps,
    pc: u64,
    how: Match,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    if record.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { lookup(m, pc, how, Full { function, record }) }
}

/// A lookup of return address `pc` writing what `out` wants: through the
/// PC map of a section of one table (`search_mapped`), else searching out
/// of line.
///
/// # Safety
/// `m` as `pcmap_find`'s; `out`'s pointers valid for a write.
#[inline(always)]
unsafe fn lookup<O: for<'a> Output<'a, Out = (), Error = pcmap_status>>(
    m: *const pcmap_stackmaps,
    pc: u64,
    how: Match,
    out: O,
) -> pcmap_status {
    let pc = Pc::ReturnAddress(pc);
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    if let Some(opened) = unsafe { m.as_ref() } {
        if !opened.data.is_null() {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            if let Some(r) = unsafe { section::opened(opened) }.search_mapped(pc, how, out) {
                return found(r);
            }
        }
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { lookup_searched(m, pc, how, out) }
}

/// `lookup` by `Section::search`: sections of several tables, tables
/// without a PC map or whose map does not fit the code, bad arguments.
///
/// # Safety
/// As `lookup`.
#[inline(never)]
unsafe fn lookup_searched<O: for<'a> Output<'a, Out = (), Error = pcmap_status>>(
    m: *const pcmap_stackmaps,
    pc: Pc,
    how: Match,
    out: O,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    found(unsafe { section(m) }.and_then(|s| s.search(pc, how, out)))
}

/// The status of a lookup's result.
#[inline(always)]
fn found(r: Result<Option<()>, pcmap_status>) -> pcmap_status {
    match r {
        Ok(Some(())) => PCMAP_OK,
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}

/// Opens the `size` bytes at `data`, a `pcmap_stackmaps` section whose first
/// byte has address `address` in the program it describes (pass
/// `(uint64_t)(uintptr_t)data` for the running program's own section). Reads
/// and checks every table's header; its cost does not depend on the number
/// of records. The section must stay mapped while `out` is used.
///
/// # Safety
/// `data` points to `size` readable bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_open(
    out: *mut pcmap_stackmaps,
    data: *const c_void,
    size: usize,
    address: u64,
) -> pcmap_status {
    if out.is_null() || data.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let bytes = unsafe { core::slice::from_raw_parts(data.cast(), size) };
    put(
        out,
        OpenedSection::open(bytes, address)
            .map(section::to_c)
            .map_err(Into::into),
    )
}

/// Opens the running program's own section, given the linker-defined
/// markers `__start_pcmap_stackmaps` and `__stop_pcmap_stackmaps`.
///
/// # Safety
/// `start..stop` is the mapped section; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_open_linked(
    out: *mut pcmap_stackmaps,
    start: *const c_void,
    stop: *const c_void,
) -> pcmap_status {
    if start.is_null() || (stop as usize) < (start as usize) {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { pcmap_open(out, start, stop as usize - start as usize, start as u64) }
}

/// Checks every entry of every table (kinds, indices, constant indices,
/// records sorted by offset, functions sorted by address). Costs time
/// linear in the size of the section; lookups do not need it to be safe,
/// only to find what they should on a well-formed section.
///
/// # Safety
/// `m` was filled by `pcmap_open`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_validate(m: *const pcmap_stackmaps) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    status(unsafe { section(m) }.and_then(|s| Ok(s.validate()?)))
}

/// Finds the record at return address `pc` and the function containing it
/// (the one holding the byte before `pc`: a call that ends its function
/// returns to the function's end, which may be the next function's first
/// byte). Returns `PCMAP_NOT_FOUND` if no record is there.
/// `function` may be NULL. Decodes the record's Site (up to its live-outs,
/// skipping its locations) and frame state into `record`;
/// `pcmap_find_site` finds the same record without decoding anything.
///
/// # Safety
/// `m` was filled by `pcmap_open`; `record` (and `function` unless NULL) are
/// writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find(
    m: *const pcmap_stackmaps,
    pc: u64,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { find(m, pc, Match::Exact, function, record) }
}

/// Like `pcmap_find`, but finds the function's first record at or after
/// `pc`. For code that reports roots with `llvm.experimental.stackmap` right
/// after a call: the record follows the call's return address by the
/// instructions that move the call's result (and on PowerPC the TOC restore).
/// The caller must know that no other call lies between (every call that
/// may reach a safepoint is followed by its stack map).
///
/// # Safety
/// As `pcmap_find`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_at_or_after(
    m: *const pcmap_stackmaps,
    pc: u64,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { find(m, pc, Match::AtOrAfter, function, record) }
}

/// Finds the function containing `pc`, whether or not a record is there:
/// whose code a PC is (a JIT mapping a PC back to its function, a profiler,
/// the end of a stack walk). `kind` says what `pc` is:
/// `PCMAP_PC_RETURN_ADDRESS` (a frame's PC in a walk, a capture's), in the
/// function holding the byte before it (`address < pc <= address + size`:
/// a call that ends its function returns to its end); or
/// `PCMAP_PC_INSTRUCTION` (an interrupted instruction, a JIT's or
/// profiler's PC), in the function holding it (`address <= pc < address +
/// size`). A function whose `size` is 0 (unknown) holds every byte from
/// its start up to the next function's: it is then only the nearest
/// function below, not proof that `pc` is in its code. Returns
/// `PCMAP_NOT_FOUND` if no function contains `pc`, `PCMAP_ERR_ARGUMENT`
/// for another `kind`. O(log functions) reads per table; allocates
/// nothing, takes no lock (async-signal-safe).
///
/// # Safety
/// `m` was filled by `pcmap_open`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_function(
    m: *const pcmap_stackmaps,
    pc: u64,
    kind: u32,
    out: *mut pcmap_function,
) -> pcmap_status {
    let Some(pc) = pc_of(pc, kind).filter(|_| !out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    put_found(out, unsafe { section(m) }.and_then(|s| s.function_of(pc)))
}

/// `pc` as a `Pc` of `kind` (`PCMAP_PC_*`), if `kind` is one.
pub(crate) fn pc_of(pc: u64, kind: u32) -> Option<Pc> {
    match kind {
        PCMAP_PC_RETURN_ADDRESS => Some(Pc::ReturnAddress(pc)),
        PCMAP_PC_INSTRUCTION => Some(Pc::Instruction(pc)),
        _ => None,
    }
}

/// Function `index` (0 .. `m->num_functions`), counting across tables.
///
/// # Safety
/// `m` was filled by `pcmap_open`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_function_at(
    m: *const pcmap_stackmaps,
    index: u32,
    out: *mut pcmap_function,
) -> pcmap_status {
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match unsafe { section(m) }.and_then(|s| s.nth_function(index)) {
        Ok(None) => PCMAP_ERR_OUT_OF_RANGE,
        r => put_found(out, r),
    }
}

/// Record `index` (0 .. `f->num_records`) of a function, in address order.
///
/// # Safety
/// `f` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_record_at(
    f: *const pcmap_function,
    index: u32,
    out: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(f), false) = (unsafe { f.as_ref() }, out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    let r = (|| {
        if index >= f.num_records {
            return Err(PCMAP_ERR_OUT_OF_RANGE);
        }
        let i = f
            .record_index
            .checked_add(index)
            .ok_or(PCMAP_ERR_OUT_OF_RANGE)?;
        let t = f.table.open()?;
        pcmap_record::new(f.table, f.address, i, t.record(i)?, &t.data())
    })();
    put(out, r)
}

/// Location `index` (0 .. `r->num_locations`) of a record, undecoded.
/// Locations vary in length: this decodes the `index` before it too
/// (O(index)); `pcmap_locations` and `pcmap_location_next` walk them in
/// linear time.
///
/// # Safety
/// `r` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_location_at(
    r: *const pcmap_record,
    index: u32,
    out: *mut pcmap_location,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { r.as_ref() }, out.is_null()) {
        (Some(r), false) => put(out, decode::location(r, index)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// Live-out `index` of a record (0 .. the `remaining` of the cursor
/// `pcmap_live_outs` gives): the locations and the live-outs before it are
/// decoded too.
///
/// # Safety
/// `r` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_live_out_at(
    r: *const pcmap_record,
    index: u32,
    out: *mut pcmap_live_out,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { r.as_ref() }, out.is_null()) {
        (Some(r), false) => put(out, decode::live_out(r, index)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// Saved register `index` (0 .. `r->num_frame_registers`) of a record's
/// frame state: the slot is at the CFA plus `offset`. Decodes the saved
/// registers before it too (O(index)); `pcmap_frame_registers` walks them.
///
/// # Safety
/// `r` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_frame_register_at(
    r: *const pcmap_record,
    index: u32,
    out: *mut pcmap_frame_register,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { r.as_ref() }, out.is_null()) {
        (Some(r), false) => put(out, decode::frame_register(r, index)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// Where the frame state at record `r` says DWARF register `dwarf_reg` (e.g.
/// the return address register) is saved, or `PCMAP_NOT_FOUND`.
///
/// # Safety
/// `r` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_frame_register(
    r: *const pcmap_record,
    dwarf_reg: u16,
    out: *mut pcmap_frame_register,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { r.as_ref() }, out.is_null()) {
        (Some(r), false) => put_found(out, decode::find_frame_register(r, dwarf_reg)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// Finds the record at return address `pc` like `pcmap_find`, and writes
/// only what a collector needs to walk the frame
/// and to find (or cache) its roots: the table, function and record
/// indices, the record's Site offset (records with equal Sites share it)
/// and the function's stack size. Nothing is decoded;
/// `pcmap_site_record` gives the whole record.
///
/// # Safety
/// `m` was filled by `pcmap_open`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_site(
    m: *const pcmap_stackmaps,
    pc: u64,
    out: *mut pcmap_site,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { find_site(m, pc, Match::Exact, out) }
}

/// `pcmap_find_site` for the function's first record at or after `pc`
/// (see `pcmap_find_at_or_after`).
///
/// # Safety
/// As `pcmap_find_site`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_site_at_or_after(
    m: *const pcmap_stackmaps,
    pc: u64,
    out: *mut pcmap_site,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { find_site(m, pc, Match::AtOrAfter, out) }
}

/// # Safety
/// As `pcmap_find_site`.
#[inline(always)]
unsafe fn find_site(
    m: *const pcmap_stackmaps,
    pc: u64,
    how: Match,
    out: *mut pcmap_site,
) -> pcmap_status {
    if out.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { lookup(m, pc, how, SiteOut(out)) }
}

/// The whole record `pcmap_find_site` found (as `pcmap_find` writes it).
///
/// # Safety
/// `m` was filled by `pcmap_open`; `site` by `pcmap_find_site` on it;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_site_record(
    m: *const pcmap_stackmaps,
    site: *const pcmap_site,
    out: *mut pcmap_record,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(site), false) = (unsafe { site.as_ref() }, out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    put(out, unsafe { section(m) }.and_then(|s| s.site_record(site)))
}

/// The function of the record `pcmap_find_site` found.
///
/// # Safety
/// As `pcmap_site_record`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_site_function(
    m: *const pcmap_stackmaps,
    site: *const pcmap_site,
    out: *mut pcmap_function,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(site), false) = (unsafe { site.as_ref() }, out.is_null()) else {
        return PCMAP_ERR_ARGUMENT;
    };
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    put(
        out,
        unsafe { section(m) }.and_then(|s| s.site_function(site)),
    )
}

/// A cursor at record `r`'s first location, for `pcmap_location_next`.
///
/// # Safety
/// `r` was filled by this library; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_locations(
    r: *const pcmap_record,
    out: *mut pcmap_cursor,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { cursor(r, List::Locations, out) }
}

/// A cursor at record `r`'s first live-out, for `pcmap_live_out_next`; its
/// `remaining` is the number of live-outs (LLVM lists them for patch points
/// only). The live-outs follow the locations: this decodes the locations
/// once to find them.
///
/// # Safety
/// As `pcmap_locations`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_live_outs(
    r: *const pcmap_record,
    out: *mut pcmap_cursor,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { cursor(r, List::LiveOuts, out) }
}

/// A cursor at the first saved register of record `r`'s frame state, for
/// `pcmap_frame_register_next`.
///
/// # Safety
/// As `pcmap_locations`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_frame_registers(
    r: *const pcmap_record,
    out: *mut pcmap_cursor,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { cursor(r, List::FrameRegisters, out) }
}

/// # Safety
/// As `pcmap_locations`.
unsafe fn cursor(r: *const pcmap_record, list: List, out: *mut pcmap_cursor) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { r.as_ref() }, out.is_null()) {
        (Some(r), false) => put(out, decode::cursor(r, list)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// The location at cursor `c` (from `pcmap_locations`), undecoded; moves
/// the cursor on. `PCMAP_NOT_FOUND` after the last.
///
/// # Safety
/// `c` was filled by this library and its section is still mapped; `out`
/// is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_location_next(
    c: *mut pcmap_cursor,
    out: *mut pcmap_location,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { c.as_mut() }, out.is_null()) {
        (Some(c), false) => put_found(out, decode::location_next(c)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// The live-out at cursor `c` (from `pcmap_live_outs`); moves the cursor
/// on. `PCMAP_NOT_FOUND` after the last.
///
/// # Safety
/// As `pcmap_location_next`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_live_out_next(
    c: *mut pcmap_cursor,
    out: *mut pcmap_live_out,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { c.as_mut() }, out.is_null()) {
        (Some(c), false) => put_found(out, decode::live_out_next(c)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// The saved register at cursor `c` (from `pcmap_frame_registers`); moves
/// the cursor on. `PCMAP_NOT_FOUND` after the last.
///
/// # Safety
/// As `pcmap_location_next`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_frame_register_next(
    c: *mut pcmap_cursor,
    out: *mut pcmap_frame_register,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    match (unsafe { c.as_mut() }, out.is_null()) {
        (Some(c), false) => put_found(out, decode::frame_register_next(c)),
        _ => PCMAP_ERR_ARGUMENT,
    }
}

/// Decodes location `loc` (from `pcmap_location_next` or
/// `pcmap_location_at`) of record `r` for one frame, as `pcmap_decode`
/// does: the way to decode every location of a record in linear time.
///
/// # Safety
/// `r` was filled by this library; `loc` is readable; `regs` points to
/// `num_regs` entries (or is NULL with `num_regs` 0); `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_decode_location(
    r: *const pcmap_record,
    loc: *const pcmap_location,
    regs: *const pcmap_register,
    num_regs: usize,
    out: *mut pcmap_value,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let (Some(r), Some(loc)) = (unsafe { r.as_ref() }, unsafe { loc.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() || (regs.is_null() && num_regs != 0) {
        return PCMAP_ERR_ARGUMENT;
    }
    let regs = if num_regs == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { core::slice::from_raw_parts(regs, num_regs) }
    };
    put(out, decode::decode_location(r, loc, regs))
}

/// Decodes location `index` of record `r` for one frame, given the values of
/// that frame's registers (`regs[0 .. num_regs)`, at least those the
/// locations name: usually the stack pointer and the frame pointer):
///
/// | kind           | result                                                  |
/// |----------------|---------------------------------------------------------|
/// | Register       | `value` = the register; `address` = its save slot if given |
/// | Direct         | `value` = register + offset (the address of a stack object) |
/// | Indirect       | `address` = register + offset, where the value is stored |
/// | Constant       | `value` = the sign-extended offset                       |
/// | ConstantIndex  | `value` = the table's large constant                     |
///
/// Returns `PCMAP_ERR_NO_REGISTER` if the location needs a register not in
/// `regs`. Never reads the frame's memory. Finds location `index` as
/// `pcmap_location_at` does (O(index)).
///
/// # Safety
/// `r` was filled by this library; `regs` points to `num_regs` entries (or
/// is NULL with `num_regs` 0); `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_decode(
    r: *const pcmap_record,
    index: u32,
    regs: *const pcmap_register,
    num_regs: usize,
    out: *mut pcmap_value,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let Some(r) = (unsafe { r.as_ref() }) else {
        return PCMAP_ERR_ARGUMENT;
    };
    if out.is_null() || (regs.is_null() && num_regs != 0) {
        return PCMAP_ERR_ARGUMENT;
    }
    let regs = if num_regs == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { core::slice::from_raw_parts(regs, num_regs) }
    };
    put(out, decode::decode(r, index, regs))
}

/// The bytes `pcmap_id_index_build` needs for `m`'s ID index: 24 per record.
///
/// # Safety
/// `m` was filled by `pcmap_open`; `bytes` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_id_index_size(
    m: *const pcmap_stackmaps,
    bytes: *mut usize,
) -> pcmap_status {
    if bytes.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    put(
        bytes,
        // SAFETY: the caller's pointers, as this function's `# Safety` promises.
        unsafe { section(m) }.and_then(|s| {
            s.num_records()?
                .checked_mul(core::mem::size_of::<IdEntry>())
                .ok_or(PCMAP_ERR_OUT_OF_RANGE)
        }),
    )
}

/// Builds `m`'s ID index in the caller's `buffer` (8-byte aligned, `size`
/// at least what `pcmap_id_index_size` said), for `pcmap_find_id`. Reads
/// every record once; no memory of the library's. The index stays valid
/// while the buffer and the section do.
///
/// # Safety
/// `m` was filled by `pcmap_open`; `buffer` is `size` writable bytes;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_id_index_build(
    m: *const pcmap_stackmaps,
    buffer: *mut c_void,
    size: usize,
    out: *mut pcmap_id_index,
) -> pcmap_status {
    let misaligned = (buffer as usize) & (core::mem::align_of::<IdEntry>() - 1) != 0;
    if out.is_null() || buffer.is_null() || misaligned {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let r = unsafe { section(m) }.and_then(|s| {
        let n = s.num_records()?;
        match n.checked_mul(core::mem::size_of::<IdEntry>()) {
            Some(bytes) if bytes <= size => {}
            _ => return Err(PCMAP_ERR_ARGUMENT),
        }
        // SAFETY: `buffer` is aligned (checked) and holds `size` >= n
        // entries' bytes, writable, the caller's (contract).
        let entries = unsafe { core::slice::from_raw_parts_mut(buffer.cast::<IdEntry>(), n) };
        s.build_id_index(entries)?;
        Ok(pcmap_id_index {
            entries: buffer.cast::<u64>(),
            count: n,
        })
    });
    put(out, r)
}

/// The `n`th record (from 0, in section order) whose ID is `id`, and its
/// function (unless NULL): several records may share an ID (LLVM does not
/// require IDs to be unique; a function inlined twice repeats its
/// stackmaps). `PCMAP_NOT_FOUND` past the last. With `index` (built by
/// `pcmap_id_index_build` for `m`) a binary search, O(log records); with
/// NULL a scan of every record, O(records).
///
/// # Safety
/// `m` was filled by `pcmap_open`; `index` is NULL or was built for `m`;
/// `record` (and `function` unless NULL) are writable.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_id(
    m: *const pcmap_stackmaps,
    index: *const pcmap_id_index,
    id: u64,
    n: u32,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    if record.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let entries = match unsafe { index.as_ref() } {
        Some(ix) if ix.entries.is_null() => return PCMAP_ERR_ARGUMENT,
        Some(ix) => {
            // SAFETY: built by `pcmap_id_index_build`: `count` entries.
            Some(unsafe { core::slice::from_raw_parts(ix.entries.cast::<IdEntry>(), ix.count) })
        }
        None => None,
    };
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { site_out(m, function, record, |s| s.find_id(entries, id, n)) }
}

/// The patch point (or stack map shadow) whose patch region holds return
/// address `pc`, and its function (unless NULL): the record at `A` with a
/// known patchable size `S` and `A < pc <= A + S`. A call the runtime
/// patched into the region returns there; `pcmap_find` finds nothing at
/// such a PC (it matches record addresses). `PCMAP_NOT_FOUND` if `pc` is in
/// no patch region. See docs/patching.md.
///
/// # Safety
/// As `pcmap_find`.
#[no_mangle]
pub unsafe extern "C" fn pcmap_find_patch_region(
    m: *const pcmap_stackmaps,
    pc: u64,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
) -> pcmap_status {
    if record.is_null() {
        return PCMAP_ERR_ARGUMENT;
    }
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    unsafe { site_out(m, function, record, |s| s.find_patch_region(pc)) }
}

/// Writes the record (and function unless NULL) of the site `find` gives.
///
/// # Safety
/// `m` as `pcmap_find`'s; `record` is writable, `function` NULL or writable.
unsafe fn site_out(
    m: *const pcmap_stackmaps,
    function: *mut pcmap_function,
    record: *mut pcmap_record,
    find: impl FnOnce(&Section<'_>) -> Result<Option<pcmap_site>, pcmap_status>,
) -> pcmap_status {
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let r = unsafe { section(m) }.and_then(|s| {
        let Some(site) = find(&s)? else {
            return Ok(None);
        };
        let f = match function.is_null() {
            true => None,
            false => Some(s.site_function(&site)?),
        };
        Ok(Some((f, s.site_record(&site)?)))
    });
    match r {
        Ok(Some((f, r))) => {
            // SAFETY: the caller's writable pointers (contract).
            unsafe { record.write(r) };
            if let Some(f) = f {
                // SAFETY: the caller's pointers, as this function's `# Safety` promises.
                unsafe { function.write(f) };
            }
            PCMAP_OK
        }
        Ok(None) => PCMAP_NOT_FOUND,
        Err(e) => e,
    }
}
