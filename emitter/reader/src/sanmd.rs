//! SanitizerBinaryMetadata's conventions, as LLVM 16 and LLVM 19 implement
//! them: section names, the versions passed to the runtime's callbacks, the
//! feature bits of covered entries and which entry layout each section has.
//! The plugin writes by them, `pcmap` and the C API read by them.
//!
//! ```text
//! section     sanmd_covered, sanmd_atomics              version 1 (LLVM 16)
//!             sanmd_covered<V>, sanmd_atomics<V>         V = 2 (LLVM 19),
//!                                                       | VERSION_PTR_SIZE_REL
//!             <name>!C   LLVM 16's literal name for a `!C` request (raw)
//! callbacks   __sanitizer_metadata_<kind>_add(u32 version, start, stop),
//!             __sanitizer_metadata_<kind>_del(...), called by the structors
//!             __sanitizer_metadata_<kind>[<V>].module_ctor / .module_dtor
//! covered     PC, size, feature mask (u32 in version 1, u64 in 2):
//!             bit 0 atomics, bit 1 UAR, bit 2 UAR has size (version 2);
//!             then the stack-arguments size, if the mask says so
//! atomics     PC
//! ```
//!
//! Entries are decoded with [`pctable`](crate::pctable); [`SanmdSection::layout`]
//! gives their layout.

use core::fmt;

use crate::pctable::{ConstantEncoding, EntryKind, Layout, Result};

/// Feature bits of a covered entry's mask (`kSanitizerBinaryMetadata*`):
/// the function's accesses were analysed for atomics.
pub const FEATURE_ATOMICS: u64 = 1 << 0;
/// The function may leak stack addresses past its return.
pub const FEATURE_UAR: u64 = 1 << 1;
/// LLVM 19: a stack-arguments size follows the feature mask.
pub const FEATURE_UAR_HAS_SIZE: u64 = 1 << 2;

/// The version LLVM 16's pass passes to the callbacks (native encoding).
pub const VERSION_NATIVE: u32 = 1;
/// The version LLVM 19's pass passes (compact encoding, `!C`).
pub const VERSION_COMPACT: u32 = 2;
/// Set in a callback's version when PCs are pointer-sized (medium and large
/// code models; `kVersionPtrSizeRel`).
pub const VERSION_PTR_SIZE_REL: u32 = 1 << 16;
/// The version proper, below the flags.
pub const VERSION_BASE_MASK: u32 = 0xffff;

/// Bytes of the feature mask in a covered entry: an i32 in version 1 (LLVM
/// 16), an i64 from version 2 (LLVM 19).
pub const FEATURE_MASK_BYTES_NATIVE: u8 = 4;
/// Bytes of the feature mask of a compact (version 2) covered entry.
pub const FEATURE_MASK_BYTES_COMPACT: u8 = 8;

/// The option, after `!` in a `!pcsections` section name, that asks LLVM 19
/// for ULEB128 constants (LLVM 16 keeps it in the section's name).
pub const COMPACT_OPTION: &str = "C";
/// A section name's separator before its options.
pub const OPTIONS_SEPARATOR: char = '!';

/// After [`Sanmd::callback_prefix`]: the callback a structor calls when
/// the module is loaded, and when it is unloaded.
pub const ADD_SUFFIX: &str = "_add";
/// The callback a destructor calls (see [`ADD_SUFFIX`]).
pub const DEL_SUFFIX: &str = "_del";
/// After [`SanmdSection::structor_prefix`]: the constructor and the
/// destructor.
pub const CTOR_SUFFIX: &str = ".module_ctor";
/// The destructor's suffix (see [`CTOR_SUFFIX`]).
pub const DTOR_SUFFIX: &str = ".module_dtor";

/// The two kinds of SanitizerBinaryMetadata section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sanmd {
    /// `sanmd_covered*`: one function entry per analysed function.
    Covered,
    /// `sanmd_atomics*`: one instruction entry per atomic access.
    Atomics,
}

impl Sanmd {
    /// The section name before any version number.
    pub fn section_prefix(self) -> &'static str {
        match self {
            Sanmd::Covered => "sanmd_covered",
            Sanmd::Atomics => "sanmd_atomics",
        }
    }

    /// The callbacks' names before `_add`/`_del`, and the structors' names
    /// before any version number.
    pub fn callback_prefix(self) -> &'static str {
        match self {
            Sanmd::Covered => "__sanitizer_metadata_covered",
            Sanmd::Atomics => "__sanitizer_metadata_atomics",
        }
    }
}

/// What a SanitizerBinaryMetadata section's name says about its table.
/// Its [`Display`](fmt::Display) is the name [`parse`](Self::parse) reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SanmdSection {
    /// Covered or atomics.
    pub kind: Sanmd,
    /// The version passed to the callbacks (1: LLVM 16, 2: LLVM 19), with
    /// [`VERSION_PTR_SIZE_REL`] when the name carries it.
    pub version: u32,
    /// The name still has LLVM 16's literal `!C` suffix: fixed widths.
    pub raw: bool,
}

impl SanmdSection {
    /// Recognises `sanmd_covered`, `sanmd_atomics` (version 1) and
    /// `sanmd_covered<V>`, `sanmd_atomics<V>` (LLVM 19), each optionally
    /// followed by `!C`.
    pub fn parse(name: &str) -> Option<SanmdSection> {
        let (base, raw) = match name
            .strip_suffix(COMPACT_OPTION)
            .and_then(|n| n.strip_suffix(OPTIONS_SEPARATOR))
        {
            Some(b) => (b, true),
            None => (name, false),
        };
        let (kind, rest) = if let Some(r) = base.strip_prefix(Sanmd::Covered.section_prefix()) {
            (Sanmd::Covered, r)
        } else if let Some(r) = base.strip_prefix(Sanmd::Atomics.section_prefix()) {
            (Sanmd::Atomics, r)
        } else {
            return None;
        };
        let version = if rest.is_empty() {
            VERSION_NATIVE
        } else if rest.bytes().all(|b| b.is_ascii_digit()) && !rest.starts_with('0') {
            rest.parse().ok()?
        } else {
            return None;
        };
        let section = SanmdSection { kind, version, raw };
        // Numbered exactly from version 2: LLVM 16 names version 1 sections
        // without a number.
        let numbered = !rest.is_empty();
        if section.numbered() != numbered {
            return None;
        }
        Some(section)
    }

    /// Whether names carry the version (LLVM 19 names its sections and
    /// structors after it, so that objects of different versions never
    /// share a section).
    fn numbered(&self) -> bool {
        self.version & VERSION_BASE_MASK >= VERSION_COMPACT
    }

    /// The structors' names before `.module_ctor`/`.module_dtor`.
    pub fn structor_prefix(&self) -> impl fmt::Display {
        Versioned {
            prefix: self.kind.callback_prefix(),
            version: self.numbered().then_some(self.version),
            options: "",
        }
    }

    /// PC width the version implies, if it implies one: pointer-sized with
    /// [`VERSION_PTR_SIZE_REL`]; otherwise it depends on the code model
    /// (LLVM 16 and 19 use 8 on PowerPC64 without a `Code Model` flag).
    pub fn pc_width_from_version(&self) -> Option<u8> {
        (self.version & VERSION_PTR_SIZE_REL != 0).then_some(8)
    }

    /// The entry layout, given the PC width.
    pub fn layout(&self, pc_width: u8) -> Result<Layout> {
        let v1 = self.version & VERSION_BASE_MASK == VERSION_NATIVE;
        let encoding = if v1 || self.raw {
            ConstantEncoding::Fixed
        } else {
            ConstantEncoding::Uleb128
        };
        let covered = |mask| Layout::new(pc_width, EntryKind::Function, encoding, &[mask]);
        match self.kind {
            Sanmd::Atomics => Layout::new(pc_width, EntryKind::Instruction, encoding, &[]),
            // LLVM 16: i32 mask, MachineSanitizerBinaryMetadata adds the
            // stack-arguments size to UAR functions of `sanmd_covered`.
            Sanmd::Covered if v1 => {
                covered(FEATURE_MASK_BYTES_NATIVE).map(|l| l.with_stack_args(FEATURE_UAR))
            }
            // LLVM 16 never matches `sanmd_covered2!C`, so raw entries have
            // none; LLVM 19 marks them with a bit.
            Sanmd::Covered if self.raw => covered(FEATURE_MASK_BYTES_COMPACT),
            Sanmd::Covered => {
                covered(FEATURE_MASK_BYTES_COMPACT).map(|l| l.with_stack_args(FEATURE_UAR_HAS_SIZE))
            }
        }
    }
}

impl fmt::Display for SanmdSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Versioned {
            prefix: self.kind.section_prefix(),
            version: self.numbered().then_some(self.version),
            options: if self.raw { COMPACT_OPTION } else { "" },
        }
        .fmt(f)
    }
}

/// `prefix[version][!options]`.
struct Versioned {
    prefix: &'static str,
    version: Option<u32>,
    options: &'static str,
}

impl fmt::Display for Versioned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix)?;
        if let Some(v) = self.version {
            write!(f, "{v}")?;
        }
        if !self.options.is_empty() {
            write!(f, "{OPTIONS_SEPARATOR}{}", self.options)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pctable::{Entry, Error, PcTable};
    use crate::{BigEndian, LittleEndian};
    use alloc::string::ToString;
    use alloc::vec::Vec;

    fn covered_compact(pc: u8) -> Layout {
        SanmdSection::parse("sanmd_covered2")
            .unwrap()
            .layout(pc)
            .unwrap()
    }

    #[test]
    fn llvm19_covered_bytes() {
        // From clang-19 -fexperimental-sanitize-metadata on x86_64: PC (0
        // before relocation), ULEB size 0x0d, ULEB mask 1; then a UAR entry.
        let data = [0, 0, 0, 0, 0x0d, 1, 0, 0, 0, 0, 0x19, 3];
        let t = PcTable::new(&data, LittleEndian, covered_compact(4)).unwrap();
        let e: Vec<Entry> = t.entries().collect::<Result<_>>().unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].size, e[0].constants()), (Some(13), &[1u64][..]));
        assert_eq!((e[1].offset, e[1].size), (6, Some(25)));
        assert_eq!(e[1].constants(), &[3]);
        assert_eq!(e[1].stack_args, None);
    }

    #[test]
    fn pc_is_entry_plus_stored_delta() {
        let mut data = [0u8; 8];
        data[4..].copy_from_slice(&(-0x40i32).to_be_bytes());
        let l = SanmdSection::parse("sanmd_atomics2")
            .unwrap()
            .layout(4)
            .unwrap();
        let t = PcTable::new(&data, BigEndian, l).unwrap();
        let e = t.entry_at(4).unwrap();
        assert_eq!(e.pc(0x1000), 0x1000 + 4 - 0x40);
    }

    #[test]
    fn native_uar_entries_carry_stack_args() {
        let l = SanmdSection::parse("sanmd_covered")
            .unwrap()
            .layout(4)
            .unwrap();
        let mut data = Vec::new();
        for (size, mask) in [(16u32, 1u32), (32, 3)] {
            data.extend_from_slice(&0u32.to_le_bytes());
            data.extend_from_slice(&size.to_le_bytes());
            data.extend_from_slice(&mask.to_le_bytes());
        }
        data.extend_from_slice(&8u32.to_le_bytes());
        let t = PcTable::new(&data, LittleEndian, l).unwrap();
        let e: Vec<Entry> = t.entries().collect::<Result<_>>().unwrap();
        assert_eq!(e[1].stack_args, Some(8));
        assert_eq!(e[0].stack_args, None);
    }

    #[test]
    fn not_a_whole_number_of_entries() {
        let l = SanmdSection::parse("sanmd_covered2!C")
            .unwrap()
            .layout(8)
            .unwrap();
        assert_eq!(l.fixed_entry_size(), Some(20));
        assert_eq!(
            PcTable::new(&[0; 30], LittleEndian, l).unwrap_err(),
            Error::NotMultiple {
                size: 30,
                entry_size: 20
            }
        );
    }

    #[test]
    fn names() {
        let s = SanmdSection::parse("sanmd_covered65538!C").unwrap();
        assert_eq!((s.kind, s.version, s.raw), (Sanmd::Covered, 65538, true));
        assert_eq!(s.pc_width_from_version(), Some(8));
        assert_eq!(SanmdSection::parse("sanmd_atomics").unwrap().version, 1);
        for bad in [
            "sanmd_coveredx",
            "sanmd_covered1",
            "sanmd_covered02",
            "sanmd_",
            "x",
        ] {
            assert_eq!(SanmdSection::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_are_written_as_they_are_read() {
        for name in [
            "sanmd_covered",
            "sanmd_atomics",
            "sanmd_covered!C",
            "sanmd_covered2",
            "sanmd_atomics2!C",
            "sanmd_covered65538",
            "sanmd_atomics65538!C",
        ] {
            let s = SanmdSection::parse(name).unwrap();
            assert_eq!(s.to_string(), name);
        }
        // The plugin's names for each encoding and code model.
        let native = |kind, version| SanmdSection {
            kind,
            version,
            raw: false,
        };
        assert_eq!(native(Sanmd::Covered, 65537).to_string(), "sanmd_covered");
        assert_eq!(
            native(Sanmd::Atomics, 65537).structor_prefix().to_string(),
            "__sanitizer_metadata_atomics"
        );
        let compact = SanmdSection {
            kind: Sanmd::Covered,
            version: VERSION_COMPACT,
            raw: true,
        };
        assert_eq!(compact.to_string(), "sanmd_covered2!C");
        assert_eq!(
            compact.structor_prefix().to_string(),
            "__sanitizer_metadata_covered2"
        );
    }
}
