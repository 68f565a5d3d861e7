//! The values of the formats the C API exports under C names: each is
//! pcmap-reader's constant, its one definition, never a copy.
//!
//! cbindgen writes a constant whose value names another crate's constant
//! as that name, which C does not know. So `build.rs` compiles this file
//! too, with pcmap-reader as a build dependency, and has cbindgen write
//! every constant of `ALL` into `pcmap.h` with its value as a number.

use pcmap_reader::flat::{self, RecordKind};
use pcmap_reader::{sanmd, walk, LocationKind};

/// Defines each constant, and `ALL` with the name, C-facing type, value
/// and documentation of every one, for `build.rs`.
macro_rules! c_constants {
    ($($(#[doc = $doc:literal])* $name:ident: $ty:ident = $value:expr;)*) => {
        $($(#[doc = $doc])* pub const $name: $ty = $value;)*

        /// Every constant above: (name, type, value, documentation lines).
        #[allow(dead_code)] // Read by build.rs and the tests.
        pub(crate) const ALL: &[(&str, &str, u64, &[&str])] = &[
            $((stringify!($name), stringify!($ty), $value as u64, &[$($doc),*])),*
        ];
    };
}

c_constants! {
    /// Set in a callback's `version` when PCs are pointer-sized (LLVM 19
    /// with a medium or large `Code Model` module flag).
    PCMAP_PCTABLE_VERSION_PTR_SIZE: u32 = sanmd::VERSION_PTR_SIZE_REL;

    /// Feature bits of a covered entry's mask (`kSanitizerBinaryMetadata*`).
    PCMAP_FEATURE_ATOMICS: u64 = sanmd::FEATURE_ATOMICS;
    PCMAP_FEATURE_UAR: u64 = sanmd::FEATURE_UAR;
    /// Version 2: a stack-arguments size follows the mask.
    PCMAP_FEATURE_UAR_HAS_SIZE: u64 = sanmd::FEATURE_UAR_HAS_SIZE;

    /// The `version` the plugin's per-image constructors pass to
    /// `__pcmap_stackmaps_add` / `_del`: the flat layout's version.
    PCMAP_STACKMAPS_VERSION: u32 = flat::VERSION as u32;

    /// Entries of `pcmap_table_header.bounds`.
    PCMAP_TABLE_BOUNDS: usize = flat::NUM_BOUNDS;

    /// `pcmap_function.stack_size` of a frame with a variable-sized alloca.
    PCMAP_VARIABLE_STACK_SIZE: u32 = flat::VARIABLE_STACK_SIZE;

    /// Record flags (`pcmap_record.flags`).
    PCMAP_RECORD_PATCHABLE_SIZE_KNOWN: u8 = flat::site_head::PATCHABLE_SIZE_KNOWN;
    PCMAP_RECORD_HAS_LIVE_OUT_INFO: u8 = flat::site_head::HAS_LIVE_OUT_INFO;
    /// The record has a frame state (the CFI described the code there).
    PCMAP_RECORD_HAS_FRAME_STATE: u8 = flat::site_head::HAS_FRAME_STATE;

    /// Frame state flags (`pcmap_record.frame_flags`).
    /// `cfa_register` and `cfa_offset` give the CFA; clear: the CFA is a
    /// DWARF expression or unknown, and a stack walk must stop.
    PCMAP_FRAME_CFA_RULE: u8 = flat::frame_state_flags::CFA_RULE;
    /// The function realigns its stack pointer.
    PCMAP_FRAME_STACK_REALIGNED: u8 = flat::frame_state_flags::STACK_REALIGNED;

    /// Record kinds (`pcmap_record.kind`).
    PCMAP_KIND_UNKNOWN: u8 = RecordKind::Unknown as u8;
    PCMAP_KIND_STACKMAP: u8 = RecordKind::StackMap as u8;
    PCMAP_KIND_PATCHPOINT: u8 = RecordKind::PatchPoint as u8;
    PCMAP_KIND_STATEPOINT: u8 = RecordKind::StatePoint as u8;

    /// Location kinds (`pcmap_location.kind`).
    /// The value is in `dwarf_reg`.
    PCMAP_LOCATION_REGISTER: u8 = LocationKind::Register as u8;
    /// The value is `dwarf_reg + offset` (the address of a stack object).
    PCMAP_LOCATION_DIRECT: u8 = LocationKind::Direct as u8;
    /// The value is in memory at `dwarf_reg + offset` (a spill slot).
    PCMAP_LOCATION_INDIRECT: u8 = LocationKind::Indirect as u8;
    /// The value is `offset`.
    PCMAP_LOCATION_CONSTANT: u8 = LocationKind::Constant as u8;
    /// The value is the table's large constant number `offset`.
    PCMAP_LOCATION_CONSTANT_INDEX: u8 = LocationKind::ConstantIndex as u8;

    /// Register slots of a `pcmap_registers`: DWARF registers 0..=31, and
    /// PowerPC64's link register (DWARF 65) in slot 32.
    PCMAP_REGISTER_SLOTS: usize = walk::REGISTER_SLOTS;
    /// `pcmap_walk_init` flag: continue through a frame without a table
    /// entry by the frame pointer chain (docs/runtime.md, "Walking the stack").
    PCMAP_WALK_FRAME_POINTER_CHAIN: u32 = 1;
    /// `pcmap_walk_init` flag: look each frame's PC up in the registry's
    /// images (every loaded image's tables, `__pcmap_stackmaps_add`), not
    /// in one `pcmap_stackmaps` (`maps` may then be NULL): a walk crosses
    /// frames of the program and of shared objects.
    PCMAP_WALK_REGISTRY: u32 = 2;
    /// `pcmap_walk_init` flag: the first frame's PC (`regs->pc`) is the
    /// address of an instruction not yet run (an interrupted context: a
    /// signal handler's `ucontext_t`, a profiler's sample), not a return
    /// address. A frame `pcmap_capture_call` captured has a return address,
    /// as every frame a walk steps to does (docs/runtime.md, "Return
    /// addresses").
    PCMAP_WALK_INTERRUPTED: u32 = 4;
    /// `pcmap_find_function`: the PC is a return address (the address
    /// after a call: every frame a walk steps to, a frame
    /// `pcmap_capture_call` captured). It is in the function holding the
    /// byte before it, whose end it may be.
    PCMAP_PC_RETURN_ADDRESS: u32 = 0;
    /// `pcmap_find_function`: the PC is the address of an instruction not
    /// yet run (an interrupted context, a JIT's or profiler's PC, a
    /// record's own address). It is in the function holding it.
    PCMAP_PC_INSTRUCTION: u32 = 1;
    /// `pcmap_walk.at`: what the tables say about the frame's PC.
    /// In no function of the tables.
    PCMAP_WALK_AT_UNMANAGED: u32 = 0;
    /// In `pcmap_walk.function`, with no record at the PC.
    PCMAP_WALK_AT_NO_RECORD: u32 = 1;
    /// In `pcmap_walk.function`, at `pcmap_walk.record`.
    PCMAP_WALK_AT_RECORD: u32 = 2;
    /// Bytes of one entry of a `pcmap_walk_cache` (`pcmap_walk_cache_init`
    /// takes memory for a power of two of them).
    PCMAP_WALK_CACHE_ENTRY_SIZE: usize = 528;
}

#[cfg(test)]
mod tests {
    use super::ALL;

    /// The header as `build.rs` generated it for this build.
    const HEADER: &str = include_str!(concat!(env!("OUT_DIR"), "/pcmap.h"));

    /// The value of `#define NAME VALUE` in the header.
    fn defined(name: &str) -> Option<u64> {
        HEADER.lines().find_map(|l| {
            let rest = l.strip_prefix("#define ")?.strip_prefix(name)?;
            rest.strip_prefix(' ')?.trim().parse().ok()
        })
    }

    #[test]
    fn the_header_defines_the_readers_values() {
        assert!(ALL.len() >= 20);
        for &(name, _, value, _) in ALL {
            assert_eq!(defined(name), Some(value), "{name} in pcmap.h");
        }
        // And the C API's own constants, which are not the formats'.
        assert_eq!(defined("PCMAP_CACHED_TABLES"), Some(8));
    }

    /// Everything the header names outside a struct (constants, types,
    /// enum values, functions) is `pcmap_*` or `PCMAP_*`: no Rust runtime
    /// symbol (as `rust_eh_personality` was) and no unprefixed name.
    #[test]
    fn the_header_declares_only_pcmap_names() {
        let (mut depth, mut in_enum) = (0, false);
        let mut names = Vec::new();
        for line in HEADER.lines() {
            let code = line.split("//").next().unwrap_or("").trim();
            let words: Vec<&str> = code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let comment = code.starts_with("/*") || code.starts_with('*');
            if code.is_empty()
                || comment
                || code == "extern \"C\" {"
                || line.contains("// extern \"C\"")
            {
                continue;
            }
            if let Some(name) = code.strip_prefix("#define ") {
                names.extend(name.split_whitespace().next());
            } else if code.starts_with('#') {
            } else if depth == 0 && code.starts_with("typedef ") {
                // typedef struct|enum NAME {
                names.extend(words.get(2).copied());
                in_enum = words.get(1) == Some(&"enum");
            } else if depth == 1 && code.starts_with('}') {
                // } NAME;
                names.extend(words.first().copied());
            } else if depth == 1 && in_enum {
                names.extend(words.first().copied());
            } else if depth == 0 {
                if let Some((head, _)) = code.split_once('(') {
                    // A function: the word before its parameters.
                    names.extend(head.rsplit([' ', '*']).next());
                }
            }
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        }
        for expected in [
            "pcmap_find",
            "pcmap_status",
            "PCMAP_OK",
            "PCMAP_KIND_STACKMAP",
        ] {
            assert!(names.contains(&expected), "{expected} not in {names:?}");
        }
        let foreign: Vec<&&str> = names
            .iter()
            .filter(|n| {
                // The registry's callbacks are named for the plugin's
                // constructors, in the manner of `__sanitizer_metadata_*`.
                let callback = ["__pcmap_stackmaps_add", "__pcmap_stackmaps_del"].contains(n);
                !(n.starts_with("pcmap_") || n.starts_with("PCMAP_") || callback)
            })
            .collect();
        assert!(foreign.is_empty(), "pcmap.h declares {foreign:?}");
    }
}
