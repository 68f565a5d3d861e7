//! The flat stack map layout (`docs/stackmap-v2.md`), section
//! `pcmap_stackmaps`.
//!
//! ```text
//! Header (32)       u8[4] magic "\x7fSMF", u8 version, u8 flags, u16 header size,
//!                   u32 table size (= end of the live-outs), u32 offsets of:
//!                   frame records, records, locations, frame registers, live-outs
//! Constant[]   (8)  u64                       (from `header size`)
//! FrameRecord[] (32) i64 address (self-relative) | u64 (absolute), u32 size,
//!                   u32 stack size, u8 flags, u8 num frame regs, u16 CFA reg,
//!                   i32 CFA offset, u32 frame reg index, u32 record index
//! Record[]     (32) u64 ID, u32 instruction offset, u32 patchable size,
//!                   u16 num locations, u16 num live-outs, u32 location index,
//!                   u32 live-out index, u8 flags, u8 kind, u16 0
//! Location[]    (8) u8 kind, u8 size, u16 dwarf reg, i32 offset
//! FrameRegister[] (4) u16 dwarf reg, i16 offset of its slot from the CFA
//! LiveOut[]     (4) u16 dwarf reg, u8 0, u8 size
//! FunctionIndex[] (4) i32 function address (self-relative), one per frame
//!                   record; only with header flag FUNCTION_INDEX
//! PcMap[]       (8) per 2^shift code bytes: u32 function index, u32 record
//!                   index; only with header flag PC_MAP, whose header is
//!                   40 bytes: ... u32 PC map entries (at 32), u8 shift, u8[3] 0
//! ```
//!
//! Arrays follow each other without gaps, so each count is the distance to the
//! next array's offset divided by the entry size. A function's record count
//! is the distance from its record index to the next function's (the last
//! function's: to the number of records). The next table of a section starts
//! at `table size` rounded up to a multiple of 8.

use crate::endian::Bytes;
use crate::{Endian, Error, LiveOut, Location, LocationKind, Result};

/// Name of the section: a C identifier, so linkers define `__start_`/`__stop_`.
pub const SECTION_NAME: &str = "pcmap_stackmaps";
pub const MAGIC: [u8; 4] = [0x7f, b'S', b'M', b'F'];
pub const VERSION: u8 = 1;
pub const HEADER_SIZE: usize = 32;
/// Alignment of the section and of every table in it (and of `header size`).
pub const TABLE_ALIGN: usize = 8;

/// Header flag: function addresses are absolute, not self-relative.
pub const ABSOLUTE_ADDRESSES: u8 = 1 << 0;
/// Header flag: the table is big-endian.
pub const BIG_ENDIAN: u8 = 1 << 1;
/// Header flag: the table ends with a function index, one self-relative i32
/// function address per frame record (never with `ABSOLUTE_ADDRESSES`).
pub const FUNCTION_INDEX: u8 = 1 << 2;
/// Header flag: the table ends with a PC map (after the function index,
/// which it requires), described by the header's extension.
pub const PC_MAP: u8 = 1 << 3;
/// Header size with the PC map's fields.
pub const PC_MAP_HEADER_SIZE: usize = 40;
/// Largest PC map shift a reader accepts (buckets of 2 GiB).
pub const PC_MAP_MAX_SHIFT: u8 = 31;

/// Frame record flags.
pub const HAS_FRAME_POINTER: u8 = 1 << 0;
pub const HAS_VARIABLE_SIZE_ALLOCA: u8 = 1 << 1;
pub const HAS_STACK_REALIGNMENT: u8 = 1 << 2;
pub const HAS_LIVE_OUT_INFO: u8 = 1 << 3;
pub const HAS_FRAME_INFO: u8 = 1 << 4;

/// Record flags.
pub const RECORD_HAS_LIVE_OUT_INFO: u8 = 1 << 0;
pub const RECORD_PATCHABLE_SIZE_KNOWN: u8 = 1 << 1;

/// Stack size stored for a frame with a variable-sized alloca.
pub const VARIABLE_STACK_SIZE: u32 = u32::MAX;

pub const CONSTANT_SIZE: usize = 8;
pub const FRAME_RECORD_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 32;
pub const LOCATION_SIZE: usize = 8;
pub const FRAME_REGISTER_SIZE: usize = 4;
pub const LIVE_OUT_SIZE: usize = 4;
pub const FUNCTION_INDEX_ENTRY_SIZE: usize = 4;
pub const PC_MAP_ENTRY_SIZE: usize = 8;
/// Offset of a frame record's record index, and of a record's instruction
/// offset, in their entries.
const FRAME_RECORD_INDEX_FIELD: usize = 28;
const RECORD_OFFSET_FIELD: usize = 8;

/// Entries of a table's bounds: where each array starts, and the table size.
pub const NUM_BOUNDS: usize = 9;

/// The arrays, in table order, with their entry sizes and alignments.
pub(crate) const ARRAYS: [(&str, usize, usize); NUM_BOUNDS - 1] = [
    ("constants", CONSTANT_SIZE, 8),
    ("frame records", FRAME_RECORD_SIZE, 8),
    ("records", RECORD_SIZE, 8),
    ("locations", LOCATION_SIZE, 4),
    ("frame registers", FRAME_REGISTER_SIZE, 4),
    ("live-outs", LIVE_OUT_SIZE, 4),
    ("function index", FUNCTION_INDEX_ENTRY_SIZE, 4),
    ("PC map", PC_MAP_ENTRY_SIZE, 4),
];
/// Functions from which `pcmap emit` writes a function index: below, a
/// table's frame records span at most 2 KB.
pub const FUNCTION_INDEX_MIN_FUNCTIONS: usize = 64;

/// Position of the function index in [`ARRAYS`].
const INDEX_ARRAY: usize = 6;
/// Position of the PC map in [`ARRAYS`].
const MAP_ARRAY: usize = 7;
/// Records (or functions, if more) per PC map bucket `pcmap emit` aims at:
/// the map costs 4 to 8 bytes per record, and a lookup compares one or two
/// records and frame records, read in parallel (2 per bucket halved the
/// map but cost a lookup a third more time at 100,000 records).
pub const PC_MAP_RECORDS_PER_BUCKET: usize = 1;
/// Candidates a lookup compares one by one; more are binary searched first.
const LINEAR_SEARCH: u32 = 8;

/// What produced a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    Unknown = 0,
    StackMap = 1,
    PatchPoint = 2,
    StatePoint = 3,
}

impl RecordKind {
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => RecordKind::Unknown,
            1 => RecordKind::StackMap,
            2 => RecordKind::PatchPoint,
            3 => RecordKind::StatePoint,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Unknown => "unknown",
            RecordKind::StackMap => "stackmap",
            RecordKind::PatchPoint => "patchpoint",
            RecordKind::StatePoint => "statepoint",
        }
    }
}

/// One flat table.
#[derive(Debug, Clone, Copy)]
pub struct FlatStackMap<'a, E: Endian> {
    bytes: Bytes<'a, E>,
    header: Header,
}

/// What [`FlatStackMap::parse`] read from a table's header. A caller that
/// looks up many PCs keeps it (the C API keeps it in its opened section)
/// and looks up with it in place ([`Header::kept`],
/// [`FlatStackMap::lookup_kept`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Header {
    pub flags: u8,
    /// log2 of the bytes of code per PC map entry (0 without a PC map).
    pub pc_map_shift: u8,
    /// Offsets of the eight arrays (the function index and PC map are empty
    /// without their flags) and the table size.
    pub bounds: [u32; NUM_BOUNDS],
}

/// A table header that [`FlatStackMap::parse`] accepted, as a caller that
/// looks up many PCs keeps it: lookups read it where it is
/// ([`FlatStackMap::lookup_kept`]).
#[derive(Debug, Clone, Copy)]
pub struct KeptHeader<'h> {
    pub bounds: &'h [u32; NUM_BOUNDS],
    pub flags: u8,
    pub pc_map_shift: u8,
}

impl Header {
    /// This header, kept.
    #[inline(always)]
    pub fn kept(&self) -> KeptHeader<'_> {
        KeptHeader {
            bounds: &self.bounds,
            flags: self.flags,
            pc_map_shift: self.pc_map_shift,
        }
    }
}

/// What a lookup found, with the entries of the function's frame record
/// and of the record in the table, decoded on request.
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a, E: Endian> {
    pub found: Found,
    frame: &'a [u8; FRAME_RECORD_SIZE],
    record: &'a [u8; RECORD_SIZE],
    num_records: u32,
    endian: E,
}

impl<'a, E: Endian> Hit<'a, E> {
    #[inline(always)]
    pub fn frame_record(&self) -> FrameRecord {
        FrameRecord::decode(Fields::new(self.frame, self.endian), self.num_records)
    }
    /// The record (an error if its kind is not one of [`RecordKind`]).
    #[inline(always)]
    pub fn record(&self) -> Result<Record> {
        Record::decode(Fields::new(self.record, self.endian))
    }
}

/// Where a lookup found a PC: the function (frame record index and code
/// address) and the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub function: u32,
    pub address: u64,
    pub record: u32,
}

/// Which record of the function containing a PC a lookup returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The record at the PC.
    Exact,
    /// The first record at or after the PC: for a stack map placed after a
    /// call, the return address may precede the record by the moves of the
    /// call's result.
    AtOrAfter,
}

/// A function's frame record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRecord {
    /// As stored: self-relative (as i64) unless the table has absolute
    /// addresses. See [`FlatStackMap::function_address`].
    pub address: u64,
    pub size: u32,
    pub stack_size: u32,
    pub flags: u8,
    pub num_frame_registers: u8,
    /// The CFA rule's register (DWARF): CFA = this register + `cfa_offset`.
    /// The stack pointer, or the frame pointer (`HAS_FRAME_POINTER`).
    pub frame_base_register: u16,
    /// The CFA rule's offset. The CFA is the caller's stack pointer at the
    /// call; frame register slots are relative to it.
    pub cfa_offset: i32,
    pub frame_register_index: u32,
    /// Not stored: the distance to the next function's record index.
    pub num_records: u32,
    pub record_index: u32,
}

impl FrameRecord {
    /// DWARF number of the register the CFA is computed from (the same as
    /// `frame_base_register`).
    pub fn cfa_register(&self) -> u16 {
        self.frame_base_register
    }
    /// The CFA given the value of [`cfa_register`](Self::cfa_register).
    pub fn cfa(&self, cfa_register_value: u64) -> u64 {
        cfa_register_value.wrapping_add(self.cfa_offset as i64 as u64)
    }
}

/// A call site record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub id: u64,
    pub instruction_offset: u32,
    pub patchable_size: u32,
    pub num_locations: u16,
    pub num_live_outs: u16,
    pub location_index: u32,
    pub live_out_index: u32,
    pub flags: u8,
    pub kind: RecordKind,
}

impl FrameRecord {
    /// From its entry, given its record count (not stored).
    #[inline(always)]
    fn decode<E: Endian>(f: Fields<'_, E, FRAME_RECORD_SIZE>, num_records: u32) -> Self {
        FrameRecord {
            address: f.u64(0),
            size: f.u32(8),
            stack_size: f.u32(12),
            flags: f.entry[16],
            num_frame_registers: f.entry[17],
            frame_base_register: f.u16(18),
            cfa_offset: f.u32(20) as i32,
            frame_register_index: f.u32(24),
            num_records,
            record_index: f.u32(FRAME_RECORD_INDEX_FIELD),
        }
    }
}

impl Record {
    #[inline(always)]
    fn decode<E: Endian>(f: Fields<'_, E, RECORD_SIZE>) -> Result<Self> {
        Ok(Record {
            id: f.u64(0),
            instruction_offset: f.u32(RECORD_OFFSET_FIELD),
            patchable_size: f.u32(12),
            num_locations: f.u16(16),
            num_live_outs: f.u16(18),
            location_index: f.u32(20),
            live_out_index: f.u32(24),
            flags: f.entry[28],
            kind: RecordKind::from_u8(f.entry[29]).ok_or(Error::Inconsistent("bad record kind"))?,
        })
    }
}

/// A callee-saved register and where the function saved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameRegister {
    pub dwarf_reg: u16,
    /// Slot address minus the CFA (stored as an i16). The slot's address is
    /// `FrameRecord::cfa(value of the CFA register) + offset`.
    pub offset: i32,
}

impl FrameRegister {
    /// The slot's offset from the frame base (CFA) register's value.
    pub fn offset_from_base(&self, f: &FrameRecord) -> i64 {
        i64::from(f.cfa_offset) + i64::from(self.offset)
    }
}

impl<'a, E: Endian> FlatStackMap<'a, E> {
    /// Reads the header of the table at the start of `data` and checks that
    /// its arrays are in order, aligned, whole and inside the table. Entries
    /// are checked when read, or all at once by [`validate`](Self::validate).
    pub fn parse(data: &'a [u8], endian: E) -> Result<Self> {
        let b = Bytes::new(data, endian);
        if b.slice(0, 4)? != MAGIC {
            return Err(Error::BadMagic);
        }
        let version = b.u8(4)?;
        if version != VERSION {
            return Err(Error::UnsupportedFlatVersion(version));
        }
        let flags = b.u8(5)?;
        if (flags & BIG_ENDIAN != 0) != endian.is_big_endian() {
            return Err(Error::WrongByteOrder);
        }
        let header_size = b.u16(6)? as u32;
        let table_size = b.u32(8)?;
        // Constants start at the header size, the live-outs end at the
        // table size (or where the optional arrays start); the header stores
        // the five offsets in between.
        let mut bounds = [
            header_size,
            0,
            0,
            0,
            0,
            0,
            table_size,
            table_size,
            table_size,
        ];
        for (i, bound) in bounds[1..6].iter_mut().enumerate() {
            *bound = b.u32(12 + 4 * i)?;
        }
        if (header_size as usize) < HEADER_SIZE
            || !multiple(header_size as usize, TABLE_ALIGN)
            || table_size < header_size
        {
            return Err(Error::Inconsistent("flat header sizes"));
        }
        let bad_offsets = Error::Inconsistent("flat array offsets");
        let mut pc_map_shift = 0;
        if flags & PC_MAP != 0 {
            if flags & FUNCTION_INDEX == 0 || (header_size as usize) < PC_MAP_HEADER_SIZE {
                return Err(Error::Inconsistent(
                    "PC map without a function index or its header fields",
                ));
            }
            let entries = b.u32(32)?;
            pc_map_shift = b.u8(36)?;
            if pc_map_shift > PC_MAP_MAX_SHIFT || entries == 0 {
                return Err(Error::Inconsistent("PC map shift or size"));
            }
            bounds[MAP_ARRAY] = entries
                .checked_mul(PC_MAP_ENTRY_SIZE as u32)
                .and_then(|n| table_size.checked_sub(n))
                .ok_or(bad_offsets)?;
            bounds[INDEX_ARRAY] = bounds[MAP_ARRAY];
        }
        if flags & FUNCTION_INDEX != 0 {
            if flags & ABSOLUTE_ADDRESSES != 0 {
                return Err(Error::Inconsistent(
                    "function index with absolute addresses",
                ));
            }
            // One entry per frame record, before the PC map or ending the
            // table.
            let functions = bounds[2].wrapping_sub(bounds[1]) / FRAME_RECORD_SIZE as u32;
            bounds[INDEX_ARRAY] = functions
                .checked_mul(FUNCTION_INDEX_ENTRY_SIZE as u32)
                .and_then(|n| bounds[MAP_ARRAY].checked_sub(n))
                .ok_or(bad_offsets)?;
        }
        for (i, (_, size, align)) in ARRAYS.iter().enumerate() {
            let (start, end) = (bounds[i], bounds[i + 1]);
            if end < start
                || end > table_size
                || !multiple(start as usize, *align)
                || !multiple((end - start) as usize, *size)
            {
                return Err(bad_offsets);
            }
        }
        let bytes = Bytes::new(b.slice(0, table_size as usize)?, endian);
        Ok(FlatStackMap {
            bytes,
            header: Header {
                flags,
                pc_map_shift,
                bounds,
            },
        })
    }

    /// What `parse` read from the header, to keep for
    /// [`lookup_kept`](Self::lookup_kept).
    pub fn parsed_header(&self) -> Header {
        self.header
    }

    /// Every table of a section (a linked program concatenates them),
    /// skipping zero padding a linker may put between them.
    pub fn tables(section: &'a [u8], endian: E) -> Tables<'a, E> {
        Self::tables_from(section, 0, endian)
    }

    /// Like [`tables`](Self::tables), starting at byte `offset` of the
    /// section (the end of a table already read); offsets stay the section's.
    pub fn tables_from(section: &'a [u8], offset: usize, endian: E) -> Tables<'a, E> {
        Tables {
            section,
            offset,
            endian,
            done: false,
        }
    }

    /// Checks every entry: kinds, indices into the other arrays, constant
    /// indices, and that each function's records are sorted by offset.
    pub fn validate(&self) -> Result<()> {
        let nrec = self.num_records();
        if self.num_frame_records() == 0 && nrec != 0 {
            return Err(Error::Inconsistent("records without a function"));
        }
        for f in 0..self.num_frame_records() {
            let fr = self.frame_record(f)?;
            if f == 0 && fr.record_index != 0 {
                return Err(Error::Inconsistent("records without a function"));
            }
            // 0xFFFFFFFF means "variable", exactly when the flag says so.
            if (fr.flags & HAS_VARIABLE_SIZE_ALLOCA != 0) != (fr.stack_size == VARIABLE_STACK_SIZE)
            {
                return Err(Error::Inconsistent(
                    "variable-size flag and stack size disagree",
                ));
            }
            check_range(
                "frame register",
                fr.frame_register_index,
                fr.num_frame_registers.into(),
                self.num_frame_registers(),
            )?;
            check_range("record", fr.record_index, fr.num_records, nrec)?;
            if self.has_function_index() {
                // Both self-relative: compare the targets' offsets from the
                // table start.
                let field = self.entry(1, f)? as i64;
                let entry = self.entry(INDEX_ARRAY, f)? as i64;
                let stored = self.bytes.u32(entry as usize)? as i32;
                // Both 0: not relocated yet (an object file; RELA addends
                // are in the relocations), which agrees.
                let unrelocated = stored == 0 && fr.address == 0;
                if !unrelocated
                    && entry + i64::from(stored) != field.wrapping_add(fr.address as i64)
                {
                    return Err(Error::Inconsistent(
                        "function index differs from the frame records",
                    ));
                }
            }
            for i in 0..fr.num_frame_registers as u32 {
                self.frame_register(fr.frame_register_index + i)?;
            }
            let mut last = 0;
            for i in 0..fr.num_records {
                let r = self.record(fr.record_index + i)?;
                if i > 0 && r.instruction_offset < last {
                    return Err(Error::NotSorted {
                        function: f,
                        record: fr.record_index + i,
                    });
                }
                last = r.instruction_offset;
                for loc in self.locations_of(&r)? {
                    let loc = loc?;
                    if loc.kind == LocationKind::ConstantIndex
                        && loc.offset as u32 >= self.num_constants()
                    {
                        return Err(Error::IndexOutOfRange {
                            what: "constant",
                            index: u64::from(loc.offset as u32),
                            count: self.num_constants().into(),
                        });
                    }
                }
                for lo in self.live_outs_of(&r)? {
                    lo?;
                }
            }
        }
        // The PC map is a hint that lookups verify, so only its shape is
        // checked: function and record indices in range, never decreasing.
        let mut last = (0, 0);
        for b in 0..self.num_pc_map_entries() {
            let (f, r) = self.pc_map_entry(b)?;
            if f < last.0 || r < last.1 || f >= self.num_frame_records() || r > nrec {
                return Err(Error::Inconsistent("PC map entries"));
            }
            last = (f, r);
        }
        Ok(())
    }

    pub fn flags(&self) -> u8 {
        self.header.flags
    }
    pub fn absolute_addresses(&self) -> bool {
        self.header.flags & ABSOLUTE_ADDRESSES != 0
    }
    /// Whether the table has a function index (header flag `FUNCTION_INDEX`).
    pub fn has_function_index(&self) -> bool {
        self.header.flags & FUNCTION_INDEX != 0
    }
    /// Whether the table has a PC map (header flag `PC_MAP`).
    pub fn has_pc_map(&self) -> bool {
        self.header.flags & PC_MAP != 0
    }
    /// log2 of the code bytes each PC map entry covers (0 without a map).
    pub fn pc_map_shift(&self) -> u8 {
        self.header.pc_map_shift
    }
    /// Bytes of this table; the next one starts at this rounded up to 8.
    pub fn table_size(&self) -> u32 {
        self.header.bounds[NUM_BOUNDS - 1]
    }
    /// Wrapping: `parse` checked the bounds ascend (and every read is
    /// bounds-checked anyway), so this never panics.
    #[inline]
    fn count(&self, array: usize) -> u32 {
        let b = &self.header.bounds;
        b[array + 1].wrapping_sub(b[array]) / ARRAYS[array].1 as u32
    }
    #[inline]
    fn entry(&self, array: usize, index: u32) -> Result<usize> {
        let count = self.count(array);
        if index >= count {
            return Err(Error::IndexOutOfRange {
                what: ARRAYS[array].0,
                index: index.into(),
                count: count.into(),
            });
        }
        Ok(self.header.bounds[array] as usize + index as usize * ARRAYS[array].1)
    }
    pub fn num_constants(&self) -> u32 {
        self.count(0)
    }
    pub fn num_frame_records(&self) -> u32 {
        self.count(1)
    }
    pub fn num_records(&self) -> u32 {
        self.count(2)
    }
    pub fn num_locations(&self) -> u32 {
        self.count(3)
    }
    pub fn num_frame_registers(&self) -> u32 {
        self.count(4)
    }
    pub fn num_live_outs(&self) -> u32 {
        self.count(5)
    }
    /// Entries of the function index: the number of frame records, or 0
    /// without one.
    pub fn num_function_index_entries(&self) -> u32 {
        self.count(INDEX_ARRAY)
    }
    /// Entries of the PC map (0 without one).
    pub fn num_pc_map_entries(&self) -> u32 {
        self.count(MAP_ARRAY)
    }
    /// PC map entry `bucket`, for the bucket's start `function 0's address +
    /// bucket << shift` as the code was laid out when the table was written:
    /// the index of the last function that starts at or before it, and of
    /// the first record at or after it (the number of records if none).
    /// A hint: see [`lookup`](Self::lookup).
    #[inline]
    pub fn pc_map_entry(&self, bucket: u32) -> Result<(u32, u32)> {
        let at = self.entry(MAP_ARRAY, bucket)?;
        Ok((self.bytes.u32(at)?, self.bytes.u32(at + 4)?))
    }

    pub fn constant(&self, index: u32) -> Result<u64> {
        self.bytes.u64(self.entry(0, index)?)
    }

    /// Offset in the table of frame record `index`'s address field.
    pub fn function_address_offset(&self, index: u32) -> Result<usize> {
        self.entry(1, index)
    }

    #[inline]
    pub fn frame_record(&self, index: u32) -> Result<FrameRecord> {
        let at = self.entry(1, index)?;
        // One bounds check for the entry, then fixed-offset decoding.
        let entry: [u8; FRAME_RECORD_SIZE] = self.bytes.array(at)?;
        let f = Fields::new(&entry, self.bytes.endian);
        let record_index = f.u32(FRAME_RECORD_INDEX_FIELD);
        // Records are grouped by function: this function's end is the next
        // one's start.
        let end = if index + 1 < self.num_frame_records() {
            self.bytes.u32(at + FRAME_RECORD_SIZE + 28)?
        } else {
            self.num_records()
        };
        let num_records = end
            .checked_sub(record_index)
            .ok_or(Error::Inconsistent("frame record indices decrease"))?;
        Ok(FrameRecord::decode(f, num_records))
    }

    /// The function's address, given the address the table is loaded at (or
    /// its section address in a linked file).
    ///
    /// Reads the address field only: this is the probe of a lookup's binary
    /// search over the frame records.
    #[inline]
    pub fn function_address(&self, index: u32, table_address: u64) -> Result<u64> {
        let at = self.entry(1, index)?;
        let stored = self.bytes.u64(at)?;
        if self.absolute_addresses() {
            Ok(stored)
        } else {
            Ok(table_address.wrapping_add(at as u64).wrapping_add(stored))
        }
    }

    /// Function `index`'s size field alone.
    #[inline]
    pub fn function_size(&self, index: u32) -> Result<u32> {
        self.bytes.u32(self.entry(1, index)? + 8)
    }

    /// The records of function `index`: its record index and the next
    /// function's (the last one's: the number of records). Reads two fields.
    #[inline]
    pub fn function_record_range(&self, index: u32) -> Result<(u32, u32)> {
        let at = self.entry(1, index)?;
        let start = self.bytes.u32(at + 28)?;
        let end = if index + 1 < self.num_frame_records() {
            self.bytes.u32(at + FRAME_RECORD_SIZE + 28)?
        } else {
            self.num_records()
        };
        if end < start {
            return Err(Error::Inconsistent("frame record indices decrease"));
        }
        Ok((start, end))
    }

    /// Offset in the table of function index entry `index` (for its
    /// relocation); an error without a function index.
    pub fn function_index_offset(&self, index: u32) -> Result<usize> {
        self.entry(INDEX_ARRAY, index)
    }

    /// Function `index`'s address from the function index (4-byte probes
    /// over a dense array), given the table's address; an error without a
    /// function index. It should equal [`function_address`]
    /// (Self::function_address); `validate` checks that it does.
    #[inline]
    pub fn function_index_address(&self, index: u32, table_address: u64) -> Result<u64> {
        let at = self.entry(INDEX_ARRAY, index)?;
        let stored = self.bytes.u32(at)? as i32;
        Ok(table_address
            .wrapping_add(at as u64)
            .wrapping_add(stored as i64 as u64))
    }

    /// Record `index`'s instruction offset alone (the probe of a search
    /// over a function's records).
    #[inline]
    pub fn record_instruction_offset(&self, index: u32) -> Result<u32> {
        self.bytes.u32(self.entry(2, index)? + 8)
    }

    #[inline]
    pub fn record(&self, index: u32) -> Result<Record> {
        let entry: [u8; RECORD_SIZE] = self.bytes.array(self.entry(2, index)?)?;
        Record::decode(Fields::new(&entry, self.bytes.endian))
    }

    pub fn location(&self, index: u32) -> Result<Location> {
        let at = self.entry(3, index)?;
        let b = &self.bytes;
        let kind = b.u8(at)?;
        Ok(Location {
            kind: LocationKind::from_u8(kind).ok_or(Error::BadLocationKind { offset: at, kind })?,
            size: b.u8(at + 1)?.into(),
            dwarf_reg: b.u16(at + 2)?,
            offset: b.i32(at + 4)?,
        })
    }

    pub fn frame_register(&self, index: u32) -> Result<FrameRegister> {
        let at = self.entry(4, index)?;
        Ok(FrameRegister {
            dwarf_reg: self.bytes.u16(at)?,
            offset: self.bytes.u16(at + 2)? as i16 as i32,
        })
    }

    pub fn live_out(&self, index: u32) -> Result<LiveOut> {
        let at = self.entry(5, index)?;
        Ok(LiveOut {
            dwarf_reg: self.bytes.u16(at)?,
            size: self.bytes.u8(at + 3)?,
        })
    }

    /// A function's records, in offset order.
    pub fn records_of(&self, f: &FrameRecord) -> Result<impl Iterator<Item = Result<Record>> + '_> {
        check_range("record", f.record_index, f.num_records, self.num_records())?;
        Ok((f.record_index..f.record_index + f.num_records).map(|i| self.record(i)))
    }
    pub fn locations_of(&self, r: &Record) -> Result<impl Iterator<Item = Result<Location>> + '_> {
        check_range(
            "location",
            r.location_index,
            r.num_locations.into(),
            self.num_locations(),
        )?;
        Ok(
            (r.location_index..r.location_index + u32::from(r.num_locations))
                .map(|i| self.location(i)),
        )
    }
    pub fn live_outs_of(&self, r: &Record) -> Result<impl Iterator<Item = Result<LiveOut>> + '_> {
        check_range(
            "live-out",
            r.live_out_index,
            r.num_live_outs.into(),
            self.num_live_outs(),
        )?;
        Ok(
            (r.live_out_index..r.live_out_index + u32::from(r.num_live_outs))
                .map(|i| self.live_out(i)),
        )
    }
    pub fn frame_registers_of(
        &self,
        f: &FrameRecord,
    ) -> Result<impl Iterator<Item = Result<FrameRegister>> + '_> {
        let n = u32::from(f.num_frame_registers);
        check_range(
            "frame register",
            f.frame_register_index,
            n,
            self.num_frame_registers(),
        )?;
        Ok((f.frame_register_index..f.frame_register_index + n).map(|i| self.frame_register(i)))
    }

    /// The index and record of `f` at `instruction_offset`, by binary search
    /// (records are sorted). With several records at one offset, the first.
    pub fn find_record(
        &self,
        f: &FrameRecord,
        instruction_offset: u32,
    ) -> Result<Option<(u32, Record)>> {
        check_range("record", f.record_index, f.num_records, self.num_records())?;
        let (mut lo, mut hi) = (f.record_index, f.record_index + f.num_records);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.record_instruction_offset(mid)? < instruction_offset {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo < f.record_index + f.num_records {
            let r = self.record(lo)?;
            if r.instruction_offset == instruction_offset {
                return Ok(Some((lo, r)));
            }
        }
        Ok(None)
    }

    /// The function containing `pc` and its record at `pc` (`Exact`) or its
    /// first record at or after `pc` (`AtOrAfter`), given the table's
    /// address: O(log functions + log records) reads, no memory.
    ///
    /// The search itself is in [`Lookup`]; a read it cannot make (a corrupt
    /// table) is an error.
    #[inline]
    pub fn lookup(&self, pc: u64, table_address: u64, how: Match) -> Result<Option<Found>> {
        let found = self.lookup_state(table_address)?.find(pc, how);
        Ok(found.ok_or(LOOKUP_CORRUPT)?.map(|(found, _)| found))
    }

    /// [`lookup`](Self::lookup), with the frame record and record found,
    /// decoded from the entries the search read.
    #[inline(always)]
    pub fn lookup_entries(
        &self,
        pc: u64,
        table_address: u64,
        how: Match,
    ) -> Result<Option<(Found, FrameRecord, Record)>> {
        let Some(hit) = self.lookup_hit(pc, table_address, how)? else {
            return Ok(None);
        };
        Ok(Some((hit.found, hit.frame_record(), hit.record()?)))
    }

    /// [`lookup`](Self::lookup), with the frame record's and record's
    /// entries, to decode what the caller needs of them.
    #[inline(always)]
    pub fn lookup_hit(
        &self,
        pc: u64,
        table_address: u64,
        how: Match,
    ) -> Result<Option<Hit<'a, E>>> {
        Self::lookup_kept(
            self.bytes.data,
            self.bytes.endian,
            self.header.kept(),
            pc,
            table_address,
            how,
        )
    }

    /// [`lookup_hit`](Self::lookup_hit) in the table at the start of
    /// `data`, whose header [`parse`](Self::parse) accepted and the caller
    /// kept (`KeptHeader`): the header is read where the caller keeps it,
    /// not parsed or copied again.
    ///
    /// If `kept` is not what `parse` returned for these bytes, results are
    /// wrong or errors, but every read stays inside `data`.
    #[inline(always)]
    pub fn lookup_kept(
        data: &'a [u8],
        endian: E,
        kept: KeptHeader<'_>,
        pc: u64,
        table_address: u64,
        how: Match,
    ) -> Result<Option<Hit<'a, E>>> {
        let l = Lookup::new(data, endian, kept, table_address).ok_or(LOOKUP_CORRUPT)?;
        match l.find_mapped(pc, how) {
            Some(hit) => Ok(hit),
            None => Self::lookup_searched(data, endian, kept, pc, table_address, how),
        }
    }

    /// [`lookup_kept`](Self::lookup_kept) when the PC map cannot answer:
    /// out of line, so that the map's path keeps its values in registers.
    #[inline(never)]
    fn lookup_searched(
        data: &'a [u8],
        endian: E,
        kept: KeptHeader<'_>,
        pc: u64,
        table_address: u64,
        how: Match,
    ) -> Result<Option<Hit<'a, E>>> {
        let l = Lookup::new(data, endian, kept, table_address).ok_or(LOOKUP_CORRUPT)?;
        let Some((found, (start, end))) = l.search(pc, how).ok_or(LOOKUP_CORRUPT)? else {
            return Ok(None);
        };
        l.hit(found, end.wrapping_sub(start))
            .map(Some)
            .ok_or(LOOKUP_CORRUPT)
    }

    /// The function containing `pc` (the last one starting at or below it,
    /// if `pc` is inside it or at its end: a return address may equal the
    /// end of a function whose last instruction is a call): its index and
    /// address. See [`Lookup`].
    #[inline]
    pub fn function_containing(&self, pc: u64, table_address: u64) -> Result<Option<(u32, u64)>> {
        let l = self.lookup_state(table_address)?;
        l.function_containing(pc).ok_or(LOOKUP_CORRUPT)
    }

    /// The state of a search of this table at `table_address`.
    fn lookup_state(&self, table_address: u64) -> Result<Lookup<'a, E>> {
        let kept = self.header.kept();
        Lookup::new(self.bytes.data, self.bytes.endian, kept, table_address).ok_or(LOOKUP_CORRUPT)
    }

    /// What the PC map says of `pc`: see [`PcMapWindow`]. `None` without a
    /// map, for a `pc` below function 0, or with impossible entries.
    pub fn pc_map_window(&self, pc: u64, table_address: u64) -> Result<Option<PcMapWindow>> {
        let l = self.lookup_state(table_address)?;
        Ok(l.map_window(pc))
    }
}

/// The functions and records a PC map entry and the next one name for a PC,
/// as the code was laid out when the table was written. Unchecked: a lookup
/// checks it against the frame records and records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcMapWindow {
    /// Functions `first_function..=last_function` can contain the PC.
    pub first_function: u32,
    pub last_function: u32,
    /// Records `first_record..last_record` are those in the PC's bucket;
    /// `last_record` is the first after it (or the number of records).
    pub first_record: u32,
    pub last_record: u32,
}

/// The search of one table for a PC. Reads return `None` for a read outside
/// its array (a corrupt table): no error value is built on the hot path.
///
/// With a PC map, the map's bucket for the PC names the few functions that
/// can contain it, compared by the frame records' addresses: a lookup then
/// reads the map, the candidates' frame records and the function's records,
/// each depending on the one before. Without a map, or if the map does not
/// fit the program (its linker moved the functions apart) or is corrupt
/// (`validate` reports that), a binary search of the function index, whose
/// answer is taken only if the frame records' addresses bracket the PC with
/// it; without an index, of the frame records' address fields. Frame records
/// and index are in address order, as LLVM emits functions. So the map and
/// the index cost time when wrong but never change an answer. Within the
/// function, its records are searched by instruction offset.
///
/// Searches end in a branch-free count over at most [`LINEAR_SEARCH`]
/// candidates: their loads do not depend on each other, so cache misses
/// overlap, and a random PC costs no mispredicted branches there.
struct Lookup<'a, E: Endian> {
    endian: E,
    /// The arrays a lookup reads, cut out of the table once (empty if
    /// absent), so that each read is one bounds check.
    frames: &'a [u8],
    records: &'a [u8],
    index: &'a [u8],
    map: &'a [u8],
    /// Address of the frame records, to which their self-relative address
    /// fields are added, and all ones; both 0 if the table's addresses are
    /// absolute (a mask rather than a branch on the hot path).
    frames_address: u64,
    relative: u64,
    index_address: u64,
    functions: u32,
    num_records: u32,
    buckets: u32,
    shift: u8,
}

/// A read a lookup could not make: the table is corrupt.
const LOOKUP_CORRUPT: Error = Error::Inconsistent("lookup read outside its arrays");

/// The first `N` bytes of entry `i` of `array`, whose entries are `SIZE`
/// bytes.
#[inline(always)]
fn entry<const SIZE: usize, const N: usize>(array: &[u8], i: u32) -> Option<&[u8; N]> {
    let at = i as usize * SIZE;
    array.get(at..at + N)?.try_into().ok()
}

impl<'a, E: Endian> Lookup<'a, E> {
    /// `None` if the header's bounds do not fit the table (possible only
    /// for a header not from `parse`).
    #[inline(always)]
    fn new(data: &'a [u8], endian: E, kept: KeptHeader<'_>, table_address: u64) -> Option<Self> {
        let b = kept.bounds;
        let array = |i: usize| data.get(b[i] as usize..b[i + 1] as usize);
        let frames = array(1)?;
        let records = array(2)?;
        let map = array(MAP_ARRAY)?;
        Some(Lookup {
            endian,
            frames,
            records,
            index: array(INDEX_ARRAY)?,
            map,
            frames_address: table_address.wrapping_add(b[1].into()),
            relative: if kept.flags & ABSOLUTE_ADDRESSES != 0 {
                0
            } else {
                u64::MAX
            },
            index_address: table_address.wrapping_add(b[INDEX_ARRAY].into()),
            functions: (frames.len() / FRAME_RECORD_SIZE) as u32,
            num_records: (records.len() / RECORD_SIZE) as u32,
            buckets: (map.len() / PC_MAP_ENTRY_SIZE) as u32,
            shift: kept.pc_map_shift,
        })
    }

    /// Field `field` (a u32) of frame record `i`.
    #[inline(always)]
    fn frame_u32(&self, i: u32, field: usize) -> Option<u32> {
        let at = i as usize * FRAME_RECORD_SIZE + field;
        let b = self.frames.get(at..at + 4)?.try_into().ok()?;
        Some(self.endian.u32_from(b))
    }
    /// Function `i`'s address from its frame record.
    #[inline(always)]
    fn function_address(&self, i: u32) -> Option<u64> {
        let stored = self
            .endian
            .u64_from(*entry::<FRAME_RECORD_SIZE, 8>(self.frames, i)?);
        Some(self.stored_address(i, stored))
    }
    /// Function `i`'s address, given its frame record's address field.
    #[inline(always)]
    fn stored_address(&self, i: u32, stored: u64) -> u64 {
        let field = self
            .frames_address
            .wrapping_add(u64::from(i) * FRAME_RECORD_SIZE as u64);
        stored.wrapping_add(field & self.relative)
    }
    /// Function `i`'s address from the function index.
    #[inline(always)]
    fn index_address(&self, i: u32) -> Option<u64> {
        let b = *entry::<FUNCTION_INDEX_ENTRY_SIZE, 4>(self.index, i)?;
        let stored = self.endian.u32_from(b) as i32;
        Some(
            self.index_address
                .wrapping_add(u64::from(i) * FUNCTION_INDEX_ENTRY_SIZE as u64)
                .wrapping_add(stored as i64 as u64),
        )
    }
    /// The entries of `found`, a function with `num_records` records.
    #[inline(always)]
    fn hit(&self, found: Found, num_records: u32) -> Option<Hit<'a, E>> {
        Some(Hit {
            found,
            frame: entry::<FRAME_RECORD_SIZE, FRAME_RECORD_SIZE>(self.frames, found.function)?,
            record: entry::<RECORD_SIZE, RECORD_SIZE>(self.records, found.record)?,
            num_records,
            endian: self.endian,
        })
    }
    /// Record `i`'s instruction offset.
    #[inline(always)]
    fn record_offset(&self, i: u32) -> Option<u32> {
        let at = i as usize * RECORD_SIZE + RECORD_OFFSET_FIELD;
        let b = self.records.get(at..at + 4)?.try_into().ok()?;
        Some(self.endian.u32_from(b))
    }
    /// Function `f`'s records: its record index and the next function's.
    #[inline(always)]
    fn record_range(&self, f: u32) -> Option<(u32, u32)> {
        let start = self.frame_u32(f, 28)?;
        let end = match f + 1 < self.functions {
            true => self.frame_u32(f + 1, 28)?,
            false => self.num_records,
        };
        Some((start, end))
    }

    /// The answer, with the function's records.
    #[inline(always)]
    fn find(&self, pc: u64, how: Match) -> Option<Option<(Found, (u32, u32))>> {
        match self.find_mapped(pc, how) {
            Some(hit) => Some(hit.map(|h| {
                let start = h.frame_record().record_index;
                (h.found, (start, start.wrapping_add(h.num_records)))
            })),
            None => self.search(pc, how),
        }
    }

    /// [`find`](Self::find) without the PC map (none, or it does not hold
    /// the answer): searches for the function, then its records.
    fn search(&self, pc: u64, how: Match) -> Option<Option<(Found, (u32, u32))>> {
        let Some((function, address)) = self.function_containing(pc)? else {
            return Some(None);
        };
        let Ok(offset) = u32::try_from(pc - address) else {
            return Some(None);
        };
        let (start, end) = self.record_range(function)?;
        // Lower bound over the function's records (sorted by offset).
        let record = count_before(start, end, |i| Some(self.record_offset(i)? < offset))?;
        if record >= end || (how == Match::Exact && self.record_offset(record)? != offset) {
            return Some(None);
        }
        let found = Found {
            function,
            address,
            record,
        };
        Some(Some((found, (start, end))))
    }

    /// The lookup through the PC map: the map entry, then the candidate
    /// frame records and records, whose addresses do not depend on each
    /// other, so their cache misses overlap. Returns the function's frame
    /// record and the record's entry, read once. `None` if the map's window
    /// does not hold the answer by the frame records and records themselves
    /// (no map, a map that does not fit the code, a failed read): the caller
    /// searches without the map.
    #[inline(always)]
    fn find_mapped(&self, pc: u64, how: Match) -> Option<Option<Hit<'a, E>>> {
        // A PC map needs the function index, which never goes with absolute
        // addresses (`parse` rejects both): on this path addresses are
        // self-relative, a constant the compiler folds.
        if self.map.is_empty() || self.relative != u64::MAX {
            return None;
        }
        Lookup {
            relative: u64::MAX,
            ..*self
        }
        .find_relative(pc, how)
    }

    /// [`find_mapped`](Self::find_mapped) of a table with a PC map and
    /// self-relative addresses.
    #[inline(always)]
    fn find_relative(&self, pc: u64, how: Match) -> Option<Option<Hit<'a, E>>> {
        let origin = self.function_address(0)?;
        if pc < origin {
            return Some(None);
        }
        let w = self.map_window_from(pc, origin)?;
        // The last candidate starting at or below `pc`; the frame records
        // around it must bracket `pc` (they are sorted).
        let mut function = w.first_function;
        for i in w.first_function + 1..=w.last_function {
            function += u32::from(self.function_address(i)? <= pc);
        }
        let frame = entry::<FRAME_RECORD_SIZE, FRAME_RECORD_SIZE>(self.frames, function)?;
        let f = Fields::new(frame, self.endian);
        let address = self.stored_address(function, f.u64(0));
        let start = f.u32(FRAME_RECORD_INDEX_FIELD);
        let end = if function + 1 < self.functions {
            let next = entry::<FRAME_RECORD_SIZE, FRAME_RECORD_SIZE>(self.frames, function + 1)?;
            let next = Fields::new(next, self.endian);
            if self.stored_address(function + 1, next.u64(0)) <= pc {
                return None;
            }
            next.u32(FRAME_RECORD_INDEX_FIELD)
        } else {
            self.num_records
        };
        let offset = pc.checked_sub(address)?;
        if f.u32(8) != 0 && offset > u64::from(f.u32(8)) {
            return Some(None);
        }
        let offset = u32::try_from(offset).ok()?;
        // The function's records in the bucket.
        let (lo, hi) = (w.first_record.max(start), w.last_record.min(end));
        if lo > hi {
            return None;
        }
        let record = if w.last_record - w.first_record <= LINEAR_SEARCH {
            // Over the whole bucket, so that which records are read does not
            // wait for the frame record: the records before the function's
            // count as below `offset`, those after it as not.
            let mut record = w.first_record;
            for i in w.first_record..w.last_record {
                let below = self.record_offset(i)? < offset;
                record += u32::from(i < start || (i < end && below));
            }
            record
        } else {
            count_before(lo, hi, |i| Some(self.record_offset(i)? < offset))?
        };
        // The window's lower bound is the function's if the records just
        // outside it are on the right sides of `offset`. Records are sorted
        // by offset, so a lower bound past the window's first record means
        // that record, and every one before it, is below `offset`: record
        // `lo - 1` need not be read (nor record `hi` below `hi`).
        let left = record > lo || lo == start || self.record_offset(lo - 1)? < offset;
        let right = record < hi || hi == end || self.record_offset(hi)? >= offset;
        if !(left && right) {
            return None;
        }
        if record >= end {
            return Some(None);
        }
        let r = entry::<RECORD_SIZE, RECORD_SIZE>(self.records, record)?;
        if how == Match::Exact && Fields::new(r, self.endian).u32(RECORD_OFFSET_FIELD) != offset {
            return Some(None);
        }
        let found = Found {
            function,
            address,
            record,
        };
        Some(Some(Hit {
            found,
            frame,
            record: r,
            num_records: end - start,
            endian: self.endian,
        }))
    }

    /// The number of functions starting at or below `pc`, if the frame
    /// records agree that it is one of `first + 1..=last + 1`.
    #[inline(always)]
    fn function_among(&self, pc: u64, first: u32, last: u32) -> Option<u32> {
        let below = self.function_address(first)? <= pc;
        let above = last + 1 >= self.functions || self.function_address(last + 1)? > pc;
        if !(below && above) {
            return None;
        }
        let mut after = first + 1;
        for i in first + 1..=last {
            after += u32::from(self.function_address(i)? <= pc);
        }
        Some(after)
    }

    #[inline(always)]
    fn function_containing(&self, pc: u64) -> Option<Option<(u32, u64)>> {
        let n = self.functions;
        if n == 0 || pc < self.function_address(0)? {
            return Some(None);
        }
        let mut after = self
            .map_window(pc)
            .and_then(|w| self.function_among(pc, w.first_function, w.last_function));
        if after.is_none() && !self.index.is_empty() {
            let guess = count_before(0, n, |i| Some(self.index_address(i)? <= pc))?;
            after = self.brackets(pc, guess)?.then_some(guess);
        }
        let after = match after {
            Some(after) => after,
            None => count_before(0, n, |i| Some(self.function_address(i)? <= pc))?,
        };
        let Some(index) = after.checked_sub(1) else {
            return Some(None);
        };
        let address = self.function_address(index)?;
        let size = self.frame_u32(index, 8)?;
        // `None` only if the frame records are out of order (corrupt).
        let Some(offset) = pc.checked_sub(address) else {
            return Some(None);
        };
        let inside = size == 0 || offset <= u64::from(size);
        Some(inside.then_some((index, address)))
    }

    /// Whether exactly `after` functions start at or below `pc` by the frame
    /// records' own addresses: then the index's answer is the frame
    /// records' (they are sorted), whatever the index holds.
    #[inline(always)]
    fn brackets(&self, pc: u64, after: u32) -> Option<bool> {
        let below = after == 0 || self.function_address(after - 1)? <= pc;
        let above = after >= self.functions || self.function_address(after)? > pc;
        Some(below && above)
    }

    /// See [`FlatStackMap::pc_map_window`]. `None` also for a failed read.
    #[inline(always)]
    fn map_window(&self, pc: u64) -> Option<PcMapWindow> {
        self.map_window_from(pc, self.function_address(0)?)
    }

    /// [`map_window`](Self::map_window), given function 0's address.
    #[inline(always)]
    fn map_window_from(&self, pc: u64, origin: u64) -> Option<PcMapWindow> {
        let buckets = self.buckets;
        if buckets == 0 {
            return None;
        }
        let bucket = (pc.checked_sub(origin)? >> self.shift).min(u64::from(buckets - 1)) as u32;
        // The bucket's entry and the next one's, read together.
        let (first_function, first_record, last_function, last_record) = if bucket + 1 < buckets {
            let e = entry::<PC_MAP_ENTRY_SIZE, { 2 * PC_MAP_ENTRY_SIZE }>(self.map, bucket)?;
            let f = Fields::new(e, self.endian);
            (f.u32(0), f.u32(4), f.u32(8), f.u32(12))
        } else {
            let e = entry::<PC_MAP_ENTRY_SIZE, PC_MAP_ENTRY_SIZE>(self.map, bucket)?;
            let f = Fields::new(e, self.endian);
            (f.u32(0), f.u32(4), self.functions - 1, self.num_records)
        };
        let w = PcMapWindow {
            first_function,
            last_function,
            first_record,
            last_record,
        };
        let fits = first_function <= last_function
            && last_function < self.functions
            && first_record <= last_record
            && last_record <= self.num_records;
        fits.then_some(w)
    }
}

/// The first index in `lo..hi` where `before` is false (it must be true
/// then false over the range; on corrupt data the result is still in
/// `lo..=hi`): a binary search down to [`LINEAR_SEARCH`] candidates, then a
/// branch-free count of them.
#[inline(always)]
fn count_before(mut lo: u32, mut hi: u32, before: impl Fn(u32) -> Option<bool>) -> Option<u32> {
    while hi.saturating_sub(lo) > LINEAR_SEARCH {
        let mid = lo + (hi - lo) / 2;
        if before(mid)? {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut after = lo;
    for i in lo..hi {
        after += u32::from(before(i)?);
    }
    Some(after)
}

/// Fields of an entry already read whole: fixed offsets, no checks left.
struct Fields<'e, E, const N: usize> {
    entry: &'e [u8; N],
    endian: E,
}

impl<'e, E: Endian, const N: usize> Fields<'e, E, N> {
    #[inline(always)]
    fn new(entry: &'e [u8; N], endian: E) -> Self {
        Fields { entry, endian }
    }
    #[inline(always)]
    fn bytes<const M: usize>(&self, at: usize) -> [u8; M] {
        let mut out = [0; M];
        out.copy_from_slice(&self.entry[at..at + M]);
        out
    }
    #[inline(always)]
    fn u16(&self, at: usize) -> u16 {
        self.endian.u16_from(self.bytes(at))
    }
    #[inline(always)]
    fn u32(&self, at: usize) -> u32 {
        self.endian.u32_from(self.bytes(at))
    }
    #[inline(always)]
    fn u64(&self, at: usize) -> u64 {
        self.endian.u64_from(self.bytes(at))
    }
}

/// Whether `n` is a multiple of `m` (`is_multiple_of` is newer than our MSRV).
fn multiple(n: usize, m: usize) -> bool {
    n.checked_rem(m) == Some(0)
}

fn check_range(what: &'static str, index: u32, count: u32, len: u32) -> Result<()> {
    match index.checked_add(count) {
        Some(end) if end <= len => Ok(()),
        _ => Err(Error::IndexOutOfRange {
            what,
            index: u64::from(index) + u64::from(count),
            count: len.into(),
        }),
    }
}

/// Iterator over the tables of a section with each table's offset in it.
#[derive(Debug, Clone)]
pub struct Tables<'a, E: Endian> {
    section: &'a [u8],
    offset: usize,
    endian: E,
    done: bool,
}

impl<'a, E: Endian> Iterator for Tables<'a, E> {
    type Item = Result<(usize, FlatStackMap<'a, E>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // A table ends at its size, the next starts 8-aligned; linker padding
        // between input sections is zeros too. A table starts 0x7f.
        while self.section.get(self.offset) == Some(&0) {
            self.offset += 1;
        }
        let rest = self.section.get(self.offset..).filter(|r| !r.is_empty())?;
        match FlatStackMap::parse(rest, self.endian) {
            Ok(t) => {
                let at = self.offset;
                self.offset += t.table_size() as usize;
                Some(Ok((at, t)))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
