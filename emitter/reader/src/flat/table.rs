//! One flat table: its header, parsed and checked, and bounds-checked
//! access to every entry; the tables of a section.

use super::layout::{
    frame_record, header, record, ABSOLUTE_ADDRESSES, ADDRESSES, ADDRESS_SIZE, BIG_ENDIAN,
    CONSTANTS, CONSTANT_SIZE, DATA, END, FRAME_RECORDS, FRAME_RECORD_SIZE, HEADER_FLAGS,
    HEADER_SIZE, MAGIC, MAP_ARRAY, NUM_BOUNDS, PC_MAP, PC_MAP_ENTRY_SIZE, PC_MAP_HEADER_SIZE,
    PC_MAP_MAX_SHIFT, RECORDS, RECORD_SIZE, TABLE_SIZE_MULTIPLE, VARIABLE_STACK_SIZE, VERSION,
};
use super::site::{
    FrameState, LiveOuts, Locations, SavedRegisters, Site, SiteData, SiteWithLiveOuts,
};
use crate::endian::Bytes;
use crate::{Endian, Error, Result, RunTimeEndian};

/// Entry size of each array, in bounds order.
const ENTRY_SIZES: [usize; NUM_BOUNDS - 2] = [
    FRAME_RECORD_SIZE,
    RECORD_SIZE,
    ADDRESS_SIZE,
    CONSTANT_SIZE,
    PC_MAP_ENTRY_SIZE,
];
const ARRAY_NAMES: [&str; NUM_BOUNDS - 2] = [
    "frame record",
    "record",
    "address",
    "constant",
    "PC map entry",
];

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
    /// Header flags ([`ABSOLUTE_ADDRESSES`](super::ABSOLUTE_ADDRESSES), …).
    pub flags: u8,
    /// log2 of the bytes of code per PC map entry (0 without a PC map).
    pub pc_map_shift: u8,
    /// Where the frame records, records, addresses, constants, PC map and
    /// Data start (empty arrays where absent), and the table size.
    pub bounds: [u32; NUM_BOUNDS],
}

/// A table header that [`FlatStackMap::parse`] accepted, as a caller that
/// looks up many PCs keeps it: lookups read it where it is
/// ([`FlatStackMap::lookup_kept`]).
#[derive(Debug, Clone, Copy)]
pub struct KeptHeader<'h> {
    /// As [`Header::bounds`].
    pub bounds: &'h [u32; NUM_BOUNDS],
    /// Header flags ([`ABSOLUTE_ADDRESSES`](super::ABSOLUTE_ADDRESSES), …).
    pub flags: u8,
    /// As [`Header::pc_map_shift`].
    pub pc_map_shift: u8,
}

// Here, beside the header it reads: the Data area's decoders (site.rs)
// know nothing of headers.
impl<'a> SiteData<'a> {
    /// The Data area of the table at the start of `table`, whose header
    /// `parse` accepted and the caller kept (empty if the header does not
    /// fit the bytes: then every decode is an error).
    #[inline(always)]
    pub fn of_kept(table: &'a [u8], kept: KeptHeader<'_>) -> Self {
        let (start, end) = (kept.bounds[DATA] as usize, kept.bounds[END] as usize);
        SiteData {
            bytes: table.get(start..end).unwrap_or_default(),
            base: start,
        }
    }
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
    /// As stored: the self-relative i32 sign-extended, or with
    /// `ABSOLUTE_ADDRESSES` the Addresses entry. See
    /// [`FlatStackMap::function_address`].
    pub address: u64,
    /// Size of the function's code in bytes (0 when unknown).
    pub size: u32,
    /// [`VARIABLE_STACK_SIZE`] for a frame with a variable-sized alloca.
    pub stack_size: u32,
    /// First record of the function.
    pub record_index: u32,
    /// Not stored: the distance to the next function's first record.
    pub num_records: u32,
}

impl FrameRecord {
    /// Whether LLVM wrote UINT64_MAX for the stack size.
    pub fn variable_stack_size(&self) -> bool {
        self.stack_size == VARIABLE_STACK_SIZE
    }
}

/// A function of a table with its address resolved: what a runtime asks
/// for ([`FlatStackMap::function`], [`FlatStackMap::functions`],
/// `Hit::function`). Its frame record stores the
/// address self-relative (or in the Addresses array); this is the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// Index of its frame record in the table.
    pub index: u32,
    /// Address of the function's first instruction in the program the table
    /// describes.
    pub address: u64,
    /// Size of its code in bytes (0 when unknown).
    pub size: u32,
    /// Bytes its frame occupies below the caller's stack pointer at a call
    /// (LLVM's stack size); [`VARIABLE_STACK_SIZE`] for a variable-sized
    /// frame.
    pub stack_size: u32,
    /// Its first record's index in the table.
    pub record_index: u32,
    /// How many records it has.
    pub num_records: u32,
}

impl Function {
    /// The address of `record` (one of this function's): for a call, its
    /// return address.
    pub fn record_address(&self, record: &Record) -> u64 {
        self.address
            .wrapping_add(u64::from(record.instruction_offset))
    }

    /// The records' index range in the table.
    pub fn records(&self) -> core::ops::Range<u32> {
        self.record_index..self.record_index.saturating_add(self.num_records)
    }
}

/// A record: where it is in its function and which Site describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Offset from the function's address: for a call, of its return address.
    pub instruction_offset: u32,
    /// Offset of its Site in the Data area.
    pub site: u32,
}

impl<'a, E: Endian> FlatStackMap<'a, E> {
    /// Reads the header of the table at the start of `data` and checks that
    /// its arrays fit in the table. Entries are checked when read, or all at
    /// once by [`validate`](Self::validate).
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
        if flags & !HEADER_FLAGS != 0 {
            return Err(Error::Inconsistent("unknown or retired header flags"));
        }
        if (flags & BIG_ENDIAN != 0) != endian.is_big_endian() {
            return Err(Error::WrongByteOrder);
        }
        let header_size = b.u16(header::SIZE)? as usize;
        let pc_map = flags & PC_MAP != 0;
        if header_size
            != if pc_map {
                PC_MAP_HEADER_SIZE
            } else {
                HEADER_SIZE
            }
        {
            return Err(Error::Inconsistent("flat header size"));
        }
        let table_size = b.u32(header::TABLE_SIZE)?;
        if (table_size as usize) < header_size
            || !multiple(table_size as usize, TABLE_SIZE_MULTIPLE)
        {
            return Err(Error::Inconsistent("flat table size"));
        }
        let functions = u64::from(b.u32(header::NUM_FUNCTIONS)?);
        let records = u64::from(b.u32(header::NUM_RECORDS)?);
        let constants = u64::from(b.u32(header::NUM_CONSTANTS)?);
        let (mut entries, mut pc_map_shift) = (0, 0);
        if pc_map {
            entries = u64::from(b.u32(header::PC_MAP_ENTRIES)?);
            pc_map_shift = b.u8(header::PC_MAP_SHIFT)?;
            if pc_map_shift > PC_MAP_MAX_SHIFT || entries == 0 || functions == 0 {
                return Err(Error::Inconsistent("PC map shift or size"));
            }
            if b.slice(header::RESERVED, 3)? != [0; 3] {
                return Err(Error::Inconsistent("reserved header bytes are not zero"));
            }
        }
        let table = Bytes::new(b.slice(0, table_size as usize)?, endian);
        // Array starts, in u64 (counts are u32, so nothing overflows). The
        // header size and every entry size before the constants are
        // multiples of 8, so Addresses and Constants start 8-aligned with no
        // padding: each array ends where the next starts.
        let absolute = flags & ABSOLUTE_ADDRESSES != 0;
        let sizes = [
            functions * FRAME_RECORD_SIZE as u64,
            records * RECORD_SIZE as u64,
            if absolute {
                functions * ADDRESS_SIZE as u64
            } else {
                0
            },
            constants * CONSTANT_SIZE as u64,
            entries * PC_MAP_ENTRY_SIZE as u64,
        ];
        let mut bounds = [0u64; NUM_BOUNDS];
        bounds[FRAME_RECORDS] = header_size as u64;
        for (i, size) in sizes.iter().enumerate() {
            bounds[i + 1] = bounds[i] + size;
        }
        const _: () = assert!(HEADER_SIZE & 7 == 0 && PC_MAP_HEADER_SIZE & 7 == 0);
        const _: () = assert!(FRAME_RECORD_SIZE & 7 == 0 && RECORD_SIZE & 7 == 0);
        bounds[END] = table_size.into();
        if bounds[DATA] > bounds[END] {
            return Err(Error::Inconsistent(
                "flat array counts do not fit in the table size",
            ));
        }
        Ok(FlatStackMap {
            bytes: table,
            header: Header {
                flags,
                pc_map_shift,
                bounds: bounds.map(|b| b as u32),
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

    /// Checks every entry ([`check_entries`](Self::check_entries)) and that
    /// the functions are in address order without overlapping, which
    /// lookups rely on. Address fields that are 0 are not relocated yet (an
    /// object file: RELA relocations hold the addresses) and are not
    /// compared.
    pub fn validate(&self) -> Result<()> {
        self.check_entries()?;
        let mut last: Option<(u32, i128, u32)> = None;
        for f in 0..self.num_frame_records() {
            let fr = self.frame_record(f)?;
            if fr.address == 0 {
                continue;
            }
            // Relative to the table's address: both kinds compare alike.
            let start = if self.absolute_addresses() {
                i128::from(fr.address)
            } else {
                self.function_address_offset(f)? as i128 + i128::from(fr.address as i64)
            };
            if let Some((prev, prev_start, prev_size)) = last {
                if start < prev_start + i128::from(prev_size.max(1)) {
                    return Err(Error::FunctionsNotSorted {
                        function: f,
                        previous: prev,
                    });
                }
            }
            last = Some((f, start, fr.size));
        }
        Ok(())
    }

    /// Checks every entry but the functions' address order: record ranges,
    /// each function's records sorted by offset and inside it, every Site
    /// and FrameState decodes (constant indices in range, saved registers
    /// sorted), the PC map's entries, the address fields' kind and the
    /// Data area's zero padding. Linear in the table's size.
    pub fn check_entries(&self) -> Result<()> {
        let nrec = self.num_records();
        let nfun = self.num_frame_records();
        if nfun == 0 && nrec != 0 {
            return Err(Error::Inconsistent("records without a function"));
        }
        let data = self.data();
        let absolute = self.absolute_addresses();
        let mut used = 0usize;
        for f in 0..nfun {
            let fr = self.frame_record(f)?;
            if f == 0 && fr.record_index != 0 {
                return Err(Error::Inconsistent("records without a function"));
            }
            if absolute && self.bytes.u32(self.entry(FRAME_RECORDS, f)?)? != 0 {
                return Err(Error::Inconsistent(
                    "self-relative address field set in a table of absolute addresses",
                ));
            }
            let mut last = 0;
            let mut last_site = None;
            for i in fr.record_index..fr.record_index + fr.num_records {
                let r = self.record(i)?;
                if r.instruction_offset < last {
                    return Err(Error::NotSorted {
                        function: f,
                        record: i,
                    });
                }
                if fr.size != 0 && r.instruction_offset > fr.size {
                    return Err(Error::Inconsistent("record offset past its function's end"));
                }
                last = r.instruction_offset;
                // Sites are shared: a run of one is checked once.
                if last_site != Some(r.site) {
                    let (_, end) = data.check_site(r.site, self.num_constants())?;
                    used = used.max(end);
                    last_site = Some(r.site);
                }
            }
        }
        // The PC map is a hint that lookups verify, so only its shape is
        // checked: function indices in range, never decreasing.
        let mut last = 0;
        for b in 0..self.num_pc_map_entries() {
            let f = self.pc_map_entry(b)?;
            if f < last || f >= nfun {
                return Err(Error::Inconsistent("PC map entries"));
            }
            last = f;
        }
        // Past the last Site or FrameState: only the padding to a multiple
        // of 4, zeros.
        let tail = data.bytes.get(used..).unwrap_or_default();
        if tail.len() >= TABLE_SIZE_MULTIPLE || tail.iter().any(|&b| b != 0) {
            return Err(Error::Inconsistent(
                "Data area holds more than its sites, frame states and zero padding",
            ));
        }
        Ok(())
    }

    /// The header's flags.
    pub fn flags(&self) -> u8 {
        self.header.flags
    }
    /// Whether the table holds absolute addresses (an Addresses array) rather than self-relative ones.
    pub fn absolute_addresses(&self) -> bool {
        self.header.flags & ABSOLUTE_ADDRESSES != 0
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
        self.header.bounds[END]
    }
    /// Entries of an array: `parse` made the bounds ascend, each array
    /// ending where the next starts.
    #[inline]
    fn count(&self, array: usize) -> u32 {
        let b = &self.header.bounds;
        b[array + 1].wrapping_sub(b[array]) / ENTRY_SIZES[array] as u32
    }
    #[inline]
    fn entry(&self, array: usize, index: u32) -> Result<usize> {
        let count = self.count(array);
        if index >= count {
            return Err(Error::IndexOutOfRange {
                what: ARRAY_NAMES[array],
                index: index.into(),
                count: count.into(),
            });
        }
        Ok(self.header.bounds[array] as usize + index as usize * ENTRY_SIZES[array])
    }
    /// How many functions (frame records) the table has.
    pub fn num_frame_records(&self) -> u32 {
        self.count(FRAME_RECORDS)
    }
    /// How many records the table has.
    pub fn num_records(&self) -> u32 {
        self.count(RECORDS)
    }
    /// How many large constants the table has.
    pub fn num_constants(&self) -> u32 {
        self.count(CONSTANTS)
    }
    /// Entries of the PC map (0 without one).
    pub fn num_pc_map_entries(&self) -> u32 {
        self.count(MAP_ARRAY)
    }
    /// Bytes of the Data area (its padding included).
    pub fn data_size(&self) -> u32 {
        let b = &self.header.bounds;
        b[END].wrapping_sub(b[DATA])
    }
    /// PC map entry `bucket`: the index of the last function that starts at
    /// or before `function 0's address + bucket << shift`, as the code was
    /// laid out when the table was written. A hint: see
    /// [`lookup`](Self::lookup).
    #[inline]
    pub fn pc_map_entry(&self, bucket: u32) -> Result<u32> {
        self.bytes.u32(self.entry(MAP_ARRAY, bucket)?)
    }

    /// Large constant `index` (a `ConstantIndex` location's value).
    pub fn constant(&self, index: u32) -> Result<u64> {
        self.bytes.u64(self.entry(CONSTANTS, index)?)
    }

    /// Offset in the table of function `index`'s address field: the frame
    /// record's i32, or with `ABSOLUTE_ADDRESSES` its Addresses entry (where
    /// the relocation applies).
    pub fn function_address_offset(&self, index: u32) -> Result<usize> {
        if self.absolute_addresses() {
            self.entry(FRAME_RECORDS, index)?;
            self.entry(ADDRESSES, index)
        } else {
            self.entry(FRAME_RECORDS, index)
        }
    }

    #[inline]
    /// Frame record `index`, its address as stored (see [`function`](Self::function) for it resolved).
    pub fn frame_record(&self, index: u32) -> Result<FrameRecord> {
        let at = self.entry(FRAME_RECORDS, index)?;
        let entry: [u8; FRAME_RECORD_SIZE] = self.bytes.array(at)?;
        let (record_index, end) = self.function_record_range(index)?;
        let mut f = FrameRecord::decode(&entry, self.bytes.endian, end - record_index);
        if self.absolute_addresses() {
            f.address = self.bytes.u64(self.entry(ADDRESSES, index)?)?;
        }
        Ok(f)
    }

    /// Whether the function addresses are filled in: false for a table of a
    /// relocatable object, whose first function's address field (each
    /// one's, as every one has a relocation) is 0 until linked: a
    /// self-relative 0 would put the function at its own frame record, an
    /// absolute 0 at address 0. A table of no function is relocated.
    pub fn relocated(&self) -> bool {
        if self.num_frame_records() == 0 {
            return true;
        }
        match self.function_address_offset(0) {
            Ok(at) if self.absolute_addresses() => self.bytes.u64(at).is_ok_and(|a| a != 0),
            Ok(at) => self
                .bytes
                .u32(at + frame_record::ADDRESS)
                .is_ok_and(|a| a != 0),
            Err(_) => false,
        }
    }

    /// The function's address, given the address the table is loaded at (or
    /// its section address in a linked file).
    #[inline]
    pub fn function_address(&self, index: u32, table_address: u64) -> Result<u64> {
        if self.absolute_addresses() {
            self.entry(FRAME_RECORDS, index)?;
            return self.bytes.u64(self.entry(ADDRESSES, index)?);
        }
        let at = self.entry(FRAME_RECORDS, index)?;
        let stored = self.bytes.u32(at + frame_record::ADDRESS)? as i32;
        Ok(table_address
            .wrapping_add(at as u64)
            .wrapping_add(stored as i64 as u64))
    }

    /// Function `index` of a table at `table_address` (where its first byte
    /// is in the described program), its address resolved.
    ///
    /// ```
    /// # use pcmap_reader::flat::FlatStackMap;
    /// # use pcmap_reader::LittleEndian;
    /// # let (bytes, table_address) = pcmap_reader::flat::example_table();
    /// let table = FlatStackMap::parse(&bytes, LittleEndian)?;
    /// let f = table.function(0, table_address)?;
    /// assert_eq!(f.address, 0x40_1000);
    /// let first = table.record(f.record_index)?;
    /// assert_eq!(f.record_address(&first), 0x40_1000 + 0x10);
    /// # Ok::<(), pcmap_reader::Error>(())
    /// ```
    pub fn function(&self, index: u32, table_address: u64) -> Result<Function> {
        let f = self.frame_record(index)?;
        Ok(Function {
            index,
            address: self.function_address(index, table_address)?,
            size: f.size,
            stack_size: f.stack_size,
            record_index: f.record_index,
            num_records: f.num_records,
        })
    }

    /// Every function of a table at `table_address`, in address order, their
    /// addresses resolved.
    ///
    /// ```
    /// # use pcmap_reader::flat::FlatStackMap;
    /// # use pcmap_reader::LittleEndian;
    /// # let (bytes, table_address) = pcmap_reader::flat::example_table();
    /// let table = FlatStackMap::parse(&bytes, LittleEndian)?;
    /// for f in table.functions(table_address) {
    ///     let f = f?;
    ///     println!("{:#x}: {} records, stack size {}", f.address, f.num_records, f.stack_size);
    /// }
    /// # Ok::<(), pcmap_reader::Error>(())
    /// ```
    pub fn functions(&self, table_address: u64) -> impl Iterator<Item = Result<Function>> + '_ {
        (0..self.num_frame_records()).map(move |i| self.function(i, table_address))
    }

    /// Function `index`'s size field alone.
    #[inline]
    pub fn function_size(&self, index: u32) -> Result<u32> {
        self.bytes
            .u32(self.entry(FRAME_RECORDS, index)? + frame_record::SIZE)
    }

    /// The records of function `index`: its first record and the next
    /// function's (the last one's: the number of records).
    #[inline]
    pub fn function_record_range(&self, index: u32) -> Result<(u32, u32)> {
        let at = self.entry(FRAME_RECORDS, index)?;
        let start = self.bytes.u32(at + frame_record::FIRST_RECORD)?;
        let end = if index + 1 < self.num_frame_records() {
            self.bytes
                .u32(at + FRAME_RECORD_SIZE + frame_record::FIRST_RECORD)?
        } else {
            self.num_records()
        };
        if end < start || end > self.num_records() {
            return Err(Error::Inconsistent("frame record first records decrease"));
        }
        Ok((start, end))
    }

    /// Record `index`'s instruction offset alone (the probe of a search
    /// over a function's records).
    #[inline]
    pub fn record_instruction_offset(&self, index: u32) -> Result<u32> {
        self.bytes
            .u32(self.entry(RECORDS, index)? + record::INSTRUCTION_OFFSET)
    }

    #[inline]
    /// Record `index` of the table (a function's are [`Function::records`]).
    pub fn record(&self, index: u32) -> Result<Record> {
        let at = self.entry(RECORDS, index)?;
        Ok(Record {
            instruction_offset: self.bytes.u32(at + record::INSTRUCTION_OFFSET)?,
            site: self.bytes.u32(at + record::SITE)?,
        })
    }

    /// The Data area, to decode Sites and FrameStates.
    #[inline]
    pub fn data(&self) -> SiteData<'a> {
        let b = &self.header.bounds;
        SiteData {
            bytes: self
                .bytes
                .data
                .get(b[DATA] as usize..b[END] as usize)
                .unwrap_or_default(),
            base: b[DATA] as usize,
        }
    }

    /// The Data area's bytes (Sites and FrameStates).
    pub fn data_bytes(&self) -> &'a [u8] {
        self.data().bytes
    }

    /// The Site at `offset` in the Data area (a record's
    /// [`site`](Record::site)): its ID, kind, patchable size, frame state
    /// and location count.
    #[inline]
    pub fn site(&self, offset: u32) -> Result<Site> {
        self.data().site(offset)
    }

    /// `site` with its live-outs found (its locations are skipped).
    pub fn site_with_live_outs(&self, offset: u32) -> Result<SiteWithLiveOuts> {
        self.data().site_with_live_outs(offset)
    }

    /// A Site's locations, decoded one by one (location `i` is reached by
    /// decoding the `i` before it).
    #[inline]
    pub fn locations(&self, site: &Site) -> Locations<'a> {
        Locations {
            data: self.data(),
            at: site.locations as usize,
            left: site.num_locations,
        }
    }

    /// The locations starting `count` locations before the live-out count
    /// at Data offset `at` (a cursor a caller kept).
    pub fn locations_at(&self, at: u32, count: u16) -> Locations<'a> {
        Locations {
            data: self.data(),
            at: at as usize,
            left: count,
        }
    }

    /// A Site's live-outs (its locations are skipped first).
    pub fn live_outs(&self, site: &Site) -> Result<LiveOuts<'a>> {
        let (left, at) = self.data().live_outs_of(site)?;
        Ok(self.live_outs_at(at, left))
    }

    /// The `count` live-outs at Data offset `at`.
    pub fn live_outs_at(&self, at: u32, count: u16) -> LiveOuts<'a> {
        LiveOuts {
            data: self.data(),
            at: at as usize,
            left: count,
        }
    }

    /// The FrameState at `offset` in the Data area (a Site's
    /// [`frame_state`](Site::frame_state)).
    #[inline]
    pub fn frame_state(&self, offset: u32) -> Result<FrameState> {
        self.data().frame_state(offset)
    }

    /// A FrameState's saved registers, decoded one by one.
    pub fn saved_registers(&self, fs: &FrameState) -> SavedRegisters<'a> {
        self.data()
            .saved_registers_at(fs.saved, fs.num_saved, fs.scale_shift())
    }

    /// A function's records, in offset order.
    pub fn records_of(&self, f: &FrameRecord) -> Result<impl Iterator<Item = Result<Record>> + '_> {
        check_range("record", f.record_index, f.num_records, self.num_records())?;
        Ok((f.record_index..f.record_index + f.num_records).map(|i| self.record(i)))
    }
}

impl FrameRecord {
    /// From its entry, given its record count (not stored).
    #[inline(always)]
    pub(super) fn decode<E: Endian>(
        entry: &[u8; FRAME_RECORD_SIZE],
        endian: E,
        num_records: u32,
    ) -> Self {
        let f = Fields::new(entry, endian);
        FrameRecord {
            address: f.u32(frame_record::ADDRESS) as i32 as i64 as u64,
            size: f.u32(frame_record::SIZE),
            stack_size: f.u32(frame_record::STACK_SIZE),
            record_index: f.u32(frame_record::FIRST_RECORD),
            num_records,
        }
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
    pub(super) fn u32(&self, at: usize) -> u32 {
        let mut out = [0; 4];
        out.copy_from_slice(&self.entry[at..at + 4]);
        self.endian.u32_from(out)
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
