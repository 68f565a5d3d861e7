//! Rewriting a relocatable ELF object faithfully through `object`'s builder.
//!
//! `object::build::elf::Builder` (object 0.40) reads an object into tables
//! of sections and symbols, lets us delete and add, and writes it back with
//! every section and symbol renumbered. Three of its limitations would
//! corrupt the objects LLVM writes, silently (`src/build/elf.rs` in
//! object 0.40.0):
//!
//! - `Builder::read` cannot read `SHT_GROUP` (COMDAT groups: C++ inline
//!   functions and variables, the plugin's structors), LLVM's
//!   `SHT_LLVM_ADDRSIG`, nor other types it does not list, and stops with
//!   "Unsupported section type" (the `match` on `sh_type`, line 314);
//! - it reads `sh_info` as a section only when `SHF_INFO_LINK` is set
//!   (line 331), which LLVM leaves clear on relocation sections inside
//!   groups, so their `sh_info` would keep the input's index and point at
//!   the wrong section after a deletion;
//! - `Builder::write` calls `delete_orphan_relocations`, which silently
//!   drops relocations against deleted symbols.
//!
//! So [`Rewrite::read`] presents the sections the builder cannot read as
//! data and resolves every relocation section's `sh_info`;
//! [`Rewrite::write`] checks that nothing kept refers to anything deleted,
//! restores those sections with every section and symbol index in them
//! renumbered (group members and signatures, address-significance
//! tables), and bounds the output's size; `check::written` then reads the
//! written object back and checks every index it holds. Sections of types
//! that may hold indices we do not know how to renumber are refused.

use object::build::elf::{Builder, SectionData, SectionId, SymbolId};
use object::build::Id;
use object::elf;
use object::read::elf::{FileHeader, SectionHeader};
use object::Endianness;
use pcmap_reader::pctable::{read_uleb128, write_uleb128, MAX_ULEB128_LEN};

use super::section::{printable, section_name, SHT_LLVM_ADDRSIG};
use crate::error::{Error, Result};

/// LLVM section types whose contents hold no section or symbol index
/// (their symbol references, if any, are relocations): kept verbatim.
const LLVM_OPAQUE_TYPES: [(u32, &str); 9] = [
    (0x6fff_4c00, "SHT_LLVM_ODRTAB"),
    (0x6fff_4c01, "SHT_LLVM_LINKER_OPTIONS"),
    (0x6fff_4c05, "SHT_LLVM_SYMPART"),
    (0x6fff_4c08, "SHT_LLVM_BB_ADDR_MAP_V0"),
    (0x6fff_4c09, "SHT_LLVM_CALL_GRAPH_PROFILE"),
    (0x6fff_4c0a, "SHT_LLVM_BB_ADDR_MAP"),
    (0x6fff_4c0b, "SHT_LLVM_OFFLOADING"),
    (0x6fff_4c0c, "SHT_LLVM_LTO"),
    (0x6fff_4c0d, "SHT_LLVM_JT_SIZES"),
];

/// How a section of the input reaches the builder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carry {
    /// The builder reads and writes it.
    Builder,
    /// Presented as data; its member indices and signature are renumbered.
    Group,
    /// Presented as data; its symbol indices are renumbered.
    Addrsig,
    /// Presented as data and restored as it was.
    Verbatim,
}

/// What the builder (object 0.40, `Builder::read`) reads by type.
fn builder_reads(sh_type: u32, machine: elf::Machine) -> bool {
    matches!(
        elf::SectionType(sh_type),
        elf::SHT_NULL
            | elf::SHT_PROGBITS
            | elf::SHT_NOBITS
            | elf::SHT_INIT_ARRAY
            | elf::SHT_FINI_ARRAY
            | elf::SHT_PREINIT_ARRAY
            | elf::SHT_LLVM_DEPENDENT_LIBRARIES
            | elf::SHT_REL
            | elf::SHT_RELA
            | elf::SHT_SYMTAB
            | elf::SHT_SYMTAB_SHNDX
            | elf::SHT_STRTAB
            | elf::SHT_NOTE
            | elf::SHT_GNU_ATTRIBUTES
    ) || matches!(
        (machine, elf::SectionType(sh_type)),
        (elf::EM_AARCH64, elf::SHT_AARCH64_ATTRIBUTES) | (elf::EM_X86_64, elf::SHT_X86_64_UNWIND)
    )
}

fn carry(sh_type: u32, machine: elf::Machine) -> Option<Carry> {
    if sh_type == elf::SHT_GROUP.0 {
        Some(Carry::Group)
    } else if sh_type == SHT_LLVM_ADDRSIG {
        Some(Carry::Addrsig)
    } else if LLVM_OPAQUE_TYPES.iter().any(|&(t, _)| t == sh_type) {
        Some(Carry::Verbatim)
    } else if builder_reads(sh_type, machine) {
        Some(Carry::Builder)
    } else {
        None
    }
}

/// A section the builder holds as data but that is restored on writing.
#[derive(Debug)]
struct Restored {
    id: SectionId,
    sh_type: u32,
    carry: Carry,
}

/// Where [`Rewrite::read`] puts a patched copy of the input when the
/// builder must see some section as data.
pub enum Scratch<'s> {
    /// Copy the input into this buffer (tens of megabytes of fresh pages
    /// for a big object).
    Buffer(Vec<u8>),
    /// A writable copy of the input made already: a private
    /// (copy-on-write) mapping of the input file, in which patching the
    /// section headers copies one page, not the object.
    Copy(&'s mut [u8]),
}

/// An object being rewritten: the builder, and what maps the input's
/// section and symbol indices to the builder's ids.
pub struct Rewrite<'d> {
    pub builder: Builder<'d>,
    /// Input section `i` is `sections[i - 1]`.
    sections: Vec<SectionId>,
    /// Input symbol `i` is `symbols[i - 1]`.
    symbols: Vec<SymbolId>,
    restored: Vec<Restored>,
    big_endian: bool,
    input_size: u64,
}

impl<'d> Rewrite<'d> {
    /// Reads `data` (an ELF64 relocatable object, already parsed as
    /// `file` and its headers checked by `check::section_headers`):
    /// a type whose indices we cannot renumber and an alignment that is not
    /// a power of two or that would pad the output beyond any real object
    /// are errors that name the section. `scratch` holds a patched copy of the input when
    /// some section must be presented to the builder as data (a
    /// [`Scratch::Copy`] must hold the same bytes as `data`: its length
    /// and headers are checked).
    pub fn read(
        data: &'d [u8],
        file: &object::File<'_>,
        scratch: &'d mut Scratch<'_>,
    ) -> Result<Rewrite<'d>> {
        let elf = match file {
            object::File::Elf64(elf) => elf,
            _ => return Err(Error::NotElf64),
        };
        let endian = elf.endian();
        let header = elf.elf_header();
        let machine = header.e_machine(endian);
        let table = elf.elf_section_table();
        let mut restored = Vec::new();
        for (i, sh) in table.iter().enumerate().skip(1) {
            let name = || section_name(file, i);
            let sh_type = sh.sh_type(endian).0;
            let Some(how) = carry(sh_type, machine) else {
                return Err(Error::Section {
                    section: name(),
                    problem: format!(
                        "section type {sh_type:#x} is not one pcmap can carry (its contents may hold section or symbol indices that the rewrite would have to renumber)"
                    ),
                });
            };
            let align = sh.sh_addralign(endian);
            if align != 0 && !align.is_power_of_two() {
                return Err(Error::Section {
                    section: name(),
                    problem: format!("alignment {align:#x} is not a power of two"),
                });
            }
            // The builder pads each section's offset to its alignment, an
            // empty one's too (not SHT_NOBITS'): an alignment beyond the
            // file's size cannot come from a real object and would make
            // the output that much larger.
            if sh_type != elf::SHT_NOBITS.0 && align > data.len() as u64 {
                return Err(Error::Section {
                    section: name(),
                    problem: format!(
                        "alignment {align:#x} exceeds the object's size ({:#x} bytes)",
                        data.len()
                    ),
                });
            }
            if how != Carry::Builder {
                restored.push((i, sh_type, how));
            }
        }
        let bytes: &'d [u8] = if restored.is_empty() {
            data
        } else {
            // A copy whose headers give those sections type PROGBITS.
            let scratch: &'d mut [u8] = match scratch {
                Scratch::Buffer(v) => {
                    v.clear();
                    v.extend_from_slice(data);
                    v
                }
                Scratch::Copy(copy) => {
                    let headers = |b: &[u8]| {
                        let at = usize::try_from(header.e_shoff(endian)).ok()?;
                        let len = table
                            .len()
                            .checked_mul(size_of::<elf::SectionHeader64<Endianness>>())?;
                        Some((
                            b.get(..64)?.to_owned(),
                            b.get(at..at.checked_add(len)?)?.to_owned(),
                        ))
                    };
                    if copy.len() != data.len() || headers(copy) != headers(data) {
                        return Err(Error::Internal("the copy of the input differs from it"));
                    }
                    copy
                }
            };
            let headers = usize::try_from(header.e_shoff(endian))
                .ok()
                .and_then(|at| scratch.get_mut(at..))
                .and_then(|b| {
                    object::pod::slice_from_bytes_mut::<elf::SectionHeader64<Endianness>>(
                        b,
                        table.len(),
                    )
                    .ok()
                })
                .ok_or(Error::Internal("section headers moved"))?
                .0;
            for &(i, _, _) in &restored {
                headers[i].sh_type.set(endian, elf::SHT_PROGBITS);
            }
            scratch
        };
        let mut builder = Builder::read(bytes).map_err(|e| Error::Unreadable(e.to_string()))?;
        let sections: Vec<SectionId> = builder.sections.iter().map(|s| s.id()).collect();
        let symbols: Vec<SymbolId> = builder.symbols.iter().map(|s| s.id()).collect();
        // sh_info of a relocation section is a section index whatever
        // SHF_INFO_LINK says (checked in range above).
        for s in builder.sections.iter_mut() {
            // ELF reads 0 as 1 (no constraint); the builder aligns offsets
            // by `sh_addralign - 1` and would place the section at 0.
            s.sh_addralign = s.sh_addralign.max(1);
            if matches!(s.data, SectionData::Relocation(_)) && s.sh_info_section.is_none() {
                s.sh_info_section = Some(sections[s.sh_info as usize - 1]);
            }
        }
        let restored = restored
            .into_iter()
            .map(|(i, sh_type, carry)| Restored {
                id: sections[i - 1],
                sh_type,
                carry,
            })
            .collect();
        Ok(Rewrite {
            builder,
            sections,
            symbols,
            restored,
            big_endian: endian == Endianness::Big,
            input_size: data.len() as u64,
        })
    }

    /// The builder's id of input section `index`.
    pub fn section(&self, index: object::SectionIndex) -> Result<SectionId> {
        index
            .0
            .checked_sub(1)
            .and_then(|i| self.sections.get(i))
            .copied()
            .ok_or(Error::Internal("section index out of range"))
    }

    /// Deletes `id`, the relocation sections that apply to it and the
    /// symbols defined in it. [`write`](Self::write) refuses the object if
    /// anything kept still refers to them.
    pub fn delete_section(&mut self, id: SectionId) {
        self.builder.sections.get_mut(id).delete = true;
        for s in self.builder.sections.iter_mut() {
            if s.sh_info_section == Some(id) && matches!(s.data, SectionData::Relocation(_)) {
                s.delete = true;
            }
        }
        for sym in self.builder.symbols.iter_mut() {
            if sym.section == Some(id) {
                sym.delete = true;
            }
        }
    }

    /// Writes the object into `out`, whose size the builder reserves first:
    /// more than the input plus `added` bytes and header growth is refused
    /// before anything is written.
    pub fn write(mut self, added: u64, out: &mut dyn object::write::WritableBuffer) -> Result<()> {
        let b = &mut self.builder;
        // LLVM shares one string table between symbols and section names;
        // the builder keeps `.strtab` for symbols and needs its own for names.
        if !b
            .sections
            .iter()
            .any(|s| matches!(s.data, SectionData::SectionString))
        {
            let s = b.sections.add();
            s.name = object::build::ByteString::from(&b".shstrtab"[..]);
            s.sh_type = elf::SHT_STRTAB;
            s.sh_addralign = 1;
            s.data = SectionData::SectionString;
        }
        b.delete_orphan_symbols();
        self.check_references()?;
        self.restore()?;
        let b = &mut self.builder;
        // Every section may gain its alignment's padding, every name a
        // string, every header a new place; nothing else grows.
        let slack: u64 = b
            .sections
            .iter()
            .map(|s| {
                // SHT_NOBITS takes no room (its alignment is not checked).
                let pad = match s.data {
                    SectionData::UninitializedData(_) => 0,
                    _ => s.sh_addralign,
                };
                pad.saturating_add(s.name.len() as u64 + 1 + 64)
            })
            .fold(0u64, u64::saturating_add);
        let symbols = b
            .symbols
            .iter()
            .map(|s| s.name.len() as u64 + 1 + 24)
            .sum::<u64>();
        let limit = [added, slack, symbols, 4096]
            .into_iter()
            .fold(self.input_size, u64::saturating_add);
        let mut bounded = Bounded {
            inner: out,
            limit,
            exceeded: None,
        };
        let written = self.builder.write(&mut bounded);
        if let Some(size) = bounded.exceeded {
            return Err(Error::OutputTooLarge { size, limit });
        }
        written.map_err(|e| Error::Unwritable(e.to_string()))
    }

    /// Refuses what `write` would silently drop or fail on: a relocation,
    /// kept, against a deleted symbol; a kept section linked to a deleted one.
    fn check_references(&self) -> Result<()> {
        let b = &self.builder;
        for s in b.sections.iter() {
            let name = || printable(s.name.as_slice());
            for linked in [s.sh_link_section, s.sh_info_section].into_iter().flatten() {
                if b.sections.get(linked).delete {
                    return Err(Error::Section {
                        section: name(),
                        problem: format!(
                            "refers to section {}, which emit removes",
                            printable(b.sections.get(linked).name.as_slice())
                        ),
                    });
                }
            }
            if let SectionData::Relocation(relocs) = &s.data {
                if let Some(r) = relocs
                    .iter()
                    .find(|r| r.symbol.is_some_and(|id| b.symbols.get(id).delete))
                {
                    return Err(Error::Section {
                        section: name(),
                        problem: format!(
                            "relocation at offset {:#x} refers to a symbol of a section emit removes",
                            r.r_offset
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Gives the sections presented as data their type back, and renumbers
    /// the section and symbol indices in them for the output.
    fn restore(&mut self) -> Result<()> {
        let b = &mut self.builder;
        // The output's indices, as `Builder::write` assigns them: sections in
        // table order, symbols locals first (deleted ones skipped by both).
        let ids = |n: Option<usize>| vec![0u32; n.map_or(0, |n| n + 1)];
        let mut new_section = ids(b.sections.iter().map(|s| s.id().index()).max());
        for (s, index) in b.sections.iter().zip(1..) {
            new_section[s.id().index()] = index;
        }
        let mut new_symbol = ids(b.symbols.iter().map(|s| s.id().index()).max());
        let locals = b.symbols.iter().filter(|s| s.st_bind() == elf::STB_LOCAL);
        let globals = b.symbols.iter().filter(|s| s.st_bind() != elf::STB_LOCAL);
        for (s, index) in locals.chain(globals).zip(1..) {
            new_symbol[s.id().index()] = index;
        }
        let big = self.big_endian;
        let word = |b: &[u8]| {
            let a: [u8; 4] = b.try_into().unwrap_or_default();
            if big {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            }
        };
        let put = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let old_symbol = |index: u64| -> Option<SymbolId> {
            index
                .checked_sub(1)
                .and_then(|i| self.symbols.get(usize::try_from(i).ok()?))
                .copied()
        };
        for r in &self.restored {
            let s = b.sections.get(r.id);
            if s.delete {
                continue;
            }
            let name = printable(s.name.as_slice());
            let bytes: &[u8] = match &s.data {
                SectionData::Data(d) => d,
                _ => return Err(Error::Internal("restored section is not data")),
            };
            let (contents, sh_info) = match r.carry {
                Carry::Builder => unreachable!("only sections presented as data are restored"),
                Carry::Verbatim => (None, s.sh_info),
                Carry::Group => {
                    // A flags word, then member section indices.
                    if !bytes.len().is_multiple_of(4) || bytes.is_empty() {
                        return Err(Error::Section {
                            section: name,
                            problem: format!(
                                "group of {} bytes, not a flags word and 4-byte section indices",
                                bytes.len()
                            ),
                        });
                    }
                    let mut out = bytes[..4].to_vec();
                    for member in bytes[4..].chunks_exact(4) {
                        let old = word(member) as usize;
                        let id = old
                            .checked_sub(1)
                            .and_then(|i| self.sections.get(i))
                            .ok_or_else(|| Error::Section {
                                section: name.clone(),
                                problem: format!("group member {old} names no section"),
                            })?;
                        // A member emit removes leaves the group.
                        if !b.sections.get(*id).delete {
                            out.extend_from_slice(&put(new_section[id.index()]));
                        }
                    }
                    let signature = old_symbol(u64::from(s.sh_info))
                        .filter(|id| !b.symbols.get(*id).delete)
                        .ok_or_else(|| Error::Section {
                            section: name.clone(),
                            problem: format!(
                                "signature symbol {} is not a symbol of the object",
                                s.sh_info
                            ),
                        })?;
                    (Some(out), new_symbol[signature.index()])
                }
                Carry::Addrsig => {
                    let mut out = Vec::with_capacity(bytes.len());
                    let mut at = 0;
                    while at < bytes.len() {
                        let (index, n) = read_uleb128(bytes, at).map_err(|e| Error::Section {
                            section: name.clone(),
                            problem: format!("symbol index: {e}"),
                        })?;
                        at += n;
                        let id = old_symbol(index).ok_or_else(|| Error::Section {
                            section: name.clone(),
                            problem: format!("symbol index {index} names no symbol"),
                        })?;
                        // A removed symbol is no longer address-significant.
                        if !b.symbols.get(id).delete {
                            let mut buf = [0; MAX_ULEB128_LEN];
                            let n = write_uleb128(u64::from(new_symbol[id.index()]), &mut buf);
                            out.extend_from_slice(&buf[..n]);
                        }
                    }
                    (Some(out), s.sh_info)
                }
            };
            let s = b.sections.get_mut(r.id);
            s.sh_type = elf::SectionType(r.sh_type);
            s.sh_info = sh_info;
            if r.carry != Carry::Verbatim {
                // A group's sh_info is its signature symbol, whatever
                // SHF_INFO_LINK says: the builder would write a section's
                // index over it.
                s.sh_info_section = None;
            }
            if let Some(c) = contents {
                s.sh_size = c.len() as u64;
                s.data = SectionData::Data(c.into());
            }
        }
        Ok(())
    }
}

/// Refuses, at `reserve`, an output larger than `limit`.
struct Bounded<'o> {
    inner: &'o mut dyn object::write::WritableBuffer,
    limit: u64,
    exceeded: Option<u64>,
}

impl object::write::WritableBuffer for Bounded<'_> {
    fn reserve(&mut self, size: u64) -> std::result::Result<(), ()> {
        if size > self.limit {
            self.exceeded = Some(size);
            return Err(());
        }
        self.inner.reserve(size)
    }

    fn write_bytes(&mut self, val: &[u8]) {
        self.inner.write_bytes(val)
    }
}
