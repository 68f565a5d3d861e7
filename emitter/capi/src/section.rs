//! A `pcmap_stackmaps` section: its tables, and finding the record of a PC.
//!
//! Opening reads only the table headers, so it costs the same for ten records
//! as for a million. A lookup visits each table's header, binary searches its
//! frame records by function address and then the function's records by
//! instruction offset: O(tables + log functions + log records), no memory.

use pcmap_reader::flat::{self, FlatStackMap};
use pcmap_reader::{BigEndian, Endian, Error, LittleEndian, RunTimeEndian};

use crate::status::pcmap_status;
use crate::types::{pcmap_function, pcmap_record, pcmap_stackmaps, pcmap_table, Table};

/// Section bytes and the address they have in the described program.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub bytes: &'a [u8],
    pub address: u64,
}

/// Byte order of the tables in `bytes`, from the first table's header flag
/// (a section only ever holds one target's tables).
pub(crate) fn endian_of(bytes: &[u8]) -> RunTimeEndian {
    const FLAGS_OFFSET: usize = 5;
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(0);
    match bytes.get(start + FLAGS_OFFSET) {
        Some(f) if f & flat::BIG_ENDIAN != 0 => RunTimeEndian::Big,
        _ => RunTimeEndian::Little,
    }
}

impl<'a> Section<'a> {
    pub fn new(bytes: &'a [u8], address: u64) -> Self {
        Section { bytes, address }
    }

    /// Each table with the `pcmap_table` that refers to it.
    pub fn tables(&self) -> impl Iterator<Item = Result<(pcmap_table, Table<'a>), Error>> + 'a {
        self.tables_in(endian_of(self.bytes))
    }

    /// `tables` with the byte order fixed at compile time, for lookups.
    fn tables_in<E: Endian + 'a>(
        &self,
        endian: E,
    ) -> impl Iterator<Item = Result<(pcmap_table, FlatStackMap<'a, E>), Error>> + 'a {
        let (bytes, address) = (self.bytes, self.address);
        FlatStackMap::tables(bytes, endian).map(move |t| {
            t.map(|(offset, table)| {
                let r = pcmap_table {
                    data: bytes[offset..].as_ptr(),
                    size: table.table_size() as usize,
                    address: address.wrapping_add(offset as u64),
                };
                (r, table)
            })
        })
    }

    /// Checks every table header and counts tables, functions and records.
    pub fn open(&self) -> Result<pcmap_stackmaps, pcmap_status> {
        if self.bytes.iter().all(|&b| b == 0) {
            return Err(Error::BadMagic.into());
        }
        let mut m = pcmap_stackmaps {
            data: self.bytes.as_ptr(),
            size: self.bytes.len(),
            address: self.address,
            num_tables: 0,
            num_functions: 0,
            num_records: 0,
        };
        for t in self.tables() {
            let (_, t) = t?;
            m.num_tables = m
                .num_tables
                .checked_add(1)
                .ok_or(pcmap_status::PCMAP_ERR_CORRUPT)?;
            m.num_functions = m
                .num_functions
                .checked_add(t.num_frame_records())
                .ok_or(pcmap_status::PCMAP_ERR_CORRUPT)?;
            m.num_records += u64::from(t.num_records());
        }
        Ok(m)
    }

    /// Checks every entry of every table, and that each table's functions
    /// are in address order without overlap (which lookups rely on).
    pub fn validate(&self) -> Result<(), pcmap_status> {
        for t in self.tables() {
            let (r, t) = t?;
            t.validate()?;
            let mut end = 0u64;
            for i in 0..t.num_frame_records() {
                let f = pcmap_function::new(r, &t, i)?;
                if i > 0 && f.address < end {
                    return Err(pcmap_status::PCMAP_ERR_NOT_SORTED);
                }
                end = f
                    .address
                    .checked_add(f.size.into())
                    .ok_or(pcmap_status::PCMAP_ERR_CORRUPT)?;
            }
        }
        Ok(())
    }

    /// The function containing `pc` and its record at `pc`, if any.
    pub fn find(&self, pc: u64) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        self.search(pc, Match::Exact)
    }

    /// The function containing `pc` and its first record at or after `pc`:
    /// for a stack map placed after a call, the call's return address may
    /// precede the record by the moves of the call's result.
    pub fn find_at_or_after(
        &self,
        pc: u64,
    ) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        self.search(pc, Match::AtOrAfter)
    }

    fn search(
        &self,
        pc: u64,
        how: Match,
    ) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        match endian_of(self.bytes) {
            RunTimeEndian::Little => self.search_in(LittleEndian, pc, how),
            RunTimeEndian::Big => self.search_in(BigEndian, pc, how),
        }
    }

    fn search_in<E: Endian + 'a>(
        &self,
        endian: E,
        pc: u64,
        how: Match,
    ) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        for t in self.tables_in(endian) {
            let (r, t) = t?;
            let Some(f) = function_containing(r, &t, pc)? else {
                continue;
            };
            let Ok(offset) = u32::try_from(pc - f.address) else {
                continue;
            };
            let found = match how {
                Match::Exact => t.find_record(&f.frame_record(), offset)?,
                Match::AtOrAfter => first_record_from(&t, &f, offset)?,
            };
            if let Some((index, rec)) = found {
                return Ok(Some((f, pcmap_record::new(&f, index, &rec))));
            }
        }
        Ok(None)
    }

    /// Function `index` counting across all tables in section order.
    pub fn function_at(&self, mut index: u32) -> Result<Option<pcmap_function>, pcmap_status> {
        for t in self.tables() {
            let (r, t) = t?;
            if index < t.num_frame_records() {
                return Ok(Some(pcmap_function::new(r, &t, index)?));
            }
            index -= t.num_frame_records();
        }
        Ok(None)
    }
}

/// The last function of `t` starting at or below `pc`, by binary search over
/// the frame records (in address order, as LLVM emits them), if `pc` is
/// inside it. A return address may equal the end of a function whose last
/// instruction is a call.
fn function_containing<E: Endian>(
    r: pcmap_table,
    t: &FlatStackMap<'_, E>,
    pc: u64,
) -> Result<Option<pcmap_function>, pcmap_status> {
    let (mut lo, mut hi) = (0, t.num_frame_records());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if t.function_address(mid, r.address)? <= pc {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return Ok(None);
    }
    let f = pcmap_function::new(r, t, lo - 1)?;
    let inside = f.size == 0 || pc - f.address <= u64::from(f.size);
    Ok(inside.then_some(f))
}

/// Which record of the function a search returns.
#[derive(Clone, Copy)]
enum Match {
    /// The record at the PC.
    Exact,
    /// The first record at or after the PC.
    AtOrAfter,
}

/// The first record of `f` at or after `offset` (lower bound: records are
/// sorted by offset).
fn first_record_from<E: Endian>(
    t: &FlatStackMap<'_, E>,
    f: &pcmap_function,
    offset: u32,
) -> Result<Option<(u32, flat::Record)>, pcmap_status> {
    let end = f
        .record_index
        .checked_add(f.num_records)
        .ok_or(pcmap_status::PCMAP_ERR_OUT_OF_RANGE)?;
    let (mut lo, mut hi) = (f.record_index, end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if t.record_instruction_offset(mid)? < offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo < end {
        Ok(Some((lo, t.record(lo)?)))
    } else {
        Ok(None)
    }
}
