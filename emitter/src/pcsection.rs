//! PC sections of an object or a linked program, decoded with
//! `pcmap_reader::pctable` and tied to the functions their PCs point into
//! (relocations in a relocatable object, addresses in a linked file).

use std::collections::HashMap;

use object::{
    Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionIndex,
    SymbolKind,
};
use pcmap_reader::pctable::{EntryKind, Layout, PcTable};
use pcmap_reader::sanmd::SanmdSection;
use pcmap_reader::RunTimeEndian;

use crate::target::Target;
use crate::{Error, Result};
use pcmap_reader::pclayout::{self, SectionLayout, SECTION_NAME as LAYOUT_SECTION};

/// How a PC section's entries are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// LLVM 16's output for a `name!C` request: fixed widths, `!C` ignored.
    Raw,
    /// LLVM 16's own SanitizerBinaryMetadata sections (version 1).
    Native,
    /// LLVM 19's `!C` encoding: ULEB128 constants.
    Compact,
    /// Fixed widths, as requested (a described section without options).
    Fixed,
}

/// A place in the code.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CodePoint {
    /// The function whose code holds it.
    pub function: Option<String>,
    /// Offset from that function's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_offset: Option<u64>,
    /// The code section.
    pub section: Option<String>,
    /// Relocatable objects: offset in `section`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_offset: Option<u64>,
    /// Linked files: the address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct PcEntry {
    /// Offset of the entry in its section.
    pub offset: u64,
    pub pc: CodePoint,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    pub constants: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_args: Option<u64>,
    /// Internal: where the PC is, for the verifier.
    #[serde(skip)]
    pub loc: Option<(SectionIndex, u64)>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct PcSection {
    pub name: String,
    pub size: u64,
    pub relocations: usize,
    /// Null when the section could not be decoded (see `note`).
    pub encoding: Option<Encoding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pc_width: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_kind: Option<&'static str>,
    /// What `pcmap emit` does with the section, or why it was not decoded.
    pub note: String,
    pub entries: Vec<PcEntry>,
    #[serde(skip)]
    pub index: Option<SectionIndex>,
}

/// The 32- and 64-bit PC-relative relocation of each target.
pub fn pc_relocation(target: Target, width: u8) -> u32 {
    if width == 4 {
        target.pc_relative32().0
    } else {
        target.address_relocation(false).0
    }
}

/// Checks that every relocation of a PC section is the PC-relative one of
/// `width` bytes.
pub fn check_relocations(
    target: Target,
    name: &str,
    width: u8,
    relocs: &HashMap<u64, PcReloc>,
) -> Result<()> {
    let want = pc_relocation(target, width);
    let mut bad: Vec<(&u64, &PcReloc)> = relocs.iter().filter(|(_, r)| r.r_type != want).collect();
    bad.sort_by_key(|(o, _)| **o);
    match bad.first() {
        None => Ok(()),
        Some((off, r)) => Err(Error::Other(format!(
            "{name}: relocation of unexpected type {} at offset {off:#x} (expected {} for {width}-byte PCs{})",
            target.relocation_name(r.r_type),
            target.relocation_name(want),
            if pc_relocation_width(target, r.r_type).is_some() {
                "; was the object compiled for another code model or target than its IR's?"
            } else {
                ""
            }
        ))),
    }
}

/// The width a PC-relative relocation type writes, if it is one.
fn pc_relocation_width(target: Target, r_type: u32) -> Option<u8> {
    [4, 8]
        .into_iter()
        .find(|&w| pc_relocation(target, w) == r_type)
}

/// PC width of a linked file's section whose version does not say: LLVM's
/// default code model is medium on PowerPC64 (pointer-sized PCs), small
/// elsewhere.
fn default_pc_width(target: Target) -> u8 {
    match target {
        Target::PowerPc64 { .. } => 8,
        _ => 4,
    }
}

/// Function symbols by code section, sorted by start.
pub struct Functions {
    by_section: HashMap<SectionIndex, Vec<(u64, u64, String)>>,
}

impl Functions {
    pub fn new(file: &object::File<'_>) -> Functions {
        let relocatable = file.kind() == object::ObjectKind::Relocatable;
        let opd = file.section_by_name(".opd");
        let mut by_section: HashMap<SectionIndex, Vec<(u64, u64, String)>> = HashMap::new();
        for sym in file.symbols() {
            let (Some(section), SymbolKind::Text) = (sym.section_index(), sym.kind()) else {
                continue;
            };
            let Ok(name) = sym.name() else { continue };
            let Ok(sec) = file.section_by_index(section) else {
                continue;
            };
            let mut loc = Some((section, sym.address().wrapping_sub(sec.address())));
            // ELFv1: the symbol names a descriptor whose first word is the code.
            if opd.as_ref().map(|o| o.index()) == Some(section) {
                loc = opd
                    .as_ref()
                    .and_then(|o| opd_code(file, o, loc?.1, relocatable));
            }
            if let Some((s, off)) = loc {
                by_section
                    .entry(s)
                    .or_default()
                    .push((off, sym.size(), name.to_string()));
            }
        }
        for v in by_section.values_mut() {
            v.sort();
            v.dedup_by_key(|f| f.0);
        }
        Functions { by_section }
    }

    /// The function whose code `[start, start + size)` holds `offset`.
    pub fn containing(&self, section: SectionIndex, offset: u64) -> Option<&(u64, u64, String)> {
        let v = self.by_section.get(&section)?;
        let i = v.partition_point(|f| f.0 <= offset).checked_sub(1)?;
        let f = &v[i];
        (offset < f.0.saturating_add(f.1.max(1))).then_some(f)
    }
}

/// The code an ELFv1 descriptor at `offset` in `.opd` points to.
fn opd_code(
    file: &object::File<'_>,
    opd: &object::Section<'_, '_>,
    offset: u64,
    relocatable: bool,
) -> Option<(SectionIndex, u64)> {
    if relocatable {
        let (_, r) = opd.relocations().find(|(o, _)| *o == offset)?;
        let RelocationTarget::Symbol(i) = r.target() else {
            return None;
        };
        let sym = file.symbol_by_index(i).ok()?;
        Some((
            sym.section_index()?,
            sym.address().wrapping_add(r.addend() as u64),
        ))
    } else {
        let data = opd.data().ok()?;
        let at = usize::try_from(offset.checked_sub(opd.address())?).ok()?;
        let b: [u8; 8] = data.get(at..at.checked_add(8)?)?.try_into().ok()?;
        let addr = if file.is_little_endian() {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        };
        section_at(file, addr)
    }
}

/// The section and offset of `address` in a linked file.
fn section_at(file: &object::File<'_>, address: u64) -> Option<(SectionIndex, u64)> {
    file.sections()
        .find(|s| s.address() <= address && address < s.address() + s.size() && s.size() > 0)
        .map(|s| (s.index(), address - s.address()))
}

pub fn endian(file: &object::File<'_>) -> RunTimeEndian {
    if file.is_little_endian() {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    }
}

/// The layout description of `file`, if it has one.
pub fn layouts(file: &object::File<'_>) -> Result<Option<Vec<SectionLayout>>> {
    let mut all: Option<Vec<SectionLayout>> = None;
    for s in file.sections() {
        if s.name().ok() != Some(LAYOUT_SECTION) {
            continue;
        }
        pclayout::parse_into(all.get_or_insert_with(Vec::new), s.data()?)
            .map_err(|e| Error::Other(e.to_string()))?;
    }
    Ok(all)
}

/// A relocation of a PC section, resolved to the code it points at.
#[derive(Debug, Clone, Copy)]
pub struct PcReloc {
    pub r_type: u32,
    pub target: Option<(SectionIndex, u64)>,
}

/// The relocations of `section` by offset.
pub fn relocations(
    file: &object::File<'_>,
    section: &object::Section<'_, '_>,
) -> HashMap<u64, PcReloc> {
    section
        .relocations()
        .map(|(off, r)| {
            let r_type = match r.flags() {
                RelocationFlags::Elf { r_type } => r_type.0,
                _ => 0,
            };
            let target = match r.target() {
                RelocationTarget::Symbol(i) => file.symbol_by_index(i).ok().and_then(|s| {
                    Some((
                        s.section_index()?,
                        s.address().wrapping_add(r.addend() as u64),
                    ))
                }),
                _ => None,
            };
            (off, PcReloc { r_type, target })
        })
        .collect()
}

/// How to read a section, and what to say about it.
struct Plan {
    encoding: Encoding,
    version: Option<u32>,
    layout: Layout,
    note: String,
}

/// Every PC section of `file`: `sanmd_*` and those the layout describes.
pub fn sections(file: &object::File<'_>) -> Result<Vec<PcSection>> {
    let target = Target::of(file)?;
    let relocatable = file.kind() == object::ObjectKind::Relocatable;
    let described = layouts(file)?.unwrap_or_default();
    let functions = Functions::new(file);
    let mut out = Vec::new();
    for section in file.sections() {
        let Ok(name) = section.name() else { continue };
        let layout = described.iter().find(|l| l.requested == name);
        let sanmd = SanmdSection::parse(name);
        if layout.is_none() && sanmd.is_none() {
            continue;
        }
        let relocs = relocations(file, &section);
        let mut s = PcSection {
            name: name.to_string(),
            size: section.size(),
            relocations: relocs.len(),
            encoding: None,
            version: None,
            pc_width: None,
            entry_kind: None,
            note: String::new(),
            entries: Vec::new(),
            index: Some(section.index()),
        };
        // The PC width: the relocations say it in an object.
        let reloc_width = relocs
            .values()
            .find_map(|r| pc_relocation_width(target, r.r_type));
        let plan = match (layout, sanmd) {
            (Some(l), _) => {
                let (encoding, note, lay) = if l.compact() {
                    (
                        Encoding::Raw,
                        format!(
                            "described by {LAYOUT_SECTION}: emit rewrites it into {}",
                            l.final_name
                        ),
                        l.raw(),
                    )
                } else {
                    (
                        Encoding::Fixed,
                        format!("described by {LAYOUT_SECTION} without options: final as written"),
                        l.raw(),
                    )
                };
                lay.map(|layout| Plan {
                    encoding,
                    version: l.version,
                    layout,
                    note,
                })
            }
            (None, Some(k)) => {
                let width = k
                    .pc_width_from_version()
                    .or(reloc_width)
                    .unwrap_or(default_pc_width(target));
                let (encoding, note) = if k.version & 0xffff == 1 {
                    (
                        Encoding::Native,
                        "native (LLVM 16): final as written; emit leaves it",
                    )
                } else if k.raw {
                    (
                        Encoding::Raw,
                        "raw, but not described by .pcmap.layout (not from the plugin, or the description is gone): emit leaves it",
                    )
                } else {
                    (Encoding::Compact, "compact (LLVM 19 encoding)")
                };
                k.layout(width).map(|layout| Plan {
                    encoding,
                    version: Some(k.version),
                    layout,
                    note: note.to_string(),
                })
            }
            (None, None) => unreachable!("filtered above"),
        };
        // A relocation of another width than the layout's is not decoded
        // (`emit` refuses it): e.g. `llc -mtriple` overriding the triple the
        // plugin described.
        let plan = plan.map_err(|e| e.to_string()).and_then(|p| {
            if relocatable {
                check_relocations(target, name, p.layout.pc_width(), &relocs)
                    .map_err(|e| e.to_string())?;
            }
            Ok(p)
        });
        let plan = match plan {
            Ok(p) => p,
            Err(e) => {
                s.note = format!("not decoded: {e}");
                out.push(s);
                continue;
            }
        };
        s.encoding = Some(plan.encoding);
        s.version = plan.version;
        s.pc_width = Some(plan.layout.pc_width());
        s.entry_kind = Some(match plan.layout.kind() {
            EntryKind::Function => "function",
            EntryKind::Instruction => "instruction",
        });
        s.note = plan.note;
        let err = |e: pcmap_reader::pctable::Error| Error::Other(format!("{name}: {e}"));
        let data = section.data()?;
        let table = PcTable::new(data, endian(file), plan.layout).map_err(err)?;
        for e in table.entries() {
            let e = e.map_err(err)?;
            let field = e.offset as u64;
            let loc = if relocatable {
                let r = relocs.get(&field).ok_or_else(|| {
                    Error::Other(format!(
                        "{name}: no relocation for the PC of the entry at offset {field:#x}"
                    ))
                })?;
                r.target
            } else {
                section_at(file, e.pc(section.address()))
            };
            let mut pc = CodePoint::default();
            if let Some((sec, off)) = loc {
                pc.section = file
                    .section_by_index(sec)
                    .ok()
                    .and_then(|s| s.name().ok().map(str::to_string));
                if relocatable {
                    pc.section_offset = Some(off);
                } else {
                    pc.address = Some(e.pc(section.address()));
                }
                if let Some(f) = functions.containing(sec, off) {
                    pc.function = Some(f.2.clone());
                    pc.function_offset = Some(off - f.0);
                }
            } else if !relocatable {
                pc.address = Some(e.pc(section.address()));
            }
            s.entries.push(PcEntry {
                offset: field,
                pc,
                size: e.size,
                constants: e.constants().to_vec(),
                stack_args: e.stack_args,
                loc,
            });
        }
        out.push(s);
    }
    Ok(out)
}
