//! The module constructor and destructor that hand each metadata section to
//! its runtime: `__sanitizer_metadata_<kind>_{add,del}(version, start, stop)`.
//!
//! Mirrors `createSanitizerCtorAndInitFunctions(…, Weak)` plus the
//! COMDAT/linkage fix-ups of SanitizerBinaryMetadata. With weak callbacks
//! (`-sanitizer-metadata-weak-callbacks`, the default) a callback the module
//! only declares becomes extern_weak and is called only when linked in; a
//! callback the module defines (a runtime's own translation unit) keeps its
//! definition and is called directly. Without, the callbacks are ordinary
//! declarations, called unconditionally. `__start_`/`__stop_` markers are
//! extern_weak hidden so that a garbage-collected section still links.

use pcmap_reader::sanmd::{Sanmd, ADD_SUFFIX, CTOR_SUFFIX, DEL_SUFFIX, DTOR_SUFFIX};

use crate::encoding::Encoding;
use crate::llvm::{Builder, Function, Linkage, Module, Value, Visibility};

/// Runs after ordinary constructors (priority 65535 is the default).
const STRUCTOR_PRIORITY: i32 = 2;

/// How the structors of a module are made.
#[derive(Clone, Copy, Debug)]
pub struct Structors {
    pub encoding: Encoding,
    pub version: u32,
    /// The module is bitcode for an LTO link (see [`hidden_external`]).
    pub lto: bool,
    /// Weak callbacks, called only when linked in.
    pub weak_callbacks: bool,
}

/// Adds the ctor/dtor pair for `kind`'s section.
pub fn emit(m: Module<'_>, how: Structors, kind: Sanmd) {
    let Structors {
        encoding,
        version,
        lto,
        weak_callbacks,
    } = how;
    let section = encoding.final_section(kind, version);
    let args = [
        m.const_int(m.i32_type(), u64::from(version)),
        section_marker(m, &format!("__start_{section}")),
        section_marker(m, &format!("__stop_{section}")),
    ];
    let prefix = encoding.structor_prefix(kind, version);
    let callbacks = kind.callback_prefix();
    let ctor = structor(
        m,
        &format!("{prefix}{CTOR_SUFFIX}"),
        &format!("{callbacks}{ADD_SUFFIX}"),
        &args,
        weak_callbacks,
    );
    let dtor = structor(
        m,
        &format!("{prefix}{DTOR_SUFFIX}"),
        &format!("{callbacks}{DEL_SUFFIX}"),
        &args,
        weak_callbacks,
    );

    install(m, ctor, dtor, hidden_external(encoding, lto));
}

/// Runs `ctor`/`dtor` at load/unload: in `llvm.global_ctors`/`_dtors` at
/// [`STRUCTOR_PRIORITY`], each in a COMDAT of its own name where the format
/// has COMDATs, so that a linked image keeps one pair whichever object
/// provides it; `hidden_external` gives them hidden external linkage (see
/// [`hidden_external`]), otherwise they keep the internal one they were
/// made with.
pub(crate) fn install<'m>(
    m: Module<'m>,
    ctor: Function<'m>,
    dtor: Function<'m>,
    hidden_external: bool,
) {
    let (mut ctor_key, mut dtor_key) = (None, None);
    if supports_comdat(&m.target_triple()) {
        for f in [ctor, dtor] {
            m.set_own_comdat(f);
            if hidden_external {
                f.set_linkage(Linkage::LLVMExternalLinkage);
                f.set_visibility(Visibility::LLVMHiddenVisibility);
            }
        }
        ctor_key = Some(ctor);
        dtor_key = Some(dtor);
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
pub(crate) fn section_marker<'m>(m: Module<'m>, name: &str) -> Value<'m> {
    let marker = m.add_global(name, m.ptr_type());
    marker.set_linkage(Linkage::LLVMExternalWeakLinkage);
    marker.set_visibility(Visibility::LLVMHiddenVisibility);
    marker.as_value()
}

/// `name()` calls `callback(args…)`; with `weak`, only if `callback` is
/// linked in:
///
/// ```text
/// entry:    br (callback != null), callfunc, ret     (a defined callback: br true)
/// callfunc: call callback(args…); br ret
/// ret:      ret void
/// ```
///
/// and without, `call callback(args…); ret void` in one block.
pub(crate) fn structor<'m>(
    m: Module<'m>,
    name: &str,
    callback: &str,
    args: &[Value<'m>; 3],
    weak: bool,
) -> Function<'m> {
    let callback_ty = m.function_type(m.void_type(), &[m.i32_type(), m.ptr_type(), m.ptr_type()]);
    // Declared before the structor, as LLVM does, so modules print alike.
    let callee = m.get_or_insert_function(callback, callback_ty);
    // Only a declaration may be extern_weak: a definition with that linkage
    // verifies in memory but does not parse back, and ELF linkers warn.
    if weak && callee.is_declaration() {
        callee.set_linkage(Linkage::LLVMExternalWeakLinkage);
    }
    let f = m.create_structor(name);

    let mut b = Builder::new(m);
    if !weak {
        let only = b.append_block(f, "");
        b.position_at_end(only);
        b.call(callback_ty, callee.as_value(), args);
        b.ret_void();
        return f;
    }
    let entry = b.append_block(f, "entry");
    let call_bb = b.append_block(f, "callfunc");
    let ret_bb = b.append_block(f, "ret");

    b.position_at_end(entry);
    let linked = b.icmp_ne(callee.as_value(), m.const_null(m.ptr_type()));
    b.cond_br(linked, call_bb, ret_bb);

    b.position_at_end(call_bb);
    b.call(callback_ty, callee.as_value(), args);
    b.br(ret_bb);

    b.position_at_end(ret_bb);
    b.ret_void();
    f
}
