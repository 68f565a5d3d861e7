//! The variable-length parts of a flat table, in its Data area: Sites
//! (a record's ID, kind, patchable size, frame state, locations and
//! live-outs) and FrameStates (the CFI row at a record), decoded lazily,
//! each field bounds- and range-checked.
//!
//! Offsets given to and returned by this module are from the start of the
//! Data area; errors name offsets from the start of the table.

use super::layout::{frame_state_flags, location_head, site_head, RecordKind, MAX_COUNT};
use crate::leb128::{self, LebError};
use crate::{Error, LiveOut, Location, LocationKind, Result};

/// The Data area of a table, where its Sites and FrameStates are: decodes
/// them given their offsets in it.
#[derive(Debug, Clone, Copy)]
pub struct SiteData<'a> {
    pub(crate) bytes: &'a [u8],
    /// Offset of the Data area in the table, for error messages.
    pub(crate) base: usize,
}

impl<'a> SiteData<'a> {
    /// The Data area `bytes`, which starts at `base` in its table.
    pub fn new(bytes: &'a [u8], base: usize) -> Self {
        SiteData { bytes, base }
    }

    /// The Data area's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The Site at `offset`, with its live-outs found.
    #[inline]
    pub fn site_with_live_outs(&self, offset: u32) -> Result<SiteWithLiveOuts> {
        let site = self.site(offset)?;
        let (num_live_outs, live_outs) = self.live_outs_of(&site)?;
        Ok(SiteWithLiveOuts {
            site,
            num_live_outs,
            live_outs,
        })
    }

    /// The `count` locations at offset `at` of the Data area.
    pub fn locations_at(&self, at: u32, count: u16) -> Locations<'a> {
        Locations {
            data: *self,
            at: at as usize,
            left: count,
        }
    }

    /// The `count` live-outs at offset `at` of the Data area.
    pub fn live_outs_at(&self, at: u32, count: u16) -> LiveOuts<'a> {
        LiveOuts {
            data: *self,
            at: at as usize,
            left: count,
        }
    }

    /// The `count` saved registers at offset `at` of the Data area, their
    /// offsets shifted by `shift` ([`FrameState::scale_shift`]).
    pub fn saved_registers_at(&self, at: u32, count: u16, shift: u32) -> SavedRegisters<'a> {
        SavedRegisters {
            data: *self,
            at: at as usize,
            left: count,
            shift,
        }
    }

    fn err(&self, at: usize, e: LebError) -> Error {
        let offset = self.base.saturating_add(at);
        match e {
            LebError::Truncated => Error::Truncated { offset },
            LebError::Overflow => Error::BadLeb128 { offset },
        }
    }
    /// The ULEB128 at `*at`, at most `max` (which is at least 127);
    /// advances `*at`. One byte inline, longer ones out of line.
    #[inline(always)]
    fn uleb(&self, at: &mut usize, max: u64) -> Result<u64> {
        match self.bytes.get(*at) {
            Some(&b) if b < 0x80 => {
                *at += 1;
                Ok(b.into())
            }
            _ => self.uleb_long(at, max),
        }
    }
    #[inline(never)]
    fn uleb_long(&self, at: &mut usize, max: u64) -> Result<u64> {
        let (v, n) = leb128::read_uleb128(self.bytes, *at).map_err(|e| self.err(*at, e))?;
        if v > max {
            return Err(self.err(*at, LebError::Overflow));
        }
        *at += n;
        Ok(v)
    }
    /// The SLEB128 at `*at`, within `min..=max`; advances `*at`. One byte
    /// inline, longer ones out of line.
    #[inline(always)]
    fn sleb(&self, at: &mut usize, min: i64, max: i64) -> Result<i64> {
        if let Some(&b) = self.bytes.get(*at) {
            let v = i64::from((b << 1) as i8 >> 1);
            if b < 0x80 && v >= min && v <= max {
                *at += 1;
                return Ok(v);
            }
        }
        self.sleb_long(at, min, max)
    }
    #[inline(never)]
    fn sleb_long(&self, at: &mut usize, min: i64, max: i64) -> Result<i64> {
        let (v, n) = leb128::read_sleb128(self.bytes, *at).map_err(|e| self.err(*at, e))?;
        if v < min || v > max {
            return Err(self.err(*at, LebError::Overflow));
        }
        *at += n;
        Ok(v)
    }
    #[inline(always)]
    fn byte(&self, at: &mut usize) -> Result<u8> {
        let b = *self.bytes.get(*at).ok_or(Error::Truncated {
            offset: self.base.saturating_add(*at),
        })?;
        *at += 1;
        Ok(b)
    }

    /// The Site at `offset`.
    #[inline]
    pub fn site(&self, offset: u32) -> Result<Site> {
        let mut at = offset as usize;
        let id = self.uleb(&mut at, u64::MAX)?;
        let head = self.byte(&mut at)?;
        if head & site_head::RESERVED != 0 {
            return Err(Error::Inconsistent("reserved bits set in a site's head"));
        }
        let kind = match head & site_head::KIND {
            0 => RecordKind::Unknown,
            1 => RecordKind::StackMap,
            2 => RecordKind::PatchPoint,
            _ => RecordKind::StatePoint,
        };
        let patchable_size = if head & site_head::PATCHABLE_SIZE_KNOWN != 0 {
            Some(self.uleb(&mut at, u32::MAX.into())? as u32)
        } else {
            None
        };
        let frame_state = if head & site_head::HAS_FRAME_STATE != 0 {
            let fs = self.uleb(&mut at, u32::MAX.into())?;
            if fs as usize >= self.bytes.len() {
                return Err(Error::IndexOutOfRange {
                    what: "frame state offset",
                    index: fs,
                    count: self.bytes.len() as u64,
                });
            }
            Some(fs as u32)
        } else {
            None
        };
        let num_locations = self.uleb(&mut at, MAX_COUNT)? as u16;
        Ok(Site {
            offset,
            id,
            kind,
            patchable_size,
            has_live_out_info: head & site_head::HAS_LIVE_OUT_INFO != 0,
            frame_state,
            num_locations,
            locations: at as u32,
        })
    }

    /// One location at `*at`; advances `*at`.
    #[inline(always)]
    pub fn location(&self, at: &mut usize) -> Result<Location> {
        match self.location_short(at) {
            Some(l) => Ok(l),
            None => self.location_long(at),
        }
    }

    /// The usual location (what a stack walk decodes for every root), with
    /// no branch that builds an error: the default size, a register and an
    /// offset of one byte each if present. `None` (`*at` unchanged) for
    /// anything else, which [`location_long`](Self::location_long) decodes
    /// or rejects.
    #[inline(always)]
    fn location_short(&self, at: &mut usize) -> Option<Location> {
        let mut i = *at;
        let head = *self.bytes.get(i)?;
        if head & (location_head::SIZE | location_head::RESERVED) != 0 {
            return None;
        }
        let kind = LocationKind::from_u8(head & location_head::KIND)?;
        i += 1;
        let mut dwarf_reg = 0;
        if head & location_head::REG != 0 {
            let b = *self.bytes.get(i).filter(|&&b| b < 0x80)?;
            dwarf_reg = u16::from(b);
            i += 1;
        }
        let mut offset = 0;
        if head & location_head::OFFSET != 0 {
            let b = *self.bytes.get(i).filter(|&&b| b < 0x80)?;
            // SLEB128 in one byte: bit 6 is the sign. A constant index is
            // never negative.
            offset = i32::from((b << 1) as i8 >> 1);
            if offset < 0 && kind == LocationKind::ConstantIndex {
                return None;
            }
            i += 1;
        }
        *at = i;
        Some(Location {
            kind,
            size: location_head::DEFAULT_SIZE,
            dwarf_reg,
            offset,
        })
    }

    /// [`location`](Self::location), every encoding.
    #[inline(never)]
    fn location_long(&self, at: &mut usize) -> Result<Location> {
        let head_at = *at;
        let head = self.byte(at)?;
        let k = head & location_head::KIND;
        let kind = LocationKind::from_u8(k).ok_or(Error::BadLocationKind {
            offset: self.base.saturating_add(head_at),
            kind: k,
        })?;
        if head & location_head::RESERVED != 0 {
            return Err(Error::Inconsistent(
                "reserved bits set in a location's head",
            ));
        }
        let size = match head & location_head::SIZE {
            0 => location_head::DEFAULT_SIZE,
            _ => self.uleb(at, u16::MAX.into())? as u16,
        };
        let dwarf_reg = match head & location_head::REG {
            0 => 0,
            _ => self.uleb(at, u16::MAX.into())? as u16,
        };
        let offset = match head & location_head::OFFSET {
            0 => 0,
            // A constant index is a u32; the other kinds' values are i32.
            _ if kind == LocationKind::ConstantIndex => {
                self.sleb(at, 0, u32::MAX.into())? as u32 as i32
            }
            _ => self.sleb(at, i32::MIN.into(), i32::MAX.into())? as i32,
        };
        Ok(Location {
            kind,
            size,
            dwarf_reg,
            offset,
        })
    }

    /// Skips the locations of `site`; returns the live-outs' count and
    /// where they start.
    #[inline]
    pub fn live_outs_of(&self, site: &Site) -> Result<(u16, u32)> {
        self.live_outs_after(site.locations, site.num_locations)
    }

    /// Skips the `count` locations at `locations` (each decoded and
    /// checked); returns the live-outs' count and where they start.
    pub fn live_outs_after(&self, locations: u32, count: u16) -> Result<(u16, u32)> {
        let mut at = locations as usize;
        for _ in 0..count {
            self.location(&mut at)?;
        }
        let n = self.uleb(&mut at, MAX_COUNT)? as u16;
        Ok((n, at as u32))
    }

    /// One live-out at `*at`; advances `*at`.
    #[inline]
    pub fn live_out(&self, at: &mut usize) -> Result<LiveOut> {
        let dwarf_reg = self.uleb(at, u16::MAX.into())? as u16;
        let size = self.byte(at)?;
        Ok(LiveOut { dwarf_reg, size })
    }

    /// The FrameState at `offset`.
    #[inline]
    pub fn frame_state(&self, offset: u32) -> Result<FrameState> {
        let mut at = offset as usize;
        let flags = self.byte(&mut at)?;
        if flags & frame_state_flags::RESERVED != 0 {
            return Err(Error::Inconsistent("reserved bits set in a frame state"));
        }
        let shift = scale_shift(flags);
        let cfa = if flags & frame_state_flags::CFA_RULE != 0 {
            let register = self.uleb(&mut at, u16::MAX.into())? as u16;
            let offset = self.offset(&mut at, shift)?;
            Some(Cfa { register, offset })
        } else {
            None
        };
        let num_saved = self.uleb(&mut at, MAX_COUNT)? as u16;
        Ok(FrameState {
            offset,
            flags,
            cfa,
            num_saved,
            saved: at as u32,
        })
    }

    /// A frame state's offset at `*at`, stored shifted right by `shift`
    /// (0 or `SCALE_SHIFT`): an i32 once scaled back; advances `*at`.
    #[inline(always)]
    fn offset(&self, at: &mut usize, shift: u32) -> Result<i32> {
        let (min, max) = (i64::from(i32::MIN) >> shift, i64::from(i32::MAX) >> shift);
        Ok((self.sleb(at, min, max)? << shift) as i32)
    }

    /// One saved register at `*at` of a frame state whose offsets are
    /// shifted by `shift` ([`FrameState::scale_shift`]); advances `*at`.
    #[inline(always)]
    pub fn saved_register(&self, at: &mut usize, shift: u32) -> Result<FrameRegister> {
        // The usual entry, two one-byte LEB128s, without a branch that
        // builds an error (a one-byte offset shifted by at most 3 is an i32).
        if let Some(&[r, o]) = self.bytes.get(*at..*at + 2) {
            if r < 0x80 && o < 0x80 {
                *at += 2;
                return Ok(FrameRegister {
                    dwarf_reg: r.into(),
                    offset: i32::from((o << 1) as i8 >> 1).wrapping_shl(shift),
                });
            }
        }
        self.saved_register_long(at, shift)
    }

    #[inline(never)]
    fn saved_register_long(&self, at: &mut usize, shift: u32) -> Result<FrameRegister> {
        let dwarf_reg = self.uleb(at, u16::MAX.into())? as u16;
        let offset = self.offset(at, shift)?;
        Ok(FrameRegister { dwarf_reg, offset })
    }

    /// Decodes all of the Site at `offset` (and its frame state) and checks
    /// constant indices against `num_constants` and saved registers'
    /// order; returns the end of the Site and of its frame state.
    pub fn check_site(&self, offset: u32, num_constants: u32) -> Result<(usize, usize)> {
        let site = self.site(offset)?;
        let mut at = site.locations as usize;
        for _ in 0..site.num_locations {
            let l = self.location(&mut at)?;
            if l.kind == LocationKind::ConstantIndex && l.offset as u32 >= num_constants {
                return Err(Error::IndexOutOfRange {
                    what: "constant",
                    index: u64::from(l.offset as u32),
                    count: num_constants.into(),
                });
            }
        }
        let n = self.uleb(&mut at, MAX_COUNT)?;
        for _ in 0..n {
            self.live_out(&mut at)?;
        }
        let mut end = at;
        if let Some(fs) = site.frame_state {
            end = end.max(self.check_frame_state(fs)?);
        }
        Ok((at, end))
    }

    /// Decodes all of the FrameState at `offset`, saved registers strictly
    /// ascending by register; returns its end.
    pub fn check_frame_state(&self, offset: u32) -> Result<usize> {
        let fs = self.frame_state(offset)?;
        let mut at = fs.saved as usize;
        let mut last = None;
        for _ in 0..fs.num_saved {
            let r = self.saved_register(&mut at, fs.scale_shift())?;
            if last.is_some_and(|l| r.dwarf_reg <= l) {
                return Err(Error::Inconsistent(
                    "saved registers of a frame state not sorted by register",
                ));
            }
            last = Some(r.dwarf_reg);
        }
        Ok(at)
    }
}

/// A Site's fixed part, decoded; its locations and live-outs are read on
/// request (`FlatStackMap::locations`,
/// `FlatStackMap::live_outs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    /// Where it is, in bytes from the start of the Data area.
    pub offset: u32,
    /// The ID given to the intrinsic.
    pub id: u64,
    /// What produced the record.
    pub kind: RecordKind,
    /// `None` when not known.
    pub patchable_size: Option<u32>,
    /// LLVM listed the live-outs (patch points).
    pub has_live_out_info: bool,
    /// Offset of its FrameState in the Data area; `None` when no CFI
    /// described the code at the record.
    pub frame_state: Option<u32>,
    /// How many locations it has.
    pub num_locations: u16,
    /// Offset of the first location in the Data area.
    pub locations: u32,
}

/// A Site with its live-outs found (the locations skipped once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteWithLiveOuts {
    /// The Site.
    pub site: Site,
    /// How many live-outs it has.
    pub num_live_outs: u16,
    /// Offset of the first live-out in the Data area.
    pub live_outs: u32,
}

/// A register + offset CFA rule: CFA = value of `register` + `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cfa {
    /// DWARF number.
    pub register: u16,
    /// Added to the register's value.
    pub offset: i32,
}

impl Cfa {
    /// The CFA given the value of [`register`](Self::register).
    pub fn cfa(&self, register_value: u64) -> u64 {
        register_value.wrapping_add(self.offset as i64 as u64)
    }
}

/// A callee-saved register and where the function saved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameRegister {
    /// DWARF register number.
    pub dwarf_reg: u16,
    /// Slot address minus the CFA.
    pub offset: i32,
}

/// A FrameState's fixed part, decoded; its saved registers are read on
/// request (`FlatStackMap::saved_registers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameState {
    /// Where it is, in bytes from the start of the Data area.
    pub offset: u32,
    /// [`frame_state_flags`](super::frame_state_flags).
    pub flags: u8,
    /// `None`: the CFA is a DWARF expression or unknown (a stack walk must
    /// stop at this frame).
    pub cfa: Option<Cfa>,
    /// How many saved registers it lists.
    pub num_saved: u16,
    /// Offset of the first saved register in the Data area.
    pub saved: u32,
}

impl FrameState {
    /// Whether the function realigns its stack pointer.
    pub fn stack_realigned(&self) -> bool {
        self.flags & frame_state_flags::STACK_REALIGNED != 0
    }
    /// How far its offsets are shifted right where stored: 3 with
    /// `SCALED`, else 0.
    pub fn scale_shift(&self) -> u32 {
        scale_shift(self.flags)
    }
}

/// The scale shift of frame state flags `flags`.
#[inline(always)]
fn scale_shift(flags: u8) -> u32 {
    match flags & frame_state_flags::SCALED {
        0 => 0,
        _ => frame_state_flags::SCALE_SHIFT,
    }
}

/// A Site's locations, decoded one by one.
#[derive(Debug, Clone)]
pub struct Locations<'a> {
    pub(crate) data: SiteData<'a>,
    pub(crate) at: usize,
    pub(crate) left: u16,
}

impl Locations<'_> {
    /// Offset in the Data area of the next location (after the last: of
    /// the live-out count).
    pub fn position(&self) -> u32 {
        self.at as u32
    }
    /// Locations not yet decoded.
    pub fn remaining(&self) -> u16 {
        self.left
    }
}

impl Iterator for Locations<'_> {
    type Item = Result<Location>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self.data.location(&mut self.at);
        if r.is_err() {
            self.left = 0;
        }
        Some(r)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left.into()))
    }
}

/// A Site's live-outs, decoded one by one.
#[derive(Debug, Clone)]
pub struct LiveOuts<'a> {
    pub(crate) data: SiteData<'a>,
    pub(crate) at: usize,
    pub(crate) left: u16,
}

impl Iterator for LiveOuts<'_> {
    type Item = Result<LiveOut>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self.data.live_out(&mut self.at);
        if r.is_err() {
            self.left = 0;
        }
        Some(r)
    }
}

/// A FrameState's saved registers, decoded one by one.
#[derive(Debug, Clone)]
pub struct SavedRegisters<'a> {
    pub(crate) data: SiteData<'a>,
    pub(crate) at: usize,
    pub(crate) left: u16,
    pub(crate) shift: u32,
}

impl Iterator for SavedRegisters<'_> {
    type Item = Result<FrameRegister>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self.data.saved_register(&mut self.at, self.shift);
        if r.is_err() {
            self.left = 0;
        }
        Some(r)
    }
}
