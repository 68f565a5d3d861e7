//! The per-image registration of the flat stack map section.
//!
//! A module with stack maps gets, as SanitizerBinaryMetadata's sections do
//! (structors.rs), a constructor and destructor calling
//! `__pcmap_stackmaps_{add,del}(PCMAP_STACKMAPS_VERSION,
//! __start_pcmap_stackmaps, __stop_pcmap_stackmaps)`:
//!
//! ```text
//! @pcmap_stackmaps.module_ctor  hidden, COMDAT of its own name -> one per image
//!   if (&__pcmap_stackmaps_add != null)          extern_weak: only when linked in
//!     __pcmap_stackmaps_add(2, @__start_pcmap_stackmaps, @__stop_pcmap_stackmaps)
//! @llvm.global_ctors / _dtors += { 2, ctor/dtor, ctor/dtor }
//! ```
//!
//! Why here and not in `pcmap emit`: the section's bounds are the linked
//! image's, known only to the linker, which defines the `__start_`/`__stop_`
//! markers per image; hidden, they resolve inside each image (a shared
//! object's constructor names its own section, not the program's). A
//! constructor written as IR is compiled by the backend for every target;
//! emit would have to write machine code and relocations per architecture.
//! The section does not exist until `pcmap emit` turns `.llvm_stackmaps`
//! into it; the markers are extern_weak, so an image linked without it
//! passes NULL bounds, which the callback ignores. A module whose stack
//! maps come from `llc` without the plugin gets no constructor: its image
//! registers through another object's, or by hand (`pcmap_registry_add`).

use pcmap_reader::flat::{SECTION_NAME, VERSION};
use pcmap_reader::sanmd::{CTOR_SUFFIX, DTOR_SUFFIX};

use crate::llvm::Module;
use crate::structors::{install, section_marker, structor};

/// The callbacks' names (libpcmap defines them).
pub const ADD_CALLBACK: &str = "__pcmap_stackmaps_add";
pub const DEL_CALLBACK: &str = "__pcmap_stackmaps_del";

/// Intrinsics LLVM lowers to stack map records (`deoptimize`: a call with
/// a deopt bundle, a record where statepoints are rewritten later).
const STACK_MAP_INTRINSICS: [&str; 4] = [
    "llvm.experimental.stackmap",
    "llvm.experimental.patchpoint.",
    "llvm.experimental.gc.statepoint.",
    "llvm.experimental.deoptimize",
];

/// Whether `m` declares an intrinsic that becomes a stack map record: the
/// module's object will have a `.llvm_stackmaps` section for `pcmap emit`.
/// (A declaration, not a walk over every instruction: the pass runs on
/// every module a build compiles.) Typed-pointer IR (`-opaque-pointers=0`,
/// deprecated in LLVM 16) gets no registration: the structors are built
/// with opaque pointers.
pub fn has_stack_maps(m: Module<'_>) -> bool {
    let ptr = m.ptr_type();
    m.functions().any(|f| {
        f.is_declaration() && f.as_value().type_of() == ptr && {
            let name = f.name();
            STACK_MAP_INTRINSICS.iter().any(|p| name.starts_with(p))
        }
    })
}

/// `pcmap_stackmaps.module_ctor` / `.module_dtor`.
pub fn structor_names() -> [String; 2] {
    [
        format!("{SECTION_NAME}{CTOR_SUFFIX}"),
        format!("{SECTION_NAME}{DTOR_SUFFIX}"),
    ]
}

/// Adds the registration pair to `m`, a module with stack maps. `weak`:
/// call the callbacks only when linked in (the pass's weak-callbacks
/// setting, as for the PC sections).
pub fn emit(m: Module<'_>, weak: bool) {
    let args = [
        m.const_int(m.i32_type(), u64::from(VERSION)),
        section_marker(m, &format!("__start_{SECTION_NAME}")),
        section_marker(m, &format!("__stop_{SECTION_NAME}")),
    ];
    let [ctor_name, dtor_name] = structor_names();
    let ctor = structor(m, &ctor_name, ADD_CALLBACK, &args, weak);
    let dtor = structor(m, &dtor_name, DEL_CALLBACK, &args, weak);
    // Hidden external: under LTO too, one pair per image (see
    // structors::hidden_external).
    install(m, ctor, dtor, true);
}
