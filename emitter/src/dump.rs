//! `pcmap dump`: the PC sections and stack map sections of an object as
//! text, as JSON (`docs/dump-json.md`), or (stack maps only) exactly as
//! `llvm-readobj --stackmap` prints them.

use std::fmt::{self, Write};

use pcmap_reader::flat;
use pcmap_reader::stackmap::FrameState;
use pcmap_reader::{Location, LocationKind};
use serde::Serialize;

use crate::pctable::PcSection;
use crate::stackmap::{DecodedTable, Format, StackMapSection};

/// Schema version of the JSON output (2: the flat layout's version 2, a
/// frame state per record).
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Serialize)]
pub struct Dump {
    pub schema: u32,
    /// PC sections (`sanmd_*` and those the layout description names).
    pub pc_sections: Vec<PcSection>,
    pub stackmaps: Vec<JsonTable>,
}

#[derive(Serialize)]
pub struct JsonTable {
    pub section: String,
    pub format: Format,
    pub table_offset: u64,
    pub table_size: u64,
    /// Linked files: the table's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absolute_addresses: Option<bool>,
    pub functions: Vec<JsonFunction>,
    pub constants: Vec<u64>,
    pub records: Vec<JsonRecord>,
}

#[derive(Serialize)]
pub struct JsonFunction {
    pub symbol: Option<String>,
    pub section: Option<String>,
    /// Offset of the function in its code section (relocatable objects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub opd: bool,
    pub stack_size: u64,
    pub record_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
}

#[derive(Serialize)]
pub struct JsonFrameRegister {
    pub dwarf_reg: u16,
    pub offset: i32,
}

/// A record's frame state (flat only).
#[derive(Serialize)]
pub struct JsonFrameState {
    /// The CFA rule's register and offset; null when the CFA is a DWARF
    /// expression.
    pub cfa: Option<JsonCfa>,
    pub stack_realigned: bool,
    pub saved_registers: Vec<JsonFrameRegister>,
}

#[derive(Serialize)]
pub struct JsonCfa {
    pub register: u16,
    pub offset: i32,
}

#[derive(Serialize)]
pub struct JsonRecord {
    pub id: u64,
    pub function: Option<String>,
    pub instruction_offset: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patchable_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_live_out_info: Option<bool>,
    /// Flat only: null when no CFI covers the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_state: Option<Option<JsonFrameState>>,
    pub locations: Vec<JsonLocation>,
    pub live_outs: Vec<JsonLiveOut>,
}

#[derive(Serialize)]
pub struct JsonLocation {
    pub kind: &'static str,
    pub size: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dwarf_reg: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Constant value: the small constant sign-extended, or the large one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i128>,
}

#[derive(Serialize)]
pub struct JsonLiveOut {
    pub dwarf_reg: u16,
    pub size: u8,
}

fn json_location(l: &Location, constants: &[u64]) -> JsonLocation {
    let mut j = JsonLocation {
        kind: l.kind.name(),
        size: l.size,
        dwarf_reg: None,
        offset: None,
        index: None,
        value: None,
    };
    match l.kind {
        LocationKind::Register => j.dwarf_reg = Some(l.dwarf_reg),
        LocationKind::Direct | LocationKind::Indirect => {
            j.dwarf_reg = Some(l.dwarf_reg);
            j.offset = Some(l.offset);
        }
        LocationKind::Constant => j.value = Some(l.offset.into()),
        LocationKind::ConstantIndex => {
            j.index = Some(l.offset as u32);
            j.value = constants.get(l.offset as u32 as usize).map(|&c| c.into());
        }
    }
    j
}

fn json_frame_state(fs: &FrameState) -> JsonFrameState {
    JsonFrameState {
        cfa: fs.cfa.map(|c| JsonCfa {
            register: c.register,
            offset: c.offset,
        }),
        stack_realigned: fs.stack_realigned,
        saved_registers: fs
            .saved
            .iter()
            .map(|r| JsonFrameRegister {
                dwarf_reg: r.dwarf_reg,
                offset: r.offset,
            })
            .collect(),
    }
}

pub fn json_tables(sections: &[StackMapSection]) -> Vec<JsonTable> {
    let mut out = Vec::new();
    for s in sections {
        for t in &s.tables {
            out.push(json_table(s, t));
        }
    }
    out
}

fn json_table(section: &StackMapSection, t: &DecodedTable) -> JsonTable {
    let is_flat = t.format == Format::Flat;
    // Version 1 has no record counts: records cannot be tied to functions.
    let grouped = t.format != Format::V1 || t.functions.len() <= 1;
    let mut functions = Vec::new();
    let mut records = Vec::new();
    for (f, r) in t.table.functions.iter().zip(&t.functions) {
        functions.push(JsonFunction {
            symbol: r.symbol.clone(),
            section: r.code_section.clone(),
            offset: r
                .address
                .is_none()
                .then(|| r.code.map(|c| c.offset))
                .flatten(),
            address: r.address,
            opd: r.opd,
            stack_size: f.stack_size,
            record_count: f.records.len() as u64,
            size: is_flat.then_some(f.size),
        });
        for rec in &f.records {
            records.push(JsonRecord {
                id: rec.id,
                function: if grouped { r.symbol.clone() } else { None },
                instruction_offset: rec.instruction_offset,
                kind: is_flat.then_some(rec.kind.name()),
                patchable_size: rec.patchable_size,
                has_live_out_info: is_flat.then_some(rec.has_live_out_info),
                frame_state: is_flat.then(|| rec.frame_state.as_ref().map(json_frame_state)),
                locations: rec
                    .locations
                    .iter()
                    .map(|l| json_location(l, &t.table.constants))
                    .collect(),
                live_outs: rec
                    .live_outs
                    .iter()
                    .map(|l| JsonLiveOut {
                        dwarf_reg: l.dwarf_reg,
                        size: l.size,
                    })
                    .collect(),
            });
        }
    }
    JsonTable {
        section: section.name.clone(),
        format: t.format,
        table_offset: t.offset,
        table_size: t.size,
        address: section.address.map(|a| a + t.offset),
        absolute_addresses: is_flat.then_some(t.flags & flat::ABSOLUTE_ADDRESSES != 0),
        functions,
        constants: t.table.constants.clone(),
        records,
    }
}

/// `llvm-readobj --stackmap`'s text for a table, from "LLVM StackMap
/// Version" on. An LLVM table prints as stored (function addresses as the
/// file holds them). A flat table prints as llvm-readobj prints the version
/// 3 table it was made from: each function's address resolved in a linked
/// file (its code's, also on ELFv1, where LLVM's names the descriptor) and
/// 0 in an object (LLVM's field before relocation), records in offset
/// order as LLVM writes them.
pub fn readobj(o: &mut impl Write, t: &DecodedTable) -> fmt::Result {
    let version = match t.format {
        Format::V1 => 1,
        Format::V2 => 2,
        Format::V3 | Format::Flat => 3,
    };
    let tab = &t.table;
    writeln!(o, "LLVM StackMap Version: {version}")?;
    writeln!(o, "Num Functions: {}", tab.functions.len())?;
    for (f, r) in tab.functions.iter().zip(&t.functions) {
        let address = match t.format {
            Format::Flat => r.address.unwrap_or(0),
            _ => f.address,
        };
        writeln!(
            o,
            "  Function address: {address}, stack size: {}, callsite record count: {}",
            f.stack_size,
            f.records.len()
        )?;
    }
    writeln!(o, "Num Constants: {}", tab.constants.len())?;
    for (i, c) in tab.constants.iter().enumerate() {
        writeln!(o, "  #{}: {c}", i + 1)?;
    }
    let n: usize = tab.functions.iter().map(|f| f.records.len()).sum();
    writeln!(o, "Num Records: {n}")?;
    for r in tab.functions.iter().flat_map(|f| &f.records) {
        writeln!(
            o,
            "  Record ID: {}, instruction offset: {}",
            r.id, r.instruction_offset
        )?;
        writeln!(o, "    {} locations:", r.locations.len())?;
        for (i, l) in r.locations.iter().enumerate() {
            write!(o, "      #{}: ", i + 1)?;
            location(o, l, &tab.constants)?;
            writeln!(o)?;
        }
        write!(o, "    {} live-outs: [ ", r.live_outs.len())?;
        live_outs(o, &r.live_outs)?;
        writeln!(o, "]")?;
    }
    Ok(())
}

/// A location as `llvm-readobj --stackmap` prints it.
fn location(o: &mut impl Write, l: &Location, constants: &[u64]) -> fmt::Result {
    match l.kind {
        LocationKind::Register => write!(o, "Register R#{}", l.dwarf_reg),
        LocationKind::Direct => write!(o, "Direct R#{} + {}", l.dwarf_reg, l.offset),
        LocationKind::Indirect => write!(o, "Indirect [R#{} + {}]", l.dwarf_reg, l.offset),
        // LLVM prints the small constant as unsigned.
        LocationKind::Constant => write!(o, "Constant {}", l.offset as u32),
        LocationKind::ConstantIndex => {
            let v = constants
                .get(l.offset as u32 as usize)
                .copied()
                .unwrap_or(0);
            write!(o, "ConstantIndex #{} ({v})", l.offset as u32)
        }
    }?;
    write!(o, ", size: {}", l.size)
}

/// Live-outs as `llvm-readobj --stackmap` prints them, each followed by a
/// space.
fn live_outs(o: &mut impl Write, live_outs: &[pcmap_reader::LiveOut]) -> fmt::Result {
    for lo in live_outs {
        write!(o, "R#{} ({}-bytes) ", lo.dwarf_reg, lo.size)?;
    }
    Ok(())
}

/// Human-readable stack maps: each table, where it is (its address in a
/// linked file, its offset in its section in an object), each function,
/// where its code is, and each record with its PC (linked files), its
/// locations (as `llvm-readobj --stackmap` prints them) and live-outs.
pub fn text(o: &mut impl Write, sections: &[StackMapSection]) -> fmt::Result {
    for s in sections {
        for t in &s.tables {
            match s.address {
                Some(a) => write!(o, "{} ({:?}) at {:#x}", s.name, t.format, a + t.offset)?,
                None => write!(o, "{} ({:?}) at offset {:#x}", s.name, t.format, t.offset)?,
            }
            writeln!(o, ", {} bytes:", t.size)?;
            for (f, r) in t.table.functions.iter().zip(&t.functions) {
                let at = match (r.address, r.code, &r.code_section) {
                    (Some(a), _, _) => format!("{a:#x}"),
                    (None, Some(c), Some(section)) => format!("{section}+{:#x}", c.offset),
                    _ => "?".to_string(),
                };
                writeln!(
                    o,
                    "  function {}{}: at {at}, stack size {}, {} records",
                    r.symbol.as_deref().unwrap_or("?"),
                    if r.opd { " (via .opd)" } else { "" },
                    f.stack_size,
                    f.records.len()
                )?;
                for rec in &f.records {
                    let pc = r.address.map_or(String::new(), |a| {
                        format!(" ({:#x})", a + u64::from(rec.instruction_offset))
                    });
                    writeln!(
                        o,
                        "    ID {} at +{}{pc}: {}, patchable {}, {} locations, {} live-outs",
                        rec.id,
                        rec.instruction_offset,
                        rec.kind.name(),
                        rec.patchable_size
                            .map_or("?".to_string(), |p| p.to_string()),
                        rec.locations.len(),
                        rec.live_outs.len()
                    )?;
                    for (i, l) in rec.locations.iter().enumerate() {
                        write!(o, "      #{}: ", i + 1)?;
                        location(o, l, &t.table.constants)?;
                        writeln!(o)?;
                    }
                    if !rec.live_outs.is_empty() {
                        let mut line = String::new();
                        live_outs(&mut line, &rec.live_outs)?;
                        writeln!(o, "      live-outs: {}", line.trim_end())?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Human-readable PC sections: one line per section, one per entry.
pub fn pc_text(o: &mut impl Write, sections: &[PcSection]) -> fmt::Result {
    for s in sections {
        write!(
            o,
            "{}: {} bytes, {} relocations",
            s.name, s.size, s.relocations
        )?;
        match s.encoding {
            Some(enc) => {
                writeln!(
                    o,
                    "; {}, version {}, {}-byte PCs, {} {} entries ({})",
                    serde_json::to_value(enc)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    s.version.map_or("-".to_string(), |v| v.to_string()),
                    s.pc_width.unwrap_or(0),
                    s.entries.len(),
                    s.entry_kind.unwrap_or("?"),
                    s.note
                )?;
            }
            None => {
                writeln!(o, "; {}", s.note)?;
            }
        }
        for e in &s.entries {
            let pc = &e.pc;
            write!(o, "  ")?;
            match (&pc.function, pc.function_offset) {
                (Some(f), Some(off)) => {
                    write!(o, "{f}+{off:#x}")?;
                }
                _ => {
                    write!(
                        o,
                        "{}+{:#x}",
                        pc.section.as_deref().unwrap_or("?"),
                        pc.section_offset.unwrap_or(0)
                    )?;
                }
            }
            if let Some(a) = pc.address {
                write!(o, " at {a:#x}")?;
            }
            if let Some(size) = e.size {
                write!(o, " size {size}")?;
            }
            if !e.constants.is_empty() {
                write!(o, " constants {:?}", e.constants)?;
            }
            if let Some(a) = e.stack_args {
                write!(o, " stack-args {a}")?;
            }
            writeln!(o)?;
        }
    }
    Ok(())
}
