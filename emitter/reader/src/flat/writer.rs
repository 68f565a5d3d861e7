//! Writing a flat table: [`FlatWriter`] takes records one by one straight
//! from a reader, uniques every list as it arrives and lays out the header,
//! the arrays, the function index and the PC map.

use alloc::vec::Vec;
use core::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::table::FrameRegister;
use super::{
    frame_record, frame_register, header, live_out, location, pc_map_entry, record, FRAME_RECORDS,
    LIVE_OUTS, RECORDS,
};
use crate::flat::{self, RecordKind};
use crate::{Endian, Error, LiveOut, Location, Result};

/// A written flat table and where its function address fields are.
#[derive(Debug, Clone)]
pub struct FlatTable {
    pub bytes: Vec<u8>,
    /// Offset in `bytes` of each function's address field, in function order.
    pub address_offsets: Vec<usize>,
    /// Offset in `bytes` of each function's function index entry (the same
    /// address, self-relative i32): empty when the table has no index.
    pub index_offsets: Vec<usize>,
}

/// Collects the lists of one array (locations, live-outs or frame
/// registers) as their encoded entries of `SIZE` bytes, storing each
/// distinct list once (the uniquing rule), in first-use order: `bytes` is
/// the array as written. The table holds each distinct list's place in
/// `bytes`, hashed by its bytes, so no list is allocated on its own.
///
/// Measured against the open-addressing table with an Fx hash this
/// replaced (cachegrind, `write_flat_with` of the 200,000-record
/// `scripts/gen-stackmap-bench` table): 88.6 M instructions against 87.0 M
/// (+1.8 %), no difference in `scripts/bench-emit`. Hashing the lists as
/// tuples of fields instead of their bytes cost 58 % more (137.8 M).
struct Uniquer<const SIZE: usize> {
    bytes: Vec<u8>,
    /// (start, length) in `bytes` of each distinct list.
    lists: HashTable<(u32, u32)>,
    hasher: DefaultHashBuilder,
}

impl<const SIZE: usize> Uniquer<SIZE> {
    fn new() -> Self {
        Uniquer {
            bytes: Vec::new(),
            lists: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }
    /// The index of the first entry of `list` (whole entries) in the array;
    /// 0 for an empty list.
    fn add(&mut self, list: &[u8]) -> Result<u32> {
        if list.is_empty() {
            return Ok(0);
        }
        let (bytes, hasher) = (&self.bytes, &self.hasher);
        let stored = |&(start, len): &(u32, u32)| &bytes[start as usize..(start + len) as usize];
        let hash = hasher.hash_one(list);
        let start = match self.lists.find(hash, |l| stored(l) == list) {
            Some(&(start, _)) => start,
            None => {
                let too_large = |_| Error::TooLarge("array");
                let start = u32::try_from(self.bytes.len()).map_err(too_large)?;
                let len = u32::try_from(list.len()).map_err(too_large)?;
                start.checked_add(len).ok_or(Error::TooLarge("array"))?;
                self.bytes.extend_from_slice(list);
                let (bytes, hasher) = (&self.bytes, &self.hasher);
                self.lists
                    .insert_unique(hash, (start, len), |&(start, len)| {
                        hasher.hash_one(&bytes[start as usize..(start + len) as usize])
                    });
                start
            }
        };
        Ok(start / SIZE as u32)
    }
}

/// A record's fields other than its lists, for [`FlatWriter::record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHead {
    pub id: u64,
    pub instruction_offset: u32,
    /// `None` when not known.
    pub patchable_size: Option<u32>,
    pub kind: RecordKind,
    pub has_live_out_info: bool,
}

/// A function's frame record fields, for [`FlatWriter::function`].
#[derive(Debug, Clone, Copy)]
pub struct FrameHead<'a> {
    /// The value stored in the address field (0 where a relocation fills it).
    pub address: u64,
    pub size: u32,
    /// UINT64_MAX for a variable-sized frame, as LLVM writes it.
    pub stack_size: u64,
    /// Flags other than those derived from the records and stack size.
    pub flags: u8,
    pub frame_base_register: u16,
    pub cfa_offset: i32,
    /// Offsets from the CFA; each must fit in an i16.
    pub frame_registers: &'a [FrameRegister],
    /// The function's code section (any number naming it) and offset in
    /// it, for the PC map; `None` if unknown.
    pub code: Option<(usize, u64)>,
}

/// Writes a flat table without an owned model of it: records are added one
/// by one straight from a reader, then [`function`](Self::function) closes
/// the function they belong to. Every list is uniqued as it arrives.
pub struct FlatWriter<E: Endian> {
    endian: E,
    absolute: bool,
    /// Write a function index (`FUNCTION_INDEX`).
    function_index: bool,
    /// Write a PC map (`PC_MAP`) if every function's code is in one section.
    pc_map: bool,
    /// Code section and offsets of the functions so far, while they allow a
    /// PC map (one section, ascending); `None` once they do not.
    code: Option<(Option<usize>, Vec<u64>)>,
    constants: Vec<u8>,
    frames: Vec<u8>,
    /// The table being written: from the first record on, room for the
    /// header, constants and planned frame records, then the records.
    out: Vec<u8>,
    /// Where the records start in `out`, once the first record came.
    records_start: Option<usize>,
    /// Functions and records announced by [`reserve`](Self::reserve).
    planned: (usize, usize),
    nrecords: u32,
    /// First record of the function being written.
    first_record: u32,
    /// Offset of the last record of that function, to check the order.
    last_offset: Option<u32>,
    /// `HAS_LIVE_OUT_INFO` when one of its records has live-out info.
    live_out_info: bool,
    locs: Uniquer<{ flat::LOCATION_SIZE }>,
    los: Uniquer<{ flat::LIVE_OUT_SIZE }>,
    regs: Uniquer<{ flat::FRAME_REGISTER_SIZE }>,
    /// The list being added, encoded.
    list: Vec<u8>,
}

impl<E: Endian> FlatWriter<E> {
    pub fn new(endian: E, absolute: bool) -> Self {
        FlatWriter {
            endian,
            absolute,
            function_index: false,
            pc_map: false,
            code: Some((None, Vec::new())),
            constants: Vec::new(),
            frames: Vec::new(),
            out: Vec::new(),
            records_start: None,
            planned: (0, 0),
            nrecords: 0,
            first_record: 0,
            last_offset: None,
            live_out_info: false,
            locs: Uniquer::new(),
            los: Uniquer::new(),
            regs: Uniquer::new(),
            list: Vec::new(),
        }
    }

    /// Whether to end the table with a function index (header flag
    /// `FUNCTION_INDEX`): one self-relative i32 per function, the function's
    /// address field value re-based to the entry (0 where the address field
    /// holds 0: a relocation fills both). Ignored with absolute addresses.
    /// Off by default; `pcmap emit` turns it on from
    /// [`flat::FUNCTION_INDEX_MIN_FUNCTIONS`] functions.
    pub fn function_index(&mut self, on: bool) {
        self.function_index = on && !self.absolute;
    }

    /// Whether to write a PC map (header flag `PC_MAP`) after the function
    /// index: written if there is an index and every function gave its code
    /// position ([`FrameHead::code`]) in one section, in ascending order.
    /// Asking for it reserves the header's PC map fields (8 bytes) either
    /// way, so that the records can be written in place. Off by default;
    /// `pcmap emit` turns it on with the function index.
    pub fn pc_map(&mut self, on: bool) {
        self.pc_map = on;
    }

    /// Header size: the PC map's fields are planned with the index.
    fn header_size(&self) -> usize {
        if self.function_index && self.pc_map {
            flat::PC_MAP_HEADER_SIZE
        } else {
            flat::HEADER_SIZE
        }
    }

    /// Announces how many functions and records the table will have, before
    /// the first record: the records are then written in place in the final
    /// buffer (a wrong count only costs a copy).
    pub fn reserve(&mut self, functions: usize, records: usize) {
        self.frames.reserve(functions * flat::FRAME_RECORD_SIZE);
        self.planned = (functions, records);
    }

    /// Lays out `out` up to the records, at the first record.
    fn records_start(&mut self) -> usize {
        if let Some(start) = self.records_start {
            return start;
        }
        let (functions, records) = self.planned;
        let start = self.header_size()
            + self.constants.len()
            + functions.saturating_mul(flat::FRAME_RECORD_SIZE);
        self.out
            .reserve(start.saturating_add(records.saturating_mul(flat::RECORD_SIZE)));
        self.out.resize(start, 0);
        self.records_start = Some(start);
        start
    }

    /// Appends a large constant (LLVM's order, so constant indices hold).
    pub fn constant(&mut self, value: u64) {
        self.constants
            .extend_from_slice(&self.endian.u64_bytes(value));
    }

    /// Adds a record to the current function. Records of a function must
    /// come in instruction offset order (`Error::NotSorted` otherwise).
    pub fn record<L, O>(&mut self, r: &RecordHead, locations: L, live_outs: O) -> Result<()>
    where
        L: IntoIterator<Item = Result<Location>>,
        O: IntoIterator<Item = Result<LiveOut>>,
    {
        let e = self.endian;
        if self
            .last_offset
            .is_some_and(|last| r.instruction_offset < last)
        {
            return Err(Error::NotSorted {
                function: (self.frames.len() / flat::FRAME_RECORD_SIZE) as u32,
                record: self.nrecords,
            });
        }
        self.last_offset = Some(r.instruction_offset);
        self.list.clear();
        for l in locations {
            let l = l?;
            let mut entry = [0u8; flat::LOCATION_SIZE];
            entry[location::KIND] = l.kind as u8;
            entry[location::SIZE] =
                u8::try_from(l.size).map_err(|_| Error::TooLarge("location size"))?;
            put(&mut entry, location::DWARF_REG, e.u16_bytes(l.dwarf_reg));
            put(&mut entry, location::OFFSET, e.u32_bytes(l.offset as u32));
            self.list.extend_from_slice(&entry);
        }
        let nloc = u16::try_from(self.list.len() / flat::LOCATION_SIZE)
            .map_err(|_| Error::TooLarge("location count"))?;
        let loc_index = self.locs.add(&self.list)?;
        self.list.clear();
        for l in live_outs {
            let l = l?;
            let mut entry = [0u8; flat::LIVE_OUT_SIZE];
            put(&mut entry, live_out::DWARF_REG, e.u16_bytes(l.dwarf_reg));
            entry[live_out::SIZE] = l.size;
            self.list.extend_from_slice(&entry);
        }
        let nlo = u16::try_from(self.list.len() / flat::LIVE_OUT_SIZE)
            .map_err(|_| Error::TooLarge("live-out count"))?;
        let lo_index = self.los.add(&self.list)?;
        let mut rflags = 0;
        if r.has_live_out_info {
            rflags |= flat::RECORD_HAS_LIVE_OUT_INFO;
            self.live_out_info = true;
        }
        if r.patchable_size.is_some() {
            rflags |= flat::RECORD_PATCHABLE_SIZE_KNOWN;
        }
        let mut entry = [0u8; flat::RECORD_SIZE];
        put(&mut entry, record::ID, e.u64_bytes(r.id));
        put(
            &mut entry,
            record::INSTRUCTION_OFFSET,
            e.u32_bytes(r.instruction_offset),
        );
        let patchable_size = r.patchable_size.unwrap_or(0);
        put(
            &mut entry,
            record::PATCHABLE_SIZE,
            e.u32_bytes(patchable_size),
        );
        put(&mut entry, record::NUM_LOCATIONS, e.u16_bytes(nloc));
        put(&mut entry, record::NUM_LIVE_OUTS, e.u16_bytes(nlo));
        put(&mut entry, record::LOCATION_INDEX, e.u32_bytes(loc_index));
        put(&mut entry, record::LIVE_OUT_INDEX, e.u32_bytes(lo_index));
        entry[record::FLAGS] = rflags;
        entry[record::KIND] = r.kind as u8;
        self.records_start();
        self.out.extend_from_slice(&entry);
        self.nrecords = self
            .nrecords
            .checked_add(1)
            .ok_or(Error::TooLarge("record count"))?;
        Ok(())
    }

    /// Each record's offset in the code section of the functions at
    /// `functions` (their code offsets), from the records written from
    /// byte `start` of the output and the frame records' record indices.
    fn record_code_offsets(&self, functions: &[u64], start: usize) -> Vec<u64> {
        let e = self.endian;
        let field = |bytes: &[u8], at: usize| {
            let b = bytes.get(at..at + 4).and_then(|b| b.try_into().ok());
            e.u32_from(b.unwrap_or([0; 4])) as usize
        };
        let mut out = Vec::with_capacity(self.nrecords as usize);
        for (i, &code) in functions.iter().enumerate() {
            let record_index = |i| i * flat::FRAME_RECORD_SIZE + frame_record::RECORD_INDEX;
            let first = field(&self.frames, record_index(i));
            let end = match (i + 1) * flat::FRAME_RECORD_SIZE < self.frames.len() {
                true => field(&self.frames, record_index(i + 1)),
                false => self.nrecords as usize,
            };
            for r in first..end {
                let at = start + r * flat::RECORD_SIZE + record::INSTRUCTION_OFFSET;
                let offset = field(&self.out, at);
                out.push(code + offset as u64);
            }
        }
        out
    }

    /// Writes the frame record of the function whose records were added
    /// since the last call; returns the offset of its address field.
    pub fn function(&mut self, f: &FrameHead<'_>) -> Result<usize> {
        let e = self.endian;
        let mut flags = f.flags & !(flat::HAS_VARIABLE_SIZE_ALLOCA | flat::HAS_LIVE_OUT_INFO);
        if self.live_out_info {
            flags |= flat::HAS_LIVE_OUT_INFO;
        }
        let stack_size = if f.stack_size == u64::MAX {
            flags |= flat::HAS_VARIABLE_SIZE_ALLOCA;
            flat::VARIABLE_STACK_SIZE
        } else {
            u32::try_from(f.stack_size)
                .ok()
                .filter(|&s| s != flat::VARIABLE_STACK_SIZE)
                .ok_or(Error::TooLarge("stack size"))?
        };
        self.list.clear();
        for r in f.frame_registers {
            let off =
                i16::try_from(r.offset).map_err(|_| Error::TooLarge("frame register offset"))?;
            let mut entry = [0u8; flat::FRAME_REGISTER_SIZE];
            put(
                &mut entry,
                frame_register::DWARF_REG,
                e.u16_bytes(r.dwarf_reg),
            );
            put(&mut entry, frame_register::OFFSET, e.u16_bytes(off as u16));
            self.list.extend_from_slice(&entry);
        }
        let nregs = u8::try_from(self.list.len() / flat::FRAME_REGISTER_SIZE)
            .map_err(|_| Error::TooLarge("frame register count"))?;
        let reg_index = self.regs.add(&self.list)?;
        let field = self.frames.len() + frame_record::ADDRESS;
        let mut entry = [0u8; flat::FRAME_RECORD_SIZE];
        put(&mut entry, frame_record::ADDRESS, e.u64_bytes(f.address));
        put(&mut entry, frame_record::SIZE, e.u32_bytes(f.size));
        put(
            &mut entry,
            frame_record::STACK_SIZE,
            e.u32_bytes(stack_size),
        );
        entry[frame_record::FLAGS] = flags;
        entry[frame_record::NUM_FRAME_REGISTERS] = nregs;
        put(
            &mut entry,
            frame_record::FRAME_BASE_REGISTER,
            e.u16_bytes(f.frame_base_register),
        );
        let cfa_offset = e.u32_bytes(f.cfa_offset as u32);
        put(&mut entry, frame_record::CFA_OFFSET, cfa_offset);
        put(
            &mut entry,
            frame_record::FRAME_REGISTER_INDEX,
            e.u32_bytes(reg_index),
        );
        put(
            &mut entry,
            frame_record::RECORD_INDEX,
            e.u32_bytes(self.first_record),
        );
        self.frames.extend_from_slice(&entry);
        self.code = match (self.code.take(), f.code) {
            (Some((section, mut offsets)), Some((s, offset)))
                if section.unwrap_or(s) == s && offsets.last().copied().unwrap_or(0) <= offset =>
            {
                offsets.push(offset);
                Some((Some(s), offsets))
            }
            _ => None,
        };
        self.first_record = self.nrecords;
        self.last_offset = None;
        self.live_out_info = false;
        Ok(field)
    }

    /// The table: header and arrays in one buffer of exactly `table size`
    /// bytes. Records added after the last [`function`](Self::function)
    /// call are an error.
    pub fn finish(mut self) -> Result<FlatTable> {
        if self.first_record != self.nrecords {
            return Err(Error::Inconsistent("records without a function"));
        }
        let e = self.endian;
        let start = self.records_start();
        let records = self.out.len() - start;
        let functions = self.frames.len() / flat::FRAME_RECORD_SIZE;
        let header_size = self.header_size();
        let pc_map = match (&self.code, header_size == flat::PC_MAP_HEADER_SIZE) {
            (Some((_, offsets)), true) if !offsets.is_empty() => {
                Some(pc_map(offsets, &self.record_code_offsets(offsets, start))?)
            }
            _ => None,
        };
        let sizes = [
            self.constants.len(),
            self.frames.len(),
            records,
            self.locs.bytes.len(),
            self.regs.bytes.len(),
            self.los.bytes.len(),
            if self.function_index {
                functions * flat::FUNCTION_INDEX_ENTRY_SIZE
            } else {
                0
            },
            pc_map
                .as_ref()
                .map_or(0, |(_, m)| m.len() * flat::PC_MAP_ENTRY_SIZE),
        ];
        let mut bounds = [0usize; flat::NUM_BOUNDS];
        bounds[0] = header_size;
        for i in 0..sizes.len() {
            bounds[i + 1] = bounds[i]
                .checked_add(sizes[i])
                .ok_or(Error::TooLarge("table"))?;
        }
        let total = bounds[flat::NUM_BOUNDS - 1];
        let total32 = u32::try_from(total).map_err(|_| Error::TooLarge("table"))?;

        let mut hflags = 0;
        if self.absolute {
            hflags |= flat::ABSOLUTE_ADDRESSES;
        }
        if e.is_big_endian() {
            hflags |= flat::BIG_ENDIAN;
        }
        if self.function_index {
            hflags |= flat::FUNCTION_INDEX;
        }
        if pc_map.is_some() {
            hflags |= flat::PC_MAP;
        }
        // Room for the larger header; the fields past `header_size` stay out.
        let mut header = [0u8; flat::PC_MAP_HEADER_SIZE];
        put(&mut header, header::MAGIC, flat::MAGIC);
        header[header::VERSION] = flat::VERSION;
        header[header::FLAGS] = hflags;
        put(&mut header, header::SIZE, e.u16_bytes(header_size as u16));
        put(&mut header, header::TABLE_SIZE, e.u32_bytes(total32));
        for (i, b) in bounds[FRAME_RECORDS..=LIVE_OUTS].iter().enumerate() {
            put(
                &mut header,
                header::ARRAY_OFFSETS + 4 * i,
                e.u32_bytes(*b as u32),
            );
        }
        if header_size == flat::PC_MAP_HEADER_SIZE {
            let (shift, entries) = pc_map.as_ref().map_or((0, 0), |(s, m)| (*s, m.len()));
            put(
                &mut header,
                header::PC_MAP_ENTRIES,
                e.u32_bytes(entries as u32),
            );
            header[header::PC_MAP_SHIFT] = shift;
        }
        let header = &header[..header_size];
        let (frames_at, records_at) = (bounds[FRAME_RECORDS], bounds[RECORDS]);
        let mut out = if start == records_at {
            // As planned: the records are in place, fill in what precedes them.
            let mut out = core::mem::take(&mut self.out);
            out.reserve(total - out.len());
            out[..header_size].copy_from_slice(header);
            out[header_size..frames_at].copy_from_slice(&self.constants);
            out[frames_at..records_at].copy_from_slice(&self.frames);
            out
        } else {
            let mut out = Vec::with_capacity(total);
            out.extend_from_slice(header);
            out.extend_from_slice(&self.constants);
            out.extend_from_slice(&self.frames);
            out.extend_from_slice(&self.out[start..]);
            out
        };
        out.extend_from_slice(&self.locs.bytes);
        out.extend_from_slice(&self.regs.bytes);
        out.extend_from_slice(&self.los.bytes);
        let address_offsets: Vec<usize> = (0..functions)
            .map(|i| frames_at + i * flat::FRAME_RECORD_SIZE + frame_record::ADDRESS)
            .collect();
        let mut index_offsets = Vec::new();
        if self.function_index {
            let first = out.len();
            for (i, &field) in address_offsets.iter().enumerate() {
                let at = first + i * flat::FUNCTION_INDEX_ENTRY_SIZE;
                let f = field - frames_at;
                let stored = e.u64_from(self.frames[f..f + 8].try_into().unwrap_or([0; 8])) as i64;
                let value = if stored == 0 {
                    0
                } else {
                    i32::try_from(stored + field as i64 - at as i64)
                        .map_err(|_| Error::TooLarge("function index entry (±2 GiB)"))?
                };
                out.extend_from_slice(&e.u32_bytes(value as u32));
                index_offsets.push(at);
            }
        }
        for &(f, r) in pc_map.iter().flat_map(|(_, m)| m) {
            let mut entry = [0u8; flat::PC_MAP_ENTRY_SIZE];
            put(&mut entry, pc_map_entry::FUNCTION, e.u32_bytes(f));
            put(&mut entry, pc_map_entry::RECORD, e.u32_bytes(r));
            out.extend_from_slice(&entry);
        }
        debug_assert_eq!(out.len(), total);
        Ok(FlatTable {
            bytes: out,
            address_offsets,
            index_offsets,
        })
    }
}

/// The PC map of functions at `functions` (ascending, in one section) with
/// records at `records` (in the same section): its shift, the smallest
/// giving at most one bucket per [`flat::PC_MAP_RECORDS_PER_BUCKET`] records
/// (or functions, if more), and for each bucket the last function starting
/// at or before the bucket's start and the first record at or after it.
fn pc_map(functions: &[u64], records: &[u64]) -> Result<(u8, Vec<(u32, u32)>)> {
    let first = functions[0];
    let last = functions
        .iter()
        .chain(records)
        .copied()
        .max()
        .unwrap_or(first);
    let span = last - first;
    let target =
        (functions.len().max(records.len()) / flat::PC_MAP_RECORDS_PER_BUCKET).max(1) as u64;
    let shift = (0..=flat::PC_MAP_MAX_SHIFT)
        .find(|&s| (span >> s) < target)
        .unwrap_or(flat::PC_MAP_MAX_SHIFT);
    let buckets = (span >> shift) + 1;
    let mut map = Vec::with_capacity(buckets as usize);
    let (mut f, mut r) = (0, 0);
    let index = |i: usize| u32::try_from(i).map_err(|_| Error::TooLarge("PC map entry"));
    for b in 0..buckets {
        let start = first + (b << shift);
        while f + 1 < functions.len() && functions[f + 1] <= start {
            f += 1;
        }
        // Records are in code order if the functions do not overlap; if
        // not, the entry is only less useful (lookups check it).
        while r < records.len() && records[r] < start {
            r += 1;
        }
        map.push((index(f)?, index(r)?));
    }
    Ok((shift, map))
}

/// Puts `bytes` at byte `at` of `entry` (a field at its layout offset).
fn put<const N: usize>(entry: &mut [u8], at: usize, bytes: [u8; N]) {
    entry[at..at + N].copy_from_slice(&bytes);
}
