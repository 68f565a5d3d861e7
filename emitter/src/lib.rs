//! The object side of pcmap: read ELF objects, find the PC sections and
//! stack maps LLVM 16 wrote, rewrite them, and describe them. Modules in
//! the order data flows through them (docs/architecture.md):
//!
//! ```text
//!  object/    the object being read or rewritten: target, functions,
//!             relocations, CFI, instructions, rewrite, structure checks
//!  stackmap/  .llvm_stackmaps and pcmap_stackmaps: read, IR sites, emit, check
//!  pctable/   SanitizerBinaryMetadata PC sections: read, emit
//!  emit       both steps over one rewrite
//!  dump, verify  what the command prints
//! ```

pub mod dump;
pub mod emit;
pub mod error;
pub mod object;
pub mod pctable;
pub mod stackmap;
pub mod verify;

pub use error::{Error, Result};
