//! The object or linked file, parsed once: its byte order and target, its
//! function symbols, where an address of a linked file is, and what a
//! relocation points at.

use std::collections::HashMap;

use object::{
    Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget,
    SectionIndex, SymbolKind,
};
use pcmap_reader::RunTimeEndian;

use super::check;
use super::functions::{Functions, Symbol};
use super::relocations::{Reloc, Relocations};
use super::section::{section_name, CodeLoc};
use super::target::Target;
use crate::error::Result;

/// ELFv1 function descriptors.
pub const OPD: &str = ".opd";

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
        o.functions = Functions::new(o.function_symbols());
        Ok(o)
    }

    /// Every function symbol (`STT_FUNC`) as a place in its code section
    /// (an ELFv1 descriptor's through `.opd`), by section index, for
    /// [`Functions`].
    fn function_symbols(&self) -> Vec<Vec<Symbol<'d>>> {
        let mut all: Vec<Vec<Symbol<'d>>> = Vec::new();
        for (n, sym) in self.file.symbols().enumerate() {
            let (Some(section), SymbolKind::Text) = (sym.section_index(), sym.kind()) else {
                continue;
            };
            let Ok(name) = sym.name_bytes() else { continue };
            let mut loc = Some(self.loc_in(section, sym.address()));
            if self.is_opd(section) {
                loc = loc.and_then(|l| self.resolve_opd(l));
            }
            if let Some(l) = loc {
                if all.len() <= l.section.0 {
                    all.resize_with(l.section.0 + 1, Vec::new);
                }
                all[l.section.0].push((l.offset, n, sym.size(), String::from_utf8_lossy(name)));
            }
        }
        all
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
