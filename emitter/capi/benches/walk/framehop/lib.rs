//! framehop's route of `scripts/bench-walk` (x86-64 only): the unwinder
//! and its cache, made once over the benchmark program's `.eh_frame` and
//! `.eh_frame_hdr` (addresses from the linked file: the program is not a
//! PIE), then `pcmap_bench_framehop_walk` unwinds a stack frame by frame
//! without allocating (`MustNotAllocateDuringUnwind`), its rules cached
//! across walks. No roots: what it gives is the return addresses.

use std::cell::UnsafeCell;
use std::ops::Range;

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{
    ExplicitModuleSectionInfo, FrameAddress, Module, MustNotAllocateDuringUnwind, Unwinder,
};

type Policy = MustNotAllocateDuringUnwind;

struct State {
    unwinder: UnwinderX86_64<&'static [u8], Policy>,
    cache: CacheX86_64<Policy>,
}

struct Global(UnsafeCell<Option<State>>);
// SAFETY: the benchmark is single-threaded.
unsafe impl Sync for Global {}
static STATE: Global = Global(UnsafeCell::new(None));

/// The bytes at `address` (a mapped section of this program).
///
/// # Safety
/// `address..address + size` is mapped and stays so.
unsafe fn bytes(address: u64, size: u64) -> &'static [u8] {
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(address as *const u8, size as usize) }
}

/// Sets the unwinder up over this program's sections (their addresses in
/// memory, those of the file: not a PIE).
///
/// # Safety
/// The ranges are this program's mapped `.eh_frame`, `.eh_frame_hdr` and
/// `.text`; called once, before any walk.
#[no_mangle]
pub unsafe extern "C" fn pcmap_bench_framehop_init(
    eh_frame: u64,
    eh_frame_size: u64,
    eh_frame_hdr: u64,
    eh_frame_hdr_size: u64,
    text: u64,
    text_size: u64,
) {
    let range = |a: u64, n: u64| -> Range<u64> { a..a + n };
    let info = ExplicitModuleSectionInfo {
        base_svma: 0,
        text_svma: Some(range(text, text_size)),
        // SAFETY: the caller's promise.
        text: Some(unsafe { bytes(text, text_size) }),
        eh_frame_svma: Some(range(eh_frame, eh_frame_size)),
        // SAFETY: as above.
        eh_frame: Some(unsafe { bytes(eh_frame, eh_frame_size) }),
        eh_frame_hdr_svma: Some(range(eh_frame_hdr, eh_frame_hdr_size)),
        // SAFETY: as above.
        eh_frame_hdr: Some(unsafe { bytes(eh_frame_hdr, eh_frame_hdr_size) }),
        ..Default::default()
    };
    let mut unwinder = UnwinderX86_64::new();
    unwinder.add_module(Module::new("bench".into(), range(text, text_size), 0, info));
    let state = State {
        unwinder,
        cache: CacheX86_64::new_in(),
    };
    // SAFETY: single-threaded, before any walk.
    unsafe { *STATE.0.get() = Some(state) };
}

/// Unwinds `frames` frames from the frame whose return address is `pc`
/// (its stack pointer `sp`, frame pointer `bp`), adding each caller's
/// return address to `*sum`. Returns the frames unwound.
///
/// # Safety
/// `pcmap_bench_framehop_init` was called; the registers are a live
/// frame's of this thread, whose stack the unwind reads.
#[no_mangle]
pub unsafe extern "C" fn pcmap_bench_framehop_walk(
    pc: u64,
    sp: u64,
    bp: u64,
    frames: u32,
    sum: &mut u64,
) -> u32 {
    // SAFETY: single-threaded; set up by init.
    let Some(state) = (unsafe { &mut *STATE.0.get() }) else {
        return 0;
    };
    let mut regs = UnwindRegsX86_64::new(pc, sp, bp);
    // SAFETY: the stack words framehop's rules name, above `sp` on this
    // thread's stack (the caller's promise).
    let mut read = |address: u64| Ok(unsafe { (address as *const u64).read() });
    let mut address = FrameAddress::from_return_address(pc);
    let mut n = 0;
    while n < frames {
        let Some(at) = address else { break };
        match state
            .unwinder
            .unwind_frame(at, &mut regs, &mut state.cache, &mut read)
        {
            Ok(Some(ra)) => {
                *sum = sum.wrapping_add(ra);
                address = FrameAddress::from_return_address(ra);
                n += 1;
            }
            _ => break,
        }
    }
    n
}
