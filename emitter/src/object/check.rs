//! Checks of an ELF object's structure: of every input before anything
//! reads a section, and of every object `emit` writes before it is kept.

use object::elf;
use object::read::elf::{FileHeader, Rel as _, Rela as _, SectionHeader};
use object::Endianness;

use super::section::{section_label, SHT_LLVM_ADDRSIG};
use crate::error::{Error, Result};

/// Every section header of `file` (the ELF64 object in `data`): contents
/// inside the file, `sh_link` naming a section, a relocation section
/// applying to another section; in a relocatable object, every index the
/// sections hold ([`indices`]). Errors name the section.
pub fn section_headers(data: &[u8], file: &object::File<'_>) -> Result<()> {
    match file {
        object::File::Elf64(elf) => {
            headers(data, elf.elf_header())?;
            if elf.elf_header().e_type(elf.endian()) == elf::ET_REL {
                indices(data, elf, false)?;
            }
            Ok(())
        }
        _ => Err(Error::NotElf64),
    }
}

/// [`section_headers`] from the ELF header alone: `object`'s parse of a
/// whole file stops at some of these problems without naming the section.
fn headers(data: &[u8], header: &elf::FileHeader64<Endianness>) -> Result<()> {
    let endian = header.endian()?;
    let table = header.sections(endian, data)?;
    let count = table.len();
    let relocatable = header.e_type(endian) == elf::ET_REL;
    // File ranges: the headers, then each section's contents.
    let shoff = header.e_shoff(endian);
    let mut ranges = vec![
        (0, u64::from(header.e_ehsize(endian)), usize::MAX),
        (
            shoff,
            shoff.saturating_add(count as u64 * u64::from(header.e_shentsize(endian))),
            0,
        ),
    ];
    for (i, sh) in table.iter().enumerate().skip(1) {
        let problem = |problem: String| Error::Section {
            section: section_label(table.section_name(endian, sh).ok(), i),
            problem,
        };
        let sh_type = sh.sh_type(endian);
        if sh_type != elf::SHT_NOBITS && sh_type != elf::SHT_NULL {
            let (offset, size) = (sh.sh_offset(endian), sh.sh_size(endian));
            if offset
                .checked_add(size)
                .is_none_or(|end| end > data.len() as u64)
            {
                return Err(problem(format!(
                    "contents at offset {offset:#x}, {size:#x} bytes, run past the end of the file ({:#x} bytes)",
                    data.len()
                )));
            }
            if size > 0 {
                ranges.push((offset, offset + size, i));
            }
        }
        let link = sh.sh_link(endian) as usize;
        if link >= count {
            return Err(problem(format!(
                "sh_link {link} names no section (the object has {count})"
            )));
        }
        if sh_type == elf::SHT_REL || sh_type == elf::SHT_RELA {
            let info = sh.sh_info(endian) as usize;
            // Linked files may have dynamic relocation sections that apply
            // to no one section (sh_info 0).
            if relocatable && (info == 0 || info >= count || info == i) {
                return Err(problem(format!(
                    "relocation section applies to section {info}, which is not another section of the object"
                )));
            }
        }
    }
    // No byte of a file is in two sections (gABI), nor in a section and
    // the headers: the rewrite reads the contents of one from a copy whose
    // headers it patched.
    if relocatable {
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            let ((_, end, a), (start, _, b)) = (w[0], w[1]);
            if start < end {
                let what = |i: usize| match i {
                    usize::MAX => "the ELF header".to_string(),
                    0 => "the section header table".to_string(),
                    i => label_at(&table, endian, i),
                };
                let (section, other) = if b == usize::MAX || b == 0 {
                    (a, b)
                } else {
                    (b, a)
                };
                return Err(Error::Section {
                    section: what(section),
                    problem: format!("contents overlap {}", what(other)),
                });
            }
        }
    }
    Ok(())
}

/// Every section and symbol index a relocatable object holds, for an input
/// before it is read and for every object `emit` writes: relocation
/// sections linked to the symbol table and applying to a section that takes
/// relocations, each relocation naming a symbol and inside that section;
/// groups linked to the symbol table, naming their signature and members
/// that carry `SHF_GROUP`, each such section in exactly one group;
/// `SHF_LINK_ORDER` sections linked; symbols defined in sections that exist
/// and can hold symbols; address-significance tables naming symbols (of
/// an object `written`). The
/// rewrite renumbers these indices: one it cannot map would be a corrupt
/// object. Errors name the section (`symbol table` for a symbol).
fn indices(data: &[u8], elf: &object::read::elf::ElfFile64<'_>, written: bool) -> Result<()> {
    let endian = elf.endian();
    let table = elf.elf_section_table();
    let count = table.len();
    let name = |i: usize| label_at(table, endian, i);
    let bad = |i: usize, problem: String| Error::Section {
        section: name(i),
        problem,
    };
    let symbols = table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| Error::Section {
            section: "symbol table".into(),
            problem: e.to_string(),
        })?;
    let nsyms = symbols.len();
    let symtab = symbols.section().0;
    let header = |i: usize| table.section(object::SectionIndex(i));
    // Types that hold no symbols and take no relocations.
    let bookkeeping = [
        elf::SHT_NULL,
        elf::SHT_REL,
        elf::SHT_RELA,
        elf::SHT_SYMTAB,
        elf::SHT_STRTAB,
        elf::SHT_GROUP,
        elf::SHT_SYMTAB_SHNDX,
    ];
    let mut group_of = vec![0usize; count];
    for (i, sh) in table.iter().enumerate().skip(1) {
        let sh_type = sh.sh_type(endian);
        let flags = sh.sh_flags(endian);
        if flags.contains(elf::SHF_LINK_ORDER) && sh.sh_link(endian) == 0 {
            return Err(bad(i, "SHF_LINK_ORDER without sh_link".into()));
        }
        if sh_type == elf::SHT_SYMTAB && i != symtab {
            return Err(bad(i, "a second symbol table".into()));
        }
        if sh_type == elf::SHT_SYMTAB_SHNDX && sh.sh_link(endian) as usize != symtab {
            return Err(bad(i, "sh_link is not the symbol table".into()));
        }
        if sh_type == elf::SHT_RELA || sh_type == elf::SHT_REL {
            if sh.sh_link(endian) as usize != symtab {
                return Err(bad(i, "sh_link is not the symbol table".into()));
            }
            // Readers step through the entries by sh_entsize.
            let entsize = if sh_type == elf::SHT_RELA { 24 } else { 16 };
            if sh.sh_entsize(endian) != entsize {
                return Err(bad(
                    i,
                    format!(
                        "sh_entsize {:#x} is not the size of a relocation ({entsize})",
                        sh.sh_entsize(endian)
                    ),
                ));
            }
            let target = sh.sh_info(endian) as usize;
            let th = header(target).map_err(|e| bad(i, e.to_string()))?;
            let tt = th.sh_type(endian);
            if bookkeeping.contains(&tt) {
                return Err(bad(
                    i,
                    format!(
                        "applies to {}, a section that takes no relocations",
                        name(target)
                    ),
                ));
            }
            let size = if tt == elf::SHT_NOBITS {
                0
            } else {
                th.sh_size(endian)
            };
            let entries: Vec<(u64, u32)> = if sh_type == elf::SHT_RELA {
                let rela = sh
                    .rela(endian, data)
                    .map_err(|e| bad(i, e.to_string()))?
                    .map_or(&[][..], |(r, _)| r);
                rela.iter()
                    .map(|r| (r.r_offset(endian), r.r_sym(endian, false)))
                    .collect()
            } else {
                let rel = sh
                    .rel(endian, data)
                    .map_err(|e| bad(i, e.to_string()))?
                    .map_or(&[][..], |(r, _)| r);
                rel.iter()
                    .map(|r| (r.r_offset(endian), r.r_sym(endian)))
                    .collect()
            };
            for (n, (offset, sym)) in entries.into_iter().enumerate() {
                if sym as usize >= nsyms {
                    return Err(bad(
                        i,
                        format!("relocation {n} names symbol {sym}, but the object has {nsyms}"),
                    ));
                }
                if offset >= size {
                    return Err(bad(
                        i,
                        format!(
                            "relocation {n} at offset {offset:#x} is outside {} ({size:#x} bytes)",
                            name(target)
                        ),
                    ));
                }
            }
        }
        if sh_type == elf::SHT_GROUP {
            if sh.sh_link(endian) as usize != symtab {
                return Err(bad(i, "sh_link is not the symbol table".into()));
            }
            let signature = sh.sh_info(endian) as usize;
            if signature == 0 || signature >= nsyms {
                return Err(bad(
                    i,
                    format!("signature symbol {signature} does not exist"),
                ));
            }
            let (_, members) = sh
                .group(endian, data)
                .map_err(|e| bad(i, e.to_string()))?
                .ok_or_else(|| bad(i, "unreadable group".into()))?;
            for m in members {
                let m = m.get(endian) as usize;
                let member =
                    header(m).map_err(|_| bad(i, format!("member {m} names no section")))?;
                // The rewrite makes the symbol and string tables anew:
                // none of them can be a member.
                let mt = member.sh_type(endian);
                if [
                    elf::SHT_SYMTAB,
                    elf::SHT_STRTAB,
                    elf::SHT_SYMTAB_SHNDX,
                    elf::SHT_GROUP,
                ]
                .contains(&mt)
                {
                    return Err(bad(
                        i,
                        format!(
                            "member {m} ({}) is a section of type {:#x}, which no group holds",
                            name(m),
                            mt.0
                        ),
                    ));
                }
                if m == 0 || m == i || !member.sh_flags(endian).contains(elf::SHF_GROUP) {
                    return Err(bad(
                        i,
                        format!(
                            "member {m} ({}) is not a section of a group (no SHF_GROUP)",
                            name(m)
                        ),
                    ));
                }
                if group_of[m] != 0 {
                    return Err(bad(m, "in two groups".into()));
                }
                group_of[m] = i;
            }
        }
    }
    for (i, sh) in table.iter().enumerate().skip(1) {
        if sh.sh_flags(endian).contains(elf::SHF_GROUP) && group_of[i] == 0 {
            return Err(bad(i, "SHF_GROUP but in no group".into()));
        }
        // Of an input, the rewrite checks the table itself (`llvm-objcopy
        // --strip-symbol` leaves indices past the end: refused only by emit).
        if written && sh.sh_type(endian).0 == SHT_LLVM_ADDRSIG {
            let bytes = sh.data(endian, data).map_err(|e| bad(i, e.to_string()))?;
            let mut at = 0;
            while at < bytes.len() {
                let (sym, n) = pcmap_reader::pctable::read_uleb128(bytes, at)
                    .map_err(|e| bad(i, e.to_string()))?;
                if sym as usize >= nsyms {
                    return Err(bad(i, format!("symbol {sym} does not exist")));
                }
                at += n;
            }
        }
    }
    for (index, sym) in symbols.enumerate() {
        let problem = |problem: String| Error::Section {
            section: "symbol table".into(),
            problem: format!("symbol {}: {problem}", index.0),
        };
        let section = symbols
            .symbol_section(endian, sym, index)
            .map_err(|e| problem(e.to_string()))?;
        if let Some(s) = section {
            // A section symbol may name any section (`ld -r` gives groups
            // one); another symbol in a table emit makes anew would be lost.
            let section_symbol = sym.st_type() == elf::STT_SECTION;
            let holds = header(s.0)
                .ok()
                .filter(|_| s.0 != 0)
                .map(|sh| section_symbol || !bookkeeping.contains(&sh.sh_type(endian)));
            match holds {
                None => {
                    return Err(problem(format!(
                        "defined in section {}, which does not exist",
                        s.0
                    )))
                }
                Some(false) => {
                    return Err(problem(format!(
                        "defined in {}, a section that holds no symbols",
                        name(s.0)
                    )))
                }
                Some(true) => {}
            }
        }
    }
    Ok(())
}

/// Reads an object `emit` wrote back and checks it as an input
/// ([`section_headers`], [`indices`]), so that a bug of the rewrite is an
/// error, never a corrupt object.
pub fn written(data: &[u8]) -> Result<()> {
    let bad = |what: String| Error::Malformed(what);
    let header = elf::FileHeader64::<Endianness>::parse(data).map_err(|e| bad(e.to_string()))?;
    headers(data, header).map_err(|e| bad(e.to_string()))?;
    let file = object::File::parse(data).map_err(|e| bad(e.to_string()))?;
    let object::File::Elf64(elf) = &file else {
        return Err(bad("not ELF64".into()));
    };
    indices(data, elf, true).map_err(|e| bad(e.to_string()))
}

/// [`section_label`] of section `index` of `table`, read by index (an
/// index out of range is labelled by its number).
fn label_at(
    table: &object::read::elf::SectionTable<'_, elf::FileHeader64<Endianness>>,
    endian: Endianness,
    index: usize,
) -> String {
    let name = table
        .section(object::SectionIndex(index))
        .ok()
        .and_then(|sh| table.section_name(endian, sh).ok());
    section_label(name, index)
}

/// [`written`] on the contents of `file`, read back from the start.
pub fn written_file(file: &std::fs::File) -> Result<()> {
    // SAFETY: a read-only mapping of the temporary file this process just
    // wrote and that nothing else writes.
    let map = unsafe { memmap2::Mmap::map(file) }
        .map_err(|e| Error::Malformed(format!("cannot read the written object back: {e}")))?;
    written(&map)
}
