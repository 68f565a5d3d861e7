//! PC tables in an object: the SanitizerBinaryMetadata sections LLVM writes
//! (`sanmd_*`: native, raw, compact) and those the plugin's layout
//! description names, decoded with `pcmap_reader::pctable`.
//!
//! ```text
//!  sanmd_*!C + .pcmap.layout ─┬─ read ─▶ PcSection (dump, verify)
//!                             └─ emit ─▶ sanmd_* in LLVM 19's compact encoding
//! ```

pub mod emit;
pub mod read;

pub use read::{sections, PcSection};
