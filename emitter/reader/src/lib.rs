//! Zero-copy, `no_std` readers for the tables `pcmap` works with.
//!
//! Every format is decoded here once; the `pcmap` command, its verifier and
//! the runtime C API all use these readers. Readers borrow the bytes, are
//! generic over byte order, bounds-check every access and never panic.
//!
//! * [`llvm`]: LLVM's `.llvm_stackmaps`, versions 1, 2 and 3.
//! * [`flat`]: the flat stack map layout of `docs/stackmap-v2.md`, version 2.
//! * [`leb128`]: ULEB128 and SLEB128, read and written.
//! * [`pctable`]: PC tables (`!pcsections`), raw, native and compact.
//! * [`sanmd`]: SanitizerBinaryMetadata's section names, versions and
//!   feature bits.
//! * [`stats`]: the plugin's per-module statistics line.
//! * [`walk`]: an unwind cursor over managed frames, decoding locations
//!   with each frame's registers, and the GC roots of a record.
//! * `pclayout` (feature `alloc`): the plugin's layout description
//!   `.pcmap.layout`, read and written.
//!
//! With feature `write`, `stackmap` holds an owned model of a stack map
//! table, read from and written in either layout, and [`flat`] its writer,
//! beside its reader.
//!
//! # As a dependency
//!
//! A Rust runtime reads the `pcmap_stackmaps` section of its own program
//! (`pcmap-reader = { path = "…/emitter/reader" }`, no default features: no
//! allocator needed) between the linker's markers, and finds the record of
//! a return address; [`flat`]'s documentation has the full reading example.
//!
//! ```no_run
//! use pcmap_reader::flat::{FlatStackMap, Match, Pc};
//! use pcmap_reader::LittleEndian;
//!
//! extern "C" {
//!     static __start_pcmap_stackmaps: u8;
//!     static __stop_pcmap_stackmaps: u8;
//! }
//!
//! fn stack_size_at(return_address: u64) -> Option<u32> {
//!     // SAFETY: the linker's markers bound the mapped section.
//!     let section = unsafe {
//!         let start = core::ptr::addr_of!(__start_pcmap_stackmaps);
//!         let stop = core::ptr::addr_of!(__stop_pcmap_stackmaps);
//!         core::slice::from_raw_parts(start, stop as usize - start as usize)
//!     };
//!     for table in FlatStackMap::tables(section, LittleEndian) {
//!         let (offset, table) = table.ok()?;
//!         let address = section.as_ptr() as u64 + offset as u64;
//!         let pc = Pc::ReturnAddress(return_address);
//!         if let Some(hit) = table.lookup_hit(pc, address, Match::Exact).ok()? {
//!             return Some(hit.stack_size());
//!         }
//!     }
//!     None
//! }
//! ```
//!
//! Every format's reader bounds-checks every access and returns
//! [`Error`]; none allocates.
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
// PowerPC's `global_asm!` (the capture trampoline) is behind this
// (nightly) feature.
#![cfg_attr(
    all(feature = "capture", target_arch = "powerpc64"),
    feature(asm_experimental_arch)
)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod endian;
mod error;
pub mod flat;
pub mod leb128;
pub mod llvm;
mod location;
#[cfg(feature = "alloc")]
pub mod pclayout;
pub mod pctable;
pub mod sanmd;
pub mod sites;
#[cfg(feature = "write")]
pub mod stackmap;
pub mod stats;
pub mod walk;

pub use endian::{BigEndian, Endian, LittleEndian, RunTimeEndian};
pub use error::{Error, Result};
pub use location::{LiveOut, Location, LocationKind};
