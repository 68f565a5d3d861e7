//! Building `!pcsections` metadata nodes.
//!
//! inkwell 0.5 builds tuples with the legacy `LLVMMDNodeInContext`, which
//! folds a one-element tuple of a constant into the constant itself; LLVM's
//! AsmPrinter then crashes on the malformed `!pcsections`. We build nodes with
//! the `…2` C API, which keeps tuples as written.

use llvm_sys::core::{LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMValueAsMetadata};
use llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef};

use crate::llvm::{MdNode, Value};

/// One section of a `!pcsections` node: the section name (with any
/// `!options`) and the auxiliary constants emitted after each PC.
pub struct PcSection<'a> {
    pub name: &'a str,
    pub aux: &'a [Value],
}

/// `!{!"name", !{aux…}, !"name2", …}`; a section without auxiliary data has
/// no tuple, as `MDBuilder::createPCSections` writes it.
pub fn pc_sections(ctx: LLVMContextRef, sections: &[PcSection<'_>]) -> MdNode {
    let mut ops: Vec<LLVMMetadataRef> = Vec::with_capacity(sections.len() * 2);
    // SAFETY: every ref comes from the live context that runs the pass.
    unsafe {
        for s in sections {
            ops.push(LLVMMDStringInContext2(
                ctx,
                s.name.as_ptr().cast(),
                s.name.len(),
            ));
            if !s.aux.is_empty() {
                let mut aux: Vec<LLVMMetadataRef> =
                    s.aux.iter().map(|v| LLVMValueAsMetadata(v.0)).collect();
                ops.push(LLVMMDNodeInContext2(ctx, aux.as_mut_ptr(), aux.len()));
            }
        }
        MdNode(LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len()))
    }
}

/// The empty tuple `!{}`, the operand of `!exclude`.
pub fn empty_tuple(ctx: LLVMContextRef) -> MdNode {
    // SAFETY: as above; a zero-length operand list is valid.
    MdNode(unsafe { LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0) })
}
