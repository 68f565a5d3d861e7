//! LLVM's `.llvm_stackmaps`, versions 1, 2 and 3.
//!
//! ```text
//! Header        u8 version (1, 2, 3), u8 0, u16 0
//!               u32 NumFunctions, u32 NumConstants, u32 NumRecords
//! Function[]    u64 address, u64 stack size, u64 record count (v2+ only)
//! Constant[]    u64
//! Record[]      u64 ID, u32 instruction offset, u16 flags, u16 NumLocations
//!               Location[]   v1/v2: u8 kind, u8 size, u16 dwarf reg, i32 offset   (8 bytes)
//!                            v3:    u8 kind, u8 0, u16 size, u16 dwarf reg,
//!                                   u16 0, i32 offset                              (12 bytes)
//!               v3 only: pad to 8
//!               u16 padding, u16 NumLiveOuts
//!               LiveOut[]    u16 dwarf reg, u8 0, u8 size
//!               pad to 8
//! ```
//!
//! Alignment is relative to the table's start, which is 8-aligned in the
//! section. A linked program may hold several tables back to back
//! ([`LlvmStackMap::tables`]). In a relocatable object the function addresses
//! are zero and come from relocations, which the caller resolves.

/// The section LLVM writes its stack maps into (ELF).
pub const SECTION_NAME: &str = ".llvm_stackmaps";

use crate::endian::Bytes;
use crate::{BigEndian, Endian, Error, LittleEndian, LiveOut, Location, LocationKind, Result};

const HEADER_SIZE: usize = 16;
const CONSTANT_SIZE: usize = 8;
const RECORD_HEADER_SIZE: usize = 16;
const LIVE_OUT_SIZE: usize = 4;
const LIVE_OUT_HEADER_SIZE: usize = 4;

/// Size of a function entry in `version`.
fn function_size(version: u8) -> usize {
    if version == 1 {
        16
    } else {
        24
    }
}

/// Size of a location in `version`.
fn location_size(version: u8) -> usize {
    if version >= 3 {
        12
    } else {
        8
    }
}

/// The size, DWARF register and offset fields of `raw`, a location of
/// `version` (its kind is its first byte): the one reading of the
/// location layouts drawn above.
#[inline(always)]
fn location_fields<E: Endian>(e: E, version: u8, raw: &[u8]) -> (u16, u16, i32) {
    let u16_at = |i: usize| e.u16_from([raw[i], raw[i + 1]]);
    let i32_at = |i: usize| e.u32_from([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]) as i32;
    match version >= 3 {
        true => (u16_at(2), u16_at(4), i32_at(8)),
        false => (raw[1].into(), u16_at(2), i32_at(4)),
    }
}

/// `n` rounded up to a multiple of 8: a record's parts end within a few
/// MB of its table's start, which is far from overflow.
#[inline(always)]
fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// The error for the first of `parts` (each its end and where it starts)
/// that ends past `len`.
#[cold]
fn first_missing(len: usize, parts: &[(usize, usize)]) -> Error {
    let at = parts
        .iter()
        .find(|&&(end, _)| end > len)
        .map_or(len, |p| p.1);
    Error::Truncated { offset: at }
}

/// One table of `.llvm_stackmaps`, validated when parsed.
#[derive(Debug, Clone, Copy)]
pub struct LlvmStackMap<'a, E: Endian> {
    bytes: Bytes<'a, E>,
    version: u8,
    num_functions: u32,
    num_constants: u32,
    num_records: u32,
    size: usize,
    lists: ListFacts,
}

/// What the parse saw of every record's locations and live-outs, so that
/// a consumer checking them against a target needs no pass of its own
/// when they hold for the whole table ([`LlvmStackMap::lists`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListFacts {
    /// The largest DWARF register a register, direct or indirect location
    /// or a live-out names (0 if none does).
    pub max_dwarf_register: u16,
    /// Some location or live-out has size 0.
    pub zero_size: bool,
}

/// A function entry (LLVM's `StkSizeRecord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlvmFunction {
    /// As stored: zero in a relocatable object (see its relocation).
    pub address: u64,
    /// UINT64_MAX when the frame has a variable-sized alloca.
    pub stack_size: u64,
    /// Not stored in version 1.
    pub record_count: Option<u64>,
}

/// One call site record.
#[derive(Debug, Clone, Copy)]
pub struct LlvmRecord<'a, E: Endian> {
    /// The ID given to the intrinsic.
    pub id: u64,
    /// Offset from the function's address.
    pub instruction_offset: u32,
    /// Reserved by LLVM (0).
    pub flags: u16,
    version: u8,
    locations: Bytes<'a, E>,
    live_outs: Bytes<'a, E>,
    /// Offset of the record in its table, for error messages.
    pub table_offset: usize,
}

/// Where a record's parts are in its table, and where it ends.
struct Span {
    locations: core::ops::Range<usize>,
    live_outs: core::ops::Range<usize>,
    end: usize,
}

impl<'a, E: Endian> LlvmStackMap<'a, E> {
    /// Parses the table at the start of `data` and checks all of it: every
    /// record fits, location kinds and constant indices are valid and, from
    /// version 2, the functions' record counts add up to the record count.
    pub fn parse(data: &'a [u8], endian: E) -> Result<Self> {
        let b = Bytes::new(data, endian);
        let version = b.u8(0)?;
        if !(1..=3).contains(&version) {
            return Err(Error::UnsupportedVersion(version));
        }
        if b.u8(1)? != 0 || b.u16(2)? != 0 {
            return Err(Error::Inconsistent("reserved header bytes are not zero"));
        }
        let mut map = LlvmStackMap {
            bytes: b,
            version,
            num_functions: b.u32(4)?,
            num_constants: b.u32(8)?,
            num_records: b.u32(12)?,
            size: 0,
            lists: ListFacts::default(),
        };
        let offset = map.records_offset()?;
        // Bound the arrays before walking them, so huge counts fail fast.
        b.slice(HEADER_SIZE, offset - HEADER_SIZE)?;
        let mut counted = 0u64;
        for i in 0..map.num_functions {
            if let Some(n) = map.function(i)?.record_count {
                counted = counted.saturating_add(n);
            }
        }
        if version >= 2 && counted != u64::from(map.num_records) {
            return Err(Error::Inconsistent(
                "function record counts do not add up to the number of records",
            ));
        }
        // The loop for the table's byte order, chosen once where it is known
        // only at run time: it reads every record's and location's fields.
        map.size = match endian.is_big_endian() {
            true => map.check_records(offset, BigEndian)?,
            false => map.check_records(offset, LittleEndian)?,
        };
        Ok(map)
    }

    /// Every table in a section that holds several back to back (a linked
    /// program). Stops at the first error.
    pub fn tables(section: &'a [u8], endian: E) -> Tables<'a, E> {
        Tables {
            rest: section,
            endian,
            done: false,
        }
    }

    /// The largest register and whether any size is 0 over all the
    /// table's locations and live-outs.
    pub fn lists(&self) -> ListFacts {
        self.lists
    }

    /// The section's version (1, 2 or 3).
    pub fn version(&self) -> u8 {
        self.version
    }
    /// How many function records the section has.
    pub fn num_functions(&self) -> u32 {
        self.num_functions
    }
    /// How many large constants the section has.
    pub fn num_constants(&self) -> u32 {
        self.num_constants
    }
    /// How many records the section has.
    pub fn num_records(&self) -> u32 {
        self.num_records
    }
    /// Bytes this table occupies.
    pub fn size(&self) -> usize {
        self.size
    }
    /// Offset of function `index`'s address field in the table: where its
    /// relocation applies.
    pub fn function_address_offset(&self, index: u32) -> usize {
        HEADER_SIZE + index as usize * function_size(self.version)
    }

    /// Function record `index`.
    pub fn function(&self, index: u32) -> Result<LlvmFunction> {
        if index >= self.num_functions {
            return Err(Error::IndexOutOfRange {
                what: "function",
                index: index.into(),
                count: self.num_functions.into(),
            });
        }
        let at = self.function_address_offset(index);
        Ok(LlvmFunction {
            address: self.bytes.u64(at)?,
            stack_size: self.bytes.u64(at + 8)?,
            record_count: if self.version == 1 {
                None
            } else {
                Some(self.bytes.u64(at + 16)?)
            },
        })
    }

    /// Every function record, in order.
    pub fn functions(&self) -> impl Iterator<Item = Result<LlvmFunction>> + '_ {
        (0..self.num_functions).map(|i| self.function(i))
    }

    fn constants_offset(&self) -> usize {
        HEADER_SIZE + self.num_functions as usize * function_size(self.version)
    }

    fn records_offset(&self) -> Result<usize> {
        (self.num_constants as usize)
            .checked_mul(CONSTANT_SIZE)
            .and_then(|c| c.checked_add(self.constants_offset()))
            .ok_or(Error::Inconsistent("counts overflow"))
    }

    /// Large constant `index`.
    pub fn constant(&self, index: u32) -> Result<u64> {
        if index >= self.num_constants {
            return Err(Error::IndexOutOfRange {
                what: "constant",
                index: index.into(),
                count: self.num_constants.into(),
            });
        }
        self.bytes
            .u64(self.constants_offset() + index as usize * CONSTANT_SIZE)
    }

    /// Every large constant, in order.
    pub fn constants(&self) -> impl Iterator<Item = Result<u64>> + '_ {
        (0..self.num_constants).map(|i| self.constant(i))
    }

    /// The records in order. LLVM writes them function by function: the
    /// first `record_count` belong to the first function, and so on.
    pub fn records(&self) -> Records<'a, E> {
        Records {
            map: *self,
            offset: self.records_offset(),
            left: self.num_records,
        }
    }

    /// The record at `offset`: its parts found with
    /// [`record_span`](Self::record_span) and its header read, in byte
    /// order `f` (the table's).
    #[inline(always)]
    fn record<F: Endian>(&self, offset: usize, f: F) -> Result<(LlvmRecord<'a, E>, usize)> {
        let span = self.record_span(offset, f)?;
        let data = self.bytes.data;
        // `record_span` found the header there.
        let h: &[u8; RECORD_HEADER_SIZE] = data[offset..offset + RECORD_HEADER_SIZE]
            .try_into()
            .unwrap();
        let e = self.bytes.endian;
        let record = LlvmRecord {
            id: f.u64_from(h[..8].try_into().unwrap()),
            instruction_offset: f.u32_from(h[8..12].try_into().unwrap()),
            flags: f.u16_from([h[12], h[13]]),
            version: self.version,
            locations: Bytes::new(&data[span.locations], e),
            live_outs: Bytes::new(&data[span.live_outs], e),
            table_offset: offset,
        };
        Ok((record, span.end))
    }

    /// Checks every record, the first at `offset`, with
    /// [`check_record`](Self::check_record) reading in byte order `e` (the
    /// table's); returns where the last ends.
    fn check_records<F: Endian>(&mut self, mut offset: usize, e: F) -> Result<usize> {
        for _ in 0..self.num_records {
            offset = self.check_record(offset, e)?;
        }
        Ok(offset)
    }

    /// Checks the record at `offset` as `parse` does (it fits, with its
    /// padding; its location kinds and constant indices are valid), straight
    /// from the bytes (a big table has millions of locations), and adds
    /// its lists to `self.lists`; returns its end. `e` is the table's byte
    /// order.
    fn check_record<F: Endian>(&mut self, offset: usize, e: F) -> Result<usize> {
        let span = self.record_span(offset, e)?;
        let size = location_size(self.version);
        let locations = &self.bytes.data[span.locations.clone()];
        let mut facts = self.lists;
        for (i, raw) in locations.chunks_exact(size).enumerate() {
            let (bytes, reg, offset) = location_fields(e, self.version, raw);
            facts.zero_size |= bytes == 0;
            match LocationKind::from_u8(raw[0]) {
                Some(LocationKind::ConstantIndex) => {
                    // The offset field holds the index, unsigned.
                    let index = offset as u32;
                    if index >= self.num_constants {
                        return Err(Error::IndexOutOfRange {
                            what: "constant",
                            index: index.into(),
                            count: self.num_constants.into(),
                        });
                    }
                }
                Some(LocationKind::Register | LocationKind::Direct | LocationKind::Indirect) => {
                    facts.max_dwarf_register = facts.max_dwarf_register.max(reg);
                }
                Some(LocationKind::Constant) => {}
                None => {
                    return Err(Error::BadLocationKind {
                        offset: span.locations.start + i * size,
                        kind: raw[0],
                    })
                }
            }
        }
        for raw in self.bytes.data[span.live_outs.clone()].chunks_exact(LIVE_OUT_SIZE) {
            facts.max_dwarf_register = facts.max_dwarf_register.max(e.u16_from([raw[0], raw[1]]));
            facts.zero_size |= raw[3] == 0;
        }
        self.lists = facts;
        Ok(span.end)
    }

    /// Where the parts of the record at `offset` are and where it ends,
    /// with its padding: the one definition of a record's layout, read in
    /// byte order `e` (the table's). Nothing but the fit is checked; an
    /// error names the first field missing.
    // Inlined into its two callers: it runs twice per record.
    #[inline(always)]
    fn record_span<F: Endian>(&self, offset: usize, e: F) -> Result<Span> {
        let data = self.bytes.data;
        // Each part's end bounds the part before it: where the whole record
        // fits, one test covers them all; which part is missing is worked
        // out only when one is.
        // Short of 16 bytes, the location count at 14 is the first field
        // the layout needs.
        let locs_at = offset + RECORD_HEADER_SIZE;
        let header = data.get(offset..locs_at).ok_or(Error::Truncated {
            offset: offset + 14,
        })?;
        let num_locations = usize::from(e.u16_from([header[14], header[15]]));
        let locs_end = locs_at + num_locations * location_size(self.version);
        let lo_header = match self.version >= 3 {
            true => pad8(locs_end),
            false => locs_end,
        };
        let live_outs_at = lo_header + LIVE_OUT_HEADER_SIZE;
        let Some(count) = data.get(lo_header + 2..live_outs_at) else {
            return Err(first_missing(
                data.len(),
                &[(locs_end, locs_at), (live_outs_at, lo_header + 2)],
            ));
        };
        let num_live_outs = usize::from(e.u16_from([count[0], count[1]]));
        let live_outs_end = live_outs_at + num_live_outs * LIVE_OUT_SIZE;
        // The trailing padding must be there too.
        let end = pad8(live_outs_end);
        if end > data.len() {
            return Err(first_missing(
                data.len(),
                &[(live_outs_end, live_outs_at), (end, live_outs_end)],
            ));
        }
        Ok(Span {
            locations: locs_at..locs_end,
            live_outs: live_outs_at..live_outs_end,
            end,
        })
    }
}

impl<'a, E: Endian> LlvmRecord<'a, E> {
    /// How many locations the record has.
    pub fn num_locations(&self) -> u16 {
        (self.locations.data.len() / location_size(self.version)) as u16
    }
    /// How many live-outs the record has.
    pub fn num_live_outs(&self) -> u16 {
        (self.live_outs.data.len() / LIVE_OUT_SIZE) as u16
    }
    /// Location `index` of the record.
    #[inline]
    pub fn location(&self, index: u16) -> Result<Location> {
        let size = location_size(self.version);
        let at = index as usize * size;
        // One bounds check for the whole location.
        let raw = self
            .locations
            .data
            .get(at..at + size)
            .ok_or(Error::Truncated { offset: at })?;
        let e = self.locations.endian;
        decode_location(e, self.version, raw, self.locations_offset() + at)
    }
    /// Every location of the record, in order.
    #[inline]
    pub fn locations(&self) -> Locations<'a, E> {
        Locations {
            rest: self.locations.data,
            version: self.version,
            endian: self.locations.endian,
            end: self.locations_offset() + self.locations.data.len(),
        }
    }
    /// Offset of the record's first location in its table.
    fn locations_offset(&self) -> usize {
        self.table_offset + RECORD_HEADER_SIZE
    }
    /// Live-out `index` of the record.
    pub fn live_out(&self, index: u16) -> Result<LiveOut> {
        let at = index as usize * LIVE_OUT_SIZE;
        Ok(LiveOut {
            dwarf_reg: self.live_outs.u16(at)?,
            size: self.live_outs.u8(at + 3)?,
        })
    }
    /// Every live-out of the record, in order.
    pub fn live_outs(&self) -> impl Iterator<Item = Result<LiveOut>> + '_ {
        (0..self.num_live_outs()).map(|i| self.live_out(i))
    }
}

/// A location of `version` stored at `at` in its table (`raw`, its bytes):
/// decoded, or the error for a kind LLVM does not define.
#[inline(always)]
fn decode_location<E: Endian>(e: E, version: u8, raw: &[u8], at: usize) -> Result<Location> {
    let kind = LocationKind::from_u8(raw[0]).ok_or(Error::BadLocationKind {
        offset: at,
        kind: raw[0],
    })?;
    let (size, dwarf_reg, offset) = location_fields(e, version, raw);
    Ok(Location {
        kind,
        size,
        dwarf_reg,
        offset,
    })
}

/// Iterator over a record's locations ([`LlvmRecord::locations`]): the
/// record's location bytes taken a location at a time, with no bounds
/// check of its own per location (a big table has millions).
#[derive(Debug, Clone)]
pub struct Locations<'a, E: Endian> {
    rest: &'a [u8],
    version: u8,
    endian: E,
    /// Offset in the table of the end of the locations: where the next
    /// one is, for errors, without a count kept up per location.
    end: usize,
}

impl<E: Endian> Iterator for Locations<'_, E> {
    type Item = Result<Location>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let at = self.end - self.rest.len();
        // Each layout's fixed size, so that its fields need no check (v1
        // and v2 share theirs); the byte order chosen once per location,
        // not once per field.
        let big = self.endian.is_big_endian();
        Some(if self.version >= 3 {
            let (raw, rest) = self.rest.split_first_chunk::<12>()?;
            self.rest = rest;
            match big {
                true => decode_location(BigEndian, 3, raw, at),
                false => decode_location(LittleEndian, 3, raw, at),
            }
        } else {
            let (raw, rest) = self.rest.split_first_chunk::<8>()?;
            self.rest = rest;
            match big {
                true => decode_location(BigEndian, 2, raw, at),
                false => decode_location(LittleEndian, 2, raw, at),
            }
        })
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rest.len() / location_size(self.version);
        (n, Some(n))
    }
}

impl<E: Endian> ExactSizeIterator for Locations<'_, E> {}

/// Iterator over a table's records.
#[derive(Debug, Clone)]
pub struct Records<'a, E: Endian> {
    map: LlvmStackMap<'a, E>,
    offset: Result<usize>,
    left: u32,
}

impl<'a, E: Endian> Iterator for Records<'a, E> {
    type Item = Result<LlvmRecord<'a, E>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let offset = match self.offset {
            Ok(o) => o,
            Err(e) => {
                self.left = 0;
                return Some(Err(e));
            }
        };
        // `parse` checked every record already; the layout is read again
        // (an error names a problem, if the table changed since), in the
        // table's byte order chosen once per record, not once per field.
        let record = match self.map.bytes.endian.is_big_endian() {
            true => self.map.record(offset, BigEndian),
            false => self.map.record(offset, LittleEndian),
        };
        Some(match record {
            Ok((record, end)) => {
                self.offset = Ok(end);
                self.left -= 1;
                Ok(record)
            }
            Err(e) => {
                self.left = 0;
                Err(e)
            }
        })
    }
}

/// Iterator over the tables of a section, with each table's offset.
#[derive(Debug, Clone)]
pub struct Tables<'a, E: Endian> {
    rest: &'a [u8],
    endian: E,
    done: bool,
}

impl<'a, E: Endian> Iterator for Tables<'a, E> {
    type Item = Result<LlvmStackMap<'a, E>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.rest.is_empty() {
            return None;
        }
        match LlvmStackMap::parse(self.rest, self.endian) {
            Ok(map) => {
                self.rest = &self.rest[map.size()..];
                Some(Ok(map))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LittleEndian;
    extern crate std;
    use std::{vec, vec::Vec};

    /// A v3 table: one function, no constants, one record with one
    /// location of `kind` whose offset field is `offset`.
    fn table(kind: u8, offset: i32) -> Vec<u8> {
        let mut t = vec![3, 0, 0, 0];
        for n in [1u32, 0, 1] {
            t.extend(n.to_le_bytes());
        }
        for n in [0u64, 8, 1] {
            t.extend(n.to_le_bytes());
        }
        t.extend(7u64.to_le_bytes());
        t.extend([0; 6]);
        t.extend(1u16.to_le_bytes());
        t.extend([kind, 0, 8, 0, 0, 0, 0, 0]);
        t.extend(offset.to_le_bytes());
        t.extend([0; 12]);
        t
    }

    proptest::proptest! {
        /// `parse` accepts a table built to the layout exactly when its
        /// location kinds and constant indices are valid, and then its
        /// records are those built; a table cut short never parses; a
        /// table with bytes changed parses or fails, never panics, and
        /// once parsed iterates to its end.
        #[test]
        fn parse_follows_the_layout(
            version in 1u8..=3,
            records in proptest::collection::vec(
                (
                    proptest::collection::vec((0u8..7, 0u32..4, 0u8..3, 0u16..40), 0..5),
                    proptest::collection::vec((0u16..40, 0u8..3), 0..3),
                ),
                1..6,
            ),
            constants in 0u32..3,
            edits in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 0..4),
            cut in proptest::option::of(proptest::prelude::any::<proptest::sample::Index>()),
        ) {
            let built = lax_table(version, constants, &records);
            let valid = records.iter().flat_map(|(l, _)| l).all(|&(kind, offset, ..)| {
                (1..=4).contains(&kind) || (kind == 5 && offset < constants)
            });
            let map = LlvmStackMap::parse(&built, LittleEndian);
            proptest::prop_assert_eq!(map.is_ok(), valid, "{:?}", map.err());
            if let Ok(map) = map {
                proptest::prop_assert_eq!(map.size(), built.len());
                let read: Vec<_> = map.records().map(|r| r.unwrap()).collect();
                proptest::prop_assert_eq!(read.len(), records.len());
                for (r, (locations, live_outs)) in read.iter().zip(&records) {
                    let kinds: Vec<u8> = r.locations().map(|l| l.unwrap().kind as u8).collect();
                    let built: Vec<u8> = locations.iter().map(|&(k, ..)| k).collect();
                    proptest::prop_assert_eq!(kinds, built);
                    proptest::prop_assert_eq!(usize::from(r.num_live_outs()), live_outs.len());
                }
            }
            let mut t = built.clone();
            if let Some(cut) = cut {
                t.truncate(cut.index(t.len()));
                proptest::prop_assert!(LlvmStackMap::parse(&t, LittleEndian).is_err());
            }
            let mut t = built;
            for (at, byte) in edits {
                let i = at.index(t.len());
                t[i] = byte;
            }
            if let Ok(map) = LlvmStackMap::parse(&t, LittleEndian) {
                let mut end = map.records_offset().unwrap();
                // What `lists` says, from the records as they decode.
                let mut lists = ListFacts::default();
                for r in map.records() {
                    let r = r.unwrap();
                    proptest::prop_assert_eq!(r.table_offset, end);
                    end = map.record_span(end, LittleEndian).unwrap().end;
                    for l in r.locations().map(|l| l.unwrap()) {
                        lists.zero_size |= l.size == 0;
                        if matches!(l.kind, LocationKind::Register | LocationKind::Direct | LocationKind::Indirect) {
                            lists.max_dwarf_register = lists.max_dwarf_register.max(l.dwarf_reg);
                        }
                    }
                    for l in r.live_outs().map(|l| l.unwrap()) {
                        lists.zero_size |= l.size == 0;
                        lists.max_dwarf_register = lists.max_dwarf_register.max(l.dwarf_reg);
                    }
                }
                proptest::prop_assert_eq!(end, map.size());
                proptest::prop_assert_eq!(map.lists(), lists);
            }
        }
    }

    /// A record's locations (any kind byte, offset field, size, register)
    /// and live-outs (register, size), for [`lax_table`].
    type LaxRecord = (Vec<(u8, u32, u8, u16)>, Vec<(u16, u8)>);

    /// A little-endian table of `version` with one function holding
    /// `records` and `constants` constants.
    fn lax_table(version: u8, constants: u32, records: &[LaxRecord]) -> Vec<u8> {
        let mut t = vec![version, 0, 0, 0];
        for n in [1u32, constants, records.len() as u32] {
            t.extend(n.to_le_bytes());
        }
        t.extend(0u64.to_le_bytes());
        t.extend(8u64.to_le_bytes());
        if version > 1 {
            t.extend((records.len() as u64).to_le_bytes());
        }
        for c in 0..constants {
            t.extend(u64::from(c).to_le_bytes());
        }
        for (locations, live_outs) in records {
            t.extend(7u64.to_le_bytes());
            t.extend([0; 6]);
            t.extend((locations.len() as u16).to_le_bytes());
            for &(kind, offset, size, reg) in locations {
                let [r0, r1] = reg.to_le_bytes();
                match version {
                    3 => t.extend([kind, 0, size, 0, r0, r1, 0, 0]),
                    _ => t.extend([kind, size, r0, r1]),
                }
                t.extend(offset.to_le_bytes());
            }
            if version == 3 {
                t.resize(t.len().next_multiple_of(8), 0);
            }
            t.extend([0, 0]);
            t.extend((live_outs.len() as u16).to_le_bytes());
            for &(reg, size) in live_outs {
                t.extend(reg.to_le_bytes());
                t.extend([0, size]);
            }
            t.resize(t.len().next_multiple_of(8), 0);
        }
        t
    }

    #[test]
    fn errors_name_the_place() {
        let parse = |t: &[u8]| LlvmStackMap::parse(t, LittleEndian).map(|m| m.size());
        assert_eq!(parse(&table(1, 0)).unwrap(), 80);
        assert!(matches!(
            parse(&table(9, 0)),
            Err(Error::BadLocationKind {
                offset: 56,
                kind: 9
            })
        ));
        assert!(matches!(
            parse(&table(5, 0)),
            Err(Error::IndexOutOfRange {
                what: "constant",
                index: 0,
                count: 0
            })
        ));
        // The record header cut short: its location count is missing.
        assert!(matches!(
            parse(&table(1, 0)[..50]),
            Err(Error::Truncated { offset: 54 })
        ));
    }
}
