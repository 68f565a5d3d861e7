//! The text the plugin leaves in an object for `pcmap emit` (the layout
//! description, the stack map sites): a private constant in its own section,
//! marked `!exclude` and kept by `llvm.compiler.used`. LLVM gives the section
//! SHF_EXCLUDE and no SHF_ALLOC, so any final link drops it even if
//! `pcmap emit` never ran, while `ld -r` concatenates it (each record is
//! self-delimiting).

use crate::llvm::Module;
use crate::md;

/// Adds `text` to `m` as the constant `@global` in `section`.
pub fn emit(m: Module<'_>, global: &str, section: &str, text: &str) {
    let init = m.const_bytes(text.as_bytes());
    let gv = m.add_global(global, init.type_of());
    gv.make_private_constant(init, section);
    gv.set_metadata(m.metadata_kind("exclude"), md::empty_tuple(m));
    m.append_to_compiler_used(gv);
}
