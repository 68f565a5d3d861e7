//! The object being read or rewritten: one parse of an ELF64 file with what
//! both pipelines (stack maps, PC tables) ask of it — its byte order and
//! target, its function symbols (ELFv1 `.opd` descriptors resolved to code),
//! where an address of a linked file is, and what a relocation points at.
//!
//! ```text
//!  bytes ─▶ check::section_headers ─▶ object::File ─▶ ObjectFile (file.rs)
//!                                                     ├ target, endian, relocatable
//!                                                     ├ functions   (functions.rs)
//!                                                     ├ loc_of_address, resolve_opd
//!                                                     └ relocations (per section, resolved)
//! ```
//!
//! Modules, in the order data flows (each imports only those before it):
//! `target` (what pcmap knows of each target), `section` (places in code,
//! sections read by name, section names for messages), `check` (the
//! structure of inputs and outputs), `relocations` (a section's, resolved),
//! `functions` (the function symbols as places in code), `file` (the
//! parse: `ObjectFile`), `cfi` (frame facts from `.eh_frame`),
//! `x86_length` and `instructions` (the instruction rules pcmap needs) and
//! `rewrite` (writing a changed copy through `object`'s builder). This
//! file declares them and re-exports what the rest of the crate uses.

pub mod cfi;
pub mod check;
mod file;
pub mod functions;
pub mod instructions;
mod relocations;
pub mod rewrite;
mod section;
pub mod target;
// A fast path in front of iced-x86, kept for its figure: without it emit takes 1.12x the time on the mixed-kind shape (docs/benchmarks.md).
mod x86_length;

pub use file::{ObjectFile, OPD};
pub use functions::{Function, Functions};
pub use relocations::{Reloc, Relocations};
pub use section::{is_contents, is_named_contents, printable, section_name, CodeLoc};
pub use target::Target;
