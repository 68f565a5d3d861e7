//! A `pcmap_stackmaps` section, opened: its tables (a linked program has
//! one per object), the headers of the first [`KEPT_TABLES`] kept so that
//! lookups do not parse them again, and finding the record of a PC.
//!
//! Opening reads only the table headers, so it costs the same for ten
//! records as for a million. A lookup visits each table (from the kept
//! header, or parsing it), finds the function through the PC map or a
//! binary search of its frame records, then the record by instruction
//! offset; it gives what the caller's [`Output`] wants of it. A section of
//! one table in this machine's byte order (a program's own) is looked up
//! through its PC map with nothing around it ([`OpenedSection::search_mapped`]),
//! the rest out of line. O(tables + log functions + log records), no
//! memory.
//!
//! A table read from an object file is not relocated: its functions'
//! addresses are in the object's relocations, the table's fields 0.
//! Opening refuses such a table ([`Error::Unrelocated`]): its addresses are
//! not known until it is linked (the `pcmap` crate's object reader, which
//! `pcmap dump` uses, resolves them from the relocations).

use core::marker::PhantomData;

use super::layout::{BIG_ENDIAN, NUM_BOUNDS};
use super::lookup::{Hit, Match, Pc};
use super::site::SiteData;
use super::table::{section_endian, FlatStackMap, KeptHeader};
use crate::{BigEndian, Endian, Error, LittleEndian, Result, RunTimeEndian};

/// Table headers an [`OpenedSection`] keeps: a single object's section has
/// one table, a linked program one per object; later tables are parsed per
/// lookup.
pub const KEPT_TABLES: usize = 8;

/// This machine's byte order.
#[cfg(target_endian = "little")]
type NativeEndian = LittleEndian;
#[cfg(target_endian = "big")]
type NativeEndian = BigEndian;

/// A table's header as opening checked it (the C API's
/// `pcmap_table_header`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableHeader {
    /// Offset of the table in the section.
    pub offset: u64,
    /// Where the arrays start (frame records, records, addresses,
    /// constants, PC map, Data), and the table size.
    pub bounds: [u32; NUM_BOUNDS],
    /// Header flags.
    pub flags: u8,
    /// log2 of the code bytes per PC map entry.
    pub pc_map_shift: u8,
}

impl TableHeader {
    /// The header of `table`, at `offset` of its section.
    #[inline]
    pub fn of<E: Endian>(offset: u64, table: &FlatStackMap<'_, E>) -> Self {
        let header = table.parsed_header();
        TableHeader {
            offset,
            bounds: header.bounds,
            flags: header.flags,
            pc_map_shift: header.pc_map_shift,
        }
    }

    /// The reader's form of this header, read in place.
    #[inline(always)]
    pub fn kept(&self) -> KeptHeader<'_> {
        KeptHeader {
            bounds: &self.bounds,
            flags: self.flags,
            pc_map_shift: self.pc_map_shift,
        }
    }
}

/// An opened section: where its bytes are, what they describe, the first
/// tables' headers (the C API's `pcmap_stackmaps`, field for field). Plain
/// data: copied, kept in a registry, handed to C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OpenedSection<'a> {
    data: *const u8,
    size: usize,
    address: u64,
    /// Tables in the section.
    pub num_tables: u32,
    /// Functions, counting every table's.
    pub num_functions: u32,
    /// Records, counting every table's.
    pub num_records: u64,
    num_kept: u32,
    kept: [TableHeader; KEPT_TABLES],
    _bytes: PhantomData<&'a [u8]>,
}

/// Offsets of [`OpenedSection`]'s fields in declaration order (`data`,
/// `size`, `address`, `num_tables`, `num_functions`, `num_records`,
/// `num_kept`, `kept`), then its size and alignment: a C API whose struct
/// is this one asserts it has the same.
#[doc(hidden)]
pub const OPENED_SECTION_LAYOUT: [usize; 10] = {
    use core::mem::{align_of, offset_of, size_of};
    type O = OpenedSection<'static>;
    [
        offset_of!(O, data),
        offset_of!(O, size),
        offset_of!(O, address),
        offset_of!(O, num_tables),
        offset_of!(O, num_functions),
        offset_of!(O, num_records),
        offset_of!(O, num_kept),
        offset_of!(O, kept),
        size_of::<O>(),
        align_of::<O>(),
    ]
};

// SAFETY: the section's bytes are only read (`&'a [u8]` is Send and Sync).
unsafe impl Send for OpenedSection<'_> {}
// SAFETY: as above.
unsafe impl Sync for OpenedSection<'_> {}

impl<'a> OpenedSection<'a> {
    /// Opens the section `bytes` whose first byte has address `address` in
    /// the program it describes (`bytes.as_ptr() as u64` for the running
    /// program's own): every table's header checked (version 2 only) and
    /// counted, the first [`KEPT_TABLES`] kept. An unrelocated table (read
    /// from an object file) is [`Error::Unrelocated`].
    pub fn open(bytes: &'a [u8], address: u64) -> Result<Self> {
        if bytes.iter().all(|&b| b == 0) {
            return Err(Error::BadMagic);
        }
        let mut m = OpenedSection {
            data: bytes.as_ptr(),
            size: bytes.len(),
            address,
            num_tables: 0,
            num_functions: 0,
            num_records: 0,
            num_kept: 0,
            kept: [TableHeader::default(); KEPT_TABLES],
            _bytes: PhantomData,
        };
        let endian = section_endian(bytes);
        for t in FlatStackMap::tables(bytes, endian) {
            let (offset, t) = t?;
            if !t.relocated() {
                return Err(Error::Unrelocated);
            }
            if let Some(h) = m.kept.get_mut(m.num_tables as usize) {
                *h = TableHeader::of(offset as u64, &t);
                m.num_kept += 1;
            }
            m.num_tables = m
                .num_tables
                .checked_add(1)
                .ok_or(Error::Inconsistent("section of 2^32 tables"))?;
            m.num_functions = m
                .num_functions
                .checked_add(t.num_frame_records())
                .ok_or(Error::Inconsistent("section of 2^32 functions"))?;
            m.num_records += u64::from(t.num_records());
        }
        Ok(m)
    }

    /// The section's bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &'a [u8] {
        // SAFETY: `data` and `size` are those of the `&'a [u8]` `open`
        // read (or, for a C caller's copy, its promise that they are).
        unsafe { core::slice::from_raw_parts(self.data, self.size) }
    }

    /// The address of the section's first byte in the described program.
    #[inline(always)]
    pub fn address(&self) -> u64 {
        self.address
    }

    /// The section, to look up and read.
    #[inline(always)]
    pub fn section(&self) -> Section<'_> {
        let n = (self.num_kept as usize).min(KEPT_TABLES);
        Section {
            bytes: self.bytes(),
            address: self.address,
            kept: &self.kept[..n],
            all_kept: self.num_tables as usize <= n,
        }
    }

    /// The lookup through the PC map of a section of one table in this
    /// machine's byte order (a program's own): `Some(Ok(Some(...)))` if
    /// found (and written by `out`), `Some(Ok(None))` if there is no record
    /// for `pc`; `None` if the section is not of that kind or the map cannot
    /// answer, and [`Section::search`] must. The path of a runtime's
    /// lookups: it reads the one kept header and nothing else, and holds
    /// nothing for a fallback (the caller's is out of line).
    #[inline(always)]
    pub fn search_mapped<O: Output<'a>>(
        &self,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Option<core::result::Result<Option<O::Out>, O::Error>> {
        let h = &self.kept[0];
        let native = (h.flags & BIG_ENDIAN != 0) == cfg!(target_endian = "big");
        if self.num_tables != 1 || self.num_kept != 1 || !native {
            return None;
        }
        let bytes = self.bytes();
        let offset = h.offset as usize;
        let table = bytes.get(offset..)?;
        let address = self.address.wrapping_add(offset as u64);
        let endian = NativeEndian::default();
        match FlatStackMap::lookup_mapped(table, endian, h.kept(), pc, address, how)? {
            None => Some(Ok(None)),
            Some(hit) => {
                let at = TableAt {
                    offset,
                    header: *h,
                    address,
                };
                Some(out.write(bytes, at, hit).map(Some))
            }
        }
    }
}

/// Where a table is in its section: its offset, its header, its address.
#[derive(Debug, Clone, Copy)]
pub struct TableAt {
    /// Offset of the table in the section.
    pub offset: usize,
    /// Its header.
    pub header: TableHeader,
    /// Its address in the described program.
    pub address: u64,
}

/// What a lookup gives of the record it found ([`Section::search`]).
pub trait Output<'a>: Copy {
    /// What it gives.
    type Out;
    /// Its error (a table it could not read is one).
    type Error: From<Error>;
    /// What it wants of `hit`, found in the table `at` of the section
    /// `bytes`.
    fn write<E: Endian + 'a>(
        self,
        bytes: &'a [u8],
        at: TableAt,
        hit: Hit<'a, E>,
    ) -> core::result::Result<Self::Out, Self::Error>;
}

/// A section to read: its bytes, their address in the described program,
/// the headers opening kept.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    /// The section's bytes.
    pub bytes: &'a [u8],
    /// The address of its first byte in the described program.
    pub address: u64,
    /// Headers of the first tables as opening parsed them (empty: parse
    /// all). Invariant: each was accepted by `FlatStackMap::parse` for the
    /// table at its offset of `bytes`. Lookups trust them (reads stay
    /// bounds-checked, so a caller that corrupted them gets errors or wrong
    /// answers, never an out-of-bounds read).
    pub kept: &'a [TableHeader],
    /// Whether `kept` holds every table of the section.
    pub all_kept: bool,
}

impl<'a> Section<'a> {
    /// The section `bytes` at `address`, no header kept (each table parsed
    /// when read).
    pub fn new(bytes: &'a [u8], address: u64) -> Self {
        Section {
            bytes,
            address,
            kept: &[],
            all_kept: false,
        }
    }

    /// Each table, with its offset and address.
    pub fn tables(
        &self,
    ) -> impl Iterator<Item = Result<(TableAt, FlatStackMap<'a, RunTimeEndian>)>> + 'a {
        let (bytes, address) = (self.bytes, self.address);
        FlatStackMap::tables(bytes, section_endian(bytes)).map(move |t| {
            t.map(|(offset, table)| {
                let at = TableAt {
                    offset,
                    header: TableHeader::of(offset as u64, &table),
                    address: address.wrapping_add(offset as u64),
                };
                (at, table)
            })
        })
    }

    /// Checks every entry of every table, and that each table's functions
    /// are in address order without overlap (which lookups rely on).
    pub fn validate(&self) -> Result<()> {
        for t in self.tables() {
            t?.1.validate()?;
        }
        Ok(())
    }

    /// Finds the record for `pc` (`how`); what `out` gives of it, or `None`.
    #[inline(always)]
    pub fn search<O: Output<'a>>(
        &self,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        // The kept headers' flags say it without reading the section.
        let big = match self.kept.first() {
            Some(h) => h.flags & BIG_ENDIAN != 0,
            None => section_endian(self.bytes) == RunTimeEndian::Big,
        };
        // A runtime reads its own program's tables, in its own byte order:
        // that search is inlined here, the other one is not.
        if big == cfg!(target_endian = "big") {
            self.search_ordered(big, pc, how, out)
        } else {
            self.search_foreign(big, pc, how, out)
        }
    }

    /// `search` of the table whose kept header is `h`.
    #[inline(always)]
    fn search_table<E: Endian + 'a, O: Output<'a>>(
        &self,
        endian: E,
        h: &TableHeader,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        let offset = h.offset as usize;
        let bytes = self
            .bytes
            .get(offset..)
            .ok_or(Error::Truncated { offset })?;
        let address = self.address.wrapping_add(offset as u64);
        match FlatStackMap::lookup_kept(bytes, endian, h.kept(), pc, address, how)? {
            Some(hit) => {
                let at = TableAt {
                    offset,
                    header: *h,
                    address,
                };
                out.write(self.bytes, at, hit).map(Some)
            }
            None => Ok(None),
        }
    }

    /// `search` of tables that are big-endian if `big`.
    #[inline(always)]
    fn search_ordered<O: Output<'a>>(
        &self,
        big: bool,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        if big {
            self.search_in(BigEndian, pc, how, out)
        } else {
            self.search_in(LittleEndian, pc, how, out)
        }
    }

    /// `search_ordered` of tables in the other byte order than this
    /// machine's (read from a file), out of line.
    #[inline(never)]
    fn search_foreign<O: Output<'a>>(
        &self,
        big: bool,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        self.search_ordered(big, pc, how, out)
    }

    #[inline]
    fn search_in<E: Endian + 'a, O: Output<'a>>(
        &self,
        endian: E,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        let mut next = 0;
        for h in self.kept {
            if let Some(found) = self.search_table(endian, h, pc, how, out)? {
                return Ok(Some(found));
            }
            next = h.offset as usize + h.bounds[NUM_BOUNDS - 1] as usize;
        }
        if self.all_kept {
            return Ok(None);
        }
        self.search_from(next, endian, pc, how, out)
    }

    /// `search_in` over the tables whose headers were not kept, from byte
    /// `next` on: out of line, as only sections of many tables get here.
    #[inline(never)]
    fn search_from<E: Endian + 'a, O: Output<'a>>(
        &self,
        next: usize,
        endian: E,
        pc: Pc,
        how: Match,
        out: O,
    ) -> core::result::Result<Option<O::Out>, O::Error> {
        for t in FlatStackMap::tables_from(self.bytes, next, endian) {
            let (offset, t) = t?;
            let address = self.address.wrapping_add(offset as u64);
            if let Some(hit) = t.lookup_hit(pc, address, how)? {
                let at = TableAt {
                    offset,
                    header: TableHeader::of(offset as u64, &t),
                    address,
                };
                return out.write(self.bytes, at, hit).map(Some);
            }
        }
        Ok(None)
    }

    /// The function containing `pc` ([`Pc`]), with or without a record
    /// there, searched table by table: its table and index.
    pub fn function_containing(
        &self,
        pc: Pc,
    ) -> Result<Option<(TableAt, FlatStackMap<'a, RunTimeEndian>, u32)>> {
        for t in self.tables() {
            let (at, t) = t?;
            if let Some((index, _)) = t.function_containing(pc, at.address)? {
                return Ok(Some((at, t, index)));
            }
        }
        Ok(None)
    }

    /// Function `index` counting across all tables in section order: its
    /// table and index there.
    pub fn function_at(
        &self,
        mut index: u32,
    ) -> Result<Option<(TableAt, FlatStackMap<'a, RunTimeEndian>, u32)>> {
        for t in self.tables() {
            let (at, t) = t?;
            if index < t.num_frame_records() {
                return Ok(Some((at, t, index)));
            }
            index -= t.num_frame_records();
        }
        Ok(None)
    }

    /// The table at `offset` of the section.
    pub fn table(&self, offset: u64) -> Result<(TableAt, FlatStackMap<'a, RunTimeEndian>)> {
        let at = usize::try_from(offset).map_err(|_| Error::Inconsistent("table offset"))?;
        let bytes = self
            .bytes
            .get(at..)
            .ok_or(Error::Truncated { offset: at })?;
        let t = FlatStackMap::parse(bytes, section_endian(self.bytes))?;
        let table = TableAt {
            offset: at,
            header: TableHeader::of(offset, &t),
            address: self.address.wrapping_add(offset),
        };
        Ok((table, t))
    }

    /// The Data area of the table at `offset`: from its kept header, else
    /// parsed.
    pub fn data_at(&self, offset: usize) -> Result<SiteData<'a>> {
        let table = self
            .bytes
            .get(offset..)
            .ok_or(Error::Truncated { offset })?;
        Ok(
            match self.kept.iter().find(|h| h.offset as usize == offset) {
                Some(h) => SiteData::of_kept(table, h.kept()),
                None => FlatStackMap::parse(table, section_endian(self.bytes))?.data(),
            },
        )
    }
}
