//! A `pcmap_stackmaps` section, as the C API reads it: the reader's
//! [`OpenedSection`] (which `pcmap_stackmaps` is, field for field) and
//! [`Section`] (its tables, finding the record of a PC), with what the C
//! structs want of a record found (`Full`: `pcmap_find`'s whole record,
//! Site and frame state decoded; `SiteOut`: `pcmap_find_site`'s indices,
//! Site offset and stack size), and the C API's own lookups (by ID, by
//! patch region).

use pcmap_reader::flat::{self, Hit, Pc, SiteData, TableAt, OPENED_SECTION_LAYOUT};
pub use pcmap_reader::flat::{Match, OpenedSection, Output, Section};
use pcmap_reader::Endian;

use crate::status::pcmap_status;
use crate::types::{
    pcmap_function, pcmap_record, pcmap_site, pcmap_stackmaps, pcmap_table, pcmap_table_header,
    Table, PCMAP_CACHED_TABLES,
};

// `pcmap_stackmaps` is an `OpenedSection`, `pcmap_table_header` a
// `TableHeader`: the same fields, types and offsets.
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    type H = pcmap_table_header;
    type T = flat::TableHeader;
    assert!(PCMAP_CACHED_TABLES == flat::KEPT_TABLES);
    assert!(size_of::<H>() == size_of::<T>() && align_of::<H>() == align_of::<T>());
    assert!(offset_of!(H, offset) == offset_of!(T, offset));
    assert!(offset_of!(H, bounds) == offset_of!(T, bounds));
    assert!(offset_of!(H, flags) == offset_of!(T, flags));
    assert!(offset_of!(H, pc_map_shift) == offset_of!(T, pc_map_shift));
    type M = pcmap_stackmaps;
    let ours = [
        offset_of!(M, data),
        offset_of!(M, size),
        offset_of!(M, address),
        offset_of!(M, num_tables),
        offset_of!(M, num_functions),
        offset_of!(M, num_records),
        offset_of!(M, num_cached_tables),
        offset_of!(M, tables),
        size_of::<M>(),
        align_of::<M>(),
    ];
    let mut i = 0;
    while i < ours.len() {
        assert!(ours[i] == OPENED_SECTION_LAYOUT[i]);
        i += 1;
    }
};

/// The `pcmap_stackmaps` of an opened section.
pub fn to_c(m: OpenedSection<'_>) -> pcmap_stackmaps {
    // SAFETY: the same layout (asserted above); every bit pattern of
    // `OpenedSection`'s fields is one of `pcmap_stackmaps`'s.
    unsafe { core::mem::transmute::<OpenedSection<'_>, pcmap_stackmaps>(m) }
}

/// The opened section `m` is.
///
/// # Safety
/// `m` was filled by `pcmap_open` (or copied from one it filled) and its
/// section is still mapped for `'a`.
#[inline(always)]
pub unsafe fn opened<'a>(m: &'a pcmap_stackmaps) -> &'a OpenedSection<'a> {
    // SAFETY: the same layout (asserted above); `OpenedSection`'s
    // invariant (its bytes are readable for `'a`) is the caller's promise.
    unsafe { &*(m as *const pcmap_stackmaps).cast::<OpenedSection<'a>>() }
}

/// The `pcmap_table` of the table `at` of the section `bytes`.
#[inline(always)]
fn c_table(bytes: &[u8], at: &TableAt) -> pcmap_table {
    pcmap_table {
        data: bytes.as_ptr().wrapping_add(at.offset),
        size: at.header.bounds[flat::NUM_BOUNDS - 1] as usize,
        address: at.address,
    }
}

/// A function the reader found (its table, the table and its index
/// there) as the C API's `pcmap_function`.
fn c_function<E: Endian>(
    bytes: &[u8],
    found: Option<(TableAt, flat::FlatStackMap<'_, E>, u32)>,
) -> Result<Option<pcmap_function>, pcmap_status> {
    found
        .map(|(at, t, index)| pcmap_function::new(c_table(bytes, &at), &t, index))
        .transpose()
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

impl<'a> Output<'a> for Full {
    type Out = ();
    type Error = pcmap_status;

    #[inline]
    fn write<E: Endian + 'a>(
        self,
        bytes: &'a [u8],
        at: TableAt,
        hit: Hit<'a, E>,
    ) -> Result<(), pcmap_status> {
        let table = c_table(bytes, &at);
        let found = hit.found;
        let data = SiteData::of_kept(bytes.get(at.offset..).unwrap_or_default(), at.header.kept());
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

impl<'a> Output<'a> for SiteOut {
    type Out = ();
    type Error = pcmap_status;

    #[inline(always)]
    fn write<E: Endian + 'a>(
        self,
        _: &'a [u8],
        at: TableAt,
        hit: Hit<'a, E>,
    ) -> Result<(), pcmap_status> {
        // SAFETY: the pointer is valid for a write (`pcmap_find_site`'s
        // contract).
        unsafe {
            self.0.write(pcmap_site {
                table: at.offset as u64,
                function: hit.found.function,
                record: hit.found.record,
                site: hit.site_offset(),
                stack_size: hit.stack_size(),
            });
        }
        Ok(())
    }
}

/// What the C API reads of a [`Section`] besides the reader's lookups.
pub trait CSection<'a> {
    /// Each table with the `pcmap_table` that refers to it.
    fn c_tables(&self)
        -> impl Iterator<Item = Result<(pcmap_table, Table<'a>), pcmap_status>> + 'a;
    /// The table at `offset` of the section.
    fn c_table_at(&self, offset: u64) -> Result<(pcmap_table, Table<'a>), pcmap_status>;
    /// The function containing `pc` (`pcmap_find_function`).
    fn function_of(&self, pc: Pc) -> Result<Option<pcmap_function>, pcmap_status>;
    /// Function `index` counting across all tables (`pcmap_function_at`).
    fn nth_function(&self, index: u32) -> Result<Option<pcmap_function>, pcmap_status>;
    /// The record of a `pcmap_site` (of this section's `find_site`).
    fn site_record(&self, site: &pcmap_site) -> Result<pcmap_record, pcmap_status>;
    /// The function of a `pcmap_site`.
    fn site_function(&self, site: &pcmap_site) -> Result<pcmap_function, pcmap_status>;
}

impl<'a> CSection<'a> for Section<'a> {
    fn c_tables(
        &self,
    ) -> impl Iterator<Item = Result<(pcmap_table, Table<'a>), pcmap_status>> + 'a {
        let bytes = self.bytes;
        self.tables().map(move |t| {
            t.map(|(at, t)| (c_table(bytes, &at), t))
                .map_err(Into::into)
        })
    }

    fn c_table_at(&self, offset: u64) -> Result<(pcmap_table, Table<'a>), pcmap_status> {
        if usize::try_from(offset).map_or(true, |o| o > self.bytes.len()) {
            return Err(pcmap_status::PCMAP_ERR_OUT_OF_RANGE);
        }
        let (at, t) = self.table(offset)?;
        Ok((c_table(self.bytes, &at), t))
    }

    fn function_of(&self, pc: Pc) -> Result<Option<pcmap_function>, pcmap_status> {
        c_function(self.bytes, self.function_containing(pc)?)
    }

    fn nth_function(&self, index: u32) -> Result<Option<pcmap_function>, pcmap_status> {
        c_function(self.bytes, self.function_at(index)?)
    }

    fn site_record(&self, site: &pcmap_site) -> Result<pcmap_record, pcmap_status> {
        let (table, t) = self.c_table_at(site.table)?;
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

    fn site_function(&self, site: &pcmap_site) -> Result<pcmap_function, pcmap_status> {
        let (table, t) = self.c_table_at(site.table)?;
        pcmap_function::new(table, &t, site.function)
    }
}

/// The function containing return address `pc` and its record at `pc`
/// (`how`), if any (`pcmap_find`, `pcmap_find_at_or_after`).
pub fn find(
    s: &Section<'_>,
    pc: u64,
    how: Match,
) -> Result<Option<(pcmap_function, pcmap_record)>, pcmap_status> {
    let mut f = core::mem::MaybeUninit::uninit();
    let mut r = core::mem::MaybeUninit::uninit();
    let out = Full {
        function: f.as_mut_ptr(),
        record: r.as_mut_ptr(),
    };
    match s.search(Pc::ReturnAddress(pc), how, out)? {
        // SAFETY: `search` wrote both when it found the record.
        Some(()) => Ok(Some(unsafe { (f.assume_init(), r.assume_init()) })),
        None => Ok(None),
    }
}

/// The record at return address `pc` (`how`) as `pcmap_find_site` gives
/// it.
pub fn find_site(s: &Section<'_>, pc: u64, how: Match) -> Result<Option<pcmap_site>, pcmap_status> {
    let mut site = core::mem::MaybeUninit::uninit();
    match s.search(Pc::ReturnAddress(pc), how, SiteOut(site.as_mut_ptr()))? {
        // SAFETY: `search` wrote it when it found the record.
        Some(()) => Ok(Some(unsafe { site.assume_init() })),
        None => Ok(None),
    }
}

/// One entry of an ID index: the record's ID, its table's offset in the
/// section, and its function's and its own index in that table. Sorted by
/// all three: the records of one ID are adjacent, in section order.
pub type IdEntry = [u64; 3];

/// The C API's lookups by ID and by patch region.
pub trait CIds<'a> {
    /// How many records the section has: the entries of its ID index.
    fn num_records(&self) -> Result<usize, pcmap_status>;
    /// Each record's ID index entry, in section order, to `visit`.
    fn each_id(&self, visit: impl FnMut(IdEntry) -> bool) -> Result<(), pcmap_status>;
    /// Fills `out` (exactly `num_records` entries) with the ID index and
    /// sorts it. No memory of ours: the caller's.
    fn build_id_index(&self, out: &mut [IdEntry]) -> Result<(), pcmap_status>;
    /// The `n`th record (from 0, in section order) whose ID is `id`.
    fn find_id(
        &self,
        index: Option<&[IdEntry]>,
        id: u64,
        n: u32,
    ) -> Result<Option<pcmap_site>, pcmap_status>;
    /// The patch point or stack map whose patch region holds return address
    /// `pc`.
    fn find_patch_region(&self, pc: u64) -> Result<Option<pcmap_site>, pcmap_status>;
}

impl<'a> CIds<'a> for Section<'a> {
    /// How many records the section has: the entries of its ID index.
    fn num_records(&self) -> Result<usize, pcmap_status> {
        let mut n = 0usize;
        for t in self.c_tables() {
            n += t?.1.num_records() as usize;
        }
        Ok(n)
    }

    /// Each record's ID index entry, in section order, to `visit`.
    fn each_id(&self, mut visit: impl FnMut(IdEntry) -> bool) -> Result<(), pcmap_status> {
        for t in self.c_tables() {
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
    fn build_id_index(&self, out: &mut [IdEntry]) -> Result<(), pcmap_status> {
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
        out.sort_unstable();
        Ok(())
    }

    /// The `n`th record (from 0, in section order) whose ID is `id`: by
    /// binary search of `index` if given (built by `build_id_index` for
    /// this section), else by a scan of every record.
    fn find_id(
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
        let (_, t) = self.c_table_at(table)?;
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

    /// The patch point or stack map whose patch region holds return address
    /// `pc`: the record at `A` with a known patchable size `S` and
    /// `A < pc <= A + S` (a call inside the region returns into it, or to
    /// its end). Regions do not overlap (`pcmap emit` checks), so it is the
    /// function's last record before `pc`. Statepoints are not: their patch
    /// bytes end at the record, which `find` finds at the return address.
    fn find_patch_region(&self, pc: u64) -> Result<Option<pcmap_site>, pcmap_status> {
        for t in self.c_tables() {
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
