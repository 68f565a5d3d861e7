//! Building `!pcsections` metadata nodes.
//!
//! inkwell 0.5 builds tuples with the legacy `LLVMMDNodeInContext`, which
//! folds a one-element tuple of a constant into the constant itself; LLVM's
//! AsmPrinter then crashes on the malformed `!pcsections`. We build nodes with
//! the `…2` C API, which keeps tuples as written.

use llvm_plugin::inkwell::context::ContextRef;
use llvm_plugin::inkwell::values::{AsValueRef, FunctionValue, IntValue};
use llvm_sys::core::{
    LLVMGlobalSetMetadata, LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMValueAsMetadata,
};
use llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef};

/// One section request: the section name (with any `!options`) and the
/// auxiliary constants emitted after each PC.
pub struct SectionRequest<'a, 'ctx> {
    pub name: &'a str,
    pub aux: &'a [IntValue<'ctx>],
}

/// A `!pcsections` node: `!{!"name", !{aux…}, !"name2", …}`.
pub struct PcSections {
    node: LLVMMetadataRef,
}

impl PcSections {
    pub fn new(ctx: ContextRef<'_>, sections: &[SectionRequest<'_, '_>]) -> Self {
        let raw_ctx = ctx.raw() as LLVMContextRef;
        let mut ops: Vec<LLVMMetadataRef> = Vec::new();
        // SAFETY: every ref comes from the live context that runs the pass.
        unsafe {
            for s in sections {
                ops.push(LLVMMDStringInContext2(
                    raw_ctx,
                    s.name.as_ptr().cast(),
                    s.name.len(),
                ));
                if !s.aux.is_empty() {
                    let mut aux: Vec<LLVMMetadataRef> = s
                        .aux
                        .iter()
                        .map(|v| LLVMValueAsMetadata(v.as_value_ref()))
                        .collect();
                    ops.push(LLVMMDNodeInContext2(raw_ctx, aux.as_mut_ptr(), aux.len()));
                }
            }
            PcSections {
                node: LLVMMDNodeInContext2(raw_ctx, ops.as_mut_ptr(), ops.len()),
            }
        }
    }

    /// Attaches the node to a function as `!pcsections`.
    pub fn attach_to_function(&self, kind: u32, f: FunctionValue<'_>) {
        // SAFETY: `f` and the node live in the same context.
        unsafe { LLVMGlobalSetMetadata(f.as_value_ref(), kind, self.node) }
    }
}
