//! One flat table: its header, parsed and checked, and bounds-checked
//! access to every entry; the tables of a section.

use super::{
    frame_record, frame_register, header, live_out, location, pc_map_entry, record, RecordKind,
    ABSOLUTE_ADDRESSES, ARRAYS, BIG_ENDIAN, CONSTANTS, FRAME_RECORDS, FRAME_RECORD_SIZE,
    FRAME_REGISTERS, FUNCTION_INDEX, FUNCTION_INDEX_ENTRY_SIZE, HAS_VARIABLE_SIZE_ALLOCA,
    HEADER_SIZE, INDEX_ARRAY, LIVE_OUTS, LOCATIONS, MAGIC, MAP_ARRAY, NUM_BOUNDS, PC_MAP,
    PC_MAP_ENTRY_SIZE, PC_MAP_HEADER_SIZE, PC_MAP_MAX_SHIFT, RECORDS, RECORD_SIZE, TABLE_ALIGN,
    VARIABLE_STACK_SIZE, VERSION,
};
use crate::endian::Bytes;
use crate::{Endian, Error, LiveOut, Location, LocationKind, Result, RunTimeEndian};

/// One flat table.
#[derive(Debug, Clone, Copy)]
pub struct FlatStackMap<'a, E: Endian> {
    pub(super) bytes: Bytes<'a, E>,
    pub(super) header: Header,
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
    pub(super) fn decode<E: Endian>(f: Fields<'_, E, FRAME_RECORD_SIZE>, num_records: u32) -> Self {
        FrameRecord {
            address: f.u64(frame_record::ADDRESS),
            size: f.u32(frame_record::SIZE),
            stack_size: f.u32(frame_record::STACK_SIZE),
            flags: f.entry[frame_record::FLAGS],
            num_frame_registers: f.entry[frame_record::NUM_FRAME_REGISTERS],
            frame_base_register: f.u16(frame_record::FRAME_BASE_REGISTER),
            cfa_offset: f.u32(frame_record::CFA_OFFSET) as i32,
            frame_register_index: f.u32(frame_record::FRAME_REGISTER_INDEX),
            num_records,
            record_index: f.u32(frame_record::RECORD_INDEX),
        }
    }
}

impl Record {
    #[inline(always)]
    pub(super) fn decode<E: Endian>(f: Fields<'_, E, RECORD_SIZE>) -> Result<Self> {
        Ok(Record {
            id: f.u64(record::ID),
            instruction_offset: f.u32(record::INSTRUCTION_OFFSET),
            patchable_size: f.u32(record::PATCHABLE_SIZE),
            num_locations: f.u16(record::NUM_LOCATIONS),
            num_live_outs: f.u16(record::NUM_LIVE_OUTS),
            location_index: f.u32(record::LOCATION_INDEX),
            live_out_index: f.u32(record::LIVE_OUT_INDEX),
            flags: f.entry[record::FLAGS],
            kind: RecordKind::from_u8(f.entry[record::KIND])
                .ok_or(Error::Inconsistent("bad record kind"))?,
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
        if b.slice(header::MAGIC, MAGIC.len())? != MAGIC {
            return Err(Error::BadMagic);
        }
        let version = b.u8(header::VERSION)?;
        if version != VERSION {
            return Err(Error::UnsupportedFlatVersion(version));
        }
        let flags = b.u8(header::FLAGS)?;
        if (flags & BIG_ENDIAN != 0) != endian.is_big_endian() {
            return Err(Error::WrongByteOrder);
        }
        let header_size = b.u16(header::SIZE)? as u32;
        let table_size = b.u32(header::TABLE_SIZE)?;
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
        for (i, bound) in bounds[FRAME_RECORDS..=LIVE_OUTS].iter_mut().enumerate() {
            *bound = b.u32(header::ARRAY_OFFSETS + 4 * i)?;
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
            let entries = b.u32(header::PC_MAP_ENTRIES)?;
            pc_map_shift = b.u8(header::PC_MAP_SHIFT)?;
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
            let functions =
                bounds[RECORDS].wrapping_sub(bounds[FRAME_RECORDS]) / FRAME_RECORD_SIZE as u32;
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
                let field = self.entry(FRAME_RECORDS, f)? as i64;
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
        self.count(CONSTANTS)
    }
    pub fn num_frame_records(&self) -> u32 {
        self.count(FRAME_RECORDS)
    }
    pub fn num_records(&self) -> u32 {
        self.count(RECORDS)
    }
    pub fn num_locations(&self) -> u32 {
        self.count(LOCATIONS)
    }
    pub fn num_frame_registers(&self) -> u32 {
        self.count(FRAME_REGISTERS)
    }
    pub fn num_live_outs(&self) -> u32 {
        self.count(LIVE_OUTS)
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
        Ok((
            self.bytes.u32(at + pc_map_entry::FUNCTION)?,
            self.bytes.u32(at + pc_map_entry::RECORD)?,
        ))
    }

    pub fn constant(&self, index: u32) -> Result<u64> {
        self.bytes.u64(self.entry(CONSTANTS, index)?)
    }

    /// Offset in the table of frame record `index`'s address field.
    pub fn function_address_offset(&self, index: u32) -> Result<usize> {
        self.entry(FRAME_RECORDS, index)
    }

    #[inline]
    pub fn frame_record(&self, index: u32) -> Result<FrameRecord> {
        let at = self.entry(FRAME_RECORDS, index)?;
        // One bounds check for the entry, then fixed-offset decoding.
        let entry: [u8; FRAME_RECORD_SIZE] = self.bytes.array(at)?;
        let f = Fields::new(&entry, self.bytes.endian);
        let record_index = f.u32(frame_record::RECORD_INDEX);
        // Records are grouped by function: this function's end is the next
        // one's start.
        let end = if index + 1 < self.num_frame_records() {
            self.bytes
                .u32(at + FRAME_RECORD_SIZE + frame_record::RECORD_INDEX)?
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
        let at = self.entry(FRAME_RECORDS, index)?;
        let stored = self.bytes.u64(at + frame_record::ADDRESS)?;
        if self.absolute_addresses() {
            Ok(stored)
        } else {
            Ok(table_address.wrapping_add(at as u64).wrapping_add(stored))
        }
    }

    /// Function `index`'s size field alone.
    #[inline]
    pub fn function_size(&self, index: u32) -> Result<u32> {
        self.bytes
            .u32(self.entry(FRAME_RECORDS, index)? + frame_record::SIZE)
    }

    /// The records of function `index`: its record index and the next
    /// function's (the last one's: the number of records). Reads two fields.
    #[inline]
    pub fn function_record_range(&self, index: u32) -> Result<(u32, u32)> {
        let at = self.entry(FRAME_RECORDS, index)?;
        let start = self.bytes.u32(at + frame_record::RECORD_INDEX)?;
        let end = if index + 1 < self.num_frame_records() {
            self.bytes
                .u32(at + FRAME_RECORD_SIZE + frame_record::RECORD_INDEX)?
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
    /// function index. It should equal
    /// [`function_address`](Self::function_address); `validate` checks that
    /// it does.
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
        self.bytes
            .u32(self.entry(RECORDS, index)? + record::INSTRUCTION_OFFSET)
    }

    #[inline]
    pub fn record(&self, index: u32) -> Result<Record> {
        let entry: [u8; RECORD_SIZE] = self.bytes.array(self.entry(RECORDS, index)?)?;
        Record::decode(Fields::new(&entry, self.bytes.endian))
    }

    pub fn location(&self, index: u32) -> Result<Location> {
        let at = self.entry(LOCATIONS, index)?;
        let b = &self.bytes;
        let kind = b.u8(at + location::KIND)?;
        Ok(Location {
            kind: LocationKind::from_u8(kind).ok_or(Error::BadLocationKind { offset: at, kind })?,
            size: b.u8(at + location::SIZE)?.into(),
            dwarf_reg: b.u16(at + location::DWARF_REG)?,
            offset: b.i32(at + location::OFFSET)?,
        })
    }

    pub fn frame_register(&self, index: u32) -> Result<FrameRegister> {
        let at = self.entry(FRAME_REGISTERS, index)?;
        Ok(FrameRegister {
            dwarf_reg: self.bytes.u16(at + frame_register::DWARF_REG)?,
            offset: self.bytes.u16(at + frame_register::OFFSET)? as i16 as i32,
        })
    }

    pub fn live_out(&self, index: u32) -> Result<LiveOut> {
        let at = self.entry(LIVE_OUTS, index)?;
        Ok(LiveOut {
            dwarf_reg: self.bytes.u16(at + live_out::DWARF_REG)?,
            size: self.bytes.u8(at + live_out::SIZE)?,
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
}

/// Fields of an entry already read whole: fixed offsets, no checks left.
pub(super) struct Fields<'e, E, const N: usize> {
    entry: &'e [u8; N],
    endian: E,
}

impl<'e, E: Endian, const N: usize> Fields<'e, E, N> {
    #[inline(always)]
    pub(super) fn new(entry: &'e [u8; N], endian: E) -> Self {
        Fields { entry, endian }
    }
    #[inline(always)]
    fn bytes<const M: usize>(&self, at: usize) -> [u8; M] {
        let mut out = [0; M];
        out.copy_from_slice(&self.entry[at..at + M]);
        out
    }
    #[inline(always)]
    pub(super) fn u16(&self, at: usize) -> u16 {
        self.endian.u16_from(self.bytes(at))
    }
    #[inline(always)]
    pub(super) fn u32(&self, at: usize) -> u32 {
        self.endian.u32_from(self.bytes(at))
    }
    #[inline(always)]
    pub(super) fn u64(&self, at: usize) -> u64 {
        self.endian.u64_from(self.bytes(at))
    }
}

/// Whether `n` is a multiple of `m` (`is_multiple_of` is newer than our MSRV).
fn multiple(n: usize, m: usize) -> bool {
    n.checked_rem(m) == Some(0)
}

pub(super) fn check_range(what: &'static str, index: u32, count: u32, len: u32) -> Result<()> {
    match index.checked_add(count) {
        Some(end) if end <= len => Ok(()),
        _ => Err(Error::IndexOutOfRange {
            what,
            index: u64::from(index) + u64::from(count),
            count: len.into(),
        }),
    }
}

/// The byte order of the tables in `section`, from the first table's header
/// flag (a section only ever holds one target's tables; zero padding before
/// it is skipped). Little-endian if there is no flag to read: parsing then
/// fails on the magic or the flag.
#[inline]
pub fn section_endian(section: &[u8]) -> RunTimeEndian {
    let start = section.iter().position(|&b| b != 0).unwrap_or(0);
    match section.get(start + header::FLAGS) {
        Some(f) if f & BIG_ENDIAN != 0 => RunTimeEndian::Big,
        _ => RunTimeEndian::Little,
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
