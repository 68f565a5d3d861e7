//! A `pcmap_stackmaps` section: its tables, and finding the record of a PC.
//!
//! Opening reads only the table headers, so it costs the same for ten records
//! as for a million, and keeps the first `PCMAP_CACHED_TABLES` of them in the
//! caller's `pcmap_stackmaps`. A lookup visits each table (from the kept
//! header, or parsing it), finds the function through the PC map or a
//! binary search of its frame records, probing only the address field, and
//! then the record by instruction offset, probing only that field; it
//! writes what the caller asked for: the whole frame record and record
//! (`pcmap_find`: the Site and frame state decoded) or only indices, Site
//! offset and stack size (`pcmap_find_site`). A section of one table in
//! this machine's byte order (a program's own) is looked up through its PC
//! map with nothing around it (`search_mapped`), the rest out of line.
//! O(tables + log functions + log records), no memory.

pub(crate) use pcmap_reader::flat::Match;
use pcmap_reader::flat::{self, FlatStackMap, Hit, KeptHeader, Pc, SiteData};
use pcmap_reader::{BigEndian, Endian, Error, LittleEndian, RunTimeEndian};

use crate::status::pcmap_status;
use crate::types::{
    pcmap_function, pcmap_record, pcmap_site, pcmap_stackmaps, pcmap_table, pcmap_table_header,
    Table, PCMAP_CACHED_TABLES,
};

/// This machine's byte order.
#[cfg(target_endian = "little")]
type NativeEndian = LittleEndian;
#[cfg(target_endian = "big")]
type NativeEndian = BigEndian;

/// Section bytes and the address they have in the described program.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub bytes: &'a [u8],
    pub address: u64,
    /// Headers of the first tables as `open` parsed them (empty: parse all).
    /// Invariant: each was accepted by `FlatStackMap::parse` for the table
    /// at its offset of `bytes`. Lookups trust them (reads stay
    /// bounds-checked, so a caller that corrupted them gets errors or wrong
    /// answers, never an out-of-bounds read).
    pub cached: &'a [pcmap_table_header],
    /// Whether `cached` holds every table of the section.
    pub all_cached: bool,
}

impl<'a> Section<'a> {
    pub fn new(bytes: &'a [u8], address: u64) -> Self {
        Section {
            bytes,
            address,
            cached: &[],
            all_cached: false,
        }
    }

    /// The section `m` refers to, with the table headers `open` kept.
    ///
    /// # Safety
    /// `m` was filled by `open` (`pcmap_open`) and its section is still
    /// mapped; `m.data` is not NULL.
    pub unsafe fn opened(m: &'a pcmap_stackmaps) -> Self {
        let n = (m.num_cached_tables as usize).min(PCMAP_CACHED_TABLES);
        Section {
            // SAFETY: the caller's pointers, as this function's `# Safety` promises.
            bytes: unsafe { core::slice::from_raw_parts(m.data, m.size) },
            address: m.address,
            cached: &m.tables[..n],
            all_cached: m.num_tables as usize <= n,
        }
    }

    /// Each table with the `pcmap_table` that refers to it.
    pub fn tables(&self) -> impl Iterator<Item = Result<(pcmap_table, Table<'a>), Error>> + 'a {
        self.tables_in(flat::section_endian(self.bytes))
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
            num_cached_tables: 0,
            tables: [pcmap_table_header::default(); PCMAP_CACHED_TABLES],
        };
        for t in self.tables() {
            let (r, t) = t?;
            if let Some(h) = m.tables.get_mut(m.num_tables as usize) {
                let header = t.parsed_header();
                *h = pcmap_table_header {
                    offset: r.address.wrapping_sub(self.address),
                    bounds: header.bounds,
                    flags: header.flags,
                    pc_map_shift: header.pc_map_shift,
                };
                m.num_cached_tables += 1;
            }
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
            t?.1.validate()?;
        }
        Ok(())
    }

    /// The function containing return address `pc` and its record at
    /// `pc`, if any (`pcmap_find`).
    pub fn find(&self, pc: u64) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        self.found(Pc::ReturnAddress(pc), Match::Exact)
    }

    /// The function containing `pc` and its first record at or after `pc`:
    /// for a stack map placed after a call, the call's return address may
    /// precede the record by the moves of the call's result.
    pub fn find_at_or_after(
        &self,
        pc: u64,
    ) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        self.found(Pc::ReturnAddress(pc), Match::AtOrAfter)
    }

    fn found(
        &self,
        pc: Pc,
        how: Match,
    ) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
        let mut f = core::mem::MaybeUninit::uninit();
        let mut r = core::mem::MaybeUninit::uninit();
        let out = Full {
            function: f.as_mut_ptr(),
            record: r.as_mut_ptr(),
        };
        if self.search(pc, how, out)? {
            // SAFETY: `search` wrote both when it returned true.
            Ok(Some(unsafe { (f.assume_init(), r.assume_init()) }))
        } else {
            Ok(None)
        }
    }

    /// The record at return address `pc` (`how`) as `pcmap_find_site`
    /// gives it.
    pub fn find_site(&self, pc: u64, how: Match) -> Result<Option<pcmap_site>, pcmap_status> {
        let mut site = core::mem::MaybeUninit::uninit();
        if self.search(Pc::ReturnAddress(pc), how, SiteOut(site.as_mut_ptr()))? {
            // SAFETY: `search` wrote it when it returned true.
            Ok(Some(unsafe { site.assume_init() }))
        } else {
            Ok(None)
        }
    }

    /// Finds the record for `pc`; on `Ok(true)` has `out` write what it
    /// wants of it.
    #[inline(always)]
    pub(crate) fn search<O: Output>(
        &self,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        // The kept headers' flags say it without reading the section.
        let big = match self.cached.first() {
            Some(h) => h.flags & flat::BIG_ENDIAN != 0,
            None => flat::section_endian(self.bytes) == RunTimeEndian::Big,
        };
        // A runtime reads its own program's tables, in its own byte order:
        // that search is inlined here, the other one is not.
        if big == cfg!(target_endian = "big") {
            self.search_ordered(big, pc, how, out)
        } else {
            self.search_foreign(big, pc, how, out)
        }
    }

    /// `search` of the table whose kept header is `h`: `Ok(true)` if found
    /// (and written to `out`).
    #[inline(always)]
    fn search_table<E: Endian + 'a, O: Output>(
        &self,
        endian: E,
        h: &pcmap_table_header,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        let offset = h.offset as usize;
        let bytes = self
            .bytes
            .get(offset..)
            .ok_or(Error::Truncated { offset })?;
        let address = self.table_address(offset);
        match FlatStackMap::lookup_kept(bytes, endian, h.kept(), pc, address, how)? {
            Some(hit) => {
                out.write(self, offset, h.kept(), hit)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `search` of tables that are big-endian if `big`.
    #[inline(always)]
    fn search_ordered<O: Output>(
        &self,
        big: bool,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        if big {
            self.search_in(BigEndian, pc, how, out)
        } else {
            self.search_in(LittleEndian, pc, how, out)
        }
    }

    /// `search_ordered` of tables in the other byte order than this
    /// machine's (read from a file), out of line.
    #[inline(never)]
    fn search_foreign<O: Output>(
        &self,
        big: bool,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        self.search_ordered(big, pc, how, out)
    }

    #[inline]
    fn search_in<E: Endian + 'a, O: Output>(
        &self,
        endian: E,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        let mut next = 0;
        for h in self.cached {
            if self.search_table(endian, h, pc, how, out)? {
                return Ok(true);
            }
            next = h.offset as usize + h.bounds[flat::NUM_BOUNDS - 1] as usize;
        }
        if self.all_cached {
            return Ok(false);
        }
        self.search_from(next, endian, pc, how, out)
    }

    /// `search_in` over the tables whose headers were not kept, from byte
    /// `next` on: out of line, as only sections of many tables get here.
    #[inline(never)]
    fn search_from<E: Endian + 'a, O: Output>(
        &self,
        next: usize,
        endian: E,
        pc: Pc,
        how: Match,
        out: O,
    ) -> Result<bool, pcmap_status> {
        for t in FlatStackMap::tables_from(self.bytes, next, endian) {
            let (offset, t) = t?;
            if let Some(hit) = t.lookup_hit(pc, self.table_address(offset), how)? {
                let header = t.parsed_header();
                out.write(self, offset, header.kept(), hit)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    #[inline(always)]
    fn table_address(&self, offset: usize) -> u64 {
        self.address.wrapping_add(offset as u64)
    }

    /// The `pcmap_table` of the table at `offset` whose header is `h`.
    #[inline(always)]
    fn table_at(&self, offset: usize, h: KeptHeader<'_>) -> pcmap_table {
        pcmap_table {
            data: self.bytes.as_ptr().wrapping_add(offset),
            size: h.bounds[flat::NUM_BOUNDS - 1] as usize,
            address: self.table_address(offset),
        }
    }

    /// The record of a `pcmap_site` (of this section's `find_site`).
    pub fn site_record(&self, site: &pcmap_site) -> Result<pcmap_record, pcmap_status> {
        let (table, t) = self.table(site.table)?;
        let f = t.frame_record(site.function)?;
        if !(f.record_index..f.record_index + f.num_records).contains(&site.record) {
            return Err(pcmap_status::PCMAP_ERR_OUT_OF_RANGE);
        }
        let address = t.function_address(site.function, table.address)?;
        pcmap_record::new(
            table,
            address,
            site.record,
            t.record(site.record)?,
            &t.data(),
        )
    }

    /// The function of a `pcmap_site`.
    pub fn site_function(&self, site: &pcmap_site) -> Result<pcmap_function, pcmap_status> {
        let (table, t) = self.table(site.table)?;
        pcmap_function::new(table, &t, site.function)
    }

    /// The table at `offset` of the section.
    fn table(&self, offset: u64) -> Result<(pcmap_table, Table<'a>), pcmap_status> {
        let at = usize::try_from(offset).map_err(|_| pcmap_status::PCMAP_ERR_OUT_OF_RANGE)?;
        let bytes = self
            .bytes
            .get(at..)
            .ok_or(pcmap_status::PCMAP_ERR_OUT_OF_RANGE)?;
        let t = FlatStackMap::parse(bytes, flat::section_endian(self.bytes))?;
        let table = pcmap_table {
            data: bytes.as_ptr(),
            size: t.table_size() as usize,
            address: self.table_address(at),
        };
        Ok((table, t))
    }

    /// The function containing `pc`, with or without a record there
    /// (`pcmap_find_function`; the walker asks it where a walk ends),
    /// searched table by table. See `FlatStackMap::function_containing`.
    pub fn function_containing(&self, pc: Pc) -> Result<Option<pcmap_function>, pcmap_status> {
        for t in self.tables() {
            let (table, t) = t?;
            if let Some((index, _)) = t.function_containing(pc, table.address)? {
                return Ok(Some(pcmap_function::new(table, &t, index)?));
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

/// The lookup of a section of one table whose header `open` kept, in this
/// machine's byte order (a program's own section), through the table's PC
/// map: `Some(Ok(true))` if found (and written to `out`), `Some(Ok(false))`
/// if there is no record for `pc`; `None` if the section is not of that
/// kind or the map cannot answer, and `Section::search` must. The path of
/// a runtime's lookups: it reads `m`'s one header and nothing else, and
/// holds nothing for a fallback (the caller's is out of line).
///
/// # Safety
/// `m` was filled by `open` (`pcmap_open`) and its section is still
/// mapped; `m.data` is not NULL.
#[inline(always)]
pub(crate) unsafe fn search_mapped<O: Output>(
    m: &pcmap_stackmaps,
    pc: Pc,
    how: Match,
    out: O,
) -> Option<Result<bool, pcmap_status>> {
    let h = &m.tables[0];
    let native = (h.flags & flat::BIG_ENDIAN != 0) == cfg!(target_endian = "big");
    if m.num_tables != 1 || m.num_cached_tables != 1 || !native {
        return None;
    }
    // SAFETY: the caller's contract: `m.data` points to the `m.size`
    // bytes of a mapped section.
    // SAFETY: the caller's pointers, as this function's `# Safety` promises.
    let bytes = unsafe { core::slice::from_raw_parts(m.data, m.size) };
    let s = Section {
        bytes,
        address: m.address,
        cached: core::slice::from_ref(h),
        all_cached: true,
    };
    let offset = h.offset as usize;
    let table = bytes.get(offset..)?;
    let address = s.table_address(offset);
    let endian = NativeEndian::default();
    match FlatStackMap::lookup_mapped(table, endian, h.kept(), pc, address, how)? {
        None => Some(Ok(false)),
        Some(hit) => Some(out.write(&s, offset, h.kept(), hit).map(|()| true)),
    }
}

/// What a lookup writes of the record it found.
pub(crate) trait Output: Copy {
    /// Writes what it wants of `hit`, found in the table at `offset` of
    /// `s` whose header is `h`.
    fn write<E: Endian>(
        self,
        s: &Section<'_>,
        offset: usize,
        h: KeptHeader<'_>,
        hit: Hit<'_, E>,
    ) -> Result<(), pcmap_status>;
}

/// `pcmap_find`: the function (unless NULL) and the whole record, its Site
/// and frame state decoded.
#[derive(Clone, Copy)]
pub(crate) struct Full {
    /// NULL or valid for a write.
    pub function: *mut pcmap_function,
    /// Valid for a write.
    pub record: *mut pcmap_record,
}

impl Output for Full {
    #[inline]
    fn write<E: Endian>(
        self,
        s: &Section<'_>,
        offset: usize,
        h: KeptHeader<'_>,
        hit: Hit<'_, E>,
    ) -> Result<(), pcmap_status> {
        let table = s.table_at(offset, h);
        let found = hit.found;
        let data = SiteData::of_kept(s.bytes.get(offset..).unwrap_or_default(), h);
        let record = pcmap_record::new(table, found.address, found.record, hit.record(), &data)?;
        // SAFETY: `Full`'s contract.
        unsafe {
            self.record.write(record);
            if !self.function.is_null() {
                let f = hit.frame_record();
                self.function.write(pcmap_function {
                    table,
                    index: found.function,
                    address: found.address,
                    size: f.size,
                    stack_size: f.stack_size,
                    num_records: f.num_records,
                    record_index: f.record_index,
                });
            }
        }
        Ok(())
    }
}

/// `pcmap_find_site`: indices, Site offset and stack size; nothing decoded.
#[derive(Clone, Copy)]
pub(crate) struct SiteOut(pub *mut pcmap_site);

impl Output for SiteOut {
    #[inline(always)]
    fn write<E: Endian>(
        self,
        _: &Section<'_>,
        offset: usize,
        _: KeptHeader<'_>,
        hit: Hit<'_, E>,
    ) -> Result<(), pcmap_status> {
        // SAFETY: the pointer is valid for a write (`pcmap_find_site`'s
        // contract).
        unsafe {
            self.0.write(pcmap_site {
                table: offset as u64,
                function: hit.found.function,
                record: hit.found.record,
                site: hit.site_offset(),
                stack_size: hit.stack_size(),
            });
        }
        Ok(())
    }
}

/// One entry of an ID index: the record's ID, its table's offset in the
/// section, and its function's and its own index in that table. Sorted by
/// all three: the records of one ID are adjacent, in section order.
pub type IdEntry = [u64; 3];

impl<'a> Section<'a> {
    /// How many records the section has: the entries of its ID index.
    pub fn num_records(&self) -> Result<usize, pcmap_status> {
        let mut n = 0usize;
        for t in self.tables() {
            n += t?.1.num_records() as usize;
        }
        Ok(n)
    }

    /// Each record's ID index entry, in section order, to `visit`.
    fn each_id(&self, mut visit: impl FnMut(IdEntry) -> bool) -> Result<(), pcmap_status> {
        for t in self.tables() {
            let (table, t) = t?;
            let offset = (table.data as usize).wrapping_sub(self.bytes.as_ptr() as usize) as u64;
            let data = t.data();
            for f in 0..t.num_frame_records() {
                let (first, end) = t.function_record_range(f)?;
                for r in first..end {
                    let id = data.site(t.record(r)?.site)?.id;
                    if !visit([id, offset, u64::from(f) << 32 | u64::from(r)]) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Fills `out` (exactly [`num_records`](Self::num_records) entries) with
    /// the ID index and sorts it. No memory of ours: the caller's.
    pub fn build_id_index(&self, out: &mut [IdEntry]) -> Result<(), pcmap_status> {
        let mut n = 0;
        let mut overflow = false;
        self.each_id(|e| match out.get_mut(n) {
            Some(slot) => {
                *slot = e;
                n += 1;
                true
            }
            None => {
                overflow = true;
                false
            }
        })?;
        if overflow || n != out.len() {
            return Err(pcmap_status::PCMAP_ERR_ARGUMENT);
        }
        crate::sort::heapsort_by(out, |a, b| a < b);
        Ok(())
    }

    /// The `n`th record (from 0, in section order) whose ID is `id`: by
    /// binary search of `index` if given (built by `build_id_index` for
    /// this section), else by a scan of every record.
    pub fn find_id(
        &self,
        index: Option<&[IdEntry]>,
        id: u64,
        n: u32,
    ) -> Result<Option<pcmap_site>, pcmap_status> {
        let found = match index {
            Some(index) => {
                let first = index.partition_point(|e| e[0] < id);
                index
                    .get(first + n as usize)
                    .filter(|e| e[0] == id)
                    .copied()
            }
            None => {
                let (mut seen, mut found) = (0u32, None);
                self.each_id(|e| {
                    if e[0] == id {
                        if seen == n {
                            found = Some(e);
                            return false;
                        }
                        seen += 1;
                    }
                    true
                })?;
                found
            }
        };
        let Some([_, table, at]) = found else {
            return Ok(None);
        };
        let (_, t) = self.table(table)?;
        let function = (at >> 32) as u32;
        let record = at as u32;
        Ok(Some(pcmap_site {
            table,
            function,
            record,
            site: t.record(record)?.site,
            stack_size: t.frame_record(function)?.stack_size,
        }))
    }
}

impl<'a> Section<'a> {
    /// The patch point or stack map whose patch region holds return address
    /// `pc`: the record at `A` with a known patchable size `S` and
    /// `A < pc <= A + S` (a call inside the region returns into it, or to
    /// its end). Regions do not overlap (`pcmap emit` checks), so it is the
    /// function's last record before `pc`. Statepoints are not: their patch
    /// bytes end at the record, which `find` finds at the return address.
    pub fn find_patch_region(&self, pc: u64) -> Result<Option<pcmap_site>, pcmap_status> {
        for t in self.tables() {
            let (table, t) = t?;
            let Some((f, address)) = t.function_containing(Pc::ReturnAddress(pc), table.address)?
            else {
                continue;
            };
            let Ok(offset) = u32::try_from(pc.wrapping_sub(address)) else {
                continue;
            };
            let (first, end) = t.function_record_range(f)?;
            // The first record at or after `pc`; the one before it is the
            // last record before `pc`.
            let (mut lo, mut hi) = (first, end);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if t.record_instruction_offset(mid)? < offset {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let Some(r) = lo.checked_sub(1).filter(|&r| r >= first) else {
                return Ok(None);
            };
            let record = t.record(r)?;
            let site = t.data().site(record.site)?;
            let patch = matches!(
                site.kind,
                flat::RecordKind::PatchPoint | flat::RecordKind::StackMap
            );
            let inside = site.patchable_size.is_some_and(|s| {
                u64::from(offset) <= u64::from(record.instruction_offset) + u64::from(s)
            });
            if !(patch && inside) {
                return Ok(None);
            }
            let offset = (table.data as usize).wrapping_sub(self.bytes.as_ptr() as usize) as u64;
            return Ok(Some(pcmap_site {
                table: offset,
                function: f,
                record: r,
                site: record.site,
                stack_size: t.frame_record(f)?.stack_size,
            }));
        }
        Ok(None)
    }
}
