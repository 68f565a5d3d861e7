//! The two encodings the pass can produce, each the exact output of one
//! release of LLVM's SanitizerBinaryMetadata pass.
//!
//! * `Native` is LLVM 16's pass: format version 1, 32-bit feature masks,
//!   sections `sanmd_covered`/`sanmd_atomics` that LLVM 16's AsmPrinter
//!   writes in their final, fixed-width form.
//! * `Compact` is LLVM 19's pass: version 2, 64-bit masks and the `!C`
//!   (ULEB128) option in `sanmd_covered2!C`/`sanmd_atomics2!C`. LLVM 16's
//!   AsmPrinter ignores `!C`, so `pcmap emit` finishes these sections using the
//!   layout description (layout.rs).

use crate::llvm::CodeModel;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    Native,
    #[default]
    Compact,
}

/// Bit 0 of a covered entry's feature mask: the function's memory accesses
/// were analysed for atomics (`kSanitizerBinaryMetadataAtomics`).
pub const FEATURE_ATOMICS: u64 = 1 << 0;
/// Bit 1: the function may leak stack addresses past its return
/// (`kSanitizerBinaryMetadataUAR`).
pub const FEATURE_UAR: u64 = 1 << 1;

/// Set in the version passed to the callbacks when PCs are pointer-sized
/// (medium and large code models).
const VERSION_PTR_SIZE_REL: u32 = 1 << 16;

/// One kind of SanitizerBinaryMetadata section and its callbacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetadataKind {
    /// One function entry per analysed function, carrying the feature mask.
    Covered,
    /// One instruction entry per atomic (or racy-by-design) access.
    Atomics,
}

impl MetadataKind {
    pub fn section_suffix(self) -> &'static str {
        match self {
            MetadataKind::Covered => "sanmd_covered",
            MetadataKind::Atomics => "sanmd_atomics",
        }
    }

    /// Prefix of the `_add`/`_del` callbacks and of the structors' names.
    pub fn function_prefix(self) -> &'static str {
        match self {
            MetadataKind::Covered => "__sanitizer_metadata_covered",
            MetadataKind::Atomics => "__sanitizer_metadata_atomics",
        }
    }
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Native => "native",
            Encoding::Compact => "compact",
        }
    }

    /// The version passed to the callbacks (`getVersion`).
    pub fn version(self, code_model: Option<CodeModel>) -> u32 {
        let base = match self {
            Encoding::Native => 1,
            Encoding::Compact => 2,
        };
        match code_model {
            Some(CodeModel::Medium | CodeModel::Large) => base | VERSION_PTR_SIZE_REL,
            _ => base,
        }
    }

    /// Width in bits of the feature mask stored in covered entries.
    pub fn feature_mask_bits(self) -> u32 {
        match self {
            Encoding::Native => 32,
            Encoding::Compact => 64,
        }
    }

    /// LLVM 19 names sections and markers after the version, so that objects
    /// of different versions never share a section.
    fn versioned(self, base: &str, version: u32) -> String {
        match self {
            Encoding::Native => base.to_string(),
            Encoding::Compact => format!("{base}{version}"),
        }
    }

    /// The section of the object file, after `pcmap emit` for `Compact`.
    pub fn final_section(self, kind: MetadataKind, version: u32) -> String {
        self.versioned(kind.section_suffix(), version)
    }

    /// The options requested in the `!pcsections` string.
    pub fn options(self) -> &'static str {
        match self {
            Encoding::Native => "",
            Encoding::Compact => "C",
        }
    }

    /// The section name as written in `!pcsections` (`name[!options]`).
    pub fn requested_section(self, kind: MetadataKind, version: u32) -> String {
        let base = self.final_section(kind, version);
        match self.options() {
            "" => base,
            opts => format!("{base}!{opts}"),
        }
    }

    /// Prefix of `<prefix>.module_ctor` / `<prefix>.module_dtor`.
    pub fn structor_prefix(self, kind: MetadataKind, version: u32) -> String {
        self.versioned(kind.function_prefix(), version)
    }

    /// LLVM 19 gives structors external hidden linkage (COMDAT keys must not
    /// be local); LLVM 16 leaves them internal.
    pub fn structors_are_hidden_external(self) -> bool {
        self == Encoding::Compact
    }

    /// LLVM 19 only: accesses to non-escaping stack slots and to constant
    /// globals are not shared mutable memory; profile counters count as
    /// atomic; `no_sanitize_thread` clears the atomics feature.
    pub fn refines_atomics(self) -> bool {
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
            Encoding::Native.requested_section(MetadataKind::Covered, v),
            "sanmd_covered"
        );
        assert_eq!(
            Encoding::Native.structor_prefix(MetadataKind::Atomics, v),
            "__sanitizer_metadata_atomics"
        );
        let v = Encoding::Compact.version(Some(CodeModel::Large));
        assert_eq!(v, 65538);
        assert_eq!(
            Encoding::Compact.requested_section(MetadataKind::Atomics, v),
            "sanmd_atomics65538!C"
        );
        assert_eq!(
            Encoding::Compact.final_section(MetadataKind::Covered, 2),
            "sanmd_covered2"
        );
    }
}
