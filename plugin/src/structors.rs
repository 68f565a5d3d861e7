//! The module constructor and destructor that hand each metadata section to
//! its runtime: `__sanitizer_metadata_<kind>_{add,del}(version, start, stop)`.
//!
//! Mirrors `createSanitizerCtorAndInitFunctions(…, Weak=true)` plus the
//! COMDAT/linkage fix-ups of SanitizerBinaryMetadata: the callbacks are
//! extern_weak and called only when linked in; `__start_`/`__stop_` markers
//! are extern_weak hidden so that a garbage-collected section still links.

use llvm_sys::core::*;
use llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMVisibility};

use crate::encoding::{Encoding, MetadataKind};
use crate::llvm::{self, Function, Module, Value};

/// Runs after ordinary constructors (priority 65535 is the default).
const STRUCTOR_PRIORITY: i32 = 2;

/// Adds the ctor/dtor pair for `kind`'s section. `lto`: the module is bitcode
/// for an LTO link (see [`hidden_external`]).
pub fn emit(m: Module, encoding: Encoding, kind: MetadataKind, version: u32, lto: bool) {
    let section = encoding.final_section(kind, version);
    let args = [
        m.const_int(m.i32_type(), u64::from(version)),
        section_marker(m, &format!("__start_{section}")),
        section_marker(m, &format!("__stop_{section}")),
    ];
    let prefix = encoding.structor_prefix(kind, version);
    let callbacks = kind.function_prefix();
    let ctor = structor(
        m,
        &format!("{prefix}.module_ctor"),
        &format!("{callbacks}_add"),
        &args,
    );
    let dtor = structor(
        m,
        &format!("{prefix}.module_dtor"),
        &format!("{callbacks}_del"),
        &args,
    );

    let (mut ctor_key, mut dtor_key) = (None, None);
    if supports_comdat(&m.target_triple()) {
        // One copy per linked image, whichever object provides it.
        for f in [ctor, dtor] {
            m.set_own_comdat(f.0);
            if hidden_external(encoding, lto) {
                llvm::set_linkage(f.0, LLVMLinkage::LLVMExternalLinkage);
                llvm::set_visibility(f.0, LLVMVisibility::LLVMHiddenVisibility);
            }
        }
        ctor_key = Some(ctor.0);
        dtor_key = Some(dtor.0);
    }
    m.append_to_global_ctors(ctor, STRUCTOR_PRIORITY, ctor_key);
    m.append_to_global_dtors(dtor, STRUCTOR_PRIORITY, dtor_key);
}

/// LLVM 19 gives structors hidden external linkage, LLVM 16 internal. An LTO
/// link merges IR, where only external COMDAT keys unify: internal
/// structors of every module would survive (renamed `.module_ctor.2`, ...) and
/// each would register the program's whole section again. So under LTO the
/// native encoding's structors are hidden external too, and the link keeps
/// one pair as an ELF link of objects does.
fn hidden_external(encoding: Encoding, lto: bool) -> bool {
    encoding.structors_are_hidden_external() || lto
}

/// `Triple::supportsCOMDAT`: everything but Mach-O and XCOFF.
fn supports_comdat(triple: &str) -> bool {
    !["apple", "darwin", "macos", "ios", "aix"]
        .iter()
        .any(|os| triple.contains(os))
}

/// `@name = extern_weak hidden global ptr`.
fn section_marker(m: Module, name: &str) -> Value {
    let marker = m.add_global(name, m.ptr_type());
    llvm::set_linkage(marker, LLVMLinkage::LLVMExternalWeakLinkage);
    llvm::set_visibility(marker, LLVMVisibility::LLVMHiddenVisibility);
    marker
}

/// `name()` calls `callback(args…)` if the weak `callback` is linked in:
///
/// ```text
/// entry:    br (callback != null), callfunc, ret
/// callfunc: call callback(args…); br ret
/// ret:      ret void
/// ```
fn structor(m: Module, name: &str, callback: &str, args: &[Value; 3]) -> Function {
    // SAFETY: all refs belong to `m`'s context; the builder is disposed here.
    unsafe {
        let ctx = m.context();
        let void = LLVMVoidTypeInContext(ctx);
        let mut params = [m.i32_type(), m.ptr_type(), m.ptr_type()];
        let callback_ty = LLVMFunctionType(void, params.as_mut_ptr(), 3, 0);
        // Declared before the structor, as LLVM does, so modules print alike.
        let callee = m.get_or_insert_function(callback, callback_ty);
        llvm::set_linkage(callee.0, LLVMLinkage::LLVMExternalWeakLinkage);
        let f = m.create_structor(name);

        let entry = LLVMAppendBasicBlockInContext(ctx, f.0 .0, c"entry".as_ptr());
        let call_bb = LLVMAppendBasicBlockInContext(ctx, f.0 .0, c"callfunc".as_ptr());
        let ret_bb = LLVMAppendBasicBlockInContext(ctx, f.0 .0, c"ret".as_ptr());
        let b = LLVMCreateBuilderInContext(ctx);

        LLVMPositionBuilderAtEnd(b, entry);
        let null = LLVMConstPointerNull(m.ptr_type());
        let linked = LLVMBuildICmp(
            b,
            LLVMIntPredicate::LLVMIntNE,
            callee.0 .0,
            null,
            c"".as_ptr(),
        );
        LLVMBuildCondBr(b, linked, call_bb, ret_bb);

        LLVMPositionBuilderAtEnd(b, call_bb);
        let mut call_args: Vec<_> = args.iter().map(|a| a.0).collect();
        LLVMBuildCall2(
            b,
            callback_ty,
            callee.0 .0,
            call_args.as_mut_ptr(),
            3,
            c"".as_ptr(),
        );
        LLVMBuildBr(b, ret_bb);

        LLVMPositionBuilderAtEnd(b, ret_bb);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}
