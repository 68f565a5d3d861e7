//! C API for JITs: the flat stack map table of code compiled at run time,
//! built into a buffer the caller owns.
//!
//! The builder is `pcmap::stackmap::memory::flat_tables`, the same Rust code
//! (`pcmap emit`'s per-table code) the Rust API runs: the result is the
//! table `pcmap emit --absolute` writes for the same module linked at the
//! same addresses. This library links std and that builder (an x86 decoder
//! checks patch regions and finds calls, `gimli` reads `.eh_frame`); it uses
//! the Rust allocator inside a call and frees everything before returning,
//! so it hands out no memory of its own. libpcmap (`no_std`, `pcmap.h`)
//! stays the reader; it opens the result with `pcmap_open`.
//!
//! ```text
//!  pcmap_jit_input ──▶ pcmap_jit_table_size ──▶ size ──▶ caller allocates
//!                 └──▶ pcmap_jit_table_build ──▶ table in the caller's buffer
//!                                                 ──▶ pcmap_open (libpcmap)
//! ```
//!
//! Errors are statuses and a message written into a buffer the caller
//! gives; a panic (a bug) is caught at the boundary and reported as
//! `PCMAP_JIT_ERR_INTERNAL`, never unwound into C.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use pcmap::object::Target;
use pcmap::stackmap::memory::{flat_tables, MemoryFunction, MemoryModule};

/// What a `pcmap_jit_*` call returns.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum pcmap_jit_status {
    /// Success.
    PCMAP_JIT_OK = 0,
    /// A NULL pointer with a non-zero size, an unknown target, a function
    /// name that is NULL: the message says which.
    PCMAP_JIT_ERR_ARGUMENT = -1,
    /// The input does not describe a table: the message names the section
    /// (or function) and the problem (a truncated `.llvm_stackmaps`, a
    /// record in no given function, a corrupt `.eh_frame`, ...).
    PCMAP_JIT_ERR_INPUT = -30,
    /// The buffer is smaller than the table: `*size` is the size needed;
    /// nothing was written.
    PCMAP_JIT_ERR_BUFFER_TOO_SMALL = -31,
    /// A bug of pcmap (a panic, caught here): please report it with the
    /// input.
    PCMAP_JIT_ERR_INTERNAL = -32,
}

use pcmap_jit_status::*;

/// `pcmap_jit_input::target`: x86-64.
pub const PCMAP_JIT_TARGET_X86_64: u32 = 1;
/// `pcmap_jit_input::target`: AArch64 (little-endian).
pub const PCMAP_JIT_TARGET_AARCH64: u32 = 2;
/// `pcmap_jit_input::target`: PowerPC64 little-endian (ELFv2).
pub const PCMAP_JIT_TARGET_PPC64LE: u32 = 3;
/// `pcmap_jit_input::target`: PowerPC64 big-endian, ELFv1 (`.opd`).
pub const PCMAP_JIT_TARGET_PPC64_ELFV1: u32 = 4;
/// `pcmap_jit_input::target`: PowerPC64 big-endian, ELFv2.
pub const PCMAP_JIT_TARGET_PPC64_ELFV2: u32 = 5;

/// One function of the JIT's module, as its memory manager and symbol
/// table know it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_jit_function {
    /// Its symbol name, NUL-terminated (what `.pcmap.sites` names it by).
    pub name: *const c_char,
    /// The address of its first instruction, as `.llvm_stackmaps` names it.
    pub address: u64,
    /// Where its code can be read now (usually `(void *)address`; the
    /// writable alias of a dual-mapped code buffer also does).
    pub code: *const c_void,
    /// The size of its code in bytes (its symbol's size).
    pub size: u64,
}

/// A module compiled at run time: what the table is built from. Optional
/// parts are NULL with size 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_jit_input {
    /// `PCMAP_JIT_TARGET_*`: the architecture the code was compiled for.
    pub target: u32,
    /// `.llvm_stackmaps` as the JIT's linker left it (function addresses
    /// relocated), e.g. from the memory manager's data section callback.
    pub stackmaps: *const c_void,
    pub stackmaps_size: usize,
    /// The module's functions; the tables name only those they hold records
    /// of, others are ignored.
    pub functions: *const pcmap_jit_function,
    pub num_functions: usize,
    /// Optional: `.eh_frame` as loaded, and its address: frame states (CFA
    /// rule, saved registers) for every record. NULL: records without.
    pub eh_frame: *const c_void,
    pub eh_frame_size: usize,
    pub eh_frame_address: u64,
    /// Optional: the plugin's description of the module's stack map sites
    /// (record kinds and patchable sizes, checked against the code): the
    /// `.pcmap.sites` section of the object compiled from a module the
    /// plugin's `sites` pass ran on (the bytes of its `@__pcmap_sites`
    /// constant). NULL: every kind and size unknown.
    pub sites: *const c_void,
    pub sites_size: usize,
}

/// An error of a call: its status and message.
struct Failure(pcmap_jit_status, String);

fn argument(message: &str) -> Failure {
    Failure(PCMAP_JIT_ERR_ARGUMENT, message.to_string())
}

/// `size` bytes at `ptr`; NULL is allowed with size 0.
///
/// # Safety
/// Unless NULL, `ptr` points to `size` readable bytes that live for `'a`.
unsafe fn bytes<'a>(ptr: *const c_void, size: usize, what: &str) -> Result<&'a [u8], Failure> {
    if size == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(argument(&format!("{what} is NULL with size {size}")));
    }
    if size > isize::MAX as usize {
        return Err(argument(&format!("{what}: size {size} is too large")));
    }
    // SAFETY: non-NULL, at most isize::MAX bytes, readable by the caller's
    // contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), size) })
}

fn target(code: u32) -> Result<Target, Failure> {
    Ok(match code {
        PCMAP_JIT_TARGET_X86_64 => Target::X86_64,
        PCMAP_JIT_TARGET_AARCH64 => Target::Aarch64,
        PCMAP_JIT_TARGET_PPC64LE => Target::PowerPc64 {
            big_endian: false,
            elfv1: false,
        },
        PCMAP_JIT_TARGET_PPC64_ELFV1 => Target::PowerPc64 {
            big_endian: true,
            elfv1: true,
        },
        PCMAP_JIT_TARGET_PPC64_ELFV2 => Target::PowerPc64 {
            big_endian: true,
            elfv1: false,
        },
        _ => return Err(argument(&format!("unknown target {code}"))),
    })
}

/// The table of `input`, built in Rust's memory.
///
/// # Safety
/// As `pcmap_jit_table_size`.
unsafe fn build(input: *const pcmap_jit_input) -> Result<Vec<u8>, Failure> {
    if input.is_null() {
        return Err(argument("input is NULL"));
    }
    // SAFETY: non-NULL; the caller gives a readable pcmap_jit_input.
    let input = unsafe { &*input };
    let target = target(input.target)?;
    // SAFETY: the caller's contract on each pointer and its size.
    let stackmaps = unsafe { bytes(input.stackmaps, input.stackmaps_size, "stackmaps") }?;
    let eh_frame = match input.eh_frame.is_null() {
        true => None,
        // SAFETY: as above.
        false => Some(unsafe { bytes(input.eh_frame, input.eh_frame_size, "eh_frame") }?),
    };
    // SAFETY: as above.
    let sites = unsafe { bytes(input.sites, input.sites_size, "sites") }?;
    if input.num_functions > 0 && input.functions.is_null() {
        return Err(argument("functions is NULL with num_functions > 0"));
    }
    let given: &[pcmap_jit_function] = match input.num_functions {
        0 => &[],
        // SAFETY: non-NULL; the caller gives num_functions readable structs.
        n => unsafe { std::slice::from_raw_parts(input.functions, n) },
    };
    let mut functions = Vec::with_capacity(given.len());
    for (i, f) in given.iter().enumerate() {
        if f.name.is_null() {
            return Err(argument(&format!("function {i}: name is NULL")));
        }
        // SAFETY: non-NULL, NUL-terminated by the caller's contract.
        let name = unsafe { CStr::from_ptr(f.name) }.to_bytes();
        let size = usize::try_from(f.size)
            .map_err(|_| argument(&format!("function {i}: size {} is too large", f.size)))?;
        if f.address.checked_add(f.size).is_none() {
            return Err(argument(&format!(
                "function {i} ({}): address {:#x} + size {:#x} overflows",
                String::from_utf8_lossy(name),
                f.address,
                f.size
            )));
        }
        // SAFETY: the caller's contract: `size` readable bytes at `code`.
        let code = unsafe { bytes(f.code, size, "function code") }.map_err(|e| {
            Failure(
                e.0,
                format!("function {i} ({}): {}", String::from_utf8_lossy(name), e.1),
            )
        })?;
        functions.push(MemoryFunction {
            name,
            address: f.address,
            code,
        });
    }
    let module = MemoryModule {
        target,
        stackmaps,
        functions: &functions,
        eh_frame: eh_frame.map(|e| (e, input.eh_frame_address)),
        sites: (!sites.is_empty()).then_some(sites),
    };
    flat_tables(&module).map_err(|e| Failure(PCMAP_JIT_ERR_INPUT, e.to_string()))
}

/// Runs `f`, catching a panic (a bug) and writing the message of a failure
/// into the caller's buffer (an empty string on success).
///
/// # Safety
/// `message` is NULL or points to `message_size` writable bytes.
unsafe fn call(
    message: *mut c_char,
    message_size: usize,
    f: impl FnOnce() -> Result<(), Failure>,
) -> pcmap_jit_status {
    let result = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Failure(
                PCMAP_JIT_ERR_INTERNAL,
                format!("internal error (please report it with the input): {what}"),
            ))
        }
    };
    let (status, text) = match result {
        Ok(()) => (PCMAP_JIT_OK, String::new()),
        Err(Failure(status, text)) => (status, text),
    };
    if !message.is_null() && message_size > 0 {
        let n = text.len().min(message_size - 1);
        // SAFETY: `message` has `message_size` writable bytes; we write
        // n + 1 <= message_size of them, from a String that does not alias
        // the caller's buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), message.cast::<u8>(), n);
            *message.add(n) = 0;
        }
    }
    status
}

/// Writes the size in bytes of the table `input` describes into `*size`.
/// Builds the table to know it (the same work as `pcmap_jit_table_build`),
/// then frees it. On an error, `*size` is untouched and a NUL-terminated
/// message (truncated to `message_size`) is written to `message`; on
/// success `message` is the empty string. `message` may be NULL.
///
/// # Safety
/// `input` points to a `pcmap_jit_input` whose non-NULL pointers point to
/// as many readable bytes (structs) as their sizes say, each function's
/// `name` NUL-terminated; `size` is writable; `message` is NULL or has
/// `message_size` writable bytes. Nothing is kept after the call.
#[no_mangle]
pub unsafe extern "C" fn pcmap_jit_table_size(
    input: *const pcmap_jit_input,
    size: *mut usize,
    message: *mut c_char,
    message_size: usize,
) -> pcmap_jit_status {
    let work = || {
        if size.is_null() {
            return Err(argument("size is NULL"));
        }
        // SAFETY: the caller's contract on `input`.
        let table = unsafe { build(input) }?;
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { *size = table.len() };
        Ok(())
    };
    // SAFETY: the caller's contract on `message`.
    unsafe { call(message, message_size, work) }
}

/// Builds the table `input` describes into the caller's `buffer` of
/// `buffer_size` bytes, and writes its size into `*size`: the flat tables
/// of every LLVM table of `stackmaps`, back to back, with absolute
/// addresses; open them with `pcmap_open(&m, buffer, *size,
/// (uint64_t)(uintptr_t)buffer)` (libpcmap). Give an 8-aligned buffer (the
/// tables' alignment). When `buffer_size` is too small: returns
/// `PCMAP_JIT_ERR_BUFFER_TOO_SMALL` with the size needed in `*size`, and
/// writes nothing to `buffer` (the same on any other error, with `*size`
/// untouched). Messages as `pcmap_jit_table_size`.
///
/// # Safety
/// As `pcmap_jit_table_size`; `buffer` is NULL (with size 0) or has
/// `buffer_size` writable bytes that do not overlap the input.
#[no_mangle]
pub unsafe extern "C" fn pcmap_jit_table_build(
    input: *const pcmap_jit_input,
    buffer: *mut c_void,
    buffer_size: usize,
    size: *mut usize,
    message: *mut c_char,
    message_size: usize,
) -> pcmap_jit_status {
    let work = || {
        if size.is_null() {
            return Err(argument("size is NULL"));
        }
        if buffer.is_null() && buffer_size > 0 {
            return Err(argument("buffer is NULL with buffer_size > 0"));
        }
        // SAFETY: the caller's contract on `input`.
        let table = unsafe { build(input) }?;
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { *size = table.len() };
        if table.len() > buffer_size {
            return Err(Failure(
                PCMAP_JIT_ERR_BUFFER_TOO_SMALL,
                format!(
                    "the table needs {} bytes, the buffer has {buffer_size}",
                    table.len()
                ),
            ));
        }
        // SAFETY: `buffer` has buffer_size >= table.len() writable
        // bytes (non-NULL: table.len() > 0 when built), not overlapping
        // the freshly allocated table.
        unsafe { std::ptr::copy_nonoverlapping(table.as_ptr(), buffer.cast::<u8>(), table.len()) };
        Ok(())
    };
    // SAFETY: the caller's contract on `message`.
    unsafe { call(message, message_size, work) }
}
