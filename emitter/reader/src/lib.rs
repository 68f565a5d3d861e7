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
//! * [`pclayout`] (feature `alloc`): the plugin's layout description
//!   `.pcmap.layout`, read and written.
//!
//! With feature `write`, [`stackmap`] holds an owned model of a stack map
//! table, read from and written in either layout, and [`flat`] its writer,
//! beside its reader.
#![no_std]

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

pub use endian::{BigEndian, Endian, LittleEndian, RunTimeEndian};
pub use error::{Error, Result};
pub use location::{LiveOut, Location, LocationKind};

/// Rounds `n` up to a multiple of `align` (a power of two), `None` on overflow.
pub(crate) fn align_up(n: usize, align: usize) -> Option<usize> {
    Some(n.checked_add(align - 1)? & !(align - 1))
}
