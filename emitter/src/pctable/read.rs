//! PC sections of an object or a linked program, decoded with
//! `pcmap_reader::pctable` and tied to the functions their PCs point into
//! (relocations in a relocatable object, addresses in a linked file).

use object::{Object, ObjectSection, SectionIndex};
use pcmap_reader::pclayout::{self, SectionLayout, SECTION_NAME as LAYOUT_SECTION};
use pcmap_reader::pctable::{EntryKind, Layout, PcTable};
use pcmap_reader::sanmd::{SanmdSection, VERSION_BASE_MASK, VERSION_NATIVE};

use crate::error::{Error, Result};
use crate::object::{is_contents, is_named_contents, CodeLoc, ObjectFile, Relocations, Target};

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
    pub loc: Option<CodeLoc>,
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
    relocs: &Relocations,
) -> Result<()> {
    let want = pc_relocation(target, width);
    let mut bad: Vec<_> = relocs.iter().filter(|(_, r)| r.r_type != want).collect();
    bad.sort_by_key(|(o, _)| **o);
    match bad.first() {
        None => Ok(()),
        Some((off, r)) => Err(Error::Section {
            section: name.to_string(),
            problem: format!(
            "relocation of unexpected type {} at offset {off:#x} (expected {} for {width}-byte PCs{})",
            target.relocation_name(r.r_type),
            target.relocation_name(want),
            if pc_relocation_width(target, r.r_type).is_some() {
                "; was the object compiled for another code model or target than its IR's?"
            } else {
                ""
            }
            ),
        }),
    }
}

/// The width a PC-relative relocation type writes, if it is one.
fn pc_relocation_width(target: Target, r_type: u32) -> Option<u8> {
    [4, 8]
        .into_iter()
        .find(|&w| pc_relocation(target, w) == r_type)
}

/// PC width of a linked file's section whose version does not say: the
/// default code model's.
fn default_pc_width(target: Target) -> u8 {
    pcmap_reader::pctable::pc_width(None, matches!(target, Target::PowerPc64 { .. }))
}

/// The layout description of `file`, if it has one.
pub fn layouts(file: &object::File<'_>) -> Result<Option<Vec<SectionLayout>>> {
    let mut all: Option<Vec<SectionLayout>> = None;
    for s in file.sections() {
        if !is_named_contents(&s, LAYOUT_SECTION) {
            continue;
        }
        pclayout::parse_into(all.get_or_insert_with(Vec::new), s.data()?)?;
    }
    Ok(all)
}

/// How to read a section, and what to say about it.
struct Plan {
    encoding: Encoding,
    version: Option<u32>,
    layout: Layout,
    note: String,
}

/// Every PC section of `file`: `sanmd_*` and those the layout describes.
pub fn sections(o: &ObjectFile<'_>) -> Result<Vec<PcSection>> {
    let (file, target, relocatable) = (&o.file, o.target, o.relocatable);
    let described = layouts(file)?.unwrap_or_default();
    let mut out = Vec::new();
    for section in file.sections() {
        let Ok(name) = section.name() else { continue };
        if !is_contents(&section) {
            continue;
        }
        let layout = described.iter().find(|l| l.requested == name);
        let sanmd = SanmdSection::parse(name);
        if layout.is_none() && sanmd.is_none() {
            continue;
        }
        let relocs = o.relocations(&section);
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
                let (encoding, note) = if k.version & VERSION_BASE_MASK == VERSION_NATIVE {
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
        let err = |problem| Error::PcTable {
            section: name.to_string(),
            problem,
        };
        let data = section.data()?;
        let table = PcTable::new(data, o.endian, plan.layout).map_err(err)?;
        for e in table.entries() {
            let e = e.map_err(err)?;
            let field = e.offset as u64;
            let loc = if relocatable {
                let r = relocs.get(&field).ok_or_else(|| Error::Section {
                    section: name.to_string(),
                    problem: format!("no relocation for the PC of the entry at offset {field:#x}"),
                })?;
                r.target
            } else {
                o.loc_of_address(e.pc(section.address()))
            };
            let mut pc = CodePoint::default();
            if let Some(l) = loc {
                pc.section = Some(o.section_name(l.section));
                if relocatable {
                    pc.section_offset = Some(l.offset);
                } else {
                    pc.address = Some(e.pc(section.address()));
                }
                if let Some(f) = o.functions.containing(l) {
                    pc.function = Some(f.name.to_string());
                    pc.function_offset = Some(l.offset - f.offset);
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
