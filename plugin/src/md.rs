//! Building `!pcsections` metadata nodes.
//!
//! inkwell 0.5 builds tuples with the legacy `LLVMMDNodeInContext`, which
//! folds a one-element tuple of a constant into the constant itself; LLVM's
//! AsmPrinter then crashes on the malformed `!pcsections`. Nodes here are
//! built with [`Module::md_tuple`], which keeps tuples as written.

use crate::llvm::{Metadata, Module, Value};

/// One section of a `!pcsections` node: the section name (with any
/// `!options`) and the auxiliary constants emitted after each PC.
pub struct PcSection<'a, 'm> {
    pub name: &'a str,
    pub aux: &'a [Value<'m>],
}

/// `!{!"name", !{aux…}, !"name2", …}`; a section without auxiliary data has
/// no tuple, as `MDBuilder::createPCSections` writes it.
pub fn pc_sections<'m>(m: Module<'m>, sections: &[PcSection<'_, 'm>]) -> Metadata<'m> {
    let mut ops = Vec::with_capacity(sections.len() * 2);
    for s in sections {
        ops.push(m.md_string(s.name));
        if !s.aux.is_empty() {
            let aux: Vec<Metadata<'m>> = s.aux.iter().map(|v| v.as_metadata()).collect();
            ops.push(m.md_tuple(&aux));
        }
    }
    m.md_tuple(&ops)
}

/// The empty tuple `!{}`, the operand of `!exclude`.
pub fn empty_tuple(m: Module<'_>) -> Metadata<'_> {
    m.md_tuple(&[])
}
