//! A record's locations, live-outs and saved registers, decoded in turn
//! through a cursor or by index (decoding the ones before it), and decoding
//! a location into a value for one frame, given the registers the caller
//! recovered for that frame.

use pcmap_reader::flat;
use pcmap_reader::{Location, LocationKind};

use crate::status::pcmap_status::{self, *};
use crate::types::{
    pcmap_cursor, pcmap_frame_register, pcmap_live_out, pcmap_location, pcmap_record,
    pcmap_register, pcmap_value,
};

/// Which of a record's lists a cursor walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Locations,
    LiveOuts,
    FrameRegisters,
}

/// A cursor at the start of `r`'s `list` (its `remaining`: the number of
/// entries). The live-outs are found by skipping the locations.
pub fn cursor(r: &pcmap_record, list: List) -> Result<pcmap_cursor, pcmap_status> {
    let t = r.table.open()?;
    let data = t.data();
    let (at, count, shift) = match list {
        List::Locations => (r.locations, r.num_locations, 0),
        List::LiveOuts => {
            let (count, at) = data.live_outs_after(r.locations, r.num_locations)?;
            (at, count, 0)
        }
        List::FrameRegisters => (
            r.frame_registers,
            r.num_frame_registers,
            u32::from(r.frame_shift),
        ),
    };
    Ok(pcmap_cursor::new(&data, at, count, shift))
}

/// Decodes the next entry of `c` with `read`; `None` at the end.
fn next<T>(
    c: &mut pcmap_cursor,
    read: impl FnOnce(&pcmap_reader::flat::SiteData<'_>, &mut usize) -> pcmap_reader::Result<T>,
) -> Result<Option<T>, pcmap_status> {
    if c.remaining == 0 {
        return Ok(None);
    }
    let data = c.site_data()?;
    let mut at = c.position as usize;
    let v = read(&data, &mut at)?;
    c.position = at as u32;
    c.remaining -= 1;
    Ok(Some(v))
}

pub fn location_next(c: &mut pcmap_cursor) -> Result<Option<pcmap_location>, pcmap_status> {
    Ok(next(c, |d, at| d.location(at))?.map(pcmap_location::from))
}

pub fn live_out_next(c: &mut pcmap_cursor) -> Result<Option<pcmap_live_out>, pcmap_status> {
    Ok(next(c, |d, at| d.live_out(at))?.map(pcmap_live_out::from))
}

pub fn frame_register_next(
    c: &mut pcmap_cursor,
) -> Result<Option<pcmap_frame_register>, pcmap_status> {
    let shift = u32::from(c.shift).min(flat::frame_state_flags::SCALE_SHIFT);
    Ok(
        next(c, |d, at| d.saved_register(at, shift))?.map(|r| pcmap_frame_register {
            dwarf_reg: r.dwarf_reg,
            offset: r.offset,
        }),
    )
}

/// Entry `index` of `r`'s `list`: the entries before it are decoded too.
fn nth<T>(
    r: &pcmap_record,
    list: List,
    index: u32,
    mut read: impl FnMut(&mut pcmap_cursor) -> Result<Option<T>, pcmap_status>,
) -> Result<T, pcmap_status> {
    let mut c = cursor(r, list)?;
    if index >= u32::from(c.remaining) {
        return Err(PCMAP_ERR_OUT_OF_RANGE);
    }
    for _ in 0..index {
        read(&mut c)?;
    }
    read(&mut c)?.ok_or(PCMAP_ERR_OUT_OF_RANGE)
}

pub fn location(r: &pcmap_record, index: u32) -> Result<pcmap_location, pcmap_status> {
    nth(r, List::Locations, index, location_next)
}

pub fn live_out(r: &pcmap_record, index: u32) -> Result<pcmap_live_out, pcmap_status> {
    nth(r, List::LiveOuts, index, live_out_next)
}

pub fn frame_register(r: &pcmap_record, index: u32) -> Result<pcmap_frame_register, pcmap_status> {
    nth(r, List::FrameRegisters, index, frame_register_next)
}

/// The saved register entry of `dwarf_reg`, if the frame state has one.
pub fn find_frame_register(
    r: &pcmap_record,
    dwarf_reg: u16,
) -> Result<Option<pcmap_frame_register>, pcmap_status> {
    let mut c = cursor(r, List::FrameRegisters)?;
    while let Some(reg) = frame_register_next(&mut c)? {
        if reg.dwarf_reg == dwarf_reg {
            return Ok(Some(reg));
        }
    }
    Ok(None)
}

/// Location `index` of `r` in the frame whose registers are `regs`.
pub fn decode(
    r: &pcmap_record,
    index: u32,
    regs: &[pcmap_register],
) -> Result<pcmap_value, pcmap_status> {
    decode_location(r, &location(r, index)?, regs)
}

/// Location `loc` of `r` in the frame whose registers are `regs`.
pub fn decode_location(
    r: &pcmap_record,
    loc: &pcmap_location,
    regs: &[pcmap_register],
) -> Result<pcmap_value, pcmap_status> {
    let loc = Location {
        kind: LocationKind::from_u8(loc.kind).ok_or(PCMAP_ERR_ARGUMENT)?,
        size: loc.size,
        dwarf_reg: loc.dwarf_reg,
        offset: loc.offset,
    };
    let reg = || {
        regs.iter()
            .find(|g| g.dwarf_reg == loc.dwarf_reg)
            .ok_or(PCMAP_ERR_NO_REGISTER)
    };
    // Register arithmetic wraps like the machine's: offsets are signed.
    let at = |base: u64| base.wrapping_add(loc.offset as i64 as u64);
    let mut v = pcmap_value::default();
    match loc.kind {
        LocationKind::Register => {
            let g = reg()?;
            v.value = g.value;
            v.has_value = true;
            v.address = g.address;
            v.has_address = g.address != 0;
        }
        LocationKind::Direct => {
            v.value = at(reg()?.value);
            v.has_value = true;
        }
        LocationKind::Indirect => {
            v.address = at(reg()?.value);
            v.has_address = true;
        }
        LocationKind::Constant => {
            v.value = loc.offset as i64 as u64;
            v.has_value = true;
        }
        LocationKind::ConstantIndex => {
            let t = r.table.open()?;
            v.value = t.constant(loc.offset as u32)?;
            v.has_value = true;
        }
    }
    Ok(v)
}
