//! Stack map sections of an object, decoded with `pcmap-reader` and tied to
//! the functions they describe (relocations in a relocatable object,
//! addresses in a linked one, `.opd` descriptors on ELFv1).

use std::collections::HashMap;

use object::{
    Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionIndex,
    SymbolKind,
};
use pcmap_reader::flat::{
    self, FlatStackMap, FlatTable, FlatWriter, FrameHead, FrameRegister, RecordHead, RecordKind,
};
use pcmap_reader::llvm::{LlvmRecord, LlvmStackMap};
use pcmap_reader::stackmap::Table;
use pcmap_reader::LocationKind;
use pcmap_reader::RunTimeEndian;

use crate::cfi::Cfi;
use crate::decode;
use crate::target::Target;
use crate::{other, Error, Result};

/// Where LLVM writes stack maps on ELF.
pub const LLVM_STACKMAPS: &str = ".llvm_stackmaps";
/// ELFv1 function descriptors.
const OPD: &str = ".opd";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    V1,
    V2,
    V3,
    Flat,
}

/// A place in the object's code: section and offset in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeLoc {
    pub section: SectionIndex,
    pub offset: u64,
}

/// The function a frame record / LLVM function entry describes.
#[derive(Debug, Clone)]
pub struct FunctionRef {
    /// The function's symbol name (the descriptor's on ELFv1).
    pub symbol: Option<String>,
    /// Where its code is, when found.
    pub code: Option<CodeLoc>,
    /// Name of the code section.
    pub code_section: Option<String>,
    /// Absolute address of the code (linked files only).
    pub address: Option<u64>,
    /// st_size of the function's symbol.
    pub size: Option<u64>,
    /// The address named an ELFv1 descriptor in `.opd`, resolved to code.
    pub opd: bool,
}

/// One table of a stack map section.
#[derive(Debug, Clone)]
pub struct DecodedTable {
    pub format: Format,
    /// Offset of the table in its section.
    pub offset: u64,
    pub size: u64,
    /// Flat header flags (0 for LLVM tables).
    pub flags: u8,
    pub table: Table,
    pub functions: Vec<FunctionRef>,
}

/// A stack map section and its tables.
#[derive(Debug, Clone)]
pub struct StackMapSection {
    pub name: String,
    pub index: SectionIndex,
    pub size: u64,
    pub tables: Vec<DecodedTable>,
}

/// What a function address field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressField {
    /// LLVM's tables: an absolute address.
    Llvm,
    /// A flat table's self-relative address.
    FlatRelative,
    /// A flat table's absolute address (`--absolute`).
    FlatAbsolute,
}

/// Function symbols by code location, and relocations by section.
pub struct Symbols<'d, 'f> {
    file: &'f object::File<'d>,
    pub target: Target,
    pub relocatable: bool,
    by_code: HashMap<CodeLoc, (String, u64)>,
    opd: Option<SectionIndex>,
}

/// A relocation's target resolved to a section and offset.
#[derive(Debug, Clone)]
pub struct RelocTarget {
    pub symbol: String,
    pub loc: CodeLoc,
    pub r_type: u32,
}

impl<'d, 'f> Symbols<'d, 'f> {
    pub fn new(file: &'f object::File<'d>) -> Result<Self> {
        let target = Target::of(file)?;
        let relocatable = file.kind() == object::ObjectKind::Relocatable;
        let opd = file.section_by_name(OPD).map(|s| s.index());
        let mut s = Symbols {
            file,
            target,
            relocatable,
            by_code: HashMap::new(),
            opd,
        };
        for sym in file.symbols() {
            let (Some(section), SymbolKind::Text) = (sym.section_index(), sym.kind()) else {
                continue;
            };
            let Ok(name) = sym.name() else { continue };
            let loc = s.loc_in(section, sym.address());
            let loc = if Some(section) == opd {
                s.resolve_opd(loc)
            } else {
                Some(loc)
            };
            if let Some(loc) = loc {
                s.by_code
                    .entry(loc)
                    .or_insert((name.to_string(), sym.size()));
            }
        }
        Ok(s)
    }

    /// `address` (st_value or an address) as a location in `section`.
    fn loc_in(&self, section: SectionIndex, address: u64) -> CodeLoc {
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

    /// The section holding `address` in a linked file.
    fn loc_of_address(&self, address: u64) -> Option<CodeLoc> {
        self.file
            .sections()
            .find(|s| s.address() <= address && address < s.address() + s.size())
            .map(|s| CodeLoc {
                section: s.index(),
                offset: address - s.address(),
            })
    }

    /// The code an ELFv1 descriptor at `loc` (in `.opd`) points to.
    fn resolve_opd(&self, loc: CodeLoc) -> Option<CodeLoc> {
        let opd = self.file.section_by_index(loc.section).ok()?;
        if self.relocatable {
            let t = self.reloc_at(&opd, loc.offset)?;
            Some(t.loc)
        } else {
            let data = opd.data().ok()?;
            let at = usize::try_from(loc.offset).ok()?;
            let bytes: [u8; 8] = data.get(at..at.checked_add(8)?)?.try_into().ok()?;
            let code = if self.file.is_little_endian() {
                u64::from_le_bytes(bytes)
            } else {
                u64::from_be_bytes(bytes)
            };
            self.loc_of_address(code)
        }
    }

    /// The relocation of `section` at `offset`, resolved.
    pub fn reloc_at(&self, section: &object::Section<'d, 'f>, offset: u64) -> Option<RelocTarget> {
        let (_, r) = section.relocations().find(|(o, _)| *o == offset)?;
        self.resolve(&r)
    }

    pub fn resolve(&self, r: &object::Relocation) -> Option<RelocTarget> {
        let RelocationTarget::Symbol(idx) = r.target() else {
            return None;
        };
        let sym = self.file.symbol_by_index(idx).ok()?;
        let section = sym.section_index()?;
        let name = if sym.kind() == SymbolKind::Section {
            self.file
                .section_by_index(section)
                .ok()?
                .name()
                .ok()?
                .to_string()
        } else {
            sym.name().ok()?.to_string()
        };
        let r_type = match r.flags() {
            RelocationFlags::Elf { r_type } => r_type.0,
            _ => 0,
        };
        Some(RelocTarget {
            symbol: name,
            loc: CodeLoc {
                section,
                offset: sym.address().wrapping_add(r.addend() as u64),
            },
            r_type,
        })
    }

    /// Describes the function whose address field is at `field` (offset in
    /// `section`), holding `stored`; in a relocatable object the field's
    /// relocation must be the one `kind` of field takes.
    fn function(
        &self,
        section: &object::Section<'d, 'f>,
        field: u64,
        stored: u64,
        kind: AddressField,
        relocs: &HashMap<u64, object::Relocation>,
    ) -> Result<FunctionRef> {
        let relative = kind == AddressField::FlatRelative;
        let mut f = FunctionRef {
            symbol: None,
            code: None,
            code_section: None,
            address: None,
            size: None,
            opd: false,
        };
        let mut loc = None;
        if self.relocatable {
            let r = relocs.get(&field).ok_or_else(|| {
                Error::Other(format!(
                    "{}: no relocation for the function address at offset {field:#x}",
                    section.name().unwrap_or("?")
                ))
            })?;
            let t = self.resolve(r).ok_or_else(|| {
                Error::Other(format!(
                    "{}: unresolvable relocation at offset {field:#x}",
                    section.name().unwrap_or("?")
                ))
            })?;
            let want = self.target.address_relocation(!relative);
            if t.r_type != want.0 {
                return Err(Error::Section {
                    section: section.name().unwrap_or("?").to_string(),
                    problem: format!(
                        "the function address at offset {field:#x} has a relocation of type {}, not {} (the {}-bit {} address a stack map takes)",
                        self.target.relocation_name(t.r_type),
                        self.target.relocation_name(want.0),
                        64,
                        if relative { "self-relative" } else { "absolute" },
                    ),
                });
            }
            f.symbol = Some(t.symbol.clone());
            loc = Some(t.loc);
        } else {
            let address = if relative {
                (section.address() + field).wrapping_add(stored)
            } else {
                stored
            };
            loc = loc.or(self.loc_of_address(address));
        }
        if let Some(l) = loc {
            if Some(l.section) == self.opd {
                f.opd = true;
                loc = self.resolve_opd(l);
            }
        }
        if let Some(l) = loc {
            if let Some((name, size)) = self.by_code.get(&l) {
                f.symbol = Some(name.clone());
                f.size = Some(*size);
            }
            let s = self.file.section_by_index(l.section)?;
            f.code_section = s.name().ok().map(str::to_string);
            if !self.relocatable {
                f.address = Some(s.address() + l.offset);
            }
        }
        f.code = loc;
        Ok(f)
    }
}

fn endian(file: &object::File<'_>) -> RunTimeEndian {
    if file.is_little_endian() {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    }
}

/// Every `.llvm_stackmaps` and `pcmap_stackmaps` section of `file`, decoded.
pub fn sections(file: &object::File<'_>) -> Result<Vec<StackMapSection>> {
    let symbols = Symbols::new(file)?;
    let e = endian(file);
    let mut out = Vec::new();
    for section in file.sections() {
        let name = section.name()?.to_string();
        let is_llvm = name == LLVM_STACKMAPS;
        if !is_llvm && name != flat::SECTION_NAME {
            continue;
        }
        let err = |source| Error::StackMap {
            section: name.clone(),
            problem: source,
        };
        let data = section.data()?;
        let relocs: HashMap<u64, object::Relocation> = section.relocations().collect();
        let mut tables = Vec::new();
        if is_llvm {
            let mut offset = 0u64;
            for map in LlvmStackMap::tables(data, e) {
                let map = map.map_err(err)?;
                let table = Table::from_llvm(&map).map_err(err)?;
                let mut functions = Vec::new();
                for (i, f) in table.functions.iter().enumerate() {
                    let field = offset + map.function_address_offset(i as u32) as u64;
                    functions.push(symbols.function(
                        &section,
                        field,
                        f.address,
                        AddressField::Llvm,
                        &relocs,
                    )?);
                }
                tables.push(DecodedTable {
                    format: match map.version() {
                        1 => Format::V1,
                        2 => Format::V2,
                        _ => Format::V3,
                    },
                    offset,
                    size: map.size() as u64,
                    flags: 0,
                    table,
                    functions,
                });
                offset += map.size() as u64;
            }
        } else {
            for t in FlatStackMap::tables(data, e) {
                let (at, t) = t.map_err(err)?;
                let table = Table::from_flat(&t).map_err(err)?;
                let mut functions = Vec::new();
                for (i, f) in table.functions.iter().enumerate() {
                    let field =
                        at as u64 + t.function_address_offset(i as u32).map_err(err)? as u64;
                    functions.push(symbols.function(
                        &section,
                        field,
                        f.address,
                        if t.absolute_addresses() {
                            AddressField::FlatAbsolute
                        } else {
                            AddressField::FlatRelative
                        },
                        &relocs,
                    )?);
                }
                tables.push(DecodedTable {
                    format: Format::Flat,
                    offset: at as u64,
                    size: u64::from(t.table_size()),
                    flags: t.flags(),
                    table,
                    functions,
                });
            }
        }
        out.push(StackMapSection {
            name,
            index: section.index(),
            size: section.size(),
            tables,
        });
    }
    Ok(out)
}

/// The flat tables `emit` adds: one per LLVM table, back to back in one
/// `pcmap_stackmaps` section (each 8-aligned, as readers expect), and where
/// each function's address fields are.
pub struct FlatSection {
    pub bytes: Vec<u8>,
    /// Offset in `bytes` of each function's address field, and its code.
    pub addresses: Vec<(usize, CodeLoc)>,
    /// Offset in `bytes` of each function index entry, and its code.
    pub index_entries: Vec<(usize, CodeLoc)>,
    pub report: crate::emit::Report,
}

/// The flat tables for every table of every `.llvm_stackmaps` section of a
/// relocatable object (`ld -r` concatenates tables into one section, or
/// keeps several sections with `--unique`), written straight from the
/// zero-copy reader, each record checked against its function and target.
pub fn flat_tables(file: &object::File<'_>, opts: &crate::emit::Options) -> Result<FlatSection> {
    let symbols = Symbols::new(file)?;
    if !symbols.relocatable {
        return other("emit needs a relocatable object (.o)");
    }
    if file.section_by_name(flat::SECTION_NAME).is_some() {
        return other(format!("already has a {} section", flat::SECTION_NAME));
    }
    let cfi = Cfi::new(file, &symbols)?;
    // The IR (read on other threads so far) is needed from here on.
    let ir = opts.ir.as_ref().map(|ir| ir.sites()).transpose()?;
    let e = endian(file);
    let mut out = FlatSection {
        bytes: Vec::new(),
        addresses: Vec::new(),
        index_entries: Vec::new(),
        report: crate::emit::Report::default(),
    };
    let sections: Vec<_> = file
        .sections()
        .filter(|s| s.name() == Ok(LLVM_STACKMAPS))
        .collect();
    let several = sections.len() > 1;
    for (n, section) in sections.iter().enumerate() {
        let data = section.data()?;
        let relocs: HashMap<u64, object::Relocation> = section.relocations().collect();
        out.report.v3_size += section.size();
        let tables: Vec<_> = LlvmStackMap::tables(data, e).collect();
        let many = several || tables.len() > 1;
        let mut at = 0u64;
        for (k, map) in tables.into_iter().enumerate() {
            // Name the table in messages when there is more than one.
            let name = if many {
                format!("{LLVM_STACKMAPS} (section {}, table {})", n + 1, k + 1)
            } else {
                LLVM_STACKMAPS.to_string()
            };
            let map = map.map_err(|source| Error::StackMap {
                section: name.clone(),
                problem: source,
            })?;
            let t = TableInput {
                file,
                symbols: &symbols,
                cfi: cfi.as_ref(),
                ir,
                opts,
                section,
                relocs: &relocs,
                name: &name,
                offset: at,
            };
            let (table, locs) = t.flat_table(&map)?;
            at += map.size() as u64;
            let base = out.bytes.len().next_multiple_of(flat::TABLE_ALIGN);
            out.bytes.resize(base, 0);
            out.bytes.extend_from_slice(&table.bytes);
            out.addresses.extend(
                table
                    .address_offsets
                    .iter()
                    .map(|o| base + o)
                    .zip(locs.iter().copied()),
            );
            out.index_entries.extend(
                table
                    .index_offsets
                    .iter()
                    .map(|o| base + o)
                    .zip(locs.iter().copied()),
            );
            out.report.functions += map.num_functions() as usize;
            out.report.records += map.num_records() as usize;
        }
        if at == 0 {
            return Err(Error::Section {
                section: LLVM_STACKMAPS.into(),
                problem: "holds no stack map table".into(),
            });
        }
    }
    out.report.flat_size = out.bytes.len() as u64;
    Ok(out)
}

/// One LLVM table and what its flat table is made from.
struct TableInput<'a, 'd, 'f> {
    file: &'f object::File<'d>,
    symbols: &'a Symbols<'d, 'f>,
    cfi: Option<&'a Cfi>,
    ir: Option<&'a crate::patch::IrSites>,
    opts: &'a crate::emit::Options,
    section: &'a object::Section<'d, 'f>,
    relocs: &'a HashMap<u64, object::Relocation>,
    /// The table's name in messages.
    name: &'a str,
    /// The table's offset in its section.
    offset: u64,
}

impl TableInput<'_, '_, '_> {
    fn err(&self, problem: String) -> Error {
        Error::Section {
            section: self.name.to_string(),
            problem,
        }
    }

    /// The flat table for `map`, with the code location of each function.
    fn flat_table(
        &self,
        map: &LlvmStackMap<'_, RunTimeEndian>,
    ) -> Result<(FlatTable, Vec<CodeLoc>)> {
        let (file, symbols, target) = (self.file, self.symbols, self.symbols.target);
        let err = |source| Error::StackMap {
            section: self.name.to_string(),
            problem: source,
        };
        let nfun = map.num_functions();
        if map.version() == 1 && nfun > 1 {
            return Err(self.err(format!(
                "version 1 has no per-function record counts; cannot assign records of {nfun} functions"
            )));
        }
        let mut w = FlatWriter::new(endian(file), self.opts.absolute);
        // The function index pays from this many functions (docs/stackmap-v2.md);
        // `emit::add_stack_maps` relocates its entries. Never with --absolute.
        w.function_index(nfun as usize >= flat::FUNCTION_INDEX_MIN_FUNCTIONS);
        // A PC map speeds lookups up when the functions share one code section
        // (no -ffunction-sections); linkers keep a section's layout.
        w.pc_map(true);
        w.reserve(nfun as usize, map.num_records() as usize);
        for c in map.constants() {
            w.constant(c.map_err(err)?);
        }
        let mut records = map.records();
        let mut batch: Vec<LlvmRecord<'_, RunTimeEndian>> = Vec::new();
        // (ID, position) of a function's records, to number records sharing an ID.
        let mut by_id: Vec<(u64, u32)> = Vec::new();
        let mut nths: Vec<u32> = Vec::new();
        let mut locs = Vec::with_capacity(nfun as usize);
        let mut frame_registers: Vec<FrameRegister> = Vec::new();
        for i in 0..nfun {
            let f = map.function(i).map_err(err)?;
            let field = self.offset + map.function_address_offset(i) as u64;
            let fref = symbols.function(
                self.section,
                field,
                f.address,
                AddressField::Llvm,
                self.relocs,
            )?;
            let name = fref.symbol.as_deref().unwrap_or_default();
            let code_loc = fref.code.ok_or_else(|| {
                self.err(format!("address of function {i} ({name}) is not in code"))
            })?;
            let code_section = file.section_by_index(code_loc.section)?;
            let data = code_section.data()?;
            let in_code = usize::try_from(code_loc.offset)
                .ok()
                .filter(|&o| o < data.len());
            let Some(start) = in_code else {
                return Err(self.err(format!(
                    "function {i} ({name}) at offset {:#x} of {}, which is {:#x} bytes long",
                    code_loc.offset,
                    code_section.name().unwrap_or("?"),
                    data.len()
                )));
            };
            let count = match f.record_count {
                Some(c) => c,
                None if i + 1 == nfun => u64::from(map.num_records()),
                None => 0,
            };
            batch.clear();
            for _ in 0..count {
                let r = records
                    .next()
                    .ok_or(pcmap_reader::Error::Inconsistent(
                        "fewer records than counted",
                    ))
                    .map_err(err)?
                    .map_err(err)?;
                batch.push(r);
            }
            batch.sort_by_key(|r| r.instruction_offset);

            let end = match fref.size {
                Some(size) if size > 0 => start.saturating_add(size as usize).min(data.len()),
                _ => data.len(),
            };
            let code = &data[start..end];
            let size = u32::try_from(fref.size.unwrap_or(0))
                .map_err(|_| self.err(format!("function {name} larger than 4 GiB")))?;
            for r in &batch {
                check_record(
                    target,
                    r.instruction_offset,
                    r.locations(),
                    r.live_outs(),
                    code.len() as u64,
                )
                .map_err(|problem| {
                    self.err(format!(
                        "function {name}, record ID {} at offset {:#x}: {problem}",
                        r.id, r.instruction_offset
                    ))
                })?;
            }

            let ir_function = self.ir.and_then(|ir| ir.function(name));
            // nth: how many records before this one (in offset order) share its ID.
            by_id.clear();
            by_id.extend(batch.iter().zip(0..).map(|(r, j)| (r.id, j)));
            by_id.sort_unstable();
            nths.clear();
            nths.resize(batch.len(), 0);
            for (k, &(id, j)) in by_id.iter().enumerate() {
                if k > 0 && by_id[k - 1].0 == id {
                    nths[j as usize] = nths[by_id[k - 1].1 as usize] + 1;
                }
            }
            // Records are in offset order: one decoding pass finds their calls.
            let mut calls = decode::Calls::new(target, code);
            for (r, &nth) in batch.iter().zip(&nths) {
                let (kind, patchable_size) =
                    patchable(r, nth as usize, name, ir_function, self.ir, &mut calls)?;
                let head = RecordHead {
                    id: r.id,
                    instruction_offset: r.instruction_offset,
                    patchable_size,
                    kind,
                    has_live_out_info: kind == RecordKind::PatchPoint || r.num_live_outs() > 0,
                };
                w.record(&head, r.locations(), r.live_outs())
                    .map_err(|source| Error::StackMap {
                        section: flat::SECTION_NAME.into(),
                        problem: source,
                    })?;
            }

            let mut flags = 0;
            if decode::realigns_stack(target, code) {
                flags |= flat::HAS_STACK_REALIGNMENT;
            }
            let probe = batch.first().map_or(0, |r| u64::from(r.instruction_offset));
            let at = CodeLoc {
                section: code_loc.section,
                offset: code_loc.offset + probe,
            };
            let (mut base, mut cfa_offset) = (0, 0);
            frame_registers.clear();
            if let Some(info) = match self.cfi {
                Some(c) => c.frame_at(file, at)?,
                None => None,
            } {
                flags |= flat::HAS_FRAME_INFO;
                if info.cfa_register != target.stack_pointer() {
                    flags |= flat::HAS_FRAME_POINTER;
                }
                base = info.cfa_register;
                cfa_offset = i32::try_from(info.cfa_offset)
                    .map_err(|_| self.err(format!("function {name}: CFA offset too large")))?;
                for &(reg, off) in &info.saved {
                    let offset = i32::from(i16::try_from(off).map_err(|_| {
                        self.err(format!(
                            "function {name}: register {reg} saved {off} bytes from the CFA (more than an i16)"
                        ))
                    })?);
                    frame_registers.push(FrameRegister {
                        dwarf_reg: reg,
                        offset,
                    });
                }
            }
            // The relocation's addend carries the code offset.
            w.function(&FrameHead {
                address: 0,
                size,
                stack_size: f.stack_size,
                flags,
                frame_base_register: base,
                cfa_offset,
                frame_registers: &frame_registers,
                code: Some((code_loc.section.0, code_loc.offset)),
            })
            .map_err(|source| Error::StackMap {
                section: flat::SECTION_NAME.into(),
                problem: source,
            })?;
            locs.push(code_loc);
        }
        if records.next().is_some() {
            return Err(self.err(format!(
                "{} records, more than its functions count",
                map.num_records()
            )));
        }
        let out = w.finish().map_err(|source| Error::StackMap {
            section: flat::SECTION_NAME.into(),
            problem: source,
        })?;
        Ok((out, locs))
    }
}

/// Checks what a record says against its function's code and the target:
/// the problem, if any, in words.
pub fn check_record(
    target: Target,
    instruction_offset: u32,
    locations: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::Location>>,
    live_outs: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::LiveOut>>,
    code_size: u64,
) -> std::result::Result<(), String> {
    if u64::from(instruction_offset) > code_size {
        return Err(format!(
            "instruction offset {instruction_offset:#x} is past the end of its function ({code_size:#x} bytes)"
        ));
    }
    let max = target.max_dwarf_register();
    let register = |what: String, reg: u16| {
        if reg > max {
            Err(format!(
                "{what}: DWARF register {reg} is not a register of {} (at most {max})",
                target.name()
            ))
        } else {
            Ok(())
        }
    };
    for (k, l) in locations.enumerate() {
        let l = l.map_err(|e| format!("location {k}: {e}"))?;
        if l.size == 0 {
            return Err(format!("location {k} has size 0"));
        }
        if matches!(
            l.kind,
            LocationKind::Register | LocationKind::Direct | LocationKind::Indirect
        ) {
            register(format!("location {k}"), l.dwarf_reg)?;
        }
    }
    for (k, l) in live_outs.enumerate() {
        let l = l.map_err(|e| format!("live-out {k}: {e}"))?;
        if l.size == 0 {
            return Err(format!("live-out {k} has size 0"));
        }
        register(format!("live-out {k}"), l.dwarf_reg)?;
    }
    Ok(())
}

/// Checks every record of every stack map table of `sections` against its
/// function and the target, as `emit` does: each problem, one line.
pub fn check_tables(file: &object::File<'_>, sections: &[StackMapSection]) -> Result<Vec<String>> {
    let target = Target::of(file)?;
    let mut problems = Vec::new();
    for s in sections {
        for (k, t) in s.tables.iter().enumerate() {
            for (f, fref) in t.table.functions.iter().zip(&t.functions) {
                let name = fref.symbol.as_deref().unwrap_or("?");
                let Some(code) = fref.code else {
                    problems.push(format!(
                        "{} (table {}): function {name}: its address is not in code",
                        s.name,
                        k + 1
                    ));
                    continue;
                };
                let section_size = file.section_by_index(code.section)?.size();
                let code_size = match fref.size {
                    Some(size) if size > 0 => size,
                    _ => section_size.saturating_sub(code.offset),
                };
                if code.offset >= section_size {
                    problems.push(format!(
                        "{} (table {}): function {name} at offset {:#x} of a section of {section_size:#x} bytes",
                        s.name,
                        k + 1,
                        code.offset
                    ));
                    continue;
                }
                for r in &f.records {
                    if let Err(p) = check_record(
                        target,
                        r.instruction_offset,
                        r.locations.iter().copied().map(Ok),
                        r.live_outs.iter().copied().map(Ok),
                        code_size,
                    ) {
                        problems.push(format!(
                            "{} (table {}): function {name}, record ID {} at offset {:#x}: {p}",
                            s.name,
                            k + 1,
                            r.id,
                            r.instruction_offset
                        ));
                    }
                }
            }
        }
    }
    Ok(problems)
}

/// A record's kind and patchable size: from the IR when given (exact), else
/// a statepoint when a call instruction ends at its offset.
fn patchable(
    r: &LlvmRecord<'_, RunTimeEndian>,
    nth: usize,
    function: &str,
    ir_function: Option<crate::patch::FunctionId>,
    ir: Option<&crate::patch::IrSites>,
    calls: &mut decode::Calls<'_>,
) -> Result<(RecordKind, Option<u32>)> {
    let mut call = || calls.ending_at(r.instruction_offset.into());
    match ir {
        Some(ir) => {
            let site = ir
                .lookup_in(ir_function, function, r.id, nth)
                .map_err(Error::Other)?;
            let size = match site.kind {
                RecordKind::StatePoint if site.bytes == 0 => call().ok_or_else(|| {
                    Error::Other(format!(
                        "function {function}: no call instruction ends at statepoint ID {} (offset {})",
                        r.id, r.instruction_offset
                    ))
                })?,
                _ => site.bytes,
            };
            Ok((site.kind, Some(size)))
        }
        None => Ok(match call() {
            Some(size) => (RecordKind::StatePoint, Some(size)),
            None => (RecordKind::Unknown, None),
        }),
    }
}
