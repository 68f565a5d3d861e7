//! The Rust runtime pieces of the `no_std` build (`build-lib.sh`, `--cfg
//! pcmap_no_std`): a panic handler and the personality routine. They are
//! not the C API's: cbindgen skips this module, so `pcmap.h` does not
//! declare them.

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    extern "C" {
        fn abort() -> !;
    }
    // SAFETY: the C library's abort(3).
    unsafe { abort() }
}

/// The prebuilt `core` was compiled for unwinding and names this personality
/// routine in its unwind tables; with panics aborting it is never called.
#[no_mangle]
extern "C" fn rust_eh_personality() {}
