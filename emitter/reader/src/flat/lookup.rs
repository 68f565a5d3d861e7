//! Finding the function and record of a PC in a flat table: through the PC
//! map or a binary search of the frame records, each answer checked
//! against the frame records themselves.

use super::layout::{
    frame_record, record, ABSOLUTE_ADDRESSES, ADDRESSES, ADDRESS_SIZE, FRAME_RECORDS,
    FRAME_RECORD_SIZE, MAP_ARRAY, NUM_BOUNDS, PC_MAP_ENTRY_SIZE, RECORDS, RECORD_SIZE,
};
use super::table::{check_range, Fields, FlatStackMap, FrameRecord, Function, KeptHeader, Record};
use crate::{Endian, Error, Result};

/// Candidates a lookup compares one by one; more are binary searched first.
const LINEAR_SEARCH: u32 = 8;

/// What a lookup found, with the entries of the function's frame record
/// and of the record in the table, decoded on request.
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a, E: Endian> {
    /// Where the PC was found.
    pub found: Found,
    frame: &'a [u8; FRAME_RECORD_SIZE],
    record: &'a [u8; RECORD_SIZE],
    num_records: u32,
    endian: E,
}

impl<'a, E: Endian> Hit<'a, E> {
    /// The function's frame record (its `address` as the frame record
    /// stores it: with absolute addresses, see `found.address`).
    #[inline(always)]
    pub fn frame_record(&self) -> FrameRecord {
        FrameRecord::decode(self.frame, self.endian, self.num_records)
    }
    /// The function, its address resolved.
    pub fn function(&self) -> Function {
        let f = self.frame_record();
        Function {
            index: self.found.function,
            address: self.found.address,
            size: f.size,
            stack_size: f.stack_size,
            record_index: f.record_index,
            num_records: f.num_records,
        }
    }
    /// The record's address (for a call: its return address).
    pub fn record_address(&self) -> u64 {
        self.function().record_address(&self.record())
    }
    /// The function's stack size alone.
    #[inline(always)]
    pub fn stack_size(&self) -> u32 {
        Fields::new(self.frame, self.endian).u32(frame_record::STACK_SIZE)
    }
    /// The record.
    #[inline(always)]
    pub fn record(&self) -> Record {
        let f = Fields::new(self.record, self.endian);
        Record {
            instruction_offset: f.u32(record::INSTRUCTION_OFFSET),
            site: f.u32(record::SITE),
        }
    }
    /// The record's Site offset alone.
    #[inline(always)]
    pub fn site_offset(&self) -> u32 {
        Fields::new(self.record, self.endian).u32(record::SITE)
    }
}

/// Where a lookup found a PC: the function (frame record index and code
/// address) and the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Index of the function's frame record.
    pub function: u32,
    /// The function's address, resolved.
    pub address: u64,
    /// Index of the record in the table.
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

/// A PC to look up, and what it is: a return address belongs to the code
/// before it.
///
/// A call that is its function's last instruction (a call to a `noreturn`
/// function, a safepoint before `unreachable`) returns to the function's
/// end, which is the next function's first byte where functions are not
/// padded (AArch64 and PowerPC code is 4-aligned; x86-64 `optsize`
/// functions are not aligned at all). So a return address is looked up as
/// libgcc's unwinder does, by `pc - 1`: the function is the one holding
/// the byte before it (`address < pc <= address + size`), and the record
/// is the one at `pc` in that function. Any other PC is the address of an
/// instruction not yet run, which is in the function holding it
/// (`address <= pc < address + size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pc {
    /// The address after a call: the PC of every frame a stack walk steps
    /// to, and of a frame captured by a call (the C API's
    /// `pcmap_capture_call`). A stack map, patch point or statepoint
    /// record after a call is at the call's return address.
    ReturnAddress(u64),
    /// The address of an instruction that has not run yet: the PC of an
    /// interrupted context (a signal handler's), a JIT's or a profiler's
    /// sample, a record's own address.
    Instruction(u64),
}

impl Pc {
    /// The address.
    #[inline(always)]
    pub fn address(self) -> u64 {
        match self {
            Pc::ReturnAddress(pc) | Pc::Instruction(pc) => pc,
        }
    }
    /// The byte whose function the PC is in: the PC, or for a return
    /// address the byte before it (the call's last); `None` for a return
    /// address of 0, which no call returns to.
    #[inline(always)]
    pub fn byte(self) -> Option<u64> {
        Some(self.key()?.0)
    }
    /// [`Pc::byte`], and the PC's distance past it (1 for a return
    /// address).
    #[inline(always)]
    pub(crate) fn key(self) -> Option<(u64, u32)> {
        match self {
            Pc::ReturnAddress(pc) => Some((pc.checked_sub(1)?, 1)),
            Pc::Instruction(pc) => Some((pc, 0)),
        }
    }
    /// The same kind of PC at `address`.
    #[inline(always)]
    pub fn with_address(self, address: u64) -> Pc {
        match self {
            Pc::ReturnAddress(_) => Pc::ReturnAddress(address),
            Pc::Instruction(_) => Pc::Instruction(address),
        }
    }
}

/// The instruction offset of the PC whose key byte is at offset `key` of a
/// function of `size` bytes (0: unknown), `past` bytes after it
/// ([`Pc::key`]): `None` if the byte is not in the function (past its
/// end) or the offset does not fit.
#[inline(always)]
fn offset_in(key: u64, size: u32, past: u32) -> Option<u32> {
    let key = u32::try_from(key).ok()?;
    if size != 0 && key >= size {
        return None;
    }
    key.checked_add(past)
}

impl<'a, E: Endian> FlatStackMap<'a, E> {
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
    /// The search itself is in `Lookup`; a read it cannot make (a corrupt
    /// table) is an error.
    #[inline]
    pub fn lookup(&self, pc: Pc, table_address: u64, how: Match) -> Result<Option<Found>> {
        Ok(self.lookup_hit(pc, table_address, how)?.map(|h| h.found))
    }

    /// [`lookup`](Self::lookup), with the frame record and record found,
    /// decoded from the entries the search read.
    #[inline(always)]
    pub fn lookup_entries(
        &self,
        pc: Pc,
        table_address: u64,
        how: Match,
    ) -> Result<Option<(Found, FrameRecord, Record)>> {
        let Some(hit) = self.lookup_hit(pc, table_address, how)? else {
            return Ok(None);
        };
        let mut f = hit.frame_record();
        if self.absolute_addresses() {
            f.address = hit.found.address;
        }
        Ok(Some((hit.found, f, hit.record())))
    }

    /// [`lookup`](Self::lookup), with the frame record's and record's
    /// entries, to decode what the caller needs of them.
    #[inline(always)]
    pub fn lookup_hit(&self, pc: Pc, table_address: u64, how: Match) -> Result<Option<Hit<'a, E>>> {
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
    #[inline]
    pub fn lookup_kept(
        data: &'a [u8],
        endian: E,
        kept: KeptHeader<'_>,
        pc: Pc,
        table_address: u64,
        how: Match,
    ) -> Result<Option<Hit<'a, E>>> {
        match Self::lookup_mapped(data, endian, kept, pc, table_address, how) {
            Some(hit) => Ok(hit),
            None => Self::lookup_searched(data, endian, kept, pc, table_address, how),
        }
    }

    /// The first half of [`lookup_kept`](Self::lookup_kept): the answer
    /// through the table's PC map, checked against the frame records, or
    /// `None` if the map cannot give it (no map, a map that does not fit
    /// the code, a corrupt table): then `lookup_kept` searches without
    /// the map. For a caller that keeps its fallback out of line (the C
    /// API), so that this path holds nothing else in registers.
    #[inline(always)]
    pub fn lookup_mapped(
        data: &'a [u8],
        endian: E,
        kept: KeptHeader<'_>,
        pc: Pc,
        table_address: u64,
        how: Match,
    ) -> Option<Option<Hit<'a, E>>> {
        // The address kind, a constant inside each copy.
        if kept.flags & ABSOLUTE_ADDRESSES != 0 {
            find_mapped::<E, true>(data, endian, kept, pc, table_address, how)
        } else {
            find_mapped::<E, false>(data, endian, kept, pc, table_address, how)
        }
    }

    /// [`lookup_kept`](Self::lookup_kept) when the PC map cannot answer:
    /// out of line, so that the map's path keeps its values in registers.
    #[inline(never)]
    fn lookup_searched(
        data: &'a [u8],
        endian: E,
        kept: KeptHeader<'_>,
        pc: Pc,
        table_address: u64,
        how: Match,
    ) -> Result<Option<Hit<'a, E>>> {
        let l = Lookup::new(data, endian, kept, table_address).ok_or(LOOKUP_CORRUPT)?;
        l.search(pc, how).ok_or(LOOKUP_CORRUPT)
    }

    /// The function containing `pc` ([`Pc`]: a return address is in the
    /// function holding the byte before it, which may end at `pc`; an
    /// instruction's address in the one holding it): its index and
    /// address. See `Lookup`. A function of size 0 (unknown) contains every
    /// byte from its start to the next function's. Out of line: not a
    /// lookup's fast path (a walk's last frame, a profiler's PC).
    #[inline(never)]
    pub fn function_containing(&self, pc: Pc, table_address: u64) -> Result<Option<(u32, u64)>> {
        let l = self.lookup_state(table_address)?;
        l.function_containing(pc).ok_or(LOOKUP_CORRUPT)
    }

    /// The function containing `pc`, whether or not it has a record there
    /// (a JIT or profiler asking whose code a PC is; the C API's
    /// `pcmap_find_function`): its index, absolute address and frame
    /// record, given the table's address. Same rule as
    /// [`function_containing`](Self::function_containing): a return
    /// address may equal the function's end (after a final call), an
    /// instruction's address may not; with a size of 0 (unknown) the
    /// function is only the last one starting below the byte. O(log
    /// functions) reads, no memory.
    pub fn find_function(
        &self,
        pc: Pc,
        table_address: u64,
    ) -> Result<Option<(u32, u64, FrameRecord)>> {
        let Some((index, address)) = self.function_containing(pc, table_address)? else {
            return Ok(None);
        };
        Ok(Some((index, address, self.frame_record(index)?)))
    }

    /// The state of a search of this table at `table_address`.
    #[inline]
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

/// The functions a PC map entry and the next one name for a PC, as the code
/// was laid out when the table was written. Unchecked: a lookup checks it
/// against the frame records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcMapWindow {
    /// Functions `first_function..=last_function` can contain the PC.
    pub first_function: u32,
    /// The last candidate.
    pub last_function: u32,
}

/// The search of one table for a PC. Reads return `None` for a read outside
/// its array (a corrupt table): no error value is built on the hot path.
///
/// With a PC map, the map's bucket for the PC names the few functions that
/// can contain it, compared by the frame records' addresses: a lookup then
/// reads the map, the candidates' frame records and the function's records,
/// each depending on the one before. Without a map, or if the map does not
/// fit the program (its linker moved the functions apart) or is corrupt
/// (`validate` reports that), a binary search of the frame records'
/// addresses, which are in address order as LLVM emits functions. So the
/// map costs time when wrong but never changes an answer. Within the
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
    addresses: &'a [u8],
    map: &'a [u8],
    /// Address of the frame records, to which their self-relative address
    /// fields are added.
    frames_address: u64,
    absolute: bool,
    functions: u32,
    num_records: u32,
    buckets: u32,
    shift: u8,
}

/// A function's address from its frame record's self-relative address
/// field: the field's own address (the record at `base` + `at`) plus the
/// signed value `stored` in it.
#[inline(always)]
fn self_relative(base: u64, at: usize, stored: i32) -> u64 {
    base.wrapping_add((at + frame_record::ADDRESS) as u64)
        .wrapping_add(stored as i64 as u64)
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
        let frames = array(FRAME_RECORDS)?;
        let records = array(RECORDS)?;
        let map = array(MAP_ARRAY)?;
        Some(Lookup {
            endian,
            frames,
            records,
            addresses: array(ADDRESSES)?,
            map,
            frames_address: table_address.wrapping_add(b[FRAME_RECORDS].into()),
            absolute: kept.flags & ABSOLUTE_ADDRESSES != 0,
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
    /// Function `i`'s address: from its frame record's self-relative field,
    /// or (`ABS`) from the Addresses array.
    #[inline(always)]
    fn address_of<const ABS: bool>(&self, i: u32) -> Option<u64> {
        if ABS {
            let b = *entry::<ADDRESS_SIZE, 8>(self.addresses, i)?;
            Some(self.endian.u64_from(b))
        } else {
            let stored = self.frame_u32(i, frame_record::ADDRESS)? as i32;
            Some(self.relative_address(i, stored))
        }
    }
    /// Function `i`'s address given its self-relative field.
    #[inline(always)]
    fn relative_address(&self, i: u32, stored: i32) -> u64 {
        self_relative(self.frames_address, i as usize * FRAME_RECORD_SIZE, stored)
    }
    #[inline(always)]
    fn function_address(&self, i: u32) -> Option<u64> {
        if self.absolute {
            self.address_of::<true>(i)
        } else {
            self.address_of::<false>(i)
        }
    }
    /// Function `f`'s records: its first record and the next function's.
    #[inline(always)]
    fn record_range(&self, f: u32) -> Option<(u32, u32)> {
        let start = self.frame_u32(f, frame_record::FIRST_RECORD)?;
        let end = match f + 1 < self.functions {
            true => self.frame_u32(f + 1, frame_record::FIRST_RECORD)?,
            false => self.num_records,
        };
        (start <= end && end <= self.num_records).then_some((start, end))
    }

    /// The record of the PC whose key byte is `key`, `past` bytes before
    /// it ([`Pc::key`]), in function `function` at `address` (which holds
    /// `key`) whose records are `start..end`: `Some(None)` if there is
    /// none.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn record_in(
        &self,
        (key, past): (u64, u32),
        how: Match,
        function: u32,
        frame: &'a [u8; FRAME_RECORD_SIZE],
        address: u64,
        (start, end): (u32, u32),
    ) -> Option<Option<Hit<'a, E>>> {
        let Some(offset) = u32::try_from(key - address)
            .ok()
            .and_then(|o| o.checked_add(past))
        else {
            return Some(None);
        };
        record_hit(self.records, self.endian, how, offset, (start, end)).map(|r| {
            r.map(|(record, r)| {
                hit(
                    function,
                    address,
                    record,
                    frame,
                    r,
                    end - start,
                    self.endian,
                )
            })
        })
    }

    /// The answer without the PC map (none, or it does not hold the
    /// answer): searches for the function, then its records.
    #[inline]
    fn search(&self, pc: Pc, how: Match) -> Option<Option<Hit<'a, E>>> {
        let Some(key) = pc.key() else {
            return Some(None);
        };
        let Some((function, address)) = self.function_holding(key.0)? else {
            return Some(None);
        };
        let range = self.record_range(function)?;
        let frame = entry::<FRAME_RECORD_SIZE, FRAME_RECORD_SIZE>(self.frames, function)?;
        self.record_in(key, how, function, frame, address, range)
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
        count_before(first + 1, last + 1, |i| {
            Some(self.function_address(i)? <= pc)
        })
    }

    /// The function containing `pc` ([`Pc`]).
    #[inline(always)]
    fn function_containing(&self, pc: Pc) -> Option<Option<(u32, u64)>> {
        match pc.key() {
            Some((key, _)) => self.function_holding(key),
            None => Some(None),
        }
    }

    /// The function holding the byte at `pc`: the last one starting at or
    /// below it, if `pc` is before its end (size 0, unknown: any `pc`).
    #[inline(always)]
    fn function_holding(&self, pc: u64) -> Option<Option<(u32, u64)>> {
        let n = self.functions;
        if n == 0 || pc < self.function_address(0)? {
            return Some(None);
        }
        let after = self
            .map_window(pc)
            .and_then(|w| self.function_among(pc, w.first_function, w.last_function));
        let after = match after {
            Some(after) => after,
            None => count_before(0, n, |i| Some(self.function_address(i)? <= pc))?,
        };
        let Some(index) = after.checked_sub(1) else {
            return Some(None);
        };
        let address = self.function_address(index)?;
        let size = self.frame_u32(index, frame_record::SIZE)?;
        // `None` only if the frame records are out of order (corrupt).
        let Some(offset) = pc.checked_sub(address) else {
            return Some(None);
        };
        let inside = size == 0 || offset < u64::from(size);
        Some(inside.then_some((index, address)))
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
        let (first_function, last_function) = if bucket + 1 < buckets {
            let e = entry::<PC_MAP_ENTRY_SIZE, { 2 * PC_MAP_ENTRY_SIZE }>(self.map, bucket)?;
            let f = Fields::new(e, self.endian);
            (f.u32(0), f.u32(PC_MAP_ENTRY_SIZE))
        } else {
            let e = entry::<PC_MAP_ENTRY_SIZE, PC_MAP_ENTRY_SIZE>(self.map, bucket)?;
            (Fields::new(e, self.endian).u32(0), self.functions - 1)
        };
        let fits = first_function <= last_function && last_function < self.functions;
        fits.then_some(PcMapWindow {
            first_function,
            last_function,
        })
    }
}

/// The `Hit` of record `record` (entry `r`) of function `function` (frame
/// record `frame`, at `address`, with `num_records` records).
#[inline(always)]
fn hit<'a, E: Endian>(
    function: u32,
    address: u64,
    record: u32,
    frame: &'a [u8; FRAME_RECORD_SIZE],
    r: &'a [u8; RECORD_SIZE],
    num_records: u32,
    endian: E,
) -> Hit<'a, E> {
    Hit {
        found: Found {
            function,
            address,
            record,
        },
        frame,
        record: r,
        num_records,
        endian,
    }
}

/// Bytes of [`LINEAR_SEARCH`] records.
const WINDOW: usize = LINEAR_SEARCH as usize * RECORD_SIZE;

/// How many of the first `n` (1..=8) records of `window` (sorted) are
/// below `offset`: at most 3 halving steps, unrolled, each keeping the last
/// record below `offset` by a conditional move; only the step count (`n`)
/// is a branch. Indices are masked to the window, which they never leave
/// (`base + size <= n <= 8`): no bounds checks.
#[inline(always)]
fn below_in<E: Endian>(window: &[u8; WINDOW], n: usize, endian: E, offset: u32) -> usize {
    let below = |i: usize| {
        let at = (i % LINEAR_SEARCH as usize) * RECORD_SIZE;
        let mut b = [0; 4];
        b.copy_from_slice(&window[at..at + 4]);
        endian.u32_from(b) < offset
    };
    let (mut base, mut size) = (0, n);
    for _ in 0..3 {
        if size > 1 {
            let half = size / 2;
            if below(base + half) {
                base += half;
            }
            size -= half;
        }
    }
    base + usize::from(below(base))
}

/// The record at instruction offset `offset` (`Exact`) or the first one at
/// or after it (`AtOrAfter`) among records `start..end` (sorted by offset)
/// of the Records array `records`: its index and entry. `Some(None)` if
/// there is none, `None` for a read outside `records`.
///
/// A binary search down to [`LINEAR_SEARCH`] records, which are then
/// searched by [`below_in`] (or, for the array's last records, counted).
#[inline(always)]
fn record_hit<E: Endian>(
    records: &[u8],
    endian: E,
    how: Match,
    offset: u32,
    (start, end): (u32, u32),
) -> Option<Option<(u32, &[u8; RECORD_SIZE])>> {
    let (mut lo, mut hi) = (start, end);
    while hi.saturating_sub(lo) > LINEAR_SEARCH {
        let mid = lo + (hi - lo) / 2;
        let at = mid as usize * RECORD_SIZE;
        let b = records.get(at..at + 4)?.try_into().ok()?;
        if endian.u32_from(b) < offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo >= hi {
        return Some(None);
    }
    let n = (hi - lo) as usize;
    let at = lo as usize * RECORD_SIZE;
    let found = match records.get(at..at + WINDOW) {
        // A full window (all but the array's last records): searched
        // without a bounds check.
        Some(window) => below_in(window.try_into().ok()?, n, endian, offset),
        None => {
            let window = records.get(at..at + n * RECORD_SIZE)?;
            window
                .chunks_exact(RECORD_SIZE)
                .map(|r| match r.first_chunk::<4>() {
                    Some(&b) => usize::from(endian.u32_from(b) < offset),
                    None => 0,
                })
                .sum::<usize>()
        }
    };
    // `lo + found` may be `hi`, the record the binary search stopped at.
    let record = lo + found as u32;
    if record >= end {
        return Some(None);
    }
    let at = record as usize * RECORD_SIZE;
    let r: &[u8; RECORD_SIZE] = records.get(at..at + RECORD_SIZE)?.try_into().ok()?;
    if how == Match::Exact && Fields::new(r, endian).u32(record::INSTRUCTION_OFFSET) != offset {
        return Some(None);
    }
    Some(Some((record, r)))
}

/// The lookup through the PC map, on the table at the start of `data`
/// whose header `kept` is: the map entries, then the candidate frame
/// records, then the function's records, each read once. `None` if the
/// map's window does not hold the answer by the frame records themselves
/// (no map, a map that does not fit the code, a failed read): the caller
/// searches without the map.
///
/// Lean, as a lookup through the C API runs this and little else: it
/// reads the header's bounds where the caller keeps them, and each read is
/// one bounds check against the table; indices are checked against the
/// counts of their arrays, so that every read stays in its array.
#[inline(always)]
fn find_mapped<'a, E: Endian, const ABS: bool>(
    data: &'a [u8],
    endian: E,
    kept: KeptHeader<'_>,
    pc: Pc,
    table_address: u64,
    how: Match,
) -> Option<Option<Hit<'a, E>>> {
    // The function is the one holding byte `pc` (a return address's
    // `pc - 1`); the record is `after` bytes after it.
    let Some((pc, after)) = pc.key() else {
        return Some(None);
    };
    let v = View {
        data,
        endian,
        bounds: kept.bounds,
        table_address,
    };
    let start_of = |array: usize| v.start_of(array);
    let count = |array: usize, size: u32| v.count(array, size);
    let u32_at = |at: usize| v.u32_at(at);
    let frame_at = |i: u32| v.frame_at(i);
    let address = |i: u32, field: u32| v.address::<ABS>(i, field);
    let address_of = |i: u32| v.address_of::<ABS>(i);

    let buckets = count(MAP_ARRAY, PC_MAP_ENTRY_SIZE as u32);
    let last_bucket = buckets.checked_sub(1)?;
    let functions = count(FRAME_RECORDS, FRAME_RECORD_SIZE as u32);
    let origin = address_of(0)?;
    let Some(past) = pc.checked_sub(origin) else {
        return Some(None);
    };
    let bucket = (past >> kept.pc_map_shift).min(u64::from(last_bucket)) as u32;
    prefetch_guess(data, kept, bucket, buckets);
    // The bucket's entry and the next one's (the last bucket: up to the
    // last function), read together.
    let at = start_of(MAP_ARRAY) + bucket as usize * PC_MAP_ENTRY_SIZE;
    let (first, last) = if bucket < last_bucket {
        let e: &[u8; 2 * PC_MAP_ENTRY_SIZE] =
            data.get(at..at + 2 * PC_MAP_ENTRY_SIZE)?.try_into().ok()?;
        let f = Fields::new(e, endian);
        (f.u32(0), f.u32(PC_MAP_ENTRY_SIZE))
    } else {
        (u32_at(at)?, functions.wrapping_sub(1))
    };
    if first > last || last >= functions {
        return None;
    }
    // The last candidate starting at or below `pc`, its frame record, its
    // address and its records; the frame records around it must bracket
    // `pc` (they are sorted).
    let num_records = count(RECORDS, RECORD_SIZE as u32);
    let (function, frame, address, end) = if last - first <= 1 && first + 2 < functions {
        // The usual bucket: one or two candidates, and a frame record after
        // them. The three are read as one block, and the candidate chosen
        // by conditional moves: no branch on which.
        let at = frame_at(first);
        let block: &'a [u8; 3 * FRAME_RECORD_SIZE] =
            data.get(at..at + 3 * FRAME_RECORD_SIZE)?.try_into().ok()?;
        let fields = Fields::new(block, endian);
        let field = |i: usize, field: usize| fields.u32(i * FRAME_RECORD_SIZE + field);
        let a0 = address(first, field(0, frame_record::ADDRESS))?;
        let a1 = address(first + 1, field(1, frame_record::ADDRESS))?;
        let a2 = address(first + 2, field(2, frame_record::ADDRESS))?;
        let second = last > first && a1 <= pc;
        let j = usize::from(second);
        let (address, next) = if second { (a1, a2) } else { (a0, a1) };
        if address > pc || next <= pc {
            return None;
        }
        let frame: &'a [u8; FRAME_RECORD_SIZE] = block[j * FRAME_RECORD_SIZE..]
            [..FRAME_RECORD_SIZE]
            .try_into()
            .ok()?;
        (
            first + j as u32,
            frame,
            address,
            field(j + 1, frame_record::FIRST_RECORD),
        )
    } else {
        let function = if last - first <= 1 {
            first + u32::from(last > first && address_of(last)? <= pc)
        } else {
            count_before(first + 1, last + 1, |i| Some(address_of(i)? <= pc))? - 1
        };
        let at = frame_at(function);
        let frame: &'a [u8; FRAME_RECORD_SIZE] =
            data.get(at..at + FRAME_RECORD_SIZE)?.try_into().ok()?;
        let f = Fields::new(frame, endian);
        let address = address(function, f.u32(frame_record::ADDRESS))?;
        if address > pc {
            return None;
        }
        let end = if function + 1 < functions {
            if address_of(function + 1)? <= pc {
                return None;
            }
            u32_at(at + FRAME_RECORD_SIZE + frame_record::FIRST_RECORD)?
        } else {
            num_records
        };
        (function, frame, address, end)
    };
    let f = Fields::new(frame, endian);
    let start = f.u32(frame_record::FIRST_RECORD);
    if start > end || end > num_records {
        return None;
    }
    // The size read where it is compared (fewer live registers).
    let Some(offset) = offset_in(pc - address, f.u32(frame_record::SIZE), after) else {
        return Some(None);
    };
    let records = data.get(start_of(RECORDS)..start_of(RECORDS + 1))?;
    record_hit(records, endian, how, offset, (start, end))
        .map(|r| r.map(|(record, r)| hit(function, address, record, frame, r, end - start, endian)))
}

/// The table `find_mapped` reads: its bytes, read in place.
struct View<'a, 'h, E> {
    data: &'a [u8],
    endian: E,
    bounds: &'h [u32; NUM_BOUNDS],
    table_address: u64,
}

impl<'a, E: Endian> View<'a, '_, E> {
    /// Where array `array` starts.
    #[inline(always)]
    fn start_of(&self, array: usize) -> usize {
        self.bounds[array] as usize
    }
    /// Entries of array `array`, of `size` bytes each (bounds ascend in a
    /// parsed header; if not, the count is huge and reads fail).
    #[inline(always)]
    fn count(&self, array: usize, size: u32) -> u32 {
        self.bounds[array + 1].wrapping_sub(self.bounds[array]) / size
    }
    #[inline(always)]
    fn u32_at(&self, at: usize) -> Option<u32> {
        let v = self.data.get(at..at + 4)?;
        Some(self.endian.u32_from(v.try_into().ok()?))
    }
    /// Where frame record `i` is.
    #[inline(always)]
    fn frame_at(&self, i: u32) -> usize {
        self.start_of(FRAME_RECORDS) + i as usize * FRAME_RECORD_SIZE
    }
    /// Function `i`'s address, given its frame record's address field
    /// (`ABS`: from the Addresses array).
    #[inline(always)]
    fn address<const ABS: bool>(&self, i: u32, field: u32) -> Option<u64> {
        if ABS {
            let at = self.start_of(ADDRESSES) + i as usize * ADDRESS_SIZE;
            let v = self.data.get(at..at + ADDRESS_SIZE)?;
            Some(self.endian.u64_from(v.try_into().ok()?))
        } else {
            Some(self_relative(
                self.table_address,
                self.frame_at(i),
                field as i32,
            ))
        }
    }
    /// Function `i`'s address.
    #[inline(always)]
    fn address_of<const ABS: bool>(&self, i: u32) -> Option<u64> {
        let field = if ABS {
            0
        } else {
            self.u32_at(self.frame_at(i))?
        };
        self.address::<ABS>(i, field)
    }
}

/// Starts reading, beside the PC map's entry, the frame records and
/// records a PC in map bucket `bucket` of `buckets` (> 0) most likely
/// needs: where functions and their records are spread evenly over the
/// code (as they are in most programs), the bucket's share of the map is
/// its function's share of the frame records and that function's share of
/// the records. The map, frame record and records reads of a lookup each
/// depend on the one before; guessed, their cache misses overlap instead
/// of adding up. A wrong guess costs a wasted prefetch, never an answer:
/// nothing is read from it.
#[inline(always)]
fn prefetch_guess(data: &[u8], kept: KeptHeader<'_>, bucket: u32, buckets: u32) {
    let b = kept.bounds;
    // Byte offsets, each the bucket's share of its array (the two do not
    // depend on each other; two divisions, 32-bit where the product fits:
    // one 64-bit fraction for both delayed the prefetches).
    #[inline(always)]
    fn share(
        b: &[u32; NUM_BOUNDS],
        bucket: u32,
        buckets: u32,
        array: usize,
        entry: usize,
    ) -> usize {
        let bytes = u64::from(b[array + 1].wrapping_sub(b[array]));
        let entries = bytes / entry as u64;
        b[array] as usize + (u64::from(bucket) * entries / u64::from(buckets)) as usize * entry
    }
    prefetch(
        data,
        share(b, bucket, buckets, FRAME_RECORDS, FRAME_RECORD_SIZE),
    );
    let at = share(b, bucket, buckets, RECORDS, RECORD_SIZE);
    prefetch(data, at);
    // A function's records often cross into the next line.
    prefetch(data, at + 64);
}

/// Asks the CPU to bring byte `at` of `bytes` into the cache: a hint,
/// which reads nothing and changes no result. Not bounds-checked: `at` is
/// inside `bytes` or a line past it (the guess's shares are below their
/// arrays' ends), and a prefetch of any address is harmless.
#[inline(always)]
fn prefetch(bytes: &[u8], at: usize) {
    let p = bytes.as_ptr().wrapping_add(at);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads no memory a program sees and cannot fault,
    // whatever the address (Intel SDM, PREFETCHh: no exceptions).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above; `prfm` is a hint that never faults.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
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
