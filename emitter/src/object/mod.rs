//! The object being read or rewritten: one parse of an ELF64 file with what
//! both pipelines (stack maps, PC tables) ask of it — its byte order and
//! target, its function symbols (ELFv1 `.opd` descriptors resolved to code),
//! where an address of a linked file is, and what a relocation points at.
//!
//! ```text
//!  bytes ─▶ check::section_headers ─▶ object::File ─▶ ObjectFile
//!                                                     ├ target, endian, relocatable
//!                                                     ├ functions   (functions.rs)
//!                                                     ├ loc_of_address, resolve_opd
//!                                                     └ relocations (per section, resolved)
//! ```
//!
//! Its neighbours: `cfi` (frame facts from `.eh_frame`), `instructions` (the
//! instruction rules pcmap needs), `rewrite` (writing a changed copy through
//! `object`'s builder) and `check` (the structure of inputs and outputs).

pub mod cfi;
pub mod check;
pub mod functions;
pub mod instructions;
pub mod rewrite;
pub mod target;
// A fast path in front of iced-x86, kept for its figure: without it emit takes 1.12x the time on the mixed-kind shape (docs/benchmarks.md).
mod x86_length;

use std::collections::HashMap;

use object::{
    Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget,
    SectionIndex, SymbolKind,
};
use pcmap_reader::RunTimeEndian;

pub use functions::{Function, Functions};
pub use target::Target;

use crate::error::Result;

/// ELFv1 function descriptors.
pub const OPD: &str = ".opd";

/// A section name for a one-line message: not UTF-8 replaced, control
/// characters (a newline) escaped.
pub fn printable(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len());
    for c in String::from_utf8_lossy(name).chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A place in the object's code: section and offset in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeLoc {
    pub section: SectionIndex,
    pub offset: u64,
}

/// A relocation, resolved: its type, the symbol it names, and the place that
/// symbol plus the addend is (when the symbol is defined in a section).
#[derive(Debug, Clone, Copy)]
pub struct Reloc {
    pub r_type: u32,
    pub symbol: Option<object::SymbolIndex>,
    pub target: Option<CodeLoc>,
}

/// The relocations of one section by the offset they apply to: sorted by
/// offset, found by binary search. Tables are read front to back, so
/// successive lookups land beside each other in memory (a hash map of
/// 100,000 relocations cost a cache miss per lookup). Of several
/// relocations at one offset, the last in the section counts.
#[derive(Debug, Default, Clone)]
pub struct Relocations(Vec<(u64, Reloc)>, std::cell::Cell<usize>);

impl Relocations {
    pub fn new() -> Relocations {
        Relocations::default()
    }

    /// The relocation at `offset`. Asked in increasing order (a table's
    /// functions), the answer is most often the relocation after the last
    /// one found: no search, no cache miss.
    pub fn get(&self, offset: &u64) -> Option<&Reloc> {
        let next = self.1.get().wrapping_add(1);
        let i = match self.0.get(next) {
            Some((at, _)) if at == offset => next,
            _ => self.0.partition_point(|r| r.0 <= *offset).checked_sub(1)?,
        };
        let (at, r) = &self.0[i];
        self.1.set(i);
        (at == offset).then_some(r)
    }

    /// Every relocation, by offset.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &Reloc)> {
        self.0.iter().map(|(at, r)| (at, r))
    }

    /// Every relocation, by offset.
    pub fn values(&self) -> impl Iterator<Item = &Reloc> {
        self.0.iter().map(|(_, r)| r)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(u64, Reloc)> for Relocations {
    fn from_iter<I: IntoIterator<Item = (u64, Reloc)>>(iter: I) -> Relocations {
        let mut v: Vec<(u64, Reloc)> = iter.into_iter().collect();
        // Stable: of equal offsets the last stays last, and is kept.
        if !v.windows(2).all(|w| w[0].0 < w[1].0) {
            v.sort_by_key(|r| r.0);
            let mut out: Vec<(u64, Reloc)> = Vec::with_capacity(v.len());
            for r in v {
                match out.last_mut() {
                    Some(last) if last.0 == r.0 => *last = r,
                    _ => out.push(r),
                }
            }
            v = out;
        }
        Relocations(v, std::cell::Cell::new(usize::MAX))
    }
}

/// An ELF64 object or linked file, parsed once.
pub struct ObjectFile<'d> {
    pub file: object::File<'d>,
    pub data: &'d [u8],
    pub target: Target,
    pub endian: RunTimeEndian,
    /// A `.o` (relocations say where things are) rather than a linked file
    /// (addresses do).
    pub relocatable: bool,
    pub functions: Functions<'d>,
    opd: Option<SectionIndex>,
    /// `.opd`'s relocations, in an object (each descriptor's code).
    opd_relocs: Relocations,
    /// A linked file's dynamic relocations: the value each writes at its
    /// address (built when first asked).
    dynamic: std::sync::OnceLock<HashMap<u64, u64>>,
}

impl<'d> ObjectFile<'d> {
    /// Parses `data`, checking its section headers first (errors name the
    /// section), and indexes its functions.
    pub fn parse(data: &'d [u8]) -> Result<ObjectFile<'d>> {
        let file = object::File::parse(data)?;
        check::section_headers(data, &file)?;
        let target = Target::of(&file)?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let relocatable = file.kind() == object::ObjectKind::Relocatable;
        let opd = file.section_by_name(OPD).map(|s| s.index());
        let mut o = ObjectFile {
            file,
            data,
            target,
            endian,
            relocatable,
            functions: Functions::default(),
            opd,
            opd_relocs: Relocations::new(),
            dynamic: std::sync::OnceLock::new(),
        };
        if let (Some(opd), true) = (o.file.section_by_name(OPD), relocatable) {
            o.opd_relocs = o.relocations(&opd);
        }
        o.functions = Functions::new(&o);
        Ok(o)
    }

    /// The name of section `index`, for messages.
    pub fn section_name(&self, index: SectionIndex) -> String {
        section_name(&self.file, index.0)
    }

    /// Whether `section` is `.opd` (ELFv1: its "functions" are descriptors).
    pub fn is_opd(&self, section: SectionIndex) -> bool {
        Some(section) == self.opd
    }

    /// `address` (a symbol's value, or an address of a linked file) as a
    /// place in `section`.
    pub fn loc_in(&self, section: SectionIndex, address: u64) -> CodeLoc {
        let base = self
            .file
            .section_by_index(section)
            .map(|s| s.address())
            .unwrap_or(0);
        CodeLoc {
            section,
            offset: address.wrapping_sub(base),
        }
    }

    /// The non-empty section holding `address` in a linked file.
    pub fn loc_of_address(&self, address: u64) -> Option<CodeLoc> {
        self.file
            .sections()
            .find(|s| s.size() > 0 && s.address() <= address && address - s.address() < s.size())
            .map(|s| CodeLoc {
                section: s.index(),
                offset: address - s.address(),
            })
    }

    /// The code the ELFv1 descriptor at `loc` (in `.opd`) points to: the
    /// relocation of its first word in an object; in a linked file, that
    /// word, or (a shared object, whose `.opd` is relocated at load time)
    /// the addend of the dynamic relocation there.
    pub fn resolve_opd(&self, loc: CodeLoc) -> Option<CodeLoc> {
        if self.relocatable {
            return self.opd_relocs.get(&loc.offset)?.target;
        }
        let opd = self.file.section_by_index(loc.section).ok()?;
        let data = opd.data().ok()?;
        let at = usize::try_from(loc.offset).ok()?;
        let bytes: [u8; 8] = data.get(at..at.checked_add(8)?)?.try_into().ok()?;
        let word = match self.endian {
            RunTimeEndian::Little => u64::from_le_bytes(bytes),
            RunTimeEndian::Big => u64::from_be_bytes(bytes),
        };
        let code = match word {
            0 => self.dynamic_value(opd.address().checked_add(loc.offset)?)?,
            w => w,
        };
        self.loc_of_address(code)
    }

    /// What the dynamic relocation at `address` of a linked file writes
    /// there at load time (load address 0): a relative relocation's addend,
    /// or a defined symbol's value plus the addend. A shared object's
    /// absolute addresses (LLVM's stack map table, ELFv1 `.opd`) are 0 in
    /// the file and known only this way.
    pub fn dynamic_value(&self, address: u64) -> Option<u64> {
        self.dynamic
            .get_or_init(|| {
                let Some(relocs) = self.file.dynamic_relocations() else {
                    return HashMap::new();
                };
                let symbols = self.file.dynamic_symbol_table();
                relocs
                    .filter_map(|(offset, r)| {
                        let base = match r.target() {
                            RelocationTarget::Symbol(i) => {
                                let sym = symbols.as_ref()?.symbol_by_index(i).ok()?;
                                if sym.is_undefined() {
                                    return None;
                                }
                                sym.address()
                            }
                            RelocationTarget::Absolute => 0,
                            _ => return None,
                        };
                        Some((offset, base.wrapping_add(r.addend() as u64)))
                    })
                    .collect()
            })
            .get(&address)
            .copied()
    }

    /// Every relocation of `section`, resolved, by offset.
    pub fn relocations(&self, section: &object::Section<'d, '_>) -> Relocations {
        section
            .relocations()
            .map(|(offset, r)| (offset, self.resolve(&r)))
            .collect()
    }

    /// What a relocation points at.
    pub fn resolve(&self, r: &object::Relocation) -> Reloc {
        let r_type = match r.flags() {
            RelocationFlags::Elf { r_type } => r_type.0,
            _ => 0,
        };
        let (symbol, target) = match r.target() {
            RelocationTarget::Symbol(i) => {
                let target = self.file.symbol_by_index(i).ok().and_then(|s| {
                    Some(CodeLoc {
                        section: s.section_index()?,
                        offset: s.address().wrapping_add(r.addend() as u64),
                    })
                });
                (Some(i), target)
            }
            _ => (None, None),
        };
        Reloc {
            r_type,
            symbol,
            target,
        }
    }

    /// The name a relocation's symbol goes by: its section's for a section
    /// symbol (lossily, if not UTF-8).
    pub fn symbol_name(&self, index: object::SymbolIndex) -> Option<String> {
        let sym = self.file.symbol_by_index(index).ok()?;
        if sym.kind() == SymbolKind::Section {
            let s = self.file.section_by_index(sym.section_index()?).ok()?;
            return Some(String::from_utf8_lossy(s.name_bytes().ok()?).into_owned());
        }
        Some(String::from_utf8_lossy(sym.name_bytes().ok()?).into_owned())
    }
}

/// Whether `section` is the section called `name` that LLVM or the plugin
/// write (`.llvm_stackmaps`, `.pcmap.sites`, `.pcmap.layout`, a PC
/// section): one of contents, `SHT_PROGBITS`. A section of another type
/// under that name (a relocation section or a group so named) is not what
/// pcmap reads or removes: it is kept as any other section.
pub fn is_named_contents(section: &object::Section<'_, '_>, name: &str) -> bool {
    section.name_bytes().ok() == Some(name.as_bytes()) && is_contents(section)
}

/// Whether `section` is of type `SHT_PROGBITS`: what every section pcmap
/// reads by name is ([`is_named_contents`]).
pub fn is_contents(section: &object::Section<'_, '_>) -> bool {
    matches!(
        section.flags(),
        object::SectionFlags::Elf { sh_type, .. } if sh_type == object::elf::SHT_PROGBITS
    )
}

/// The name of section `index` of `file`, for messages.
pub fn section_name(file: &object::File<'_>, index: usize) -> String {
    let section = file.section_by_index(SectionIndex(index)).ok();
    check::section_label(section.as_ref().and_then(|s| s.name_bytes().ok()), index)
}
