//! Writing a flat table: [`FlatWriter`] takes records one by one straight
//! from a reader, encodes each Site and FrameState canonically, stores each
//! distinct one once, and lays out the header, the arrays and the PC map.

use alloc::vec::Vec;
use core::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::layout::{
    self, frame_record, frame_state_flags, header, location_head, record, site_head, RecordKind,
};
use super::site::{Cfa, FrameRegister};
use crate::leb128::{encode_sleb128, encode_uleb128, write_uleb128, MAX_LEN};
use crate::{Endian, Error, LiveOut, Location, LocationKind, Result};

/// A written flat table and where its function address fields are.
#[derive(Debug, Clone)]
pub struct FlatTable {
    /// The table.
    pub bytes: Vec<u8>,
    /// Offset in `bytes` of each function's address field, in function
    /// order: the frame record's self-relative i32, or with absolute
    /// addresses its u64 Addresses entry.
    pub address_offsets: Vec<usize>,
    /// The address fields are absolute u64s (header flag
    /// `ABSOLUTE_ADDRESSES`), else self-relative i32s.
    pub absolute: bool,
    /// Distinct Sites and FrameStates stored, for size reports.
    pub sites: usize,
    /// Distinct FrameStates stored.
    pub frame_states: usize,
}

impl FlatTable {
    /// Fills each function's address field as a linker does when the table
    /// lands at `table_address` and function `i` at `addresses[i]` (a JIT
    /// placing a table it built in memory; tests placing one anywhere).
    /// Self-relative fields that cannot reach their function are an error.
    pub fn place<E: Endian>(
        &mut self,
        endian: E,
        table_address: u64,
        addresses: &[u64],
    ) -> Result<()> {
        if addresses.len() != self.address_offsets.len() {
            return Err(Error::Inconsistent("not one address per function"));
        }
        for (&at, &address) in self.address_offsets.iter().zip(addresses) {
            if self.absolute {
                self.bytes[at..at + 8].copy_from_slice(&endian.u64_bytes(address));
            } else {
                let field = table_address.wrapping_add(at as u64);
                let delta = i32::try_from(address.wrapping_sub(field) as i64)
                    .map_err(|_| Error::TooLarge("self-relative function address (±2 GiB)"))?;
                self.bytes[at..at + 4].copy_from_slice(&endian.u32_bytes(delta as u32));
            }
        }
        Ok(())
    }
}

/// Bytes written at the end of a buffer with room made ahead: `buf[..len]`
/// are written, what follows is room (zeros, or bytes dropped). A byte
/// costs a store and one test, where `Vec::push` also loaded the capacity
/// and stored the length at every byte (a Site is mostly single bytes).
#[derive(Default)]
struct Bytes {
    buf: Vec<u8>,
    len: usize,
}

impl Bytes {
    /// The bytes written.
    fn written(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Appends `b`.
    #[inline(always)]
    fn put(&mut self, b: u8) {
        match self.buf.get_mut(self.len) {
            Some(at) => *at = b,
            None => self.grow_put(b),
        }
        self.len += 1;
    }

    /// [`put`](Self::put) when there is no room: room for [`ROOM`](Self::ROOM)
    /// bytes more (zeroed, in the capacity `Vec` grows as it does).
    #[cold]
    #[inline(never)]
    fn grow_put(&mut self, b: u8) {
        self.buf.resize(self.buf.len() + Self::ROOM, 0);
        self.buf[self.len] = b;
    }

    /// Bytes of room made at a time: enough for thousands of Sites, little
    /// to zero beyond the end.
    const ROOM: usize = 1 << 16;

    /// Appends `value` as ULEB128.
    #[inline(always)]
    fn uleb128(&mut self, value: u64) {
        encode_uleb128(value, |b| self.put(b));
    }

    /// Appends `value` as SLEB128.
    #[inline(always)]
    fn sleb128(&mut self, value: i64) {
        encode_sleb128(value, |b| self.put(b));
    }

    /// Drops the bytes written from `at` on.
    fn truncate(&mut self, at: usize) {
        self.len = self.len.min(at);
    }
}

/// The Data area being written: byte strings, each distinct one stored
/// once (the uniquing rule), in first-use order. The table holds each
/// one's place in `bytes`, hashed by its bytes, so no string is allocated
/// on its own. A string is encoded straight at the end of `bytes`
/// ([`Uniquer::open`] .. [`Uniquer::close`]) and dropped again if it was
/// there already: its bytes are written once, never copied.
struct Uniquer {
    bytes: Bytes,
    /// (start, length) in `bytes` of each distinct string.
    strings: HashTable<(u32, u32)>,
    hasher: DefaultHashBuilder,
}

impl Uniquer {
    fn new() -> Self {
        Uniquer {
            bytes: Bytes::default(),
            strings: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// Room for `n` more strings.
    fn reserve(&mut self, n: usize) {
        let (bytes, hasher) = (self.bytes.written(), &self.hasher);
        self.strings.reserve(n, |&(start, len)| {
            hasher.hash_one(&bytes[start as usize..(start + len) as usize])
        });
    }

    /// Where the next string starts: encode it onto `bytes`, then
    /// [`close`](Self::close) it.
    fn open(&self) -> usize {
        self.bytes.len
    }

    /// The offset of the string encoded since `start` in the Data area
    /// (added if new, else removed again); whether it was new.
    fn close(&mut self, start: usize) -> Result<(u32, bool)> {
        let (bytes, hasher) = (&self.bytes.buf, &self.hasher);
        let s = &bytes[start..self.bytes.len];
        let stored = |&(start, len): &(u32, u32)| &bytes[start as usize..(start + len) as usize];
        let hash = hasher.hash_one(s);
        if let Some(&(at, _)) = self.strings.find(hash, |l| stored(l) == s) {
            self.bytes.truncate(start);
            return Ok((at, false));
        }
        let too_large = |_| Error::TooLarge("Data area");
        let start32 = u32::try_from(start).map_err(too_large)?;
        let len = u32::try_from(s.len()).map_err(too_large)?;
        start32
            .checked_add(len)
            .ok_or(Error::TooLarge("Data area"))?;
        self.strings
            .insert_unique(hash, (start32, len), |&(start, len)| {
                hasher.hash_one(&bytes[start as usize..(start + len) as usize])
            });
        Ok((start32, true))
    }
}

/// A record's fields other than its lists, for [`FlatWriter::record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHead {
    /// The ID given to the intrinsic.
    pub id: u64,
    /// Offset from the function's address.
    pub instruction_offset: u32,
    /// `None` when not known.
    pub patchable_size: Option<u32>,
    /// What produced the record.
    pub kind: RecordKind,
    /// LLVM listed the live-outs (patch points).
    pub has_live_out_info: bool,
}

/// A record's frame state, for [`FlatWriter::record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameStateRef<'a> {
    /// `None`: the CFA is not register + offset (a DWARF expression).
    pub cfa: Option<Cfa>,
    /// The function realigns its stack pointer.
    pub stack_realigned: bool,
    /// Saved registers, slots relative to the CFA, sorted by register
    /// (the writer sorts a copy otherwise).
    pub saved: &'a [FrameRegister],
}

/// A frame state stored by one [`FlatWriter`] (its offset in the Data
/// area), for that writer's [`FlatWriter::record_stored`] only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredFrameState(u32);

/// A function's frame record fields, for [`FlatWriter::function`].
#[derive(Debug, Clone, Copy)]
pub struct FrameHead {
    /// The value stored in the address field (0 where a relocation fills
    /// it): a self-relative i32 (sign-extended), or with absolute addresses
    /// the u64.
    pub address: u64,
    /// Size of the function's code in bytes (0 when unknown).
    pub size: u32,
    /// UINT64_MAX for a variable-sized frame, as LLVM writes it.
    pub stack_size: u64,
    /// The function's code section (any number naming it) and offset in
    /// it, for the PC map; `None` if unknown.
    pub code: Option<(usize, u64)>,
}

/// Writes a flat table without an owned model of it: records are added one
/// by one straight from a reader, then [`function`](Self::function) closes
/// the function they belong to. Sites and FrameStates are uniqued as they
/// arrive.
pub struct FlatWriter<E: Endian> {
    endian: E,
    absolute: bool,
    /// Write a PC map (`PC_MAP`) if every function's code is in one section.
    pc_map: bool,
    /// Code section and offsets of the functions so far, while they allow a
    /// PC map (one section, ascending); `None` once they do not.
    code: Option<(Option<usize>, Vec<u64>)>,
    constants: Vec<u8>,
    frames: Vec<u8>,
    addresses: Vec<u8>,
    records: Vec<u8>,
    nrecords: u32,
    /// First record of the function being written.
    first_record: u32,
    /// Offset of the last record of that function, to check the order.
    last_offset: Option<u32>,
    data: Uniquer,
    sites: usize,
    frame_states: usize,
    /// A frame state's saved registers, sorted.
    saved: Vec<FrameRegister>,
    /// The last frame state stored, as given, and its offset.
    last_frame_state: Option<(Option<Cfa>, bool, Vec<FrameRegister>, u32)>,
}

impl<E: Endian> FlatWriter<E> {
    /// A writer of a table in byte order `endian`, with absolute addresses (an Addresses array) if `absolute`.
    pub fn new(endian: E, absolute: bool) -> Self {
        FlatWriter {
            endian,
            absolute,
            pc_map: false,
            code: Some((None, Vec::new())),
            constants: Vec::new(),
            frames: Vec::new(),
            addresses: Vec::new(),
            records: Vec::new(),
            nrecords: 0,
            first_record: 0,
            last_offset: None,
            data: Uniquer::new(),
            sites: 0,
            frame_states: 0,
            saved: Vec::new(),
            last_frame_state: None,
        }
    }

    /// Whether to write a PC map (header flag `PC_MAP`): written if every
    /// function gave its code position ([`FrameHead::code`]) in one
    /// section, in ascending order. Off by default; `pcmap emit` turns it on
    /// from [`flat::PC_MAP_MIN_FUNCTIONS`](layout::PC_MAP_MIN_FUNCTIONS)
    /// functions.
    pub fn pc_map(&mut self, on: bool) {
        self.pc_map = on;
    }

    /// Announces how many functions and records the table will have.
    pub fn reserve(&mut self, functions: usize, records: usize) {
        self.frames.reserve(functions * layout::FRAME_RECORD_SIZE);
        if self.absolute {
            self.addresses.reserve(functions * layout::ADDRESS_SIZE);
        }
        if let Some((_, offsets)) = &mut self.code {
            offsets.reserve(functions);
        }
        self.records.reserve(records * layout::RECORD_SIZE);
        // A Site per record at most, and as many FrameStates; their bytes
        // (growing the Data area by doubling copied it again and again).
        self.data.reserve(records);
        self.data.bytes.buf.reserve(records * 24);
    }

    /// Appends a large constant (LLVM's order, so constant indices hold).
    pub fn constant(&mut self, value: u64) {
        self.constants
            .extend_from_slice(&self.endian.u64_bytes(value));
    }

    /// Adds a record to the current function. Records of a function must
    /// come in instruction offset order (`Error::NotSorted` otherwise).
    pub fn record<L, O>(
        &mut self,
        r: &RecordHead,
        locations: L,
        live_outs: O,
        frame_state: Option<&FrameStateRef<'_>>,
    ) -> Result<()>
    where
        L: IntoIterator<Item = Result<Location>>,
        O: IntoIterator<Item = Result<LiveOut>>,
    {
        // The order first: nothing is stored for a record out of order.
        self.check_order(r.instruction_offset)?;
        let fs = match frame_state {
            Some(fs) => Some(self.frame_state(fs)?),
            None => None,
        };
        self.write_record(r, locations, live_outs, fs)
    }

    /// [`record`](Self::record) with a frame state already stored by
    /// [`frame_state`](Self::frame_state): a writer that meets the same
    /// frame state again and again stores it once and passes its handle.
    pub fn record_stored<L, O>(
        &mut self,
        r: &RecordHead,
        locations: L,
        live_outs: O,
        frame_state: Option<StoredFrameState>,
    ) -> Result<()>
    where
        L: IntoIterator<Item = Result<Location>>,
        O: IntoIterator<Item = Result<LiveOut>>,
    {
        self.check_order(r.instruction_offset)?;
        self.write_record(r, locations, live_outs, frame_state)
    }

    /// The Site and the Records entry of a record whose order
    /// ([`check_order`](Self::check_order)) is checked, for both entry
    /// points.
    fn write_record<L, O>(
        &mut self,
        r: &RecordHead,
        locations: L,
        live_outs: O,
        frame_state: Option<StoredFrameState>,
    ) -> Result<()>
    where
        L: IntoIterator<Item = Result<Location>>,
        O: IntoIterator<Item = Result<LiveOut>>,
    {
        let fs = frame_state.map(|fs| fs.0);
        let start = self.data.open();
        let s = &mut self.data.bytes;
        s.uleb128(r.id);
        let mut head = r.kind as u8;
        if r.patchable_size.is_some() {
            head |= site_head::PATCHABLE_SIZE_KNOWN;
        }
        if r.has_live_out_info {
            head |= site_head::HAS_LIVE_OUT_INFO;
        }
        if fs.is_some() {
            head |= site_head::HAS_FRAME_STATE;
        }
        s.put(head);
        if let Some(size) = r.patchable_size {
            s.uleb128(size.into());
        }
        if let Some(fs) = fs {
            s.uleb128(fs.into());
        }
        let lists = counted(s, locations, "location count", location).and_then(|()| {
            counted(s, live_outs, "live-out count", |s, l: &LiveOut| {
                s.uleb128(l.dwarf_reg.into());
                s.put(l.size);
            })
        });
        if let Err(e) = lists {
            self.data.bytes.truncate(start);
            return Err(e);
        }
        let (site, new) = self.data.close(start)?;
        self.sites += usize::from(new);
        let mut entry = [0u8; layout::RECORD_SIZE];
        let e = self.endian;
        put(
            &mut entry,
            record::INSTRUCTION_OFFSET,
            e.u32_bytes(r.instruction_offset),
        );
        put(&mut entry, record::SITE, e.u32_bytes(site));
        self.records.extend_from_slice(&entry);
        self.nrecords = self
            .nrecords
            .checked_add(1)
            .ok_or(Error::TooLarge("record count"))?;
        Ok(())
    }

    /// `Error::NotSorted` if a record at `offset` comes after one at a
    /// larger offset in the current function.
    fn check_order(&mut self, offset: u32) -> Result<()> {
        if self.last_offset.is_some_and(|last| offset < last) {
            return Err(Error::NotSorted {
                function: (self.frames.len() / layout::FRAME_RECORD_SIZE) as u32,
                record: self.nrecords,
            });
        }
        self.last_offset = Some(offset);
        Ok(())
    }

    /// Stores a frame state (once: the uniquing rule), for
    /// [`record_stored`](Self::record_stored). The same state as the one
    /// stored last (records of a function mostly share a CFI row) takes
    /// its place without being encoded again.
    pub fn frame_state(&mut self, fs: &FrameStateRef<'_>) -> Result<StoredFrameState> {
        if let Some((cfa, realigned, saved, offset)) = &self.last_frame_state {
            if *cfa == fs.cfa && *realigned == fs.stack_realigned && saved[..] == *fs.saved {
                return Ok(StoredFrameState(*offset));
            }
        }
        let offset = self.encode_frame_state(fs)?;
        let last = self
            .last_frame_state
            .get_or_insert_with(|| (None, false, Vec::new(), 0));
        last.0 = fs.cfa;
        last.1 = fs.stack_realigned;
        last.2.clear();
        last.2.extend_from_slice(fs.saved);
        last.3 = offset;
        Ok(StoredFrameState(offset))
    }

    fn encode_frame_state(&mut self, fs: &FrameStateRef<'_>) -> Result<u32> {
        let mut saved = fs.saved;
        if !saved.windows(2).all(|w| w[0].dwarf_reg < w[1].dwarf_reg) {
            self.saved.clear();
            self.saved.extend_from_slice(saved);
            self.saved.sort();
            self.saved.dedup_by_key(|r| r.dwarf_reg);
            if self.saved.len() != saved.len() {
                return Err(Error::Inconsistent(
                    "a register saved twice in one frame state",
                ));
            }
            saved = &self.saved;
        }
        let start = self.data.open();
        let s = &mut self.data.bytes;
        let mut flags = 0;
        if fs.cfa.is_some() {
            flags |= frame_state_flags::CFA_RULE;
        }
        if fs.stack_realigned {
            flags |= frame_state_flags::STACK_REALIGNED;
        }
        // Offsets divided by 8 when all are multiples of 8 (canonical: only
        // then, and only if there is an offset).
        let mut offsets = fs
            .cfa
            .iter()
            .map(|c| c.offset)
            .chain(saved.iter().map(|r| r.offset));
        let scaled = fs.cfa.is_some() || !saved.is_empty();
        let scaled = scaled && offsets.all(|o| o % (1 << frame_state_flags::SCALE_SHIFT) == 0);
        let shift = if scaled {
            flags |= frame_state_flags::SCALED;
            frame_state_flags::SCALE_SHIFT
        } else {
            0
        };
        s.put(flags);
        if let Some(cfa) = fs.cfa {
            s.uleb128(cfa.register.into());
            s.sleb128(i64::from(cfa.offset >> shift));
        }
        let Ok(n) = u16::try_from(saved.len()) else {
            s.truncate(start);
            return Err(Error::TooLarge("saved register count"));
        };
        s.uleb128(n.into());
        for r in saved {
            s.uleb128(r.dwarf_reg.into());
            s.sleb128(i64::from(r.offset >> shift));
        }
        let (offset, new) = self.data.close(start)?;
        self.frame_states += usize::from(new);
        Ok(offset)
    }

    /// Writes the frame record of the function whose records were added
    /// since the last call; returns the offset of its address field in the
    /// array it is in (frame records, or addresses with absolute
    /// addresses).
    pub fn function(&mut self, f: &FrameHead) -> Result<usize> {
        let e = self.endian;
        let stack_size = if f.stack_size == u64::MAX {
            layout::VARIABLE_STACK_SIZE
        } else {
            u32::try_from(f.stack_size)
                .ok()
                .filter(|&s| s != layout::VARIABLE_STACK_SIZE)
                .ok_or(Error::TooLarge("stack size"))?
        };
        let mut entry = [0u8; layout::FRAME_RECORD_SIZE];
        let field = if self.absolute {
            let at = self.addresses.len();
            self.addresses.extend_from_slice(&e.u64_bytes(f.address));
            at
        } else {
            let value = i32::try_from(f.address as i64)
                .map_err(|_| Error::TooLarge("self-relative function address (±2 GiB)"))?;
            put(&mut entry, frame_record::ADDRESS, e.u32_bytes(value as u32));
            self.frames.len() + frame_record::ADDRESS
        };
        put(&mut entry, frame_record::SIZE, e.u32_bytes(f.size));
        put(
            &mut entry,
            frame_record::STACK_SIZE,
            e.u32_bytes(stack_size),
        );
        put(
            &mut entry,
            frame_record::FIRST_RECORD,
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
        Ok(field)
    }

    /// The table: header and arrays in one buffer of exactly `table size`
    /// bytes. Records added after the last [`function`](Self::function)
    /// call are an error.
    pub fn finish(self) -> Result<FlatTable> {
        if self.first_record != self.nrecords {
            return Err(Error::Inconsistent("records without a function"));
        }
        let e = self.endian;
        let functions = self.frames.len() / layout::FRAME_RECORD_SIZE;
        let pc_map = match &self.code {
            Some((_, offsets)) if self.pc_map && !offsets.is_empty() => Some(pc_map(offsets)?),
            _ => None,
        };
        let header_size = match pc_map {
            Some(_) => layout::PC_MAP_HEADER_SIZE,
            None => layout::HEADER_SIZE,
        };
        let frames_at = header_size;
        let records_at = frames_at + self.frames.len();
        let addresses_at = records_at + self.records.len();
        let map_len = pc_map.as_ref().map_or(0, |(_, m)| m.len());
        let unpadded = addresses_at
            + self.addresses.len()
            + self.constants.len()
            + map_len * layout::PC_MAP_ENTRY_SIZE
            + self.data.bytes.len;
        let total = unpadded.next_multiple_of(layout::TABLE_SIZE_MULTIPLE);
        let too_large = |_| Error::TooLarge("table");
        let total32 = u32::try_from(total).map_err(too_large)?;
        let count = |n: usize| u32::try_from(n).map_err(|_| Error::TooLarge("count"));

        let mut hflags = 0;
        if self.absolute {
            hflags |= layout::ABSOLUTE_ADDRESSES;
        }
        if e.is_big_endian() {
            hflags |= layout::BIG_ENDIAN;
        }
        if pc_map.is_some() {
            hflags |= layout::PC_MAP;
        }
        let mut out = Vec::with_capacity(total);
        let mut h = [0u8; layout::PC_MAP_HEADER_SIZE];
        put(&mut h, header::MAGIC, layout::MAGIC);
        h[header::VERSION] = layout::VERSION;
        h[header::FLAGS] = hflags;
        put(&mut h, header::SIZE, e.u16_bytes(header_size as u16));
        put(&mut h, header::TABLE_SIZE, e.u32_bytes(total32));
        put(
            &mut h,
            header::NUM_FUNCTIONS,
            e.u32_bytes(count(functions)?),
        );
        put(&mut h, header::NUM_RECORDS, e.u32_bytes(self.nrecords));
        let nconst = count(self.constants.len() / layout::CONSTANT_SIZE)?;
        put(&mut h, header::NUM_CONSTANTS, e.u32_bytes(nconst));
        if let Some((shift, map)) = &pc_map {
            put(
                &mut h,
                header::PC_MAP_ENTRIES,
                e.u32_bytes(count(map.len())?),
            );
            h[header::PC_MAP_SHIFT] = *shift;
        }
        out.extend_from_slice(&h[..header_size]);
        out.extend_from_slice(&self.frames);
        out.extend_from_slice(&self.records);
        debug_assert_eq!(out.len() % 8, 0);
        out.extend_from_slice(&self.addresses);
        out.extend_from_slice(&self.constants);
        for &f in pc_map.iter().flat_map(|(_, m)| m) {
            out.extend_from_slice(&e.u32_bytes(f));
        }
        out.extend_from_slice(self.data.bytes.written());
        out.resize(total, 0);
        let address_offsets = (0..functions)
            .map(|i| match self.absolute {
                true => addresses_at + i * layout::ADDRESS_SIZE,
                false => frames_at + i * layout::FRAME_RECORD_SIZE + frame_record::ADDRESS,
            })
            .collect();
        Ok(FlatTable {
            bytes: out,
            address_offsets,
            absolute: self.absolute,
            sites: self.sites,
            frame_states: self.frame_states,
        })
    }
}

/// The PC map of functions at `functions` (ascending, in one section): its
/// shift, the smallest giving at most one bucket per
/// [`flat::PC_MAP_FUNCTIONS_PER_BUCKET`](layout::PC_MAP_FUNCTIONS_PER_BUCKET)
/// functions, and for each bucket the last function starting at or before
/// the bucket's start.
fn pc_map(functions: &[u64]) -> Result<(u8, Vec<u32>)> {
    let first = functions[0];
    let span = functions.last().copied().unwrap_or(first) - first;
    let target = (functions.len() / layout::PC_MAP_FUNCTIONS_PER_BUCKET).max(1) as u64;
    let shift = (0..=layout::PC_MAP_MAX_SHIFT)
        .find(|&s| (span >> s) < target)
        .unwrap_or(layout::PC_MAP_MAX_SHIFT);
    let buckets = (span >> shift) + 1;
    let mut map = Vec::with_capacity(buckets as usize);
    let mut f = 0;
    for b in 0..buckets {
        let start = first + (b << shift);
        while f + 1 < functions.len() && functions[f + 1] <= start {
            f += 1;
        }
        map.push(u32::try_from(f).map_err(|_| Error::TooLarge("PC map entry"))?);
    }
    Ok((shift, map))
}

/// A location, canonically: a field only where it differs from its default.
#[inline]
fn location(s: &mut Bytes, l: &Location) {
    let offset = match l.kind {
        // An index: unsigned.
        LocationKind::ConstantIndex => i64::from(l.offset as u32),
        _ => l.offset.into(),
    };
    let mut head = l.kind as u8;
    if l.size != location_head::DEFAULT_SIZE {
        head |= location_head::SIZE;
    }
    if l.dwarf_reg != 0 {
        head |= location_head::REG;
    }
    if offset != 0 {
        head |= location_head::OFFSET;
    }
    s.put(head);
    if l.size != location_head::DEFAULT_SIZE {
        s.uleb128(l.size.into());
    }
    if l.dwarf_reg != 0 {
        s.uleb128(l.dwarf_reg.into());
    }
    if offset != 0 {
        s.sleb128(offset);
    }
}

/// Writes `items` as a counted list: the count (ULEB128, `what` in the
/// error when over [`flat::MAX_COUNT`](layout::MAX_COUNT)) precedes the
/// entries; its byte is reserved and fixed after, as the count is known
/// only then.
fn counted<T>(
    s: &mut Bytes,
    items: impl IntoIterator<Item = Result<T>>,
    what: &'static str,
    mut put: impl FnMut(&mut Bytes, &T),
) -> Result<()> {
    let count_at = s.len;
    s.put(0);
    let mut n = 0u64;
    for item in items {
        put(s, &item?);
        n += 1;
    }
    set_count(s, count_at, n, what)
}

/// Writes count `n` into the byte reserved at `at` (moving what follows if
/// it needs more than one).
#[inline]
fn set_count(s: &mut Bytes, at: usize, n: u64, what: &'static str) -> Result<()> {
    // Most counts fit the byte reserved (all under 0x80 are allowed).
    const _: () = assert!(layout::MAX_COUNT >= 0x80);
    if n < 0x80 {
        s.buf[at] = n as u8;
        return Ok(());
    }
    set_long_count(s, at, n, what)
}

/// [`set_count`] of a count over one byte (or over the limit), apart: the
/// common case stays small enough to inline.
#[inline(never)]
fn set_long_count(s: &mut Bytes, at: usize, n: u64, what: &'static str) -> Result<()> {
    if n > layout::MAX_COUNT {
        return Err(Error::TooLarge(what));
    }
    let mut b = [0; MAX_LEN];
    let len = write_uleb128(n, &mut b);
    // The bytes after the count move up by the count's extra bytes.
    let end = s.len;
    for _ in 1..len {
        s.put(0);
    }
    s.buf.copy_within(at + 1..end, at + len);
    s.buf[at..at + len].copy_from_slice(&b[..len]);
    Ok(())
}

/// Puts `bytes` at byte `at` of `entry` (a field at its layout offset).
fn put<const N: usize>(entry: &mut [u8], at: usize, bytes: [u8; N]) {
    entry[at..at + N].copy_from_slice(&bytes);
}

/// A linked section of one table for this crate's documentation examples:
/// two functions at 0x40_1000 (records at +0x10, ID 7, and +0x24) and
/// 0x40_1040 (one record at +0x8), x86-64 frame states (CFA = RSP + 24,
/// RIP saved at CFA - 8), the table at address 0x60_0000, self-relative
/// addresses filled in as a linker would. Returns the bytes and the
/// table's address.
#[doc(hidden)]
pub fn example_table() -> (Vec<u8>, u64) {
    let table_address = 0x60_0000u64;
    let slot = Location {
        kind: LocationKind::Indirect,
        size: 8,
        dwarf_reg: 7,
        offset: 8,
    };
    let saved = [FrameRegister {
        dwarf_reg: 16,
        offset: -8,
    }];
    let frame_state = FrameStateRef {
        cfa: Some(Cfa {
            register: 7,
            offset: 24,
        }),
        stack_realigned: false,
        saved: &saved,
    };
    // (address, size, records as (ID, offset)).
    let functions = [
        (0x40_1000, 0x40, &[(7, 0x10), (8, 0x24)][..]),
        (0x40_1040, 0x20, &[(9, 0x8)][..]),
    ];
    let mut w = FlatWriter::new(crate::LittleEndian, false);
    for (_, size, records) in functions {
        for &(id, instruction_offset) in records {
            let head = RecordHead {
                id,
                instruction_offset,
                patchable_size: None,
                kind: RecordKind::StackMap,
                has_live_out_info: false,
            };
            w.record(&head, [Ok(slot)], [], Some(&frame_state))
                .expect("a valid record");
        }
        w.function(&FrameHead {
            address: 0,
            size,
            stack_size: 24,
            code: None,
        })
        .expect("a valid function");
    }
    let mut t = w.finish().expect("a valid table");
    let addresses = functions.map(|(address, _, _)| address);
    t.place(crate::LittleEndian, table_address, &addresses)
        .expect("functions within reach");
    (t.bytes, table_address)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leb128::write_sleb128;

    /// What [`Bytes`] puts, across its growth, is what a plain `Vec` holds:
    /// each value's LEB128 bytes as `write_*` gives them, and a count
    /// grown to two bytes at the end of the room moves what follows.
    #[test]
    fn bytes_put_across_growth_are_a_vecs() {
        let mut b = Bytes::default();
        let mut want = Vec::new();
        let mut buf = [0; MAX_LEN];
        let mut i = 0u64;
        while want.len() < 3 * Bytes::ROOM {
            let u = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64);
            b.uleb128(u);
            let n = write_uleb128(u, &mut buf);
            want.extend_from_slice(&buf[..n]);
            b.sleb128(u as i64);
            let n = write_sleb128(u as i64, &mut buf);
            want.extend_from_slice(&buf[..n]);
            b.put(i as u8);
            want.push(i as u8);
            i += 1;
        }
        assert_eq!(b.written(), &want[..]);
        // The room's last two bytes: a count and an entry.
        let mut b = Bytes::default();
        while b.len < Bytes::ROOM - 2 {
            b.put(0xAA);
        }
        let at = b.len;
        b.put(0);
        b.put(0x55);
        assert_eq!(b.len, b.buf.len());
        set_count(&mut b, at, 300, "count").unwrap();
        assert_eq!(b.written()[at..], [0xAC, 0x02, 0x55]);
        assert_eq!(b.len, Bytes::ROOM + 1);
        b.truncate(at);
        assert_eq!(b.written(), &[0xAA; Bytes::ROOM - 2][..]);
    }
}
