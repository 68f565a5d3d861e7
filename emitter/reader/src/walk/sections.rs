//! [`UnwindTables`] over opened sections ([`OpenedSection`]): a Rust
//! runtime's own program, and each library it loaded with its tables.

use super::stop::Stop;
use super::tables::{CacheKey, CfaRule, FrameAt, State, UnwindTables};
use crate::flat::{
    frame_state_flags, FrameState, Function, Hit, Match, OpenedSection, Output, Pc, Site, SiteData,
    TableAt, BIG_ENDIAN,
};
use crate::{Endian, Error, Location};

/// A record found in a section, with what a walk reads of it: its Site
/// (ID, kind, locations), its frame state, its table's Data area and
/// large constants.
#[derive(Debug, Clone, Copy)]
pub struct SectionRecord<'a> {
    /// The record's address (a call's return address).
    pub address: u64,
    /// Its index in its table.
    pub index: u32,
    /// Its Site.
    pub site: Site,
    /// Its frame state, if CFI described the code at it.
    pub frame_state: Option<FrameState>,
    data: SiteData<'a>,
    constants: &'a [u8],
    big_endian: bool,
}

impl<'a> SectionRecord<'a> {
    /// The record's Data area (where its locations and frame state are).
    pub fn data(&self) -> SiteData<'a> {
        self.data
    }
}

/// The walk's lookup: the function and the record, decoded.
#[derive(Clone, Copy)]
struct Found;

impl<'a> Output<'a> for Found {
    type Out = (Function, SectionRecord<'a>);
    type Error = Error;

    #[inline]
    fn write<E: Endian + 'a>(
        self,
        bytes: &'a [u8],
        at: TableAt,
        hit: Hit<'a, E>,
    ) -> crate::Result<Self::Out> {
        let table = bytes.get(at.offset..).unwrap_or_default();
        let data = SiteData::of_kept(table, at.header.kept());
        let record = hit.record();
        let site = data.site(record.site)?;
        let frame_state = match site.frame_state {
            Some(fs) => Some(data.frame_state(fs)?),
            None => None,
        };
        let b = &at.header.bounds;
        let constants = table
            .get(b[crate::flat::CONSTANTS] as usize..b[crate::flat::MAP_ARRAY] as usize)
            .unwrap_or_default();
        let function = hit.function();
        Ok((
            function,
            SectionRecord {
                address: function.record_address(&record),
                index: hit.found.record,
                site,
                frame_state,
                data,
                constants,
                big_endian: at.header.flags & BIG_ENDIAN != 0,
            },
        ))
    }
}

/// What `section` says about `pc`.
fn frame_in<'a>(
    section: &'a OpenedSection<'_>,
    pc: Pc,
) -> crate::Result<FrameAt<Function, SectionRecord<'a>>> {
    let found = match section.search_mapped(pc, Match::Exact, Found) {
        Some(found) => found?,
        None => section.section().search(pc, Match::Exact, Found)?,
    };
    if let Some((f, r)) = found {
        return Ok(FrameAt::Record(f, r));
    }
    Ok(match section.section().function_containing(pc)? {
        Some((at, t, index)) => FrameAt::NoRecord(t.function(index, at.address)?),
        None => FrameAt::Unmanaged,
    })
}

/// The tables of one or more opened sections (a program's own, each
/// library's), for a walk: a PC is looked up in each in turn.
///
/// ```
/// # let (bytes, address) = pcmap_reader::flat::example_table();
/// use pcmap_reader::flat::{OpenedSection, Pc};
/// use pcmap_reader::walk::{FrameAt, SectionTables, UnwindTables};
/// let opened = [OpenedSection::open(&bytes, address)?];
/// let tables = SectionTables::new(&opened);
/// let FrameAt::Record(f, r) = tables.frame_at(Pc::ReturnAddress(0x40_1010))? else {
///     panic!("no record")
/// };
/// assert_eq!((f.address, r.site.id), (0x40_1000, 7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SectionTables<'s, 'a> {
    sections: &'s [OpenedSection<'a>],
}

impl<'s, 'a> SectionTables<'s, 'a> {
    /// The tables of `sections`. A [`Cache`](super::Cache) of their frames
    /// is keyed by where the slice is and its first and last sections:
    /// [`flush`](super::Cache::flush) it if the slice's sections change in
    /// place.
    pub fn new(sections: &'s [OpenedSection<'a>]) -> Self {
        SectionTables { sections }
    }
}

impl<'s, 'a: 's> UnwindTables for SectionTables<'s, 'a> {
    type Function = Function;
    type Record = SectionRecord<'s>;

    fn frame_at(&self, pc: Pc) -> Result<FrameAt<Function, SectionRecord<'s>>, Stop> {
        for s in self.sections {
            match frame_in(s, pc)? {
                FrameAt::Unmanaged => continue,
                at => return Ok(at),
            }
        }
        Ok(FrameAt::Unmanaged)
    }

    #[inline]
    fn state(&self, r: &SectionRecord<'s>) -> State {
        match r.frame_state {
            None => State::None,
            Some(FrameState { cfa: None, .. }) => State::NoCfaRule,
            Some(FrameState { flags, .. }) if flags & frame_state_flags::CFA_RULE == 0 => {
                State::NoCfaRule
            }
            Some(FrameState { cfa: Some(c), .. }) => State::Cfa(CfaRule {
                register: c.register,
                offset: c.offset,
            }),
        }
    }

    fn saved_registers(
        &self,
        r: &SectionRecord<'s>,
        mut visit: impl FnMut(u16, i32),
    ) -> crate::Result<()> {
        if let Some(fs) = &r.frame_state {
            for reg in r
                .data
                .saved_registers_at(fs.saved, fs.num_saved, fs.scale_shift())
            {
                let reg = reg?;
                visit(reg.dwarf_reg, reg.offset);
            }
        }
        Ok(())
    }

    #[inline]
    fn kind(&self, r: &SectionRecord<'s>) -> u8 {
        r.site.kind as u8
    }

    fn locations<'r>(
        &'r self,
        r: &'r SectionRecord<'s>,
    ) -> impl Iterator<Item = crate::Result<Location>> + 'r {
        r.data.locations_at(r.site.locations, r.site.num_locations)
    }

    fn constant(&self, r: &SectionRecord<'s>, index: u32) -> crate::Result<u64> {
        let at = index as usize * crate::flat::CONSTANT_SIZE;
        let bytes: [u8; 8] = r
            .constants
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .ok_or(Error::IndexOutOfRange {
                what: "constant",
                index: index.into(),
                count: (r.constants.len() / crate::flat::CONSTANT_SIZE) as u64,
            })?;
        Ok(match r.big_endian {
            true => u64::from_be_bytes(bytes),
            false => u64::from_le_bytes(bytes),
        })
    }

    fn cache_key(&self) -> CacheKey {
        let first = self
            .sections
            .first()
            .map_or(0, |s| s.bytes().as_ptr() as u64);
        let last = self
            .sections
            .last()
            .map_or(0, |s| s.bytes().as_ptr() as u64);
        [
            self.sections.as_ptr() as u64,
            self.sections.len() as u64,
            first,
            last,
        ]
    }
}
