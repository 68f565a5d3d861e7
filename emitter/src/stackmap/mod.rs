//! Stack maps in an object: LLVM's `.llvm_stackmaps` (versions 1–3) and the
//! flat `pcmap_stackmaps` tables, decoded with `pcmap-reader` and tied to the
//! functions they describe.
//!
//! ```text
//!  .llvm_stackmaps ─┬─ read  ─▶ StackMapSection (dump, verify)
//!                   └─ emit  ─▶ pcmap_stackmaps (+ kinds and sizes: ir)
//!                      check ─▶ each record against its function and target
//! ```
//!
//! Modules, in the order data flows (each imports only those before it):
//! `function` (the function an address field names), `read`, `ir`,
//! `check`, `emit` and `memory` (emit's per-table code for a JIT). This
//! file declares them and re-exports what the rest of the crate uses.

pub mod check;
pub mod emit;
mod function;
pub mod ir;
pub mod memory;
pub mod read;

pub use function::{function_ref, AddressField, FunctionRef};
pub use read::{sections, DecodedTable, Format, StackMapSection};

/// Where LLVM writes stack maps on ELF.
pub use pcmap_reader::llvm::SECTION_NAME as LLVM_STACKMAPS;
