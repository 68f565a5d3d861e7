//! A safe view of the LLVM IR the pass inspects and edits, and the plugin
//! entry: the only file of the crate that calls LLVM.
//!
//! Everything here wraps the C API (llvm-sys) or, where the C API has no
//! equivalent, the C++ routines of `cpp/llvm_queries.cc`. The wrappers are
//! modelled on inkwell's: each carries the lifetime `'m` of the module it
//! belongs to and keeps its LLVM reference in a private field.
//!
//! The invariant every `unsafe` block below relies on: a [`Module<'m>`] is
//! made only in [`pcmap_run_pass`], from the module the host's pass manager
//! passes the pass, for the duration of that call; every other wrapper is
//! made only in this file, from a reference LLVM returned for that module
//! or its context, and is checked to be the kind of value its type says
//! (`LLVMIsA…`) unless LLVM's API guarantees it. The pass never deletes IR,
//! so all of them stay valid for `'m`, and code outside this file can
//! neither forge one nor keep one past the module. LLVM is not thread-safe:
//! the raw pointers make every wrapper `!Send` and `!Sync`.
//!
//! The plugin entry (at the end) is what the host calls: the
//! `llvmGetPassPluginInfo` every LLVM tool looks up, with the version
//! guard, and the functions `cpp/entry.cc`'s PassBuilder callbacks forward
//! to.

use std::ffi::{c_char, c_void, CStr, CString, OsStr};
use std::marker::PhantomData;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use llvm_sys::comdat::{LLVMGetOrInsertComdat, LLVMSetComdat};
use llvm_sys::core::*;
use llvm_sys::prelude::{
    LLVMBasicBlockRef, LLVMBuilderRef, LLVMContextRef, LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef,
    LLVMValueRef,
};
use llvm_sys::{LLVMIntPredicate, LLVMTypeKind};
use pcmap_reader::pctable::CodeModel;

use crate::release::{wrong_llvm_message, LLVM_MAJOR};

pub use llvm_sys::{LLVMLinkage as Linkage, LLVMOpcode as Opcode, LLVMVisibility as Visibility};

mod ffi {
    use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
    extern "C" {
        // cpp/entry.cc
        pub fn pcmap_register_callbacks(builder: *mut std::ffi::c_void);
        pub fn pcmap_plugin_api_version() -> u32;
        pub fn pcmap_plugin_path() -> *const std::ffi::c_char;
        // cpp/llvm_queries.cc
        pub fn pcmap_run_interrupt_handlers();
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
        pub fn pcmap_has_deopt_bundle(call: LLVMValueRef) -> bool;
        pub fn pcmap_statepoint_directives(
            call: LLVMValueRef,
            id: *mut u64,
            num_patch_bytes: *mut u32,
        ) -> u32;
        pub fn pcmap_deopt_bundle_statepoint_id() -> u64;
        pub fn pcmap_symbol_name(gv: LLVMValueRef, buf: *mut std::ffi::c_char, cap: usize)
            -> usize;
    }
}

/// The ID LLVM gives the statepoint of a call with a `"deopt"` bundle and no
/// `"statepoint-id"` (`StatepointDirectives::DeoptBundleStatepointID`).
pub fn deopt_bundle_statepoint_id() -> u64 {
    // SAFETY: the shim returns a constant of LLVM's header.
    unsafe { ffi::pcmap_deopt_bundle_statepoint_id() }
}

/// The ID the running LLVM gives the intrinsic `name` (its base name for an
/// overloaded one), 0 if it knows none.
pub fn intrinsic_id(name: &str) -> u32 {
    // SAFETY: `name` is `name.len()` readable bytes; LLVM keeps none.
    unsafe { LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len()) }
}

/// What a call or invoke calls, as SelectionDAG tells its lowerings apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    InlineAsm,
    /// A function that is an intrinsic, by ID ([`intrinsic_id`]).
    Intrinsic(u32),
    /// Anything else: a function, or a pointer.
    Other,
}

/// `parseStatepointDirectivesFromAttrs` of a call's own attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatepointDirectives {
    /// `"statepoint-id"`, when it parses as a `u64`.
    pub id: Option<u64>,
    /// `"statepoint-num-patch-bytes"`, when it parses as a `u32`.
    pub num_patch_bytes: Option<u32>,
}

/// Copies an LLVM (pointer, length) string.
///
/// # Safety
/// `ptr` is null or points to `len` readable bytes.
unsafe fn owned_bytes(ptr: *const c_char, len: usize) -> Vec<u8> {
    if ptr.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller guarantees `len` readable bytes at `ptr`.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }.to_vec()
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A NUL-terminated copy of `s`. IR names never contain NUL; one that did
/// would be cut at it.
fn cstring(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
}

/// How an instruction synchronises, per `getAtomicSyncScopeID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicScope {
    NotAtomic,
    SingleThread,
    CrossThread,
}

// --- Module -----------------------------------------------------------------

/// The module the pass runs on.
#[derive(Clone, Copy)]
pub struct Module<'m> {
    raw: LLVMModuleRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> Module<'m> {
    fn context(self) -> LLVMContextRef {
        // SAFETY: `raw` is a live module (module invariant).
        unsafe { LLVMGetModuleContext(self.raw) }
    }

    /// Every function, definitions and declarations, in module order.
    pub fn functions(self) -> impl Iterator<Item = Function<'m>> {
        // SAFETY: `raw` is a live module (module invariant).
        let mut f = unsafe { LLVMGetFirstFunction(self.raw) };
        std::iter::from_fn(move || {
            let current = Function::from_raw(f)?;
            // SAFETY: `current` is a function of the module.
            f = unsafe { LLVMGetNextFunction(current.raw()) };
            Some(current)
        })
    }

    pub fn source_file_name(self) -> String {
        let mut len = 0;
        // SAFETY: `raw` is a live module; LLVM returns its name's bytes and
        // length, valid until the name changes (it is copied at once).
        lossy(unsafe { owned_bytes(LLVMGetSourceFileName(self.raw, &mut len), len) })
    }

    pub fn target_triple(self) -> String {
        // SAFETY: `raw` is a live module; LLVM returns a NUL-terminated string
        // it owns, copied at once.
        unsafe { CStr::from_ptr(LLVMGetTarget(self.raw)) }
            .to_string_lossy()
            .into_owned()
    }

    /// The object file format LLVM derives from the target triple ("ELF",
    /// "Mach-O", "COFF", ...), as the running LLVM parses it.
    pub fn object_format(self) -> &'static str {
        // SAFETY: `raw` is a live module; the shim returns a pointer to a
        // static NUL-terminated string.
        let name = unsafe { CStr::from_ptr(ffi::pcmap_module_object_format(self.raw)) };
        name.to_str().unwrap_or("unknown")
    }

    /// Whether the module has the module flag `key` (`Module::getModuleFlag`).
    pub fn has_module_flag(self, key: &str) -> bool {
        // SAFETY: `raw` is a live module; `key` is `key.len()` readable bytes
        // and LLVM keeps no reference to it.
        !unsafe { LLVMGetModuleFlag(self.raw, key.as_ptr().cast(), key.len()) }.is_null()
    }

    /// Reports an error through the module's LLVMContext: clang prints
    /// `error: MESSAGE` and fails the compile (deleting its output), lld fails
    /// the link, opt prints it and exits 1.
    pub fn emit_error(self, message: &str) {
        // SAFETY: `raw` is a live module; `message` is `message.len()`
        // readable bytes for the call.
        unsafe { ffi::pcmap_emit_error(self.raw, message.as_ptr().cast(), message.len()) }
    }

    /// The code model pinned by the module, if any (`Module::getCodeModel`).
    pub fn code_model(self) -> Option<CodeModel> {
        // SAFETY: `raw` is a live module.
        Some(match unsafe { ffi::pcmap_module_code_model(self.raw) } {
            0 => CodeModel::Tiny,
            1 => CodeModel::Small,
            2 => CodeModel::Kernel,
            3 => CodeModel::Medium,
            4 => CodeModel::Large,
            _ => return None,
        })
    }

    /// The ID of the metadata kind `name` (`!pcsections`, `!exclude`).
    pub fn metadata_kind(self, name: &str) -> u32 {
        // SAFETY: the context is the module's; `name` is `name.len()` readable
        // bytes, copied by LLVM.
        unsafe { LLVMGetMDKindIDInContext(self.context(), name.as_ptr().cast(), name.len() as u32) }
    }

    // --- Types and constants ------------------------------------------------

    /// `iN`; LLVM's limit is 2^23 bits.
    pub fn int_type(self, bits: u32) -> Type<'m> {
        assert!((1..=1 << 23).contains(&bits), "integer type of {bits} bits");
        // SAFETY: the context is the module's; the width is in LLVM's range.
        Type::from_raw(unsafe { LLVMIntTypeInContext(self.context(), bits) })
    }

    pub fn i32_type(self) -> Type<'m> {
        self.int_type(32)
    }

    /// The opaque pointer type of address space 0.
    pub fn ptr_type(self) -> Type<'m> {
        // SAFETY: the context is the module's.
        Type::from_raw(unsafe { LLVMPointerTypeInContext(self.context(), 0) })
    }

    pub fn void_type(self) -> Type<'m> {
        // SAFETY: the context is the module's.
        Type::from_raw(unsafe { LLVMVoidTypeInContext(self.context()) })
    }

    /// `ret (params...)`, not variadic.
    pub fn function_type(self, ret: Type<'m>, params: &[Type<'m>]) -> Type<'m> {
        let mut raw: Vec<LLVMTypeRef> = params.iter().map(|t| t.raw).collect();
        // SAFETY: every type belongs to the module's context; LLVM reads
        // `raw.len()` parameter types and keeps none of the array.
        Type::from_raw(unsafe { LLVMFunctionType(ret.raw, raw.as_mut_ptr(), raw.len() as u32, 0) })
    }

    /// The integer constant `value` of type `ty`, truncated to its width.
    pub fn const_int(self, ty: Type<'m>, value: u64) -> Value<'m> {
        assert_eq!(
            ty.kind(),
            LLVMTypeKind::LLVMIntegerTypeKind,
            "const_int of a non-integer type"
        );
        // SAFETY: `ty` is an integer type of the module's context.
        Value::from_raw(unsafe { LLVMConstInt(ty.raw, value, 0) })
    }

    /// `null` of the pointer type `ty`.
    pub fn const_null(self, ty: Type<'m>) -> Value<'m> {
        assert_eq!(
            ty.kind(),
            LLVMTypeKind::LLVMPointerTypeKind,
            "const_null of a non-pointer type"
        );
        // SAFETY: `ty` is a pointer type of the module's context.
        Value::from_raw(unsafe { LLVMConstPointerNull(ty.raw) })
    }

    /// `c"text"`, an `[N x i8]` array without a terminating NUL.
    pub fn const_bytes(self, text: &[u8]) -> Value<'m> {
        let len = u32::try_from(text.len()).expect("constant string over 4 GiB");
        // SAFETY: the context is the module's; LLVM copies `len` readable
        // bytes (DontNullTerminate = 1). (LLVM 19 deprecates it for
        // `…Context2`, which takes a `size_t` length and which LLVM 16 lacks;
        // the length fits in the `u32`, checked above.)
        #[allow(deprecated)]
        Value::from_raw(unsafe {
            LLVMConstStringInContext(self.context(), text.as_ptr().cast(), len, 1)
        })
    }

    // --- Metadata -----------------------------------------------------------

    /// `!"text"`.
    pub fn md_string(self, text: &str) -> Metadata<'m> {
        // SAFETY: the context is the module's; LLVM copies `text.len()`
        // readable bytes.
        Metadata::from_raw(unsafe {
            LLVMMDStringInContext2(self.context(), text.as_ptr().cast(), text.len())
        })
    }

    /// `!{ops...}`, kept a tuple whatever its operands (the `…2` API does not
    /// fold a one-constant tuple into the constant, as `LLVMMDNodeInContext`
    /// does).
    pub fn md_tuple(self, ops: &[Metadata<'m>]) -> Metadata<'m> {
        let mut raw: Vec<LLVMMetadataRef> = ops.iter().map(|m| m.raw).collect();
        // SAFETY: the context is the module's and every operand belongs to
        // it; LLVM reads `raw.len()` operands (none for an empty tuple) and
        // keeps none of the array.
        Metadata::from_raw(unsafe {
            LLVMMDNodeInContext2(self.context(), raw.as_mut_ptr(), raw.len())
        })
    }

    // --- Globals ------------------------------------------------------------

    pub fn get_named_function(self, name: &str) -> Option<Function<'m>> {
        let c = cstring(name);
        // SAFETY: `raw` is a live module; `c` is NUL-terminated and outlives
        // the call.
        Function::from_raw(unsafe { LLVMGetNamedFunction(self.raw, c.as_ptr()) })
    }

    pub fn has_global(self, name: &str) -> bool {
        let c = cstring(name);
        // SAFETY: `raw` is a live module; `c` is NUL-terminated and outlives
        // the call.
        !unsafe { LLVMGetNamedGlobal(self.raw, c.as_ptr()) }.is_null()
    }

    /// `Module::getOrInsertFunction`, as a declaration of the function type
    /// `ty`.
    pub fn get_or_insert_function(self, name: &str, ty: Type<'m>) -> Function<'m> {
        assert_eq!(
            ty.kind(),
            LLVMTypeKind::LLVMFunctionTypeKind,
            "function of a non-function type"
        );
        if let Some(f) = self.get_named_function(name) {
            return f;
        }
        let c = cstring(name);
        // SAFETY: `raw` is a live module, `ty` a function type of its context,
        // `c` NUL-terminated and copied by LLVM. LLVM returns the new function.
        let f = unsafe { LLVMAddFunction(self.raw, c.as_ptr(), ty.raw) };
        Function::from_raw(f).expect("LLVMAddFunction returned no function")
    }

    /// A global variable declaration (no initializer) of type `ty`.
    pub fn add_global(self, name: &str, ty: Type<'m>) -> GlobalVariable<'m> {
        let c = cstring(name);
        // SAFETY: `raw` is a live module, `ty` a type of its context, `c`
        // NUL-terminated and copied by LLVM. LLVM returns the new variable.
        let gv = unsafe { LLVMAddGlobal(self.raw, ty.raw, c.as_ptr()) };
        GlobalVariable::from_raw(gv).expect("LLVMAddGlobal returned no global variable")
    }

    /// A `void()` structor with the module's default function attributes and
    /// nounwind, kept alive through `llvm.used` (`createSanitizerCtor`).
    pub fn create_structor(self, name: &str) -> Function<'m> {
        // SAFETY: `raw` is a live module; `name` is `name.len()` readable
        // bytes, copied by LLVM. The shim returns the new function.
        let f = unsafe { ffi::pcmap_create_structor(self.raw, name.as_ptr().cast(), name.len()) };
        Function::from_raw(f).expect("the structor shim returned no function")
    }

    /// `appendToGlobalCtors`: `f` runs at `priority`, in `key`'s COMDAT.
    pub fn append_to_global_ctors(self, f: Function<'m>, priority: i32, key: Option<Function<'m>>) {
        let key = key.map_or(std::ptr::null_mut(), Function::raw);
        // SAFETY: `raw` is a live module; `f` and `key` (a constant, or null
        // for none) are functions of it.
        unsafe { ffi::pcmap_append_to_global_ctors(self.raw, f.raw(), priority, key) }
    }

    /// `appendToGlobalDtors`: `f` runs at `priority`, in `key`'s COMDAT.
    pub fn append_to_global_dtors(self, f: Function<'m>, priority: i32, key: Option<Function<'m>>) {
        let key = key.map_or(std::ptr::null_mut(), Function::raw);
        // SAFETY: as for `append_to_global_ctors`.
        unsafe { ffi::pcmap_append_to_global_dtors(self.raw, f.raw(), priority, key) }
    }

    /// `appendToCompilerUsed`: keeps `gv` until code generation.
    pub fn append_to_compiler_used(self, gv: GlobalVariable<'m>) {
        // SAFETY: `raw` is a live module and `gv` a global value of it.
        unsafe { ffi::pcmap_append_to_compiler_used(self.raw, gv.value.raw) }
    }

    /// Puts `f` in a COMDAT of its own name.
    pub fn set_own_comdat(self, f: Function<'m>) {
        let c = cstring(&f.name());
        // SAFETY: `raw` is a live module, `c` NUL-terminated and copied by
        // LLVM; `f` is a global object of the module and the COMDAT LLVM
        // returns is the module's.
        unsafe { LLVMSetComdat(f.raw(), LLVMGetOrInsertComdat(self.raw, c.as_ptr())) }
    }
}

// --- Types and metadata -----------------------------------------------------

/// A type of the module's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Type<'m> {
    raw: LLVMTypeRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> Type<'m> {
    fn from_raw(raw: LLVMTypeRef) -> Type<'m> {
        assert!(!raw.is_null(), "LLVM returned no type");
        Type {
            raw,
            _module: PhantomData,
        }
    }

    fn kind(self) -> LLVMTypeKind {
        // SAFETY: `raw` is a live type (module invariant).
        unsafe { LLVMGetTypeKind(self.raw) }
    }

    /// The parameter types of a function type; empty for any other type.
    fn params(self) -> Vec<Type<'m>> {
        if self.kind() != LLVMTypeKind::LLVMFunctionTypeKind {
            return Vec::new();
        }
        // SAFETY: `raw` is a live function type.
        let n = unsafe { LLVMCountParamTypes(self.raw) } as usize;
        let mut raw = vec![std::ptr::null_mut(); n];
        // SAFETY: `raw` has room for the `n` parameter types LLVM writes.
        unsafe { LLVMGetParamTypes(self.raw, raw.as_mut_ptr()) };
        raw.into_iter().map(Type::from_raw).collect()
    }

    fn is_int(self, bits: u32) -> bool {
        // SAFETY: `raw` is a live integer type when the kind says so.
        self.kind() == LLVMTypeKind::LLVMIntegerTypeKind
            && unsafe { LLVMGetIntTypeWidth(self.raw) } == bits
    }
}

/// A metadata node or string of the module's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Metadata<'m> {
    raw: LLVMMetadataRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> Metadata<'m> {
    fn from_raw(raw: LLVMMetadataRef) -> Metadata<'m> {
        assert!(!raw.is_null(), "LLVM returned no metadata");
        Metadata {
            raw,
            _module: PhantomData,
        }
    }
}

// --- Values -----------------------------------------------------------------

/// An IR value: instruction, function, global, constant, argument…
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value<'m> {
    raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> Value<'m> {
    fn from_raw(raw: LLVMValueRef) -> Value<'m> {
        assert!(!raw.is_null(), "LLVM returned no value");
        Value {
            raw,
            _module: PhantomData,
        }
    }

    /// `Some` for a non-null reference.
    fn non_null(raw: LLVMValueRef) -> Option<Value<'m>> {
        (!raw.is_null()).then(|| Value::from_raw(raw))
    }

    pub fn name(self) -> String {
        lossy(self.name_bytes())
    }

    /// The name's bytes as LLVM holds them (any bytes but NUL).
    pub fn name_bytes(self) -> Vec<u8> {
        let mut len = 0;
        // SAFETY: `raw` is a live value; LLVM returns its name's bytes and
        // length, copied at once.
        unsafe { owned_bytes(LLVMGetValueName2(self.raw, &mut len), len) }
    }

    pub fn type_of(self) -> Type<'m> {
        // SAFETY: `raw` is a live value.
        Type::from_raw(unsafe { LLVMTypeOf(self.raw) })
    }

    /// The users of this value, in use-list order.
    pub fn users(self) -> impl Iterator<Item = Value<'m>> {
        // SAFETY: `raw` is a live value.
        let mut u = unsafe { LLVMGetFirstUse(self.raw) };
        std::iter::from_fn(move || {
            if u.is_null() {
                return None;
            }
            // SAFETY: `u` is a live use of the value, non-null.
            let user = unsafe { LLVMGetUser(u) };
            // SAFETY: as above.
            u = unsafe { LLVMGetNextUse(u) };
            Some(Value::from_raw(user))
        })
    }

    pub fn as_instruction(self) -> Option<Instruction<'m>> {
        // SAFETY: `raw` is a live value; the query accepts any value.
        Value::non_null(unsafe { LLVMIsAInstruction(self.raw) }).map(|value| Instruction { value })
    }

    pub fn as_function(self) -> Option<Function<'m>> {
        // SAFETY: `raw` is a live value; the query accepts any value.
        Function::from_raw(unsafe { LLVMIsAFunction(self.raw) })
    }

    pub fn as_global_variable(self) -> Option<GlobalVariable<'m>> {
        // SAFETY: `raw` is a live value; the query accepts any value.
        GlobalVariable::from_raw(unsafe { LLVMIsAGlobalVariable(self.raw) })
    }

    /// `isa<AllocaInst>(getUnderlyingObject(V))`.
    pub fn underlying_object_is_alloca(self) -> bool {
        // SAFETY: `raw` is a live value; the routine accepts any value.
        unsafe { ffi::pcmap_underlying_object_is_alloca(self.raw) }
    }

    /// `PointerMayBeCaptured(V, ReturnCaptures=true, StoreCaptures=true)`;
    /// true for a value that is not a pointer (LLVM asks for one).
    pub fn may_be_captured(self) -> bool {
        if self.type_of().kind() != LLVMTypeKind::LLVMPointerTypeKind {
            return true;
        }
        // SAFETY: `raw` is a live value of pointer type.
        unsafe { ffi::pcmap_pointer_may_be_captured(self.raw) }
    }

    /// `Value::stripInBoundsOffsets`.
    pub fn strip_in_bounds_offsets(self) -> Value<'m> {
        // SAFETY: `raw` is a live value; the routine accepts any value and
        // returns one of the module's (or the value itself).
        Value::from_raw(unsafe { ffi::pcmap_strip_in_bounds_offsets(self.raw) })
    }

    /// The value as a metadata operand (`ValueAsMetadata`).
    pub fn as_metadata(self) -> Metadata<'m> {
        // SAFETY: `raw` is a live value.
        Metadata::from_raw(unsafe { LLVMValueAsMetadata(self.raw) })
    }
}

/// An instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction<'m> {
    value: Value<'m>,
}

impl<'m> Instruction<'m> {
    pub fn as_value(self) -> Value<'m> {
        self.value
    }

    fn raw(self) -> LLVMValueRef {
        self.value.raw
    }

    pub fn opcode(self) -> Opcode {
        // SAFETY: `raw` is a live instruction.
        unsafe { LLVMGetInstructionOpcode(self.raw()) }
    }

    /// Operand `index`, if the instruction has that many.
    pub fn operand(self, index: u32) -> Option<Value<'m>> {
        // SAFETY: `raw` is a live instruction, which is a `User`.
        let count = unsafe { LLVMGetNumOperands(self.raw()) };
        if i64::from(index) >= i64::from(count) {
            return None;
        }
        // SAFETY: `index` is below the operand count.
        Value::non_null(unsafe { LLVMGetOperand(self.raw(), index) })
    }

    /// `Instruction::mayReadOrWriteMemory`.
    pub fn may_read_or_write_memory(self) -> bool {
        // SAFETY: `raw` is a live instruction, as the routine requires.
        unsafe { ffi::pcmap_may_read_or_write_memory(self.raw()) }
    }

    pub fn atomic_scope(self) -> AtomicScope {
        // SAFETY: `raw` is a live instruction, as the routine requires.
        match unsafe { ffi::pcmap_atomic_scope(self.raw()) } {
            0 => AtomicScope::NotAtomic,
            1 => AtomicScope::SingleThread,
            _ => AtomicScope::CrossThread,
        }
    }

    /// `isLifetimeStartOrEnd() || isDroppable()`.
    pub fn is_lifetime_marker_or_droppable(self) -> bool {
        // SAFETY: `raw` is a live instruction, as the routine requires.
        unsafe { ffi::pcmap_is_lifetime_marker_or_droppable(self.raw()) }
    }

    /// A `call` (not `invoke` or `callbr`).
    pub fn is_call(self) -> bool {
        // SAFETY: `raw` is a live value; the query accepts any value.
        !unsafe { LLVMIsACallInst(self.raw()) }.is_null()
    }

    /// A `CallBase`: call, invoke or callbr.
    fn is_call_base(self) -> bool {
        matches!(
            self.opcode(),
            Opcode::LLVMCall | Opcode::LLVMInvoke | Opcode::LLVMCallBr
        )
    }

    /// `CallInst::isTailCall`: `tail` or `musttail`.
    pub fn is_tail_call(self) -> bool {
        // SAFETY: `raw` is a live call instruction when `is_call` holds.
        self.is_call() && unsafe { LLVMIsTailCall(self.raw()) != 0 }
    }

    /// `CallBase::getCalledFunction`: the direct callee whose type matches
    /// the call's, else `None` (also for non-calls).
    pub fn called_function(self) -> Option<Function<'m>> {
        if !self.is_call_base() {
            return None;
        }
        // SAFETY: `raw` is a live call, invoke or callbr.
        let callee = Value::from_raw(unsafe { LLVMGetCalledValue(self.raw()) }).as_function()?;
        // SAFETY: `callee` is a live function, `raw` a live call base.
        let same_type = unsafe {
            LLVMGlobalGetValueType(callee.raw()) == LLVMGetCalledFunctionType(self.raw())
        };
        same_type.then_some(callee)
    }

    /// What a call or invoke calls; [`Callee::Other`] for other instructions
    /// too.
    pub fn callee(self) -> Callee {
        if !self.is_call_base() {
            return Callee::Other;
        }
        // SAFETY: `raw` is a live call, invoke or callbr.
        let callee = Value::from_raw(unsafe { LLVMGetCalledValue(self.raw()) });
        // SAFETY: `callee` is a live value; the query accepts any value.
        if !unsafe { LLVMIsAInlineAsm(callee.raw) }.is_null() {
            return Callee::InlineAsm;
        }
        match callee.as_function() {
            // SAFETY: `f` is a live function.
            Some(f) => match unsafe { LLVMGetIntrinsicID(f.raw()) } {
                0 => Callee::Other,
                id => Callee::Intrinsic(id),
            },
            None => Callee::Other,
        }
    }

    /// Call argument `index`, when it is an integer constant of at most 64
    /// bits: its value, zero-extended.
    pub fn const_int_arg(self, index: u32) -> Option<u64> {
        if !self.is_call_base() {
            return None;
        }
        // SAFETY: `raw` is a live call base.
        if index >= unsafe { LLVMGetNumArgOperands(self.raw()) } {
            return None;
        }
        // Arguments are the first operands of a call base.
        let arg = self.operand(index)?;
        // SAFETY: `arg` is a live value; the query accepts any value.
        if unsafe { LLVMIsAConstantInt(arg.raw) }.is_null() {
            return None;
        }
        let ty = arg.type_of();
        // SAFETY: `ty` is the integer type of a ConstantInt.
        if unsafe { LLVMGetIntTypeWidth(ty.raw) } > 64 {
            return None;
        }
        // SAFETY: `arg` is a ConstantInt of at most 64 bits.
        Some(unsafe { LLVMConstIntGetZExtValue(arg.raw) })
    }

    /// Whether a call or invoke has a `"deopt"` operand bundle.
    pub fn has_deopt_bundle(self) -> bool {
        // SAFETY: `raw` is a live call base when `is_call_base` holds, as the
        // routine requires.
        self.is_call_base() && unsafe { ffi::pcmap_has_deopt_bundle(self.raw()) }
    }

    /// The statepoint directives of a call or invoke's own attributes (none
    /// for other instructions).
    pub fn statepoint_directives(self) -> StatepointDirectives {
        if !self.is_call_base() {
            return StatepointDirectives::default();
        }
        let (mut id, mut bytes) = (0, 0);
        // SAFETY: `raw` is a live call base; the shim writes only through the
        // two pointers, to locals that outlive the call.
        let found = unsafe { ffi::pcmap_statepoint_directives(self.raw(), &mut id, &mut bytes) };
        StatepointDirectives {
            id: (found & 1 != 0).then_some(id),
            num_patch_bytes: (found & 2 != 0).then_some(bytes),
        }
    }

    /// The address operand of a load or store.
    pub fn load_store_address(self) -> Option<Value<'m>> {
        match self.opcode() {
            Opcode::LLVMLoad => self.operand(0),
            Opcode::LLVMStore => self.operand(1),
            _ => None,
        }
    }

    /// Attaches `node` as the instruction's `kind` metadata.
    pub fn set_metadata(self, kind: u32, node: Metadata<'m>) {
        // SAFETY: `raw` is a live instruction and `node` metadata of its
        // context, wrapped as a value of that context as the C API expects.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.raw()));
            LLVMSetMetadata(self.raw(), kind, LLVMMetadataAsValue(ctx, node.raw));
        }
    }
}

/// A function (definition or declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Function<'m> {
    value: Value<'m>,
}

impl<'m> Function<'m> {
    /// `raw` must be null or a function (checked by the caller).
    fn from_raw(raw: LLVMValueRef) -> Option<Function<'m>> {
        Value::non_null(raw).map(|value| Function { value })
    }

    fn raw(self) -> LLVMValueRef {
        self.value.raw
    }

    pub fn as_value(self) -> Value<'m> {
        self.value
    }

    pub fn name(self) -> String {
        self.value.name()
    }

    /// The name of the function's symbol in an object file, as LLVM writes
    /// it (`Mangler::getNameWithPrefix`: `\1` prefix dropped, `.L` for private
    /// functions on ELF); `None` for a function without a name, which LLVM
    /// numbers while it writes the object.
    pub fn symbol_name(self) -> Option<Vec<u8>> {
        if self.value.name_bytes().is_empty() {
            return None;
        }
        let mut buf = vec![0u8; 64];
        loop {
            // SAFETY: `raw` is a live function, a global value; the shim
            // writes at most `buf.len()` bytes to `buf`.
            let len =
                unsafe { ffi::pcmap_symbol_name(self.raw(), buf.as_mut_ptr().cast(), buf.len()) };
            if len <= buf.len() {
                buf.truncate(len);
                return Some(buf);
            }
            buf.resize(len, 0);
        }
    }

    pub fn is_declaration(self) -> bool {
        // SAFETY: `raw` is a live function, a global value.
        unsafe { LLVMIsDeclaration(self.raw()) != 0 }
    }

    pub fn is_intrinsic(self) -> bool {
        // SAFETY: `raw` is a live function.
        unsafe { LLVMGetIntrinsicID(self.raw()) != 0 }
    }

    pub fn is_var_arg(self) -> bool {
        // SAFETY: `raw` is a live function, whose value type is its
        // function type.
        unsafe { LLVMIsFunctionVarArg(LLVMGlobalGetValueType(self.raw())) != 0 }
    }

    pub fn linkage(self) -> Linkage {
        // SAFETY: `raw` is a live function, a global value.
        unsafe { LLVMGetLinkage(self.raw()) }
    }

    pub fn set_linkage(self, linkage: Linkage) {
        // SAFETY: `raw` is a live function, a global value.
        unsafe { LLVMSetLinkage(self.raw(), linkage) }
    }

    pub fn set_visibility(self, visibility: Visibility) {
        // SAFETY: `raw` is a live function, a global value.
        unsafe { LLVMSetVisibility(self.raw(), visibility) }
    }

    /// An enum attribute on the function itself, e.g. "noreturn".
    pub fn has_fn_attr(self, name: &str) -> bool {
        // SAFETY: `name` is `name.len()` readable bytes; LLVM keeps none.
        let kind = unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) };
        // SAFETY: `raw` is a live function; `kind` is a known attribute kind.
        kind != 0
            && !unsafe {
                LLVMGetEnumAttributeAtIndex(self.raw(), llvm_sys::LLVMAttributeFunctionIndex, kind)
            }
            .is_null()
    }

    /// A string attribute on the function itself, e.g. "no_sanitize_thread".
    pub fn has_string_fn_attr(self, name: &str) -> bool {
        // SAFETY: `raw` is a live function; `name` is `name.len()` readable
        // bytes and LLVM keeps none.
        !unsafe {
            LLVMGetStringAttributeAtIndex(
                self.raw(),
                llvm_sys::LLVMAttributeFunctionIndex,
                name.as_ptr().cast(),
                name.len() as u32,
            )
        }
        .is_null()
    }

    /// Every instruction, block by block.
    pub fn instructions(self) -> impl Iterator<Item = Instruction<'m>> {
        // SAFETY: `raw` is a live function (a declaration has no blocks).
        let mut bb = unsafe { LLVMGetFirstBasicBlock(self.raw()) };
        let mut inst: LLVMValueRef = std::ptr::null_mut();
        std::iter::from_fn(move || loop {
            if !inst.is_null() {
                let current = inst;
                // SAFETY: `current` is a live instruction of the function.
                inst = unsafe { LLVMGetNextInstruction(current) };
                return Some(Instruction {
                    value: Value::from_raw(current),
                });
            }
            if bb.is_null() {
                return None;
            }
            // SAFETY: `bb` is a live block of the function.
            inst = unsafe { LLVMGetFirstInstruction(bb) };
            // SAFETY: as above.
            bb = unsafe { LLVMGetNextBasicBlock(bb) };
        })
    }

    /// Attaches `node` as the function's `kind` metadata.
    pub fn set_metadata(self, kind: u32, node: Metadata<'m>) {
        // SAFETY: `raw` is a live function (a global object) and `node`
        // metadata of its context.
        unsafe { LLVMGlobalSetMetadata(self.raw(), kind, node.raw) }
    }
}

/// A global variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalVariable<'m> {
    value: Value<'m>,
}

impl<'m> GlobalVariable<'m> {
    /// `raw` must be null or a global variable (checked by the caller).
    fn from_raw(raw: LLVMValueRef) -> Option<GlobalVariable<'m>> {
        Value::non_null(raw).map(|value| GlobalVariable { value })
    }

    fn raw(self) -> LLVMValueRef {
        self.value.raw
    }

    pub fn as_value(self) -> Value<'m> {
        self.value
    }

    pub fn name(self) -> String {
        self.value.name()
    }

    pub fn is_constant(self) -> bool {
        // SAFETY: `raw` is a live global variable.
        unsafe { LLVMIsGlobalConstant(self.raw()) != 0 }
    }

    /// The explicit section, if any.
    pub fn section(self) -> Option<String> {
        // SAFETY: `raw` is a live global variable, a global value.
        let p = unsafe { LLVMGetSection(self.raw()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: LLVM returns a NUL-terminated string it owns, copied at once.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        (!s.is_empty()).then_some(s)
    }

    /// A private constant initialized to `init`, in `section`, aligned to 1.
    pub fn make_private_constant(self, init: Value<'m>, section: &str) {
        assert_eq!(
            init.type_of(),
            self.value_type(),
            "initializer of another type"
        );
        let section = cstring(section);
        // SAFETY: `raw` is a live global variable and `init` a constant of its
        // value type; `section` is NUL-terminated and copied by LLVM.
        unsafe {
            LLVMSetInitializer(self.raw(), init.raw);
            LLVMSetGlobalConstant(self.raw(), 1);
            LLVMSetLinkage(self.raw(), Linkage::LLVMPrivateLinkage);
            LLVMSetSection(self.raw(), section.as_ptr());
            LLVMSetAlignment(self.raw(), 1);
        }
    }

    fn value_type(self) -> Type<'m> {
        // SAFETY: `raw` is a live global variable.
        Type::from_raw(unsafe { LLVMGlobalGetValueType(self.raw()) })
    }

    pub fn set_linkage(self, linkage: Linkage) {
        // SAFETY: `raw` is a live global variable, a global value.
        unsafe { LLVMSetLinkage(self.raw(), linkage) }
    }

    pub fn set_visibility(self, visibility: Visibility) {
        // SAFETY: `raw` is a live global variable, a global value.
        unsafe { LLVMSetVisibility(self.raw(), visibility) }
    }

    /// Attaches `node` as the variable's `kind` metadata.
    pub fn set_metadata(self, kind: u32, node: Metadata<'m>) {
        // SAFETY: `raw` is a live global variable (a global object) and `node`
        // metadata of its context.
        unsafe { LLVMGlobalSetMetadata(self.raw(), kind, node.raw) }
    }
}

// --- Building code ----------------------------------------------------------

/// A basic block of a function of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BasicBlock<'m> {
    raw: LLVMBasicBlockRef,
    _module: PhantomData<&'m ()>,
}

/// An IR builder over the module's context; disposed when dropped.
pub struct Builder<'m> {
    raw: LLVMBuilderRef,
    module: Module<'m>,
    positioned: bool,
}

impl<'m> Builder<'m> {
    pub fn new(module: Module<'m>) -> Builder<'m> {
        // SAFETY: the context is the module's; the builder is disposed in
        // `drop`.
        let raw = unsafe { LLVMCreateBuilderInContext(module.context()) };
        assert!(!raw.is_null(), "LLVM returned no builder");
        Builder {
            raw,
            module,
            positioned: false,
        }
    }

    /// A new block named `name` at the end of `f`.
    pub fn append_block(&self, f: Function<'m>, name: &str) -> BasicBlock<'m> {
        let c = cstring(name);
        // SAFETY: `f` is a live function of the module's context; `c` is
        // NUL-terminated and copied by LLVM.
        let raw =
            unsafe { LLVMAppendBasicBlockInContext(self.module.context(), f.raw(), c.as_ptr()) };
        assert!(!raw.is_null(), "LLVM returned no block");
        BasicBlock {
            raw,
            _module: PhantomData,
        }
    }

    /// Instructions go to the end of `bb` from now on.
    pub fn position_at_end(&mut self, bb: BasicBlock<'m>) {
        // SAFETY: the builder and `bb` are live and of the same context.
        unsafe { LLVMPositionBuilderAtEnd(self.raw, bb.raw) };
        self.positioned = true;
    }

    /// Where an instruction may be inserted: checked before each one, since
    /// the C API inserts into whatever block the builder was last given.
    fn insert_point(&self) -> LLVMBuilderRef {
        assert!(self.positioned, "builder used before being positioned");
        self.raw
    }

    /// `icmp ne a, b`.
    pub fn icmp_ne(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        assert_eq!(
            a.type_of(),
            b.type_of(),
            "icmp of operands of different types"
        );
        // SAFETY: the builder is positioned in a live block; `a` and `b` are
        // live values of one type.
        Value::from_raw(unsafe {
            LLVMBuildICmp(
                self.insert_point(),
                LLVMIntPredicate::LLVMIntNE,
                a.raw,
                b.raw,
                c"".as_ptr(),
            )
        })
    }

    /// `br i1 cond, then, otherwise`.
    pub fn cond_br(&self, cond: Value<'m>, then: BasicBlock<'m>, otherwise: BasicBlock<'m>) {
        assert!(cond.type_of().is_int(1), "branch on a value that is not i1");
        // SAFETY: the builder is positioned in a live block; `cond` is an i1
        // value and both blocks are live blocks of the module.
        unsafe { LLVMBuildCondBr(self.insert_point(), cond.raw, then.raw, otherwise.raw) };
    }

    /// `br dest`.
    pub fn br(&self, dest: BasicBlock<'m>) {
        // SAFETY: the builder is positioned in a live block; `dest` is live.
        unsafe { LLVMBuildBr(self.insert_point(), dest.raw) };
    }

    /// `call ty callee(args...)`, the arguments checked against the function
    /// type `ty` (as with opaque pointers, `ty` need not be the callee's own:
    /// LLVM's `getOrInsertFunction` calls a mismatched declaration the same way).
    pub fn call(&self, ty: Type<'m>, callee: Value<'m>, args: &[Value<'m>]) -> Value<'m> {
        assert_eq!(
            ty.kind(),
            LLVMTypeKind::LLVMFunctionTypeKind,
            "call through a non-function type"
        );
        assert_eq!(
            callee.type_of().kind(),
            LLVMTypeKind::LLVMPointerTypeKind,
            "call of a value that is not a pointer"
        );
        let arg_types: Vec<Type<'m>> = args.iter().map(|a| a.type_of()).collect();
        assert_eq!(
            arg_types,
            ty.params(),
            "call arguments do not match the parameters"
        );
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|a| a.raw).collect();
        // SAFETY: the builder is positioned in a live block; `ty` is a
        // function type whose parameters the arguments match and `callee` a
        // pointer; LLVM reads `raw.len()` arguments and keeps none of the
        // array.
        Value::from_raw(unsafe {
            LLVMBuildCall2(
                self.insert_point(),
                ty.raw,
                callee.raw,
                raw.as_mut_ptr(),
                raw.len() as u32,
                c"".as_ptr(),
            )
        })
    }

    /// `ret void`.
    pub fn ret_void(&self) {
        // SAFETY: the builder is positioned in a live block.
        unsafe { LLVMBuildRetVoid(self.insert_point()) };
    }
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was created in `new` and is disposed only here.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

// --- The plugin entry -------------------------------------------------------
//
// The host calls `llvmGetPassPluginInfo`, then the registrar it returns
// (`pcmap_register_callbacks`, cpp/entry.cc), whose PassBuilder callbacks
// call the functions below; each calls the plugin's [`PassPlugin`]. States
// cross the boundary as boxes turned into raw pointers: made by
// `Box::into_raw` here, used by the C++ objects that own them, given back
// exactly once to the matching `_free`. No panic unwinds into the host's
// frames ([`guarded`]).

/// What the plugin does at each PassBuilder callback, as the entry calls
/// it; the entry only carries its states across the C++ boundary. The
/// plugin implements it for [`Pcmap`] (lib.rs): this file names none of
/// the plugin's own types, so nothing here depends on the pass.
pub(crate) trait PassPlugin {
    /// One PassBuilder's state: what its extension points saw.
    type Registration: Default;
    /// A pass instance, owned by the host's pass manager.
    type Pass;
    /// The pass of a `-passes=` element, `None` if it is not the plugin's
    /// or is not valid.
    fn parse_pipeline_element(element: &str) -> Option<Self::Pass>;
    /// The pipeline-start extension point was reached.
    fn pipeline_start(registration: &Self::Registration);
    /// The pass of the optimizer-last extension point.
    fn optimizer_last(registration: &Self::Registration) -> Self::Pass;
    /// The pass of the full-LTO-early extension point.
    fn full_lto_early() -> Self::Pass;
    /// Runs `pass` on `m`; whether it changed `m`.
    fn run(pass: &Self::Pass, m: Module<'_>) -> bool;
}

/// The pcmap plugin, whose [`PassPlugin`] the entry calls.
pub(crate) struct Pcmap;

type Registration = <Pcmap as PassPlugin>::Registration;
type Pass = <Pcmap as PassPlugin>::Pass;

/// `llvm::PassPluginLibraryInfo` (PassPlugin.h), the same in every release.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: unsafe extern "C" fn(*mut c_void),
}

/// What every LLVM tool calls first, right after loading the plugin: the
/// version guard, then the registrar.
///
/// The guard: a plugin is built against one LLVM release's headers, and its
/// registrar and passes are that release's inline C++ (PassBuilder's
/// callback vectors, pass managers); in another release's host they write
/// at the wrong offsets and corrupt its heap. The host has touched nothing
/// of the plugin before this call, and `LLVMGetVersion` is C API (LLVM 16
/// and later), so the check runs before any of the host's C++ objects is
/// touched: a host of another major release gets one line naming both
/// releases and the plugin to use, and the compile fails.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: C API of every release since 16; it writes the three numbers.
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    if major != LLVM_MAJOR {
        // SAFETY: the shim returns dladdr's path of the plugin, a
        // NUL-terminated string the loader keeps while the plugin is
        // loaded, or null.
        let path = unsafe { ffi::pcmap_plugin_path() };
        let plugin = if path.is_null() {
            None
        } else {
            // SAFETY: as above, non-null.
            let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
            Some(Path::new(OsStr::from_bytes(bytes)))
        };
        let program = std::env::args_os()
            .next()
            .and_then(|a| {
                Path::new(&a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "this program".into());
        fail(&wrong_llvm_message(
            LLVM_MAJOR,
            (major, minor, patch),
            plugin,
            &program,
        ));
    }
    PassPluginLibraryInfo {
        // SAFETY: the shim returns a constant of the release's header.
        api_version: unsafe { ffi::pcmap_plugin_api_version() },
        plugin_name: c"pcmap".as_ptr(),
        plugin_version: c"0.3".as_ptr(),
        register_pass_builder_callbacks: ffi::pcmap_register_callbacks,
    }
}

/// Runs `f`; a panic fails the compile with one line instead of unwinding
/// into the host's C++ frames.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| fail(&format!("internal error while {what}")))
}

/// Reports a fatal error the way every pcmap message looks and fails the
/// compilation; for where LLVM offers the plugin no error channel.
fn fail(message: &str) -> ! {
    eprintln!("pcmap: {message}");
    exit_failure()
}

/// Removes the files the host registered for removal (clang's temporary
/// output, opt's output file), as LLVM's `report_fatal_error` does, and
/// exits with status 1.
pub fn exit_failure() -> ! {
    // SAFETY: a free function of every release without arguments; it runs
    // the host's own handlers.
    unsafe { ffi::pcmap_run_interrupt_handlers() };
    std::process::exit(1)
}

/// Gives `value` to C++ as an owned pointer (null for `None`).
fn into_raw<T>(value: Option<T>) -> *mut c_void {
    value.map_or(std::ptr::null_mut(), |v| Box::into_raw(Box::new(v)).cast())
}

#[no_mangle]
extern "C" fn pcmap_builder_new() -> *mut c_void {
    into_raw(Some(Registration::default()))
}

#[no_mangle]
extern "C" fn pcmap_builder_free(builder: *mut c_void) {
    // SAFETY: made by `pcmap_builder_new`, given back once by its owner.
    drop(unsafe { Box::from_raw(builder.cast::<Registration>()) });
}

/// # Safety
/// `builder` comes from `pcmap_builder_new` and is not freed yet.
unsafe fn registration<'a>(builder: *mut c_void) -> &'a Registration {
    // SAFETY: the caller's guarantee; only shared references are made.
    unsafe { &*builder.cast::<Registration>() }
}

#[no_mangle]
extern "C" fn pcmap_parse_pipeline_element(name: *const c_char, len: usize) -> *mut c_void {
    // SAFETY: the host's StringRef: `len` readable bytes at `name`.
    let name = unsafe { owned_bytes(name, len) };
    guarded("parsing pass parameters", || {
        into_raw(
            std::str::from_utf8(&name)
                .ok()
                .and_then(Pcmap::parse_pipeline_element),
        )
    })
}

#[no_mangle]
extern "C" fn pcmap_pipeline_start(builder: *mut c_void) {
    // SAFETY: the callback owns the builder state (cpp/entry.cc).
    Pcmap::pipeline_start(unsafe { registration(builder) });
}

#[no_mangle]
extern "C" fn pcmap_optimizer_last(builder: *mut c_void) -> *mut c_void {
    // SAFETY: the callback owns the builder state (cpp/entry.cc).
    let registration = unsafe { registration(builder) };
    guarded("reading the PCMAP_* environment", || {
        into_raw(Some(Pcmap::optimizer_last(registration)))
    })
}

#[no_mangle]
extern "C" fn pcmap_full_lto_early() -> *mut c_void {
    into_raw(Some(Pcmap::full_lto_early()))
}

#[no_mangle]
extern "C" fn pcmap_run_pass(pass: *mut c_void, module: LLVMModuleRef) -> bool {
    // SAFETY: made by one of the functions above and owned by the C++ pass
    // object calling; only shared references are made.
    let pass = unsafe { &*pass.cast::<Pass>() };
    // The module invariant: the host's module, for this call.
    let m = Module {
        raw: module,
        _module: PhantomData,
    };
    guarded("instrumenting the module", || Pcmap::run(pass, m))
}

#[no_mangle]
extern "C" fn pcmap_pass_free(pass: *mut c_void) {
    // SAFETY: made by one of the functions above, given back once by the
    // C++ pass object that owned it.
    drop(unsafe { Box::from_raw(pass.cast::<Pass>()) });
}
