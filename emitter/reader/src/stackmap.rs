//! An owned, layout-neutral stack map table, read from and written in
//! either layout.
//!
//! [`Table::from_llvm`] and [`Table::from_flat`] read a table into this
//! model; [`write_flat`] and [`write_llvm`] write it. Reading back what was
//! written gives the same [`Table`] (up to what a layout can say), which the
//! round-trip tests check. The model knows both layouts; neither layout's
//! module knows the model.

use alloc::vec::Vec;

use crate::flat::{
    Cfa, FlatStackMap, FlatTable, FlatWriter, FrameHead, FrameRegister, FrameStateRef, RecordHead,
    RecordKind,
};
use crate::llvm::LlvmStackMap;
use crate::{Endian, Error, LiveOut, Location, Result};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
/// A stack map table, owned: read from either layout, written in either.
pub struct Table {
    /// Large constants (`ConstantIndex` locations index them).
    pub constants: Vec<u64>,
    /// Functions in address order.
    pub functions: Vec<Function>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
/// A function and its records.
pub struct Function {
    /// The value stored in the address field (0 where a relocation fills
    /// it): in a flat table a self-relative i32 sign-extended, or the
    /// absolute address.
    pub address: u64,
    /// Function size in bytes (flat only).
    pub size: u32,
    /// UINT64_MAX for a variable-sized frame, as LLVM writes it.
    pub stack_size: u64,
    /// Its records, sorted by instruction offset.
    pub records: Vec<Record>,
    /// Offset of the function's code in the one code section all of the
    /// table's functions are in, for the PC map (flat only; `None`: no map).
    pub code_offset: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// A record.
pub struct Record {
    /// The ID given to the intrinsic.
    pub id: u64,
    /// Offset from the function's address.
    pub instruction_offset: u32,
    /// `None` when not known.
    pub patchable_size: Option<u32>,
    /// What produced it.
    pub kind: RecordKind,
    /// LLVM listed the live-outs (patch points).
    pub has_live_out_info: bool,
    /// Where its values are.
    pub locations: Vec<Location>,
    /// Registers live across it (patch points).
    pub live_outs: Vec<LiveOut>,
    /// The CFI row at the record (flat only; `None`: no CFI covers it).
    pub frame_state: Option<FrameState>,
}

impl Record {
    /// A record with no locations, live-outs, patchable size or frame state.
    pub fn new(id: u64, instruction_offset: u32, kind: RecordKind) -> Record {
        Record {
            id,
            instruction_offset,
            patchable_size: None,
            kind,
            has_live_out_info: false,
            locations: Vec::new(),
            live_outs: Vec::new(),
            frame_state: None,
        }
    }
}

/// The CFI row in force at a record: see `docs/stackmap-v2.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FrameState {
    /// CFA = register + offset; `None` when the CFA is a DWARF expression.
    pub cfa: Option<Cfa>,
    /// The function realigns the stack pointer.
    pub stack_realigned: bool,
    /// Registers saved in slots, at the CFA + offset, sorted by register.
    pub saved: Vec<FrameRegister>,
}

impl FrameState {
    /// CFA = `cfa_register` + `cfa_offset`, not realigned, with registers
    /// saved at the CFA + offset: `(dwarf_reg, offset)` sorted by register.
    pub fn new(
        cfa_register: u16,
        cfa_offset: i32,
        saved: impl IntoIterator<Item = (u16, i32)>,
    ) -> FrameState {
        FrameState {
            cfa: Some(Cfa {
                register: cfa_register,
                offset: cfa_offset,
            }),
            stack_realigned: false,
            saved: saved
                .into_iter()
                .map(|(dwarf_reg, offset)| FrameRegister { dwarf_reg, offset })
                .collect(),
        }
    }

    /// Borrowed, for [`FlatWriter::record`](crate::flat::FlatWriter::record).
    pub fn as_ref(&self) -> FrameStateRef<'_> {
        FrameStateRef {
            cfa: self.cfa,
            stack_realigned: self.stack_realigned,
            saved: &self.saved,
        }
    }
}

impl Table {
    /// Reads an LLVM table, assigning records to functions in order (version
    /// 1 has no record counts: all records go to a single function then,
    /// which is only right for one-function tables; the caller may regroup).
    pub fn from_llvm<E: Endian>(map: &LlvmStackMap<'_, E>) -> Result<Table> {
        let constants = map.constants().collect::<Result<Vec<_>>>()?;
        let mut functions = Vec::new();
        let mut records = map.records();
        let n = map.num_functions();
        for i in 0..n {
            let f = map.function(i)?;
            let count = match f.record_count {
                Some(c) => c,
                None if i + 1 == n => u64::from(map.num_records()),
                None => 0,
            };
            let mut out = Vec::new();
            for _ in 0..count {
                let r = records
                    .next()
                    .ok_or(Error::Inconsistent("fewer records than counted"))??;
                let locations = r.locations().collect::<Result<Vec<_>>>()?;
                let live_outs = r.live_outs().collect::<Result<Vec<_>>>()?;
                out.push(Record {
                    id: r.id,
                    instruction_offset: r.instruction_offset,
                    patchable_size: None,
                    kind: RecordKind::Unknown,
                    has_live_out_info: !live_outs.is_empty(),
                    locations,
                    live_outs,
                    frame_state: None,
                });
            }
            functions.push(Function {
                address: f.address,
                stack_size: f.stack_size,
                records: out,
                ..Function::default()
            });
        }
        Ok(Table {
            constants,
            functions,
        })
    }

    /// Reads a flat table, checked with
    /// [`check_entries`](FlatStackMap::check_entries) first (not the
    /// functions' address order: a dump shows a table lookups would
    /// refuse).
    pub fn from_flat<E: Endian>(t: &FlatStackMap<'_, E>) -> Result<Table> {
        t.check_entries()?;
        let constants = (0..t.num_constants())
            .map(|i| t.constant(i))
            .collect::<Result<Vec<_>>>()?;
        let mut functions = Vec::new();
        for i in 0..t.num_frame_records() {
            let f = t.frame_record(i)?;
            let mut records = Vec::new();
            for r in t.records_of(&f)? {
                let r = r?;
                let site = t.site(r.site)?;
                let frame_state = match site.frame_state {
                    Some(offset) => {
                        let fs = t.frame_state(offset)?;
                        Some(FrameState {
                            cfa: fs.cfa,
                            stack_realigned: fs.stack_realigned(),
                            saved: t.saved_registers(&fs).collect::<Result<Vec<_>>>()?,
                        })
                    }
                    None => None,
                };
                records.push(Record {
                    id: site.id,
                    instruction_offset: r.instruction_offset,
                    patchable_size: site.patchable_size,
                    kind: site.kind,
                    has_live_out_info: site.has_live_out_info,
                    locations: t.locations(&site).collect::<Result<Vec<_>>>()?,
                    live_outs: t.live_outs(&site)?.collect::<Result<Vec<_>>>()?,
                    frame_state,
                });
            }
            functions.push(Function {
                address: f.address,
                size: f.size,
                stack_size: if f.variable_stack_size() {
                    u64::MAX
                } else {
                    f.stack_size.into()
                },
                records,
                code_offset: None,
            });
        }
        Ok(Table {
            constants,
            functions,
        })
    }
}

/// Writes `table` in the flat layout. Each function's records are sorted by
/// instruction offset (stably); function address fields hold
/// `Function::address` as given.
pub fn write_flat<E: Endian>(table: &Table, endian: E, absolute: bool) -> Result<FlatTable> {
    write_flat_with(table, endian, absolute, false)
}

/// [`write_flat_with`], then each function's address field filled as a
/// linker would with the table at `table_address` and each function at its
/// [`Function::address`]: the bytes a loaded program (or a JIT that built
/// the table in memory) holds.
pub fn write_flat_placed<E: Endian>(
    table: &Table,
    endian: E,
    absolute: bool,
    pc_map: bool,
    table_address: u64,
) -> Result<Vec<u8>> {
    // The fields are written as 0 (unrelocated), then placed.
    let mut flat = write(table, endian, absolute, pc_map, false)?;
    let addresses: Vec<u64> = table.functions.iter().map(|f| f.address).collect();
    flat.place(endian, table_address, &addresses)?;
    Ok(flat.bytes)
}

/// [`write_flat`], with a PC map if `pc_map` and every function has a
/// `code_offset` (see [`FlatWriter::pc_map`]).
pub fn write_flat_with<E: Endian>(
    table: &Table,
    endian: E,
    absolute: bool,
    pc_map: bool,
) -> Result<FlatTable> {
    write(table, endian, absolute, pc_map, true)
}

/// The flat writer's driver; `addresses`: store each [`Function::address`]
/// in its field, else 0.
fn write<E: Endian>(
    table: &Table,
    endian: E,
    absolute: bool,
    pc_map: bool,
    addresses: bool,
) -> Result<FlatTable> {
    let mut w = FlatWriter::new(endian, absolute);
    w.pc_map(pc_map && table.functions.iter().all(|f| f.code_offset.is_some()));
    let nrecords = table.functions.iter().map(|f| f.records.len()).sum();
    w.reserve(table.functions.len(), nrecords);
    for &c in &table.constants {
        w.constant(c);
    }
    let mut order: Vec<&Record> = Vec::new();
    for f in &table.functions {
        order.clear();
        order.extend(&f.records);
        order.sort_by_key(|r| r.instruction_offset);
        for r in &order {
            let head = RecordHead {
                id: r.id,
                instruction_offset: r.instruction_offset,
                patchable_size: r.patchable_size,
                kind: r.kind,
                has_live_out_info: r.has_live_out_info,
            };
            w.record(
                &head,
                r.locations.iter().copied().map(Ok),
                r.live_outs.iter().copied().map(Ok),
                r.frame_state.as_ref().map(FrameState::as_ref).as_ref(),
            )?;
        }
        w.function(&FrameHead {
            address: if addresses { f.address } else { 0 },
            size: f.size,
            stack_size: f.stack_size,
            code: f.code_offset.map(|offset| (0, offset)),
        })?;
    }
    w.finish()
}

/// Writes `table` in LLVM's layout `version` (1, 2 or 3), as LLVM's
/// `StackMaps::serializeToStackMapSection` would. For tests and fuzzing:
/// version 1 and 2 inputs are no longer made by any LLVM we can run.
pub fn write_llvm<E: Endian>(table: &Table, endian: E, version: u8) -> Result<Vec<u8>> {
    if !(1..=3).contains(&version) {
        return Err(Error::UnsupportedVersion(version));
    }
    let e = endian;
    let count = |n: usize| u32::try_from(n).map_err(|_| Error::TooLarge("count"));
    let nrecords: usize = table.functions.iter().map(|f| f.records.len()).sum();
    let mut out = Vec::new();
    out.extend_from_slice(&[version, 0, 0, 0]);
    out.extend_from_slice(&e.u32_bytes(count(table.functions.len())?));
    out.extend_from_slice(&e.u32_bytes(count(table.constants.len())?));
    out.extend_from_slice(&e.u32_bytes(count(nrecords)?));
    for f in &table.functions {
        out.extend_from_slice(&e.u64_bytes(f.address));
        out.extend_from_slice(&e.u64_bytes(f.stack_size));
        if version >= 2 {
            out.extend_from_slice(&e.u64_bytes(f.records.len() as u64));
        }
    }
    for c in &table.constants {
        out.extend_from_slice(&e.u64_bytes(*c));
    }
    let pad8 = |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(8), 0);
    for r in table.functions.iter().flat_map(|f| &f.records) {
        out.extend_from_slice(&e.u64_bytes(r.id));
        out.extend_from_slice(&e.u32_bytes(r.instruction_offset));
        out.extend_from_slice(&[0, 0]);
        let nloc =
            u16::try_from(r.locations.len()).map_err(|_| Error::TooLarge("location count"))?;
        out.extend_from_slice(&e.u16_bytes(nloc));
        for l in &r.locations {
            out.push(l.kind as u8);
            if version >= 3 {
                out.push(0);
                out.extend_from_slice(&e.u16_bytes(l.size));
                out.extend_from_slice(&e.u16_bytes(l.dwarf_reg));
                out.extend_from_slice(&[0, 0]);
            } else {
                out.push(u8::try_from(l.size).map_err(|_| Error::TooLarge("location size"))?);
                out.extend_from_slice(&e.u16_bytes(l.dwarf_reg));
            }
            out.extend_from_slice(&e.u32_bytes(l.offset as u32));
        }
        if version >= 3 {
            pad8(&mut out);
        }
        out.extend_from_slice(&[0, 0]);
        let nlo =
            u16::try_from(r.live_outs.len()).map_err(|_| Error::TooLarge("live-out count"))?;
        out.extend_from_slice(&e.u16_bytes(nlo));
        for l in &r.live_outs {
            out.extend_from_slice(&e.u16_bytes(l.dwarf_reg));
            out.extend_from_slice(&[0, l.size]);
        }
        pad8(&mut out);
    }
    Ok(out)
}
