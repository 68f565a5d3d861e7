//! The object or linked file, parsed once: its byte order and target, its
//! function symbols, where an address of a linked file is, and what a
//! relocation points at.

use std::borrow::Cow;
use std::collections::HashMap;

use object::read::elf::{Crel, CrelIterator, ElfFile64, FileHeader, SectionHeader};
use object::{
    elf, Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget,
    SectionIndex, SymbolIndex, SymbolKind,
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
        // The ELF file's own symbols, not `object::File`'s: the same answers
        // without a dispatch on the file's kind at every call (tens of
        // thousands of symbols).
        for (n, sym) in self.elf().symbols().enumerate() {
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
                // What `from_utf8_lossy` gives, without its per-chunk scan
                // of names that are UTF-8 (all of them, in practice).
                let name = match std::str::from_utf8(name) {
                    Ok(name) => Cow::Borrowed(name),
                    Err(_) => String::from_utf8_lossy(name),
                };
                all[l.section.0].push((l.offset, n, sym.size(), name));
            }
        }
        all
    }

    /// The ELF64 file: `parse` accepts no other.
    fn elf(&self) -> &ElfFile64<'d> {
        match &self.file {
            object::File::Elf64(elf) => elf,
            _ => unreachable!("ObjectFile::parse refuses all but ELF64 (check::section_headers)"),
        }
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
        let elf = self.elf();
        let base = elf
            .elf_section_table()
            .section(section)
            .map(|s| s.sh_addr(elf.endian()))
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
        self.relocations_of(section.index()).collect()
    }

    /// Every relocation of section `index`, resolved, in the order of
    /// `object`'s `ObjectSection::relocations`: the same relocation
    /// sections (`object`'s chain of those that apply to it, by its
    /// `ElfFile::elf_relocation_sections`), each read through `object`'s
    /// typed entries (`Rel64`, `Rela64`, `Crel`), one whose contents cannot
    /// be read skipped as `object` skips it. Its generic iterator builds a
    /// `Relocation` (kind, encoding, size by machine and type) for each of
    /// hundreds of thousands of entries, of which we need the type, symbol
    /// and addend.
    pub fn relocations_of(&self, index: SectionIndex) -> impl Iterator<Item = (u64, Reloc)> + '_ {
        let elf = self.elf();
        let endian = elf.endian();
        let chain = elf.elf_relocation_sections();
        let mips64el = elf.elf_header().is_mips64el(endian);
        std::iter::successors(chain.get(index), move |&i| chain.get(i))
            .flat_map(move |i| {
                // `object`'s chain holds only indices of sections.
                let sh = elf.elf_section_table().section(i).ok();
                let data = elf.data();
                match sh.map(|sh| (sh, sh.sh_type(endian))) {
                    Some((sh, elf::SHT_REL)) => {
                        Entries::Rel(sh.data_as_array(endian, data).unwrap_or_default().iter())
                    }
                    Some((sh, elf::SHT_RELA)) => {
                        Entries::Rela(sh.data_as_array(endian, data).unwrap_or_default().iter())
                    }
                    Some((sh, elf::SHT_CREL)) => sh
                        .data(endian, data)
                        .ok()
                        .and_then(|d| CrelIterator::new(d).ok())
                        .map_or(Entries::None, Entries::Crel),
                    _ => Entries::None,
                }
            })
            .map(move |e| {
                let r = match e {
                    Entry::Rel(r) => Crel::from_rel(r, endian),
                    Entry::Rela(r) => Crel::from_rela(r, endian, mips64el),
                    Entry::Crel(r) => r,
                };
                (
                    r.r_offset,
                    self.resolve_entry(r.r_type.0, r.symbol(), r.r_addend),
                )
            })
    }

    /// What a relocation points at.
    pub fn resolve(&self, r: &object::Relocation) -> Reloc {
        let r_type = match r.flags() {
            RelocationFlags::Elf { r_type } => r_type.0,
            _ => 0,
        };
        let symbol = match r.target() {
            RelocationTarget::Symbol(i) => Some(i),
            _ => None,
        };
        self.resolve_entry(r_type, symbol, r.addend())
    }

    /// [`resolve`](Self::resolve) of a relocation's fields.
    fn resolve_entry(&self, r_type: u32, symbol: Option<SymbolIndex>, addend: i64) -> Reloc {
        let target = symbol.and_then(|i| {
            let s = self.elf().symbol_by_index(i).ok()?;
            Some(CodeLoc {
                section: s.section_index()?,
                offset: s.address().wrapping_add(addend as u64),
            })
        });
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

/// The entries of one relocation section, as `object` reads them.
enum Entries<'d> {
    Rel(std::slice::Iter<'d, elf::Rel64<object::Endianness>>),
    Rela(std::slice::Iter<'d, elf::Rela64<object::Endianness>>),
    Crel(CrelIterator<'d>),
    None,
}

enum Entry<'d> {
    Rel(&'d elf::Rel64<object::Endianness>),
    Rela(&'d elf::Rela64<object::Endianness>),
    Crel(Crel),
}

impl<'d> Iterator for Entries<'d> {
    type Item = Entry<'d>;

    fn next(&mut self) -> Option<Entry<'d>> {
        match self {
            Entries::Rel(i) => i.next().map(Entry::Rel),
            Entries::Rela(i) => i.next().map(Entry::Rela),
            // `object` ends a section's relocations at its first bad one.
            Entries::Crel(i) => i.next()?.ok().map(Entry::Crel),
            Entries::None => None,
        }
    }

    /// Exact for `Rel64` and `Rela64`: collecting a section's relocations
    /// (a flat_map over these) allocates once, not by doubling.
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Entries::Rel(i) => i.size_hint(),
            Entries::Rela(i) => i.size_hint(),
            Entries::Crel(i) => (0, Some(i.len())),
            Entries::None => (0, Some(0)),
        }
    }
}
