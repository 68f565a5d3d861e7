//! A thin, safe view of the LLVM 16 IR the pass inspects and edits.
//!
//! Everything here wraps the C API (llvm-sys) or, where the C API has no
//! equivalent, the C++ routines re-exported by `cpp/llvm_queries.cc`. The
//! wrappers hold raw references that stay valid while the pass runs on its
//! module; they are `Copy` and never outlive that run.

use std::ffi::{c_char, CStr};

use llvm_sys::comdat::{LLVMGetOrInsertComdat, LLVMSetComdat};
use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMVisibility};

mod ffi {
    use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
    extern "C" {
        pub fn pcmap_may_read_or_write_memory(inst: LLVMValueRef) -> bool;
        pub fn pcmap_atomic_scope(inst: LLVMValueRef) -> i32;
        pub fn pcmap_is_lifetime_marker_or_droppable(inst: LLVMValueRef) -> bool;
        pub fn pcmap_underlying_object_is_alloca(ptr: LLVMValueRef) -> bool;
        pub fn pcmap_pointer_may_be_captured(ptr: LLVMValueRef) -> bool;
        pub fn pcmap_strip_in_bounds_offsets(ptr: LLVMValueRef) -> LLVMValueRef;
        pub fn pcmap_module_code_model(module: LLVMModuleRef) -> i32;
        pub fn pcmap_create_structor(
            module: LLVMModuleRef,
            name: *const std::ffi::c_char,
            len: usize,
        ) -> LLVMValueRef;
        pub fn pcmap_append_to_global_ctors(
            module: LLVMModuleRef,
            f: LLVMValueRef,
            priority: i32,
            comdat_key: LLVMValueRef,
        );
        pub fn pcmap_append_to_global_dtors(
            module: LLVMModuleRef,
            f: LLVMValueRef,
            priority: i32,
            comdat_key: LLVMValueRef,
        );
        pub fn pcmap_append_to_compiler_used(module: LLVMModuleRef, gv: LLVMValueRef);
        pub fn pcmap_module_object_format(module: LLVMModuleRef) -> *const std::ffi::c_char;
        pub fn pcmap_emit_error(
            module: LLVMModuleRef,
            message: *const std::ffi::c_char,
            len: usize,
        );
    }
}

/// Copies an LLVM (pointer, length) string.
fn owned(ptr: *const c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns `len` readable bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// An IR value: instruction, function, global or constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value(pub LLVMValueRef);

/// How an instruction synchronises, per `getAtomicSyncScopeID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicScope {
    NotAtomic,
    SingleThread,
    CrossThread,
}

/// LLVM's `CodeModel::Model`, as pinned by the module's "Code Model" flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeModel {
    Tiny,
    Small,
    Kernel,
    Medium,
    Large,
}

impl CodeModel {
    pub fn name(self) -> &'static str {
        match self {
            CodeModel::Tiny => "tiny",
            CodeModel::Small => "small",
            CodeModel::Kernel => "kernel",
            CodeModel::Medium => "medium",
            CodeModel::Large => "large",
        }
    }
}

// SAFETY (for every `unsafe` block below): each reference was obtained from
// the module the pass is running on and the C API is called with the kind of
// value it expects (checked by the `LLVMIsA…` guards or by construction).
impl Value {
    pub fn name(self) -> String {
        let mut len = 0;
        let p = unsafe { LLVMGetValueName2(self.0, &mut len) };
        owned(p, len)
    }

    pub fn opcode(self) -> Option<LLVMOpcode> {
        if unsafe { LLVMIsAInstruction(self.0) }.is_null() {
            return None;
        }
        Some(unsafe { LLVMGetInstructionOpcode(self.0) })
    }

    pub fn operand(self, index: u32) -> Value {
        Value(unsafe { LLVMGetOperand(self.0, index) })
    }

    /// The users of this value, in use-list order.
    pub fn users(self) -> impl Iterator<Item = Value> {
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        std::iter::from_fn(move || {
            if u.is_null() {
                return None;
            }
            let user = unsafe { LLVMGetUser(u) };
            u = unsafe { LLVMGetNextUse(u) };
            Some(Value(user))
        })
    }

    pub fn as_global_variable(self) -> Option<Value> {
        let gv = unsafe { LLVMIsAGlobalVariable(self.0) };
        (!gv.is_null()).then_some(Value(gv))
    }

    pub fn is_global_constant(self) -> bool {
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }

    /// The explicit section of a global object, if any.
    pub fn section(self) -> Option<String> {
        let p = unsafe { LLVMGetSection(self.0) };
        if p.is_null() {
            return None;
        }
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        (!s.is_empty()).then_some(s)
    }

    // --- Instructions -----------------------------------------------------

    pub fn may_read_or_write_memory(self) -> bool {
        unsafe { ffi::pcmap_may_read_or_write_memory(self.0) }
    }

    pub fn atomic_scope(self) -> AtomicScope {
        match unsafe { ffi::pcmap_atomic_scope(self.0) } {
            0 => AtomicScope::NotAtomic,
            1 => AtomicScope::SingleThread,
            _ => AtomicScope::CrossThread,
        }
    }

    pub fn is_lifetime_marker_or_droppable(self) -> bool {
        unsafe { ffi::pcmap_is_lifetime_marker_or_droppable(self.0) }
    }

    pub fn is_call(self) -> bool {
        !unsafe { LLVMIsACallInst(self.0) }.is_null()
    }

    /// `CallInst::isTailCall`: `tail` or `musttail`.
    pub fn is_tail_call(self) -> bool {
        self.is_call() && unsafe { LLVMIsTailCall(self.0) != 0 }
    }

    /// `CallBase::getCalledFunction`: the direct callee whose type matches
    /// the call's, else `None`.
    pub fn called_function(self) -> Option<Function> {
        let callee = unsafe { LLVMGetCalledValue(self.0) };
        if unsafe { LLVMIsAFunction(callee) }.is_null() {
            return None;
        }
        let same_type =
            unsafe { LLVMGlobalGetValueType(callee) == LLVMGetCalledFunctionType(self.0) };
        same_type.then_some(Function(Value(callee)))
    }

    /// The address operand of a load or store.
    pub fn load_store_address(self) -> Option<Value> {
        match self.opcode()? {
            LLVMOpcode::LLVMLoad => Some(self.operand(0)),
            LLVMOpcode::LLVMStore => Some(self.operand(1)),
            _ => None,
        }
    }

    // --- Pointers ---------------------------------------------------------

    pub fn underlying_object_is_alloca(self) -> bool {
        unsafe { ffi::pcmap_underlying_object_is_alloca(self.0) }
    }

    /// `PointerMayBeCaptured(V, ReturnCaptures=true, StoreCaptures=true)`.
    pub fn may_be_captured(self) -> bool {
        unsafe { ffi::pcmap_pointer_may_be_captured(self.0) }
    }

    pub fn strip_in_bounds_offsets(self) -> Value {
        Value(unsafe { ffi::pcmap_strip_in_bounds_offsets(self.0) })
    }

    pub fn set_metadata(self, kind: u32, node: MdNode) {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            LLVMSetMetadata(self.0, kind, LLVMMetadataAsValue(ctx, node.0));
        }
    }
}

/// A metadata node built with the `…2` C API (see md.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MdNode(pub llvm_sys::prelude::LLVMMetadataRef);

/// A function (definition or declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Function(pub Value);

impl Function {
    pub fn name(self) -> String {
        self.0.name()
    }

    pub fn is_declaration(self) -> bool {
        unsafe { LLVMIsDeclaration(self.0 .0) != 0 }
    }

    pub fn is_intrinsic(self) -> bool {
        unsafe { LLVMGetIntrinsicID(self.0 .0) != 0 }
    }

    pub fn is_var_arg(self) -> bool {
        unsafe { LLVMIsFunctionVarArg(LLVMGlobalGetValueType(self.0 .0)) != 0 }
    }

    pub fn linkage(self) -> LLVMLinkage {
        unsafe { LLVMGetLinkage(self.0 .0) }
    }

    /// An enum attribute on the function itself, e.g. "noreturn".
    pub fn has_fn_attr(self, name: &str) -> bool {
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            kind != 0
                && !LLVMGetEnumAttributeAtIndex(
                    self.0 .0,
                    llvm_sys::LLVMAttributeFunctionIndex,
                    kind,
                )
                .is_null()
        }
    }

    /// A string attribute on the function itself, e.g. "no_sanitize_thread".
    pub fn has_string_fn_attr(self, name: &str) -> bool {
        unsafe {
            !LLVMGetStringAttributeAtIndex(
                self.0 .0,
                llvm_sys::LLVMAttributeFunctionIndex,
                name.as_ptr().cast(),
                name.len() as u32,
            )
            .is_null()
        }
    }

    /// Every instruction, block by block.
    pub fn instructions(self) -> impl Iterator<Item = Value> {
        let mut bb = unsafe { LLVMGetFirstBasicBlock(self.0 .0) };
        let mut inst: LLVMValueRef = std::ptr::null_mut();
        std::iter::from_fn(move || loop {
            if !inst.is_null() {
                let current = inst;
                inst = unsafe { LLVMGetNextInstruction(inst) };
                return Some(Value(current));
            }
            if bb.is_null() {
                return None;
            }
            inst = unsafe { LLVMGetFirstInstruction(bb) };
            bb = unsafe { LLVMGetNextBasicBlock(bb) };
        })
    }

    pub fn set_metadata(self, kind: u32, node: MdNode) {
        unsafe { LLVMGlobalSetMetadata(self.0 .0, kind, node.0) }
    }
}

/// The module the pass runs on.
#[derive(Clone, Copy)]
pub struct Module(pub LLVMModuleRef);

impl Module {
    pub fn context(self) -> LLVMContextRef {
        unsafe { LLVMGetModuleContext(self.0) }
    }

    pub fn functions(self) -> impl Iterator<Item = Function> {
        let mut f = unsafe { LLVMGetFirstFunction(self.0) };
        std::iter::from_fn(move || {
            if f.is_null() {
                return None;
            }
            let current = f;
            f = unsafe { LLVMGetNextFunction(f) };
            Some(Function(Value(current)))
        })
    }

    pub fn source_file_name(self) -> String {
        let mut len = 0;
        let p = unsafe { LLVMGetSourceFileName(self.0, &mut len) };
        owned(p, len)
    }

    pub fn target_triple(self) -> String {
        let p = unsafe { LLVMGetTarget(self.0) };
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// The object file format LLVM derives from the target triple ("ELF",
    /// "Mach-O", "COFF", ...), as the running LLVM parses it.
    pub fn object_format(self) -> &'static str {
        // SAFETY: the shim returns a pointer to a static NUL-terminated string.
        let name = unsafe { CStr::from_ptr(ffi::pcmap_module_object_format(self.0)) };
        name.to_str().unwrap_or("unknown")
    }

    /// Whether the module has the module flag `key` (`Module::getModuleFlag`).
    pub fn has_module_flag(self, key: &str) -> bool {
        // SAFETY: `key` is `key.len()` readable bytes; LLVM copies nothing.
        !unsafe { LLVMGetModuleFlag(self.0, key.as_ptr().cast(), key.len()) }.is_null()
    }

    /// Reports an error through the module's LLVMContext: clang prints
    /// `error: MESSAGE` and fails the compile (deleting its output), lld fails
    /// the link, opt prints it and exits 1.
    pub fn emit_error(self, message: &str) {
        // SAFETY: `message` is `message.len()` readable bytes for the call.
        unsafe { ffi::pcmap_emit_error(self.0, message.as_ptr().cast(), message.len()) }
    }

    /// The code model pinned by the module, if any (`Module::getCodeModel`).
    pub fn code_model(self) -> Option<CodeModel> {
        Some(match unsafe { ffi::pcmap_module_code_model(self.0) } {
            0 => CodeModel::Tiny,
            1 => CodeModel::Small,
            2 => CodeModel::Kernel,
            3 => CodeModel::Medium,
            4 => CodeModel::Large,
            _ => return None,
        })
    }

    pub fn metadata_kind(self, name: &str) -> u32 {
        unsafe { LLVMGetMDKindIDInContext(self.context(), name.as_ptr().cast(), name.len() as u32) }
    }

    pub fn i32_type(self) -> LLVMTypeRef {
        unsafe { LLVMInt32TypeInContext(self.context()) }
    }

    pub fn ptr_type(self) -> LLVMTypeRef {
        unsafe { LLVMPointerTypeInContext(self.context(), 0) }
    }

    pub fn const_int(self, ty: LLVMTypeRef, value: u64) -> Value {
        Value(unsafe { LLVMConstInt(ty, value, 0) })
    }

    pub fn get_named_function(self, name: &str) -> Option<Function> {
        let c = cstring(name);
        let f = unsafe { LLVMGetNamedFunction(self.0, c.as_ptr()) };
        (!f.is_null()).then_some(Function(Value(f)))
    }

    pub fn has_global(self, name: &str) -> bool {
        let c = cstring(name);
        // SAFETY: `c` is NUL-terminated and outlives the call.
        !unsafe { LLVMGetNamedGlobal(self.0, c.as_ptr()) }.is_null()
    }

    /// `Module::getOrInsertFunction`, as a declaration of type `ty`.
    pub fn get_or_insert_function(self, name: &str, ty: LLVMTypeRef) -> Function {
        if let Some(f) = self.get_named_function(name) {
            return f;
        }
        let c = cstring(name);
        Function(Value(unsafe { LLVMAddFunction(self.0, c.as_ptr(), ty) }))
    }

    /// A global variable declaration (no initializer) of type `ty`.
    pub fn add_global(self, name: &str, ty: LLVMTypeRef) -> Value {
        let c = cstring(name);
        Value(unsafe { LLVMAddGlobal(self.0, ty, c.as_ptr()) })
    }

    /// A `void()` structor with the module's default function attributes and
    /// nounwind, kept alive through `llvm.used` (`createSanitizerCtor`).
    pub fn create_structor(self, name: &str) -> Function {
        Function(Value(unsafe {
            ffi::pcmap_create_structor(self.0, name.as_ptr().cast(), name.len())
        }))
    }

    pub fn append_to_global_ctors(self, f: Function, priority: i32, key: Option<Value>) {
        let key = key.map_or(std::ptr::null_mut(), |k| k.0);
        unsafe { ffi::pcmap_append_to_global_ctors(self.0, f.0 .0, priority, key) }
    }

    pub fn append_to_global_dtors(self, f: Function, priority: i32, key: Option<Value>) {
        let key = key.map_or(std::ptr::null_mut(), |k| k.0);
        unsafe { ffi::pcmap_append_to_global_dtors(self.0, f.0 .0, priority, key) }
    }

    pub fn append_to_compiler_used(self, gv: Value) {
        unsafe { ffi::pcmap_append_to_compiler_used(self.0, gv.0) }
    }

    /// Puts `gv` in a COMDAT of the same name.
    pub fn set_own_comdat(self, gv: Value) {
        let c = cstring(&gv.name());
        unsafe { LLVMSetComdat(gv.0, LLVMGetOrInsertComdat(self.0, c.as_ptr())) }
    }
}

pub fn set_linkage(gv: Value, linkage: LLVMLinkage) {
    unsafe { LLVMSetLinkage(gv.0, linkage) }
}

pub fn set_visibility(gv: Value, visibility: LLVMVisibility) {
    unsafe { LLVMSetVisibility(gv.0, visibility) }
}

/// IR names never contain NUL; one that did would be cut at it.
fn cstring(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
}
