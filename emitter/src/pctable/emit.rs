//! The PC-table step of `emit`: finish the sections the plugin requested in
//! compact mode, as LLVM 19's `AsmPrinter::emitPCSections` would have
//! written them. Each `options=C` section described by `.pcmap.layout` gets
//! its final name, its size and 2..8-byte constants as ULEB128, and its PC
//! relocations moved to their entries' new offsets; the description goes.
//! A section described with `stack-args=` (the covered entries, requested
//! as `sanmd_covered` so that LLVM 16's backend appends the stack-arguments
//! size of UAR functions) gets that size as LLVM 19's MachineSanitizerBinaryMetadata
//! writes it: the "has size" bit in the feature mask and the size as
//! ULEB128 after it when the size is not zero; neither when it is.

use std::collections::HashMap;

use object::build::elf::SectionData;
use object::build::ByteString;
use object::{Object, ObjectSection};
use pcmap_reader::pctable::{self, EntryKind, PcTable, MAX_ULEB128_LEN};
use pcmap_reader::sanmd::{self, FEATURE_UAR_HAS_SIZE};

use pcmap_reader::pclayout::{SectionLayout, SECTION_NAME as LAYOUT_SECTION};

use super::read::{check_relocations, layouts};
use crate::error::{Error, Result};
use crate::object::rewrite::Rewrite;
use crate::object::{is_contents, ObjectFile};

/// One section to rewrite.
#[derive(Debug)]
struct SectionRewrite {
    index: object::SectionIndex,
    final_name: String,
    bytes: Vec<u8>,
    /// Old offset of each PC field → new offset.
    moved: HashMap<u64, u64>,
}

/// The rewrites of one object, computed before the builder is touched.
#[derive(Debug)]
pub struct PcPlan {
    rewrites: Vec<SectionRewrite>,
    layout_sections: Vec<object::SectionIndex>,
    pub report: PcReport,
}

/// What the PC step did.
#[derive(Debug, Clone, Default)]
pub struct PcReport {
    /// Sections rewritten.
    pub sections: usize,
    pub entries: usize,
    /// Bytes of the rewritten sections before and after.
    pub raw_bytes: u64,
    pub final_bytes: u64,
    /// PC sections left as they are, with the reason.
    pub left: Vec<(String, String)>,
}

/// Plans the rewrite of `file`'s compact PC sections; `None` when the object
/// has no layout description (nothing for this step to do).
pub fn plan(o: &ObjectFile<'_>) -> Result<Option<PcPlan>> {
    let file = &o.file;
    let Some(described) = layouts(file)? else {
        return Ok(None);
    };
    check_not_mixed(o, &described)?;
    let mut report = PcReport::default();
    let mut rewrites = Vec::new();
    let mut layout_sections = Vec::new();
    // Only sections of contents: one of another type under such a name
    // (a relocation section, a group) is kept as it is.
    for section in file.sections().filter(is_contents) {
        let name = section.name()?;
        if name == LAYOUT_SECTION {
            layout_sections.push(section.index());
            continue;
        }
        match described.iter().find(|l| l.requested == name) {
            Some(l) if l.compact() => {
                let r = rewrite(o, &section, l)?;
                report.sections += 1;
                report.raw_bytes += section.size();
                report.final_bytes += r.bytes.len() as u64;
                report.entries += r.moved.len();
                rewrites.push(r);
            }
            Some(_) => report
                .left
                .push((name.to_string(), "described without options: final".into())),
            None if sanmd::SanmdSection::parse(name).is_some() => report.left.push((
                name.to_string(),
                "not described by the plugin's layout".into(),
            )),
            None => {}
        }
    }
    Ok(Some(PcPlan {
        rewrites,
        layout_sections,
        report,
    }))
}

/// Refuses an object whose described sections also hold entries of modules
/// that expected them final: `__start_`/`__stop_` markers of a requested
/// name (LLVM 16's own structors for `sanmd_covered`, say, when `ld -r`
/// joined a native-mode module with a compact one). Their entries would
/// be rewritten with the wrong layout.
fn check_not_mixed(o: &ObjectFile<'_>, described: &[SectionLayout]) -> Result<()> {
    use object::ObjectSymbol;
    for sym in o.file.symbols() {
        let Ok(name) = sym.name() else { continue };
        let Some(section) = name
            .strip_prefix("__start_")
            .or_else(|| name.strip_prefix("__stop_"))
        else {
            continue;
        };
        if let Some(l) = described
            .iter()
            .find(|l| l.compact() && l.requested == section)
        {
            return Err(Error::Section {
                section: section.to_string(),
                problem: format!(
                    "described by {LAYOUT_SECTION} as raw entries for {}, but a module of this object uses it as a final section ({name}): modules of the plugin's compact mode and others (native mode, LLVM's own pass) were joined into one object; emit the compact ones before joining",
                    l.final_name
                ),
            });
        }
    }
    Ok(())
}

/// Re-encodes one raw section; checks every entry's relocation and PC.
fn rewrite(
    o: &ObjectFile<'_>,
    section: &object::Section<'_, '_>,
    l: &SectionLayout,
) -> Result<SectionRewrite> {
    let name = &l.requested;
    let err = |problem| Error::PcTable {
        section: name.to_string(),
        problem,
    };
    let bad = |problem: String| Error::Section {
        section: name.to_string(),
        problem,
    };
    let raw = l.raw().map_err(err)?;
    let fin = l.final_layout().map_err(err)?;
    let data = section.data()?;
    let relocs = o.relocations(section);
    check_relocations(o.target, name, l.pc_width, &relocs)?;
    let table = PcTable::new(data, o.endian, raw).map_err(err)?;
    let mut bytes = Vec::with_capacity(data.len());
    let mut moved = HashMap::new();
    for e in table.entries() {
        let e = e.map_err(err)?;
        let at = e.offset as u64;
        let r = relocs.get(&at).ok_or_else(|| {
            bad(format!(
                "no relocation for the PC of the entry at offset {at:#x}"
            ))
        })?;
        let pc = r.target.ok_or_else(|| {
            bad(format!(
                "the PC relocation at offset {at:#x} does not point into a section"
            ))
        })?;
        match (o.functions.containing(pc), l.entries) {
            (None, _) => {
                return Err(bad(format!(
                    "the PC of the entry at offset {at:#x} ({}+{:#x}) is outside any function",
                    o.section_name(pc.section),
                    pc.offset
                )))
            }
            (Some(f), EntryKind::Function) if f.offset != pc.offset => {
                return Err(bad(format!(
                "the function entry at offset {at:#x} points into {} at +{:#x}, not at its start",
                f.name,
                pc.offset - f.offset
            )))
            }
            _ => {}
        }
        moved.insert(at, bytes.len() as u64);
        // The PC field as written (0 with RELA: the addend is in the
        // relocation, relative to the field, which moves with it).
        let pc_end = e.offset + usize::from(l.pc_width);
        bytes.extend_from_slice(&data[e.offset..pc_end]);
        let mut put = |v: u64, width: u8, from: usize| {
            if fin.encoding().is_uleb128(width) {
                let mut b = [0; MAX_ULEB128_LEN];
                let n = pctable::write_uleb128(v, &mut b);
                bytes.extend_from_slice(&b[..n]);
            } else {
                bytes.extend_from_slice(&data[from..from + usize::from(width)]);
            }
            from + usize::from(width)
        };
        let mut from = pc_end;
        if let Some(size) = e.size {
            from = put(size, l.size, from);
        }
        // LLVM 16 appended the stack-arguments size to UAR entries (zero
        // included); LLVM 19 marks a non-zero one with the has-size bit.
        let stack_args = e.stack_args.filter(|&v| v != 0);
        for (i, (&c, &w)) in e.constants().iter().zip(&l.aux).enumerate() {
            let mut c = c;
            if i == 0 && l.stack_args.is_some() {
                if c & FEATURE_UAR_HAS_SIZE != 0 {
                    return Err(bad(format!(
                        "the entry at offset {at:#x} already has the has-size bit (features {c:#x}): not what LLVM 16 writes"
                    )));
                }
                if stack_args.is_some() {
                    c |= FEATURE_UAR_HAS_SIZE;
                }
            }
            from = put(c, w, from);
        }
        if e.stack_args.is_some() {
            from += usize::from(pctable::STACK_ARGS_BYTES);
        }
        if let Some(v) = stack_args {
            let mut b = [0; MAX_ULEB128_LEN];
            let n = pctable::write_uleb128(v, &mut b);
            bytes.extend_from_slice(&b[..n]);
        }
        debug_assert_eq!(from, e.offset + e.len);
    }
    if moved.len() != relocs.len() {
        return Err(bad(format!(
            "{} relocations for {} entries (every PC field, and nothing else, has one)",
            relocs.len(),
            moved.len()
        )));
    }
    Ok(SectionRewrite {
        index: section.index(),
        final_name: l.final_name.clone(),
        bytes,
        moved,
    })
}

/// Applies `plan` to the object being rewritten.
pub fn apply(rw: &mut Rewrite<'_>, plan: PcPlan) -> Result<()> {
    for r in plan.rewrites {
        let sid = rw.section(r.index)?;
        let b = &mut rw.builder;
        let s = b.sections.get_mut(sid);
        s.name = ByteString::from(r.final_name.clone().into_bytes());
        s.sh_size = r.bytes.len() as u64;
        s.data = SectionData::Data(r.bytes.into());
        for s in b.sections.iter_mut() {
            if s.sh_info_section != Some(sid) {
                continue;
            }
            if let SectionData::Relocation(relocs) = &mut s.data {
                for rel in relocs.iter_mut() {
                    rel.r_offset = *r.moved.get(&rel.r_offset).ok_or_else(|| Error::Section {
                        section: r.final_name.clone(),
                        problem: format!("relocation at {:#x} is not at an entry", rel.r_offset),
                    })?;
                }
                s.name = ByteString::from(format!(".rela{}", r.final_name).into_bytes());
            }
        }
        // Symbols into the section (none from LLVM: its labels are
        // temporary) must sit at an entry.
        for sym in b.symbols.iter_mut() {
            if sym.section == Some(sid) && sym.st_type() != object::elf::STT_SECTION {
                sym.st_value = *r.moved.get(&sym.st_value).ok_or_else(|| Error::Section {
                    section: r.final_name.clone(),
                    problem: format!("symbol inside an entry at {:#x}", sym.st_value),
                })?;
            }
        }
    }
    for index in plan.layout_sections {
        let sid = rw.section(index)?;
        rw.delete_section(sid);
    }
    Ok(())
}
