//! The two encodings the pass can produce, each the exact output of one
//! release of LLVM's SanitizerBinaryMetadata pass. The names, versions,
//! feature bits and mask widths are `pcmap_reader::sanmd`'s (the one place
//! they are defined); this module only says which of them each release uses.
//!
//! * `Native` is LLVM 16's pass: format version 1, 32-bit feature masks,
//!   sections `sanmd_covered`/`sanmd_atomics` that LLVM 16's AsmPrinter
//!   writes in their final, fixed-width form.
//! * `Compact` is LLVM 19's pass: version 2, 64-bit masks and the `!C`
//!   (ULEB128) option in `sanmd_covered2!C`/`sanmd_atomics2!C`.
//!
//! Which backend writes them is the plugin's release ([`LLVM_MAJOR`]):
//!
//! * In LLVM 16, `Native` is final as the backend writes it. LLVM 16's
//!   AsmPrinter ignores `!C`, so `pcmap emit` finishes `Compact` sections
//!   using the layout description (`pcmap_reader::pclayout`). Covered entries
//!   are requested in `sanmd_covered` instead, the one section for which LLVM
//!   16's MachineSanitizerBinaryMetadata appends the stack-arguments size of
//!   UAR functions (it compares the name exactly); the description tells
//!   `pcmap emit` to write them into `sanmd_covered2` as LLVM 19 does.
//! * In LLVM 19 the pass is LLVM 19's own: `Compact` is requested exactly as
//!   LLVM 19's pass requests it and its backend writes it final (sizes,
//!   stack-arguments sizes and all), LTO links included. LLVM 19's native
//!   encoding is the compact one: `native` asks for it too ([`Encoding::in_backend`]).

use pcmap_reader::pctable::CodeModel;
use pcmap_reader::sanmd::{
    Sanmd, SanmdSection, COMPACT_OPTION, FEATURE_ATOMICS, FEATURE_MASK_BYTES_COMPACT,
    FEATURE_MASK_BYTES_NATIVE, VERSION_COMPACT, VERSION_NATIVE, VERSION_PTR_SIZE_REL,
};

use crate::release::LLVM_MAJOR;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    Native,
    #[default]
    Compact,
}

/// Whether the backend of the plugin's release writes the compact encoding
/// final: LLVM 19's does; LLVM 16's leaves it to `pcmap emit`.
pub const BACKEND_WRITES_COMPACT: bool = LLVM_MAJOR >= 19;

impl Encoding {
    /// The encoding asked for, as the plugin's release writes it: in LLVM 19
    /// both words name LLVM 19's own encoding, the compact one.
    pub fn in_backend(self) -> Encoding {
        if BACKEND_WRITES_COMPACT {
            Encoding::Compact
        } else {
            self
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Native => "native",
            Encoding::Compact => "compact",
        }
    }

    /// The version passed to the callbacks (`getVersion`).
    pub fn version(self, code_model: Option<CodeModel>) -> u32 {
        let base = match self {
            Encoding::Native => VERSION_NATIVE,
            Encoding::Compact => VERSION_COMPACT,
        };
        match code_model {
            Some(m) if m.pointer_sized_pcs() => base | VERSION_PTR_SIZE_REL,
            _ => base,
        }
    }

    /// Bytes of the feature mask the covered entries request in
    /// `!pcsections`. In LLVM 19, its pass's `i64`. In LLVM 16, LLVM 16's
    /// `i32` in both encodings: compact entries are finished by `pcmap emit`,
    /// which writes the mask as ULEB128, the same bytes for either width;
    /// asking as LLVM 16's own pass does makes the raw `sanmd_covered`
    /// section a valid version 1 table even in a program linked without
    /// `pcmap emit`.
    pub fn feature_mask_bytes(self) -> u8 {
        if BACKEND_WRITES_COMPACT {
            FEATURE_MASK_BYTES_COMPACT
        } else {
            FEATURE_MASK_BYTES_NATIVE
        }
    }

    /// The section of `kind` for `version`, as requested in `!pcsections`
    /// (`raw`: with LLVM 19's `!C`, which LLVM 16 keeps in the name) or
    /// as it is finally called.
    fn section(self, kind: Sanmd, version: u32, requested: bool) -> SanmdSection {
        SanmdSection {
            kind,
            version,
            raw: requested && self == Encoding::Compact,
        }
    }

    /// The section of the object file, after `pcmap emit` for `Compact`.
    pub fn final_section(self, kind: Sanmd, version: u32) -> String {
        self.section(kind, version, false).to_string()
    }

    /// The section name as written in `!pcsections` (`name[!options]`).
    pub fn requested_section(self, kind: Sanmd, version: u32) -> String {
        if self.llvm16_stack_args(kind) {
            return self.section(kind, VERSION_NATIVE, false).to_string();
        }
        self.section(kind, version, true).to_string()
    }

    /// Whether `kind`'s entries are requested under LLVM 16's native name
    /// so that LLVM 16's backend appends the stack-arguments size of UAR
    /// functions (`sanmd_covered`, version 1's name, whatever the version):
    /// LLVM 19 writes that size, LLVM 16 only for this exact name. The bit
    /// is the feature (UAR) whose entries get it.
    pub fn llvm16_stack_args(self, kind: Sanmd) -> bool {
        !BACKEND_WRITES_COMPACT && self == Encoding::Compact && kind == Sanmd::Covered
    }

    /// Whether `pcmap emit` finishes the sections: compact ones in LLVM 16,
    /// described by the layout description.
    pub fn finished_by_emit(self) -> bool {
        !BACKEND_WRITES_COMPACT && self == Encoding::Compact
    }

    /// The options requested in the `!pcsections` string.
    pub fn options(self) -> &'static str {
        match self {
            Encoding::Native => "",
            Encoding::Compact => COMPACT_OPTION,
        }
    }

    /// Prefix of `<prefix>.module_ctor` / `<prefix>.module_dtor`.
    pub fn structor_prefix(self, kind: Sanmd, version: u32) -> String {
        self.section(kind, version, false)
            .structor_prefix()
            .to_string()
    }

    /// LLVM 19 gives structors external hidden linkage (COMDAT keys must not
    /// be local); LLVM 16 leaves them internal.
    pub fn structors_are_hidden_external(self) -> bool {
        self == Encoding::Compact
    }

    /// LLVM 19 only: accesses to non-escaping stack slots and to constant
    /// globals are not shared mutable memory; profile counters count as
    /// atomic.
    pub fn refines_atomics(self) -> bool {
        self == Encoding::Compact
    }

    /// Whether `no_sanitize_thread` clears the atomics bit unless told
    /// otherwise: LLVM 19's `-sanitizer-metadata-nosanitize-attr` is on by
    /// default; LLVM 16 has no such option and never clears it.
    pub fn nosanitize_attr_default(self) -> bool {
        self == Encoding::Compact
    }

    /// LLVM 16 sets the atomics bit in every analysed function's mask when
    /// atomics are requested; LLVM 19 only where a shared access was seen.
    pub fn initial_feature_mask(self, atomics_requested: bool) -> u64 {
        match self {
            Encoding::Native if atomics_requested => FEATURE_ATOMICS,
            _ => 0,
        }
    }

    /// Whether a function that is not explicitly covered still needs its
    /// covered entry to make other metadata unambiguous.
    pub fn needs_covered(self, feature_mask: u64, requires_covered: bool) -> bool {
        match self {
            Encoding::Native => requires_covered,
            Encoding::Compact => feature_mask != 0 && requires_covered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_per_release() {
        let v = Encoding::Native.version(None);
        assert_eq!(v, 1);
        assert_eq!(
            Encoding::Native.requested_section(Sanmd::Covered, v),
            "sanmd_covered"
        );
        assert_eq!(
            Encoding::Native.structor_prefix(Sanmd::Atomics, v),
            "__sanitizer_metadata_atomics"
        );
        assert_eq!(
            Encoding::Native.version(Some(CodeModel::Medium)),
            65537,
            "LLVM 16 flags pointer-sized PCs too"
        );
        let v = Encoding::Compact.version(Some(CodeModel::Large));
        assert_eq!(v, 65538);
        assert_eq!(
            Encoding::Compact.requested_section(Sanmd::Atomics, v),
            "sanmd_atomics65538!C"
        );
        // LLVM 16 computes the stack-arguments size for this name only;
        // LLVM 19 for its own.
        assert_eq!(
            Encoding::Compact.requested_section(Sanmd::Covered, v),
            if BACKEND_WRITES_COMPACT {
                "sanmd_covered65538!C"
            } else {
                "sanmd_covered"
            }
        );
        assert_eq!(
            Encoding::Compact.final_section(Sanmd::Covered, v),
            "sanmd_covered65538"
        );
        assert_eq!(
            Encoding::Compact.structor_prefix(Sanmd::Covered, v),
            "__sanitizer_metadata_covered65538"
        );
        assert_eq!(
            Encoding::Compact.final_section(Sanmd::Covered, 2),
            "sanmd_covered2"
        );
    }
}
