//! PC tables: the sections LLVM's `AsmPrinter::emitPCSections` writes for
//! `!pcsections` metadata, and the ones `pcmap emit` finishes
//! (`docs/pctables.md`).
//!
//! A table is a run of entries without padding or header. One entry:
//!
//! ```text
//! entry ─▶ PC           pc − entry, signed: 4 bytes (small/kernel code
//!                       model) or 8 (medium/large); decode: entry + *entry
//!          size         function entries only: u32, or ULEB128 with `!C`
//!          constant…    each as wide as its IR type; with `!C` those of
//!                       2..=8 bytes are ULEB128
//!          stack args   SanitizerBinaryMetadata covered entries only, when
//!                       the feature mask (constant 0) has `stack_args` bit
//! ```
//!
//! Three encodings of the same entries exist: *raw* (what LLVM 16 writes for
//! a `name!C` request: fixed widths, options ignored), *native* (LLVM 16's
//! own sections: fixed widths) and *compact* (LLVM 19 with `!C`: ULEB128).
//! [`Layout`] describes one; [`PcTable`] decodes a section with it.

use crate::endian::Bytes;
use crate::leb128::LebError;
use crate::Endian;
use core::fmt;

/// Most constants an entry may carry (ours: 1; room for generic sections).
pub const MAX_CONSTANTS: usize = 8;

/// Bytes of a function-size field as LLVM writes it without `!C`.
pub const FUNCTION_SIZE_BYTES: u8 = 4;

/// Bytes of the stack-arguments size LLVM's MachineSanitizerBinaryMetadata
/// appends (an `i32` constant).
pub const STACK_ARGS_BYTES: u8 = 4;

/// Longest ULEB128 encoding of a `u64`.
pub const MAX_ULEB128_LEN: usize = crate::leb128::MAX_LEN;

/// Why a PC table could not be read. Offsets are from the section start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The entry starting at `offset` runs past the end of the section.
    Truncated {
        /// Byte offset.
        offset: usize,
    },
    /// A fixed-size layout, but the section is not a whole number of entries.
    NotMultiple {
        /// Size in bytes.
        size: usize,
        /// Bytes of one entry.
        entry_size: usize,
    },
    /// A ULEB128 value at `offset` does not fit in 64 bits.
    Uleb128Overflow {
        /// Byte offset.
        offset: usize,
    },
    /// A PC width other than 4 or 8.
    BadPcWidth(u8),
    /// A constant width of 0 or more than 8 bytes.
    BadConstantWidth(u8),
    /// More than [`MAX_CONSTANTS`] constants per entry.
    TooManyConstants(usize),
}

/// The PC tables' result: [`Error`] by default.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated { offset } => {
                write!(
                    f,
                    "truncated PC table: entry at offset {offset} runs past the end"
                )
            }
            Error::NotMultiple { size, entry_size } => write!(
                f,
                "PC table of {size} bytes is not a whole number of {entry_size}-byte entries"
            ),
            Error::Uleb128Overflow { offset } => {
                write!(f, "ULEB128 value at offset {offset} exceeds 64 bits")
            }
            Error::BadPcWidth(w) => write!(f, "PC width {w} (expected 4 or 8)"),
            Error::BadConstantWidth(w) => write!(f, "constant width {w} (expected 1..=8)"),
            Error::TooManyConstants(n) => {
                write!(f, "{n} constants per entry (at most {MAX_CONSTANTS})")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// What each entry's PC points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A function start; a function-size field follows the PC.
    Function,
    /// One instruction.
    Instruction,
}

impl EntryKind {
    /// Bytes of the function-size field as LLVM writes it without `!C`: 0
    /// for instruction entries, which have none.
    pub fn size_field_bytes(self) -> u8 {
        match self {
            EntryKind::Function => FUNCTION_SIZE_BYTES,
            EntryKind::Instruction => 0,
        }
    }
}

/// LLVM's code models (the `Code Model` module flag), which decide the
/// width of the PC fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeModel {
    /// `-code-model=tiny`.
    Tiny,
    /// `-code-model=small` (the default).
    Small,
    /// `-code-model=kernel`.
    Kernel,
    /// `-code-model=medium`.
    Medium,
    /// `-code-model=large`.
    Large,
}

impl CodeModel {
    /// LLVM's name, as in `-code-model=`.
    pub fn name(self) -> &'static str {
        match self {
            CodeModel::Tiny => "tiny",
            CodeModel::Small => "small",
            CodeModel::Kernel => "kernel",
            CodeModel::Medium => "medium",
            CodeModel::Large => "large",
        }
    }

    /// The code model LLVM names `name`, if any.
    pub fn from_name(name: &str) -> Option<CodeModel> {
        [
            CodeModel::Tiny,
            CodeModel::Small,
            CodeModel::Kernel,
            CodeModel::Medium,
            CodeModel::Large,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }

    /// Whether LLVM writes pointer-sized PC fields (and SanitizerBinaryMetadata
    /// sets `VERSION_PTR_SIZE_REL`).
    pub const fn pointer_sized_pcs(self) -> bool {
        matches!(self, CodeModel::Medium | CodeModel::Large)
    }
}

/// Bytes of each PC field as LLVM's AsmPrinter writes it: 8 for the medium
/// and large code models. Without a `Code Model` module flag the target's
/// default model applies, which is medium on 64-bit PowerPC and small
/// elsewhere (LLVM 16 and 19).
pub const fn pc_width(code_model: Option<CodeModel>, powerpc64: bool) -> u8 {
    match code_model {
        Some(m) if m.pointer_sized_pcs() => 8,
        Some(_) => 4,
        None if powerpc64 => 8,
        None => 4,
    }
}

/// [`pc_width`] for a module's target triple.
pub fn pc_width_for_triple(code_model: Option<CodeModel>, triple: &str) -> u8 {
    let powerpc64 = triple.starts_with("powerpc64") || triple.starts_with("ppc64");
    pc_width(code_model, powerpc64)
}

/// How constants (and the function size) are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantEncoding {
    /// At their IR width, in the object's byte order (raw and native).
    Fixed,
    /// `!C`: those of 2..=8 bytes as ULEB128, 1-byte ones as they are.
    Uleb128,
}

impl ConstantEncoding {
    /// Whether a field of `width` bytes is stored as ULEB128.
    pub fn is_uleb128(self, width: u8) -> bool {
        self == ConstantEncoding::Uleb128 && (2..=8).contains(&width)
    }
}

/// The layout of every entry of one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pc_width: u8,
    kind: EntryKind,
    encoding: ConstantEncoding,
    aux: [u8; MAX_CONSTANTS],
    aux_len: u8,
    stack_args_bit: u64,
}

impl Layout {
    /// `aux`: byte width of each constant after the PC (and size).
    pub fn new(
        pc_width: u8,
        kind: EntryKind,
        encoding: ConstantEncoding,
        aux: &[u8],
    ) -> Result<Layout> {
        if pc_width != 4 && pc_width != 8 {
            return Err(Error::BadPcWidth(pc_width));
        }
        if aux.len() > MAX_CONSTANTS {
            return Err(Error::TooManyConstants(aux.len()));
        }
        let mut widths = [0; MAX_CONSTANTS];
        for (w, &a) in widths.iter_mut().zip(aux) {
            if !(1..=8).contains(&a) {
                return Err(Error::BadConstantWidth(a));
            }
            *w = a;
        }
        Ok(Layout {
            pc_width,
            kind,
            encoding,
            aux: widths,
            aux_len: aux.len() as u8,
            stack_args_bit: 0,
        })
    }

    /// Entries whose first constant has `bit` set carry a stack-arguments
    /// size after their constants (SanitizerBinaryMetadata covered entries).
    pub fn with_stack_args(mut self, bit: u64) -> Layout {
        if self.aux_len > 0 {
            self.stack_args_bit = bit;
        }
        self
    }

    /// Bytes of an entry's PC field (4 or 8).
    pub fn pc_width(&self) -> u8 {
        self.pc_width
    }
    /// What an entry holds.
    pub fn kind(&self) -> EntryKind {
        self.kind
    }
    /// How the entries' constants are stored.
    pub fn encoding(&self) -> ConstantEncoding {
        self.encoding
    }
    /// Widths of the auxiliary constants, in bytes.
    pub fn aux(&self) -> &[u8] {
        &self.aux[..usize::from(self.aux_len)]
    }
    /// The feature bit after which a stack-arguments size follows.
    pub fn stack_args_bit(&self) -> u64 {
        self.stack_args_bit
    }

    /// The same entries with another constant encoding (raw → compact).
    pub fn with_encoding(mut self, encoding: ConstantEncoding) -> Layout {
        self.encoding = encoding;
        self
    }

    /// Bytes per entry when every entry has the same size.
    pub fn fixed_entry_size(&self) -> Option<usize> {
        if self.stack_args_bit != 0 {
            return None;
        }
        let mut n = usize::from(self.pc_width);
        if self.kind == EntryKind::Function {
            if self.encoding.is_uleb128(FUNCTION_SIZE_BYTES) {
                return None;
            }
            n += usize::from(FUNCTION_SIZE_BYTES);
        }
        for &w in self.aux() {
            if self.encoding.is_uleb128(w) {
                return None;
            }
            n += usize::from(w);
        }
        Some(n)
    }
}

/// One decoded entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Offset of the entry (its PC field) in the section.
    pub offset: usize,
    /// Bytes the entry occupies.
    pub len: usize,
    /// The PC field: `pc − (section address + offset)`, sign-extended. In a
    /// relocatable object it is 0 until the relocation is applied.
    pub pc_delta: i64,
    /// Function entries: the function's size in bytes.
    pub size: Option<u64>,
    constants: [u64; MAX_CONSTANTS],
    count: u8,
    /// The stack-arguments size, when the layout and feature mask say so.
    pub stack_args: Option<u64>,
}

impl Entry {
    /// The entry's constants, in order.
    pub fn constants(&self) -> &[u64] {
        &self.constants[..usize::from(self.count)]
    }

    /// The PC, given the address the section is loaded at.
    pub fn pc(&self, section_address: u64) -> u64 {
        section_address
            .wrapping_add(self.offset as u64)
            .wrapping_add(self.pc_delta as u64)
    }
}

/// Reads the ULEB128 value at `offset`: the value and its length
/// ([`crate::leb128`], with this module's errors).
pub fn read_uleb128(data: &[u8], offset: usize) -> Result<(u64, usize)> {
    crate::leb128::read_uleb128(data, offset).map_err(|e| match e {
        LebError::Truncated => Error::Truncated { offset },
        LebError::Overflow => Error::Uleb128Overflow { offset },
    })
}

pub use crate::leb128::write_uleb128;

/// A PC table over borrowed section bytes.
#[derive(Debug, Clone, Copy)]
pub struct PcTable<'a, E> {
    bytes: Bytes<'a, E>,
    layout: Layout,
}

impl<'a, E: Endian> PcTable<'a, E> {
    /// Checks what can be checked without decoding: a fixed-size layout
    /// must divide the section.
    pub fn new(data: &'a [u8], endian: E, layout: Layout) -> Result<Self> {
        if let Some(entry_size) = layout.fixed_entry_size() {
            // `is_multiple_of` is newer than our MSRV.
            if data.len().checked_rem(entry_size) != Some(0) {
                return Err(Error::NotMultiple {
                    size: data.len(),
                    entry_size,
                });
            }
        }
        Ok(PcTable {
            bytes: Bytes::new(data, endian),
            layout,
        })
    }

    /// How the table's entries are laid out.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The entries in order; after an error, none.
    pub fn entries(&self) -> Entries<'a, E> {
        Entries {
            table: *self,
            offset: 0,
            failed: false,
        }
    }

    /// Decodes the entry at `offset`.
    pub fn entry_at(&self, offset: usize) -> Result<Entry> {
        let l = &self.layout;
        let truncated = |_| Error::Truncated { offset };
        let pc_delta = match l.pc_width {
            4 => i64::from(self.bytes.i32(offset).map_err(truncated)?),
            _ => self.bytes.u64(offset).map_err(truncated)? as i64,
        };
        let mut at = offset + usize::from(l.pc_width);
        let size = match l.kind {
            EntryKind::Function => Some(self.field(&mut at, FUNCTION_SIZE_BYTES, offset)?),
            EntryKind::Instruction => None,
        };
        let mut constants = [0; MAX_CONSTANTS];
        for (c, &w) in constants.iter_mut().zip(l.aux()) {
            *c = self.field(&mut at, w, offset)?;
        }
        let stack_args = if l.stack_args_bit != 0 && constants[0] & l.stack_args_bit != 0 {
            Some(self.field(&mut at, STACK_ARGS_BYTES, offset)?)
        } else {
            None
        };
        Ok(Entry {
            offset,
            len: at - offset,
            pc_delta,
            size,
            constants,
            count: l.aux_len,
            stack_args,
        })
    }

    /// Reads one size or constant field of `width` bytes at `*at`.
    fn field(&self, at: &mut usize, width: u8, entry: usize) -> Result<u64> {
        let truncated = |_| Error::Truncated { offset: entry };
        if self.layout.encoding.is_uleb128(width) {
            let (v, n) = read_uleb128(self.bytes.data, *at).map_err(|e| match e {
                Error::Uleb128Overflow { offset } => Error::Uleb128Overflow { offset },
                _ => Error::Truncated { offset: entry },
            })?;
            *at += n;
            return Ok(v);
        }
        let s = self
            .bytes
            .slice(*at, usize::from(width))
            .map_err(truncated)?;
        *at += usize::from(width);
        let mut v = 0u64;
        for i in 0..s.len() {
            let b = if self.bytes.endian.is_big_endian() {
                s[i]
            } else {
                s[s.len() - 1 - i]
            };
            v = (v << 8) | u64::from(b);
        }
        Ok(v)
    }
}

/// Iterator over a table's entries.
#[derive(Debug, Clone)]
pub struct Entries<'a, E> {
    table: PcTable<'a, E>,
    offset: usize,
    failed: bool,
}

impl<E: Endian> Iterator for Entries<'_, E> {
    type Item = Result<Entry>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.table.bytes.data.len() {
            return None;
        }
        match self.table.entry_at(self.offset) {
            Ok(e) => {
                self.offset += e.len;
                Some(Ok(e))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BigEndian, LittleEndian};
    use alloc::vec::Vec;
    use proptest::prelude::*;

    #[test]
    fn pc_widths() {
        assert_eq!(
            pc_width_for_triple(None, "powerpc64le-unknown-linux-gnu"),
            8
        );
        assert_eq!(pc_width_for_triple(None, "x86_64-unknown-linux-gnu"), 4);
        assert_eq!(pc_width_for_triple(Some(CodeModel::Large), "x86_64"), 8);
        assert_eq!(pc_width_for_triple(Some(CodeModel::Small), "ppc64"), 4);
        for m in [CodeModel::Tiny, CodeModel::Kernel, CodeModel::Medium] {
            assert_eq!(CodeModel::from_name(m.name()), Some(m));
        }
        assert_eq!(CodeModel::from_name("default"), None);
    }

    #[test]
    fn uleb128_edges() {
        let mut buf = [0; MAX_ULEB128_LEN];
        for v in [0, 1, 127, 128, 624485, u64::MAX] {
            let n = write_uleb128(v, &mut buf);
            assert_eq!(read_uleb128(&buf[..n], 0), Ok((v, n)));
            // Every strict prefix is truncated.
            for k in 0..n {
                assert_eq!(
                    read_uleb128(&buf[..k], 0),
                    Err(Error::Truncated { offset: 0 })
                );
            }
        }
        assert_eq!(write_uleb128(624485, &mut buf), 3);
        assert_eq!(&buf[..3], &[0xe5, 0x8e, 0x26]);
        let too_big = [0xff; 9].iter().chain(&[0x02]).copied().collect::<Vec<_>>();
        assert_eq!(
            read_uleb128(&too_big, 0),
            Err(Error::Uleb128Overflow { offset: 0 })
        );
        assert_eq!(
            read_uleb128(&[0x80; 11], 0),
            Err(Error::Uleb128Overflow { offset: 0 })
        );
    }

    #[test]
    fn bad_layouts() {
        use ConstantEncoding::Fixed;
        assert_eq!(
            Layout::new(2, EntryKind::Function, Fixed, &[]),
            Err(Error::BadPcWidth(2))
        );
        assert_eq!(
            Layout::new(4, EntryKind::Function, Fixed, &[9]),
            Err(Error::BadConstantWidth(9))
        );
        assert_eq!(
            Layout::new(4, EntryKind::Function, Fixed, &[1; 9]),
            Err(Error::TooManyConstants(9))
        );
    }

    /// Encodes entries the way AsmPrinter::emitPCSections does.
    fn encode(l: &Layout, entries: &[(i64, u64, Vec<u64>)], big: bool) -> Vec<u8> {
        let mut out = Vec::new();
        // The PC field is never ULEB128.
        let put = |out: &mut Vec<u8>, v: u64, w: u8, pc: bool| {
            if !pc && l.encoding().is_uleb128(w) {
                let mut b = [0; MAX_ULEB128_LEN];
                let n = write_uleb128(v, &mut b);
                out.extend_from_slice(&b[..n]);
            } else {
                let bytes = v.to_be_bytes();
                let mut f = bytes[8 - usize::from(w)..].to_vec();
                if !big {
                    f.reverse();
                }
                out.extend_from_slice(&f);
            }
        };
        for (pc, size, consts) in entries {
            put(
                &mut out,
                *pc as u64 & mask(l.pc_width()),
                l.pc_width(),
                true,
            );
            if l.kind() == EntryKind::Function {
                put(&mut out, *size, FUNCTION_SIZE_BYTES, false);
            }
            for (c, &w) in consts.iter().zip(l.aux()) {
                put(&mut out, *c, w, false);
            }
        }
        out
    }

    fn mask(w: u8) -> u64 {
        if w == 8 {
            u64::MAX
        } else {
            (1 << (8 * w)) - 1
        }
    }

    fn arb_layout() -> impl Strategy<Value = Layout> {
        (
            prop_oneof![Just(4u8), Just(8u8)],
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(1u8..=8, 0..4),
        )
            .prop_map(|(pc, func, uleb, aux)| {
                let kind = if func {
                    EntryKind::Function
                } else {
                    EntryKind::Instruction
                };
                let enc = if uleb {
                    ConstantEncoding::Uleb128
                } else {
                    ConstantEncoding::Fixed
                };
                Layout::new(pc, kind, enc, &aux).unwrap()
            })
    }

    proptest! {
        #[test]
        fn decode_what_was_encoded(
            l in arb_layout(),
            raw in proptest::collection::vec((any::<i32>(), any::<u32>(), proptest::collection::vec(any::<u64>(), 4)), 0..20),
            big in any::<bool>(),
        ) {
            let entries: Vec<(i64, u64, Vec<u64>)> = raw.iter().map(|(pc, size, c)| {
                let consts = c.iter().zip(l.aux()).map(|(v, &w)| v & mask(w)).collect();
                (i64::from(*pc), u64::from(*size), consts)
            }).collect();
            let bytes = encode(&l, &entries, big);
            let decoded: Vec<Entry> = if big {
                PcTable::new(&bytes, BigEndian, l).unwrap().entries().collect::<Result<_>>().unwrap()
            } else {
                PcTable::new(&bytes, LittleEndian, l).unwrap().entries().collect::<Result<_>>().unwrap()
            };
            prop_assert_eq!(decoded.len(), entries.len());
            for (d, (pc, size, consts)) in decoded.iter().zip(&entries) {
                prop_assert_eq!(d.pc_delta, *pc);
                if l.kind() == EntryKind::Function {
                    prop_assert_eq!(d.size, Some(*size));
                }
                prop_assert_eq!(d.constants(), &consts[..]);
            }
            // Every strict prefix fails cleanly or decodes fewer entries.
            for n in 0..bytes.len() {
                if let Ok(t) = PcTable::new(&bytes[..n], LittleEndian, l) {
                    let got: Vec<_> = t.entries().collect();
                    prop_assert!(got.iter().filter(|e| e.is_ok()).count() <= entries.len());
                }
            }
        }

        #[test]
        fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), l in arb_layout()) {
            if let Ok(t) = PcTable::new(&bytes, BigEndian, l.with_stack_args(1)) {
                for e in t.entries().flatten() {
                    prop_assert!(e.offset + e.len <= bytes.len());
                }
            }
            let _ = read_uleb128(&bytes, 3);
        }
    }
}
