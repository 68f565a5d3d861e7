//! The layout description: a machine-readable account, left in the object,
//! of every PC section the pass requested, so that `pcmap emit` rewrites
//! sections without guessing their layout. The format and its writer are
//! `pcmap_reader::pclayout` (docs/pcsections-layout.md); this module only
//! puts the record into the module.
//!
//! It lives in `.pcmap.layout`, a private constant marked `!exclude`
//! (description.rs): any linker drops it from executables and shared objects
//! even if `pcmap emit` never ran, while `ld -r` concatenates it (each record
//! is self-delimiting).

use pcmap_reader::pclayout::{self, LayoutError, SectionLayout, GLOBAL_NAME, SECTION_NAME};
use pcmap_reader::pctable;

use crate::description;
use crate::llvm::Module;

/// The PC field width LLVM 16's AsmPrinter gives `m`'s sections.
pub fn pc_width(m: Module<'_>) -> u8 {
    pctable::pc_width_for_triple(m.code_model(), &m.target_triple())
}

/// The record describing `sections` of `m`; an error if the record cannot
/// say them as they are.
pub fn record(m: Module<'_>, sections: &[SectionLayout]) -> Result<String, LayoutError> {
    pclayout::write_record(&m.target_triple(), m.code_model(), pc_width(m), sections)
}

/// Adds `record` to `m` as `@__pcmap_layout` in `.pcmap.layout`.
pub fn emit(m: Module<'_>, record: &str) {
    description::emit(m, GLOBAL_NAME, SECTION_NAME, record);
}
